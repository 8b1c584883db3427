import Foundation
import PopGestureCore

// The only file that touches the disk: parsing itself works on strings.
extension Recording {
    /// Reads files from disk. `descriptionPath` names an evemu .desc for an events-only file.
    /// Errors are `RecordingError`s that name the file at fault.
    public init(contentsOf path: String, descriptionPath: String? = nil) throws {
        var description: DeviceDescription?
        if let descriptionPath {
            let text = try Self.read(descriptionPath)
            do { description = try Self.parseDescription(text) } catch { throw error.in(descriptionPath) }
        }
        let text = try Self.read(path)
        do { try self.init(parsing: text, description: description) } catch { throw error.in(path) }
    }

    /// Reads at most ``maximumFileSize`` + 1 bytes, so that a larger file (or an endless
    /// one such as `/dev/zero`) is refused without being read whole.
    private static func read(_ path: String) throws(RecordingError) -> String {
        let bytes: Data
        do {
            guard let file = FileHandle(forReadingAtPath: path) else {
                throw RecordingError(line: 0, message: "cannot read: no such file or no permission", file: path)
            }
            defer { try? file.close() }
            bytes = try file.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(line: 0, message: "cannot read: \(error.localizedDescription)", file: path)
        }
        do { return try decode(bytes) } catch { throw error.in(path) }
    }
}

extension RecordingError {
    fileprivate func `in`(_ path: String) -> RecordingError {
        var copy = self
        copy.file = path
        return copy
    }
}
