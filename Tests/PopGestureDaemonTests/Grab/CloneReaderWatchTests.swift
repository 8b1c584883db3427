import Glibc
@testable import PopGestureDaemon
import PopGestureInput
import Testing

/// Grab mode's reader watch: inotify on a directory reports, by name, the opens and
/// closes of the files in it (as of /dev/input's clones).
@Suite struct CloneReaderWatchTests {
    @Test("an open and a close of a file in the watched folder, by path; nothing else pending")
    func opensAndCloses() throws {
        var template = Array("/tmp/clone-watch.XXXXXX".utf8CString)
        let made = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) })
        let directory = String(cString: made)
        defer { rmdir(directory) }
        let path = directory + "/event9"
        let created = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #expect(created >= 0)
        close(created)
        defer { unlink(path) }

        let watch = try CloneReaderWatch(directory: directory)
        #expect(watch.read().isEmpty)
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        #expect(reader >= 0)
        #expect(watch.read() == [CloneReaderWatch.Change.opened(path)])
        close(reader)
        #expect(watch.read() == [CloneReaderWatch.Change.closed(path)])
        let writer = open(path, O_RDWR | O_CLOEXEC)
        close(writer)
        #expect(watch.read() == [CloneReaderWatch.Change.opened(path), .closed(path)])
        #expect(watch.read().isEmpty)
    }

    @Test("a folder that cannot be watched: an error naming it")
    func missingFolder() {
        let error = #expect(throws: InputError.self) { try CloneReaderWatch(directory: "/nonexistent/input") }
        #expect(error?.message.contains("/nonexistent/input") == true)
    }

    // <sys/inotify.h>: IN_OPEN 0x20, IN_CLOSE_NOWRITE 0x10, IN_Q_OVERFLOW 0x4000.
    @Test("the queue's overflow record, and a record with no name (the folder itself), parsed")
    func parse() {
        func record(mask: UInt32, name: String) -> [UInt8] {
            let padded = name.isEmpty ? [] : Array(name.utf8) + [UInt8](repeating: 0, count: 16 - name.utf8.count % 16)
            var bytes: [UInt8] = []
            for word in [UInt32(1), mask, 0, UInt32(padded.count)] {
                bytes += [UInt8(word & 0xff), UInt8(word >> 8 & 0xff), UInt8(word >> 16 & 0xff), UInt8(word >> 24)]
            }
            return bytes + padded
        }
        let bytes = record(mask: 0x20, name: "event12") + record(mask: 0x4000, name: "")
            + record(mask: 0x20, name: "") + record(mask: 0x10, name: "event3")
        var changes: [CloneReaderWatch.Change] = []
        CloneReaderWatch.parse(bytes[...], directory: "/dev/input", into: &changes)
        #expect(changes == [.opened("/dev/input/event12"), .overflow, .closed("/dev/input/event3")])
    }
}
