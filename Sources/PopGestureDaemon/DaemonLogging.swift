import Logging
import Synchronization

/// The daemon's log output: stderr (journald adds the time and the unit), with a level
/// that a reload changes at once in every logger made from it.
public final class DaemonLogging: Sendable {
    private let level: Mutex<Logger.Level>

    public init(level: Logger.Level) {
        self.level = Mutex(level)
    }

    public func setLevel(_ newLevel: Logger.Level) {
        level.withLock { $0 = newLevel }
    }

    public func makeLogger(label: String = "popgestured") -> Logger {
        Logger(label: label) { label in SharedLevelHandler(inner: StreamLogHandler.standardError(label: label), owner: self) }
    }

    fileprivate var currentLevel: Logger.Level { level.withLock { $0 } }
}

/// Passes everything to `inner`, but asks its owner for the level each time.
private struct SharedLevelHandler: LogHandler {
    var inner: StreamLogHandler
    let owner: DaemonLogging

    var logLevel: Logger.Level {
        get { owner.currentLevel }
        set { owner.setLevel(newValue) }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        inner.log(event: event)
    }
}
