import Foundation
import PopGestureCore
import PopGestureRecording
import Testing

/// What a recording file can hold that must not trap or exhaust the reader (issue 7):
/// size, invalid UTF-8, nesting, aliases, endless bitmasks, extreme timestamps.
@Suite struct RecordingLimitsTests {
    static func temporaryFile(_ bytes: [UInt8] = [], size: Int? = nil) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("recording-limits-\(UInt64.random(in: 0 ... .max))").path
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        if let size { truncate(path, off_t(size)) }
        return path
    }

    @Test("A file over 64 MiB is refused with a clear error, without reading it whole")
    func tooLargeFile() throws {
        let path = try Self.temporaryFile(size: Recording.maximumFileSize + 1)
        defer { unlink(path) }
        #expect {
            _ = try Recording(contentsOf: path)
        } throws: { error in
            let error = error as? RecordingError
            return error?.file == path && error?.message.contains("too large") == true
                && error?.message.contains("64 MiB") == true
        }
    }

    @Test("/dev/zero is refused as too large instead of read until memory runs out")
    func endlessFile() throws {
        #expect {
            _ = try Recording(contentsOf: "/dev/zero")
        } throws: { error in
            (error as? RecordingError)?.message.contains("too large") == true
        }
    }

    @Test("Invalid UTF-8 in an evemu device name is an error with its line number")
    func invalidUTF8EvemuName() throws {
        let bytes = Array("# EVEMU 1.3\nI: 0003 0001 0002 0001\nN: Bad ".utf8) + [0xff, 0xfe] + Array(" Name\n".utf8)
        let path = try Self.temporaryFile(bytes)
        defer { unlink(path) }
        #expect {
            _ = try Recording(contentsOf: path)
        } throws: { error in
            let error = error as? RecordingError
            return error?.line == 3 && error?.message == "invalid UTF-8 in the device name" && error?.file == path
        }
        #expect(throws: RecordingError.self) { _ = try Recording(parsing: bytes) }
    }

    @Test("Invalid UTF-8 in a libinput record name is an error with its line number")
    func invalidUTF8LibinputName() {
        let bytes = Array("version: 1\ndevices:\n- evdev:\n    name: \"".utf8) + [0xc3] + Array("\"\n".utf8)
        do {
            _ = try Recording(parsing: bytes)
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect(error.line == 4)
            #expect(error.message.contains("device name"))
        }
    }

    @Test("Deeply nested libinput YAML is refused before Yams recurses", arguments: ["[", "{a: ", "- "])
    func deepNesting(opener: String) {
        let text = "version: 1\ndevices: " + (opener == "- " ? "\n" : "") + String(repeating: opener, count: 100_000) + "x\n"
        do {
            _ = try Recording(parsing: text)
            Issue.record("100,000 levels of nesting were accepted")
        } catch {
            #expect(error.message.contains("nested too deeply") || error.message.contains("invalid YAML"))
        }
    }

    /// A libinput record of one device named x, whose `events:` list is `events`.
    static func libinputRecord(events: String) -> String {
        """
        version: 1
        devices:
        - evdev:
            name: x
            id: [0, 0, 0, 0]
          events:

        """ + events
    }

    @Test("Aliases that multiply events past what the file can hold are refused")
    func aliasMultiplication() {
        let text = Self.libinputRecord(
            events: "  - &f {evdev: [[0, 0, 3, 0, 1], [0, 0, 3, 0, 1], [0, 0, 3, 0, 1], [0, 0, 3, 0, 1], [0, 0, 0, 0, 0]]}\n"
                + String(repeating: "  - *f\n", count: 200))
        #expect(throws: RecordingError.self) { _ = try Recording(parsing: text) }
    }

    @Test("An endless B: bitmask keeps only bits that name codes")
    func longBitmask() throws {
        let line = "B: 01" + String(repeating: " ff", count: 100_000) + "\n"
        let device = try Recording.parseDescription("N: Keys\nI: 0003 0001 0002 0001\n" + line)
        #expect(device.keys.count == 0x300)
        #expect(device.keys.max() == 0x2ff)
    }

    @Test("Event times at the ends of Int64 saturate instead of trapping")
    func extremeEventTimes() throws {
        let text = "N: T\nI: 0003 0001 0002 0001\nE: 99999999999999999.999999 0000 0000 0000\n"
            + "E: 9223372036854.775807 0000 0000 0000\n"
        let recording = try Recording(parsing: text)
        #expect(recording.events.map(\.time.microseconds) == [.max, .max])
        let yaml = Self.libinputRecord(
            events: "  - evdev: [[9223372036854775807, 999999, 0, 0, 0], [-9223372036854775808, -1, 0, 0, 0]]\n")
        #expect(try Recording(parsing: yaml).events.map(\.time.microseconds) == [.max, .min])
    }

    @Test("A sexagesimal number that overflows is an error naming its line, not a trap in Yams")
    func sexagesimalOverflow() {
        let text = """
            version: 1
            devices:
            - evdev:
                name: x
                id: [1:1:1:1:1:1:1:1:1:1:1:1:1, 0, 0, 0]

            """
        do {
            _ = try Recording(parsing: text)
            Issue.record("a 13-part sexagesimal id was accepted")
        } catch {
            #expect(error.line == 5)
            #expect(error.message.contains("expected an integer"))
        }
    }
}
