import Glibc
import Logging
import NIOConcurrencyHelpers
import PopGestureSystem

/// The daemon's log output, with a level that a reload changes at once in every
/// logger made from it.
///
/// Lines go to stderr. When stderr is the journal's stream (systemd sets
/// `JOURNAL_STREAM` to its device and inode), each line starts with its syslog
/// priority, `<4>` for a warning, which journald takes as the entry's priority and
/// strips; journald adds the time and the unit. Elsewhere (a terminal, a file) a line
/// starts with the time and the level.
///
/// Logging never writes on the caller's thread: a line is queued and a thread of its
/// own writes it, so a full stderr pipe (a stalled journald, a paused terminal) cannot
/// block the event loop or the input thread. See ``LogWriter``.
public final class DaemonLogging: Sendable {
    private let level: NIOLockedValueBox<Logger.Level>
    private let writer: LogWriter
    private let journal: Bool

    /// - Parameters:
    ///   - write: where lines end up; by default a blocking write to stderr.
    ///   - journal: whether `write` reaches the journal; by default, whether stderr is its stream.
    public init(
        level: Logger.Level, journal: Bool = JournalStream.isStandardError(),
        write: @escaping @Sendable (String) -> Void = LogWriter.writeToStandardError
    ) {
        self.level = NIOLockedValueBox(level)
        self.journal = journal
        writer = LogWriter(write: write) { lost in
            let message = "\(lost) log lines dropped: the log output was stalled"
            return journal
                ? LogLine.journal(level: .warning, label: "popgestured", message: message, metadata: [:])
                : LogLine.plain(level: .warning, label: "popgestured", message: message, metadata: [:])
        }
    }

    public func setLevel(_ newLevel: Logger.Level) {
        level.withLockedValue { $0 = newLevel }
    }

    public func makeLogger(label: String = "popgestured") -> Logger {
        Logger(label: label) { label in QueuedLogHandler(label: label, owner: self) }
    }

    /// Waits, at most `seconds`, until every queued line is written: before the process exits.
    @discardableResult
    public func flush(timeoutSeconds seconds: Double = 1) -> Bool {
        writer.flush(timeoutSeconds: seconds)
    }

    fileprivate var currentLevel: Logger.Level { level.withLockedValue { $0 } }

    fileprivate func log(_ event: LogEvent, label: String, metadata: Logger.Metadata) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let line = journal
            ? LogLine.journal(level: event.level, label: label, message: "\(event.message)", metadata: merged)
            : LogLine.plain(level: event.level, label: label, message: "\(event.message)", metadata: merged)
        writer.enqueue(line)
    }
}

/// Hands every event to its owner, and asks it for the level each time.
private struct QueuedLogHandler: LogHandler {
    let label: String
    let owner: DaemonLogging
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { owner.currentLevel }
        set { owner.setLevel(newValue) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        owner.log(event, label: label, metadata: metadata)
    }
}

/// How one log line is spelled.
enum LogLine {
    /// `<N>label: message key=value`, N being the syslog priority journald reads.
    static func journal(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
        "<\(priority(level))>\(label): \(printable(message))\(spelled(metadata))\n"
    }

    /// `2026-11-23T14:20:08 warning popgestured: message key=value`, for a terminal or a file.
    static func plain(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
        "\(timestamp()) \(level) \(label): \(printable(message))\(spelled(metadata))\n"
    }

    /// syslog(3)'s priorities: swift-log's trace and debug are both LOG_DEBUG.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The most UTF-8 bytes of a message's text a line carries: 2 KiB. Past it the text is
    /// cut at a character and says how much was left out, so that no client's or device's
    /// string (an app id, an output's name) makes a line of its own size, and a line stays
    /// under journald's and the hostile suite's 4 KiB with its label and metadata.
    static let maximumTextBytes = 2048

