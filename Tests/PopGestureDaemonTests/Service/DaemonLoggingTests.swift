import Dispatch
import Logging
@testable import PopGestureDaemon
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The lines a test's log output received.
private final class Received: Sendable {
    let lines = Mutex<[String]>([])
    /// Held by the test to stall the output, as a full stderr pipe would.
    let stall = DispatchSemaphore(value: 1)

    func write(_ line: String) {
        stall.wait()
        stall.signal()
        lines.withLock { $0.append(line) }
    }
}

@Suite struct DaemonLoggingTests {
    @Test("under the journal a warning starts with <4>, the syslog priority journald reads")
    func journalLinesCarryTheirPriority() throws {
        let received = Received()
        let logging = DaemonLogging(level: .debug, journal: true, write: received.write)
        let logger = logging.makeLogger()
        logger.warning("touchscreen gone", metadata: ["device": "event5"])
        logger.critical("cannot start")
        logger.debug("pan began")
        #expect(logging.flush(timeoutSeconds: 10))
        #expect(received.lines.withLock { $0 } == [
            "<4>popgestured: touchscreen gone device=event5\n",
            "<2>popgestured: cannot start\n",
            "<7>popgestured: pan began\n",
        ])
    }

    @Test("outside the journal a line says its level in words, and has no <N>")
    func plainLinesSayTheirLevel() throws {
        let received = Received()
        let logging = DaemonLogging(level: .info, journal: false, write: received.write)
        logging.makeLogger().notice("configuration reloaded")
        logging.makeLogger().debug("below the level: not written")
        #expect(logging.flush(timeoutSeconds: 10))
        let lines = received.lines.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix(" notice popgestured: configuration reloaded\n") == true)
        #expect(lines.first?.hasPrefix("<") == false)
    }

    @Test("a message with a newline stays one journal entry with its priority")
    func aNewlineDoesNotStartAnEntry() {
        let line = LogLine.journal(level: .error, label: "popgestured", message: "a\nb", metadata: [:])
        #expect(line == "<3>popgestured: a\\nb\n")
    }

    /// Issue 28: a shell's output name and a client's app id reached the log raw.
    @Test("control characters from a client (ESC, NUL, BEL, DEL, C1) are written as escapes")
    func controlCharactersAreEscaped() {
        let app = "org.evil\u{1B}[2J\u{0}\u{7}\u{7F}\u{85}\tend"
        let line = LogLine.plain(level: .info, label: "popgestured", message: "client 3 says app \(app)",
                                 metadata: ["output": "DSI-1\u{1B}]0;title\u{7}"])
        #expect(line.hasSuffix(#" info popgestured: client 3 says app org.evil\x1B[2J\x00\x07\x7F\x85\tend output=DSI-1\x1B]0;title\x07"# + "\n"))
        #expect(!line.dropLast().unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(LogLine.printable("Wacom HID 52A5 Finger — ünïcode") == "Wacom HID 52A5 Finger — ünïcode")
    }

    @Test("a 59 KB message is cut to 2 KiB at a character, saying how much was left out")
    func longMessagesAreCut() {
        let ids = (0..<3000).map { "org.app\($0)é" }.joined(separator: ", ")
        let text = LogLine.printable("apps changed: \(ids)")
        let kept = text.prefix { $0 != "…" }
        #expect(kept.utf8.count <= LogLine.maximumTextBytes)
        #expect(kept.utf8.count > LogLine.maximumTextBytes - 4, "cut at the last whole character")
        let left = ("apps changed: " + ids).utf8.count - kept.utf8.count
        #expect(text.hasSuffix("… (\(left) bytes left out)"))
        let line = LogLine.journal(level: .notice, label: "popgestured", message: "apps changed: \(ids)", metadata: [:])
        #expect(line.utf8.count < 4096)
    }

    @Test("every level has its syslog priority", arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func priorities(level: Logger.Level, priority: Int) {
        #expect(LogLine.priority(level) == priority)
    }

    /// Issue 8: logging from the event loop must never block on a full stderr pipe.
    @Test("a stalled output never blocks the logger: lines past the queue's capacity are dropped and counted")
    func aStalledOutputDoesNotBlock() throws {
        let received = Received()
        received.stall.wait()  // The output is stuck from the start.
        let logging = DaemonLogging(level: .info, journal: true, write: received.write)
        let logger = logging.makeLogger()
        // Every call returns although nothing can be written: this test would hang otherwise.
        // The writer holds at most one batch (the capacity) when it blocks, and the
        // queue another: a third must be dropped.
        let total = 3 * LogWriter.capacity
        for index in 0..<total { logger.info("line \(index)") }
        received.stall.signal()
        #expect(logging.flush(timeoutSeconds: 10))
        let lines = received.lines.withLock { $0 }
        // The count comes after each batch that had drops, so there may be more than one.
        let prefix = "<4>popgestured: ", suffix = " log lines dropped: the log output was stalled\n"
        let counts = lines.filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }
        let lost = counts.compactMap { Int($0.dropFirst(prefix.count).prefix { $0.isNumber }) }.reduce(0, +)
        #expect(lost >= LogWriter.capacity)
        #expect(lines.count - counts.count + lost == total)
        #expect(lines.first == "<6>popgestured: line 0\n")
    }

    @Test("JOURNAL_STREAM names stderr only when its device and inode are stderr's")
    func journalStreamIsCheckedAgainstTheDescriptor() throws {
        var fds: [CInt] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var status = stat()
        try #require(fstat(fds[1], &status) == 0)
        #expect(JournalStream.matches("\(status.st_dev):\(status.st_ino)", descriptor: fds[1]))
        #expect(!JournalStream.matches("\(status.st_dev):\(status.st_ino + 1)", descriptor: fds[1]))
        #expect(!JournalStream.matches("garbage", descriptor: fds[1]))
    }
}
