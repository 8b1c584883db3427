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

    private static func read(_ path: String) throws(RecordingError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw RecordingError(line: 0, message: "cannot read: \(error.localizedDescription)", file: path)
        }
    }
}

extension RecordingError {
    fileprivate func `in`(_ path: String) -> RecordingError {
        var copy = self
        copy.file = path
        return copy
    }
}