    /// Text as one line a terminal shows as it is: every control character (C0, DEL, C1:
    /// ESC would move a terminal's cursor, NUL ends a C string, a newline would start a
    /// journal entry without its priority) is written as `\n`, `\t`, `\r` or `\xHH`, and
    /// the text is cut at ``maximumTextBytes``. Text that needs neither comes back as it is.
    static func printable(_ text: String) -> String {
        let isControl: (Unicode.Scalar) -> Bool = { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        guard text.utf8.count > maximumTextBytes || text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        var bytes = 0
        for (index, scalar) in zip(text.unicodeScalars.indices, text.unicodeScalars) {
            let escaped: String? = switch scalar {
            case "\n": "\\n"
            case "\t": "\\t"
            case "\r": "\\r"
            case _ where isControl(scalar): "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
            default: nil
            }
            let size = escaped?.utf8.count ?? UTF8.width(scalar)
            guard bytes + size <= maximumTextBytes else {
                let left = text.unicodeScalars[index...].reduce(0) { $0 + UTF8.width($1) }
                return String(out) + "… (\(left) bytes left out)"
            }
            bytes += size
            if let escaped { out.append(contentsOf: escaped.unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }

    private static func spelled(_ metadata: Logger.Metadata) -> String {
        metadata.sorted { $0.key < $1.key }.map { " \(printable($0.key))=\(printable("\($0.value)"))" }.joined()
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Whether a descriptor is the journal's stream: systemd.exec(5) says to compare
/// `JOURNAL_STREAM` (`device:inode`) with the descriptor's `fstat`.
public enum JournalStream {
    public static func isStandardError() -> Bool {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        return matches(String(cString: value), descriptor: STDERR_FILENO)
    }

    static func matches(_ value: String, descriptor: CInt) -> Bool {
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}

/// Writes queued lines on a thread of its own, so that logging never blocks its caller.
///
/// At most ``capacity`` lines wait. When the output stalls for longer than that takes
/// to fill, further lines are dropped and counted, and the count is written as soon
/// as the output moves again: a lost line is better than a stalled event loop.
public final class LogWriter: @unchecked Sendable {
    /// 1024 lines: several seconds of debug tracing of a busy swipe.
    public static let capacity = 1024

    private enum Phase: Equatable {
        /// Nothing queued and nothing being written.
        case idle
        case queued
        /// The thread is writing a batch, without the lock.
        case writing
    }

    /// Guards every var below; its value says what the thread has to do.
    private let lock = ConditionLock<Phase>(value: .idle)
    private var lines: [String] = []
    private var dropped = 0
    private let write: @Sendable (String) -> Void
    private let droppedLine: @Sendable (Int) -> String

    /// - Parameters:
    ///   - write: a blocking write of one line, called on the writer's thread only.
    ///   - droppedLine: the line that reports how many lines were dropped.
    public init(write: @escaping @Sendable (String) -> Void, droppedLine: @escaping @Sendable (Int) -> String) {
        self.write = write
        self.droppedLine = droppedLine
        lines.reserveCapacity(Self.capacity)
        PosixThread.detach(name: "popgestured log") { [self] in run() }
    }

    /// Queues a line; returns at once.
    public func enqueue(_ line: String) {
        lock.lock()
        if lines.count < Self.capacity {
            lines.append(line)
        } else {
            dropped += 1
        }
        unlock(writing: false)
    }

    /// Waits until every queued line is written, at most `seconds`; false when the time ran out.
    public func flush(timeoutSeconds seconds: Double) -> Bool {
        guard lock.lock(whenValue: .idle, timeoutSeconds: seconds) else { return false }
        lock.unlock()
        return true
    }

    /// Unlocks with the phase that the queue and `writing` say.
    private func unlock(writing: Bool) {
        lock.unlock(withValue: writing ? .writing : (lines.isEmpty && dropped == 0 ? .idle : .queued))
    }

    private func run() {
        // Signals belong to the daemon's signalfd, never to this thread.
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        var batch: [String] = []
        batch.reserveCapacity(Self.capacity)
        while true {
            lock.lock(whenValue: .queued)
            swap(&batch, &lines)
            let lost = dropped
            dropped = 0
            lock.unlock(withValue: .writing)
            for line in batch { write(line) }
            if lost > 0 { write(droppedLine(lost)) }
            batch.removeAll(keepingCapacity: true)
            lock.lock()
            unlock(writing: false)
        }
    }

    /// A blocking write of the whole line to stderr, retried on EINTR and short writes.
    public static let writeToStandardError: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(count)
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
