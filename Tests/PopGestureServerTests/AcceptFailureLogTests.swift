#if canImport(Glibc)
import Glibc
#endif
import Logging
import PopGestureCore
@testable import PopGestureServer
import Testing

/// A log handler that keeps the messages, for tests that check what is logged.
/// Not locked: only for code that logs on the test's own thread.
final class CapturedLog: LogHandler, @unchecked Sendable {
    private(set) var messages: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append("\(event.level): \(event.message)")
    }

    var logger: Logger { Logger(label: "test") { _ in self } }
}

@Suite("AcceptFailureLog")
struct AcceptFailureLogTests {
    @Test("one log line per episode of failed accepts, with the last episode's count")
    func episodes() {
        let captured = CapturedLog()
        let log = AcceptFailureLog(logger: captured.logger)
        let start = Timestamp(seconds: 1000, microseconds: 0)
        for second in 0..<30 {
            log.failed(.tooManyOpenFiles, at: start + .seconds(second))
        }
        #expect(captured.messages.count == 1)
        #expect(captured.messages.first?.hasPrefix("error: accept failed: ") == true)
        #expect(log.failuresInEpisode == 30)
        // A minute of quiet ends the episode; the next failure starts one and logs again.
        log.failed(.tooManyOpenFiles, at: start + .seconds(90))
        #expect(captured.messages.count == 2)
        #expect(captured.messages.last?.hasSuffix("(the previous episode had 30 failures)") == true)
        #expect(log.failuresInEpisode == 1)
    }
}
