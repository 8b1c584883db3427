import Foundation
@testable import popgesturectl
import Testing

/// The bridge's reading of `~/.config/popgestured/popgestured.conf`, on real files and
/// real inotify in a temporary folder.
@Suite struct UserSettingsWatchTests {
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "popgesture-settings-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func readable(_ watch: UserSettingsWatch) -> Bool {
        guard let fd = watch.descriptor?.rawValue else { return false }
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&poll, 1, 2000) == 1
    }

    @Test("no folder: empty; the folder and the file made afterwards are seen by inotify, then their change and removal")
    func followsTheFile() throws {
        let base = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let watch = UserSettingsWatch(base: base)
        var logged: [String] = []
        #expect(watch.read { logged.append($0) } == "")
        try FileManager.default.createDirectory(atPath: watch.folder, withIntermediateDirectories: false)
        #expect(Self.readable(watch), "the folder's creation")
        watch.drain()
        try "edge-width-mm = 6\n".write(toFile: watch.path, atomically: false, encoding: .utf8)
        #expect(Self.readable(watch), "the file's write")
        watch.drain()
        #expect(watch.read { logged.append($0) } == "edge-width-mm = 6\n")
        try "mode = edge\n".write(toFile: watch.path, atomically: true, encoding: .utf8)  // a rename over it, as editors save
        #expect(Self.readable(watch))
        watch.drain()
        #expect(watch.read { logged.append($0) } == "mode = edge\n")
        try FileManager.default.removeItem(atPath: watch.path)
        #expect(Self.readable(watch))
        watch.drain()
        #expect(watch.read { logged.append($0) } == "")
        #expect(logged.isEmpty)
    }

    @Test("a file past 16 KiB, or not UTF-8, is not sent: empty, and said once")
    func boundedAndText() throws {
        let base = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let watch = UserSettingsWatch(base: base)
        try FileManager.default.createDirectory(atPath: watch.folder, withIntermediateDirectories: false)
        try Data(repeating: 0x23, count: UserSettingsWatch.maximumBytes + 1).write(to: URL(fileURLWithPath: watch.path))
        var logged: [String] = []
        #expect(watch.read { logged.append($0) } == "")
        #expect(watch.read { logged.append($0) } == "")
        #expect(logged.count == 1 && logged[0].contains("more than 16384 bytes"), "\(logged)")
        try Data([0x6D, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: watch.path))
        #expect(watch.read { logged.append($0) } == "")
        #expect(logged.last?.contains("not UTF-8") == true)
        try Data(repeating: 0x23, count: UserSettingsWatch.maximumBytes).write(to: URL(fileURLWithPath: watch.path))
        #expect(watch.read { logged.append($0) }.utf8.count == UserSettingsWatch.maximumBytes, "exactly the limit is taken")
    }
}
