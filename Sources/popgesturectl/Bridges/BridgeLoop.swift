import Glibc
import PopGestureClient
import SystemPackage

/// The I/O of a bridge: one `poll` over the window system, the daemon's socket and the
/// stop signals, with a timeout for the next connect; what to do is `ShellLink`'s.
struct BridgeLoop<Source: FocusSource> {
    var source: Source
    var link: ShellLink
    let socketPath: String
    let verbose: Bool
    let signals: StopSignals?
    /// The user's settings file, sent as `user-settings`; nil: not followed (no HOME).
    let userSettings: UserSettingsWatch?
    private var connection: Connection?
    /// When to connect next; nil while connected. The first connect is at once.
    private var connectAt: ContinuousClock.Instant? = .now

    init(
        source: Source, link: ShellLink, socketPath: String, verbose: Bool, signals: StopSignals?,
        userSettings: UserSettingsWatch? = nil
    ) {
        self.source = source
        self.link = link
        self.socketPath = socketPath
        self.verbose = verbose
        self.signals = signals
        self.userSettings = userSettings
    }

    /// Runs until the source ends (returns its message) or a stop signal (returns nil).
    /// Throws `CtlFailure` when the daemon refuses the bridge for good, or the source fails.
    /// `initial`: the window focused at start, when the source knew it before the loop.
    mutating func run(initial: FocusedWindow? = nil) throws -> String? {
        if let initial { try perform(link.focused(initial)) }
        try readUserSettings()
        while true {
            if connection == nil, let connectAt, connectAt <= .now {
                try connect()
            }

            var fds = [pollfd(fd: source.descriptor.rawValue, events: Int16(POLLIN), revents: 0)]
            // Polled as the source's: a descriptor of -1 is skipped by poll.
            fds.append(pollfd(fd: source.otherDescriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0))
            let signalIndex = fds.count
            if let signals { fds.append(pollfd(fd: signals.readEnd.rawValue, events: Int16(POLLIN), revents: 0)) }
            let settingsIndex = fds.count
            fds.append(pollfd(fd: userSettings?.descriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0))
            let daemonIndex = fds.count
            if let connection { fds.append(pollfd(fd: connection.socket.rawValue, events: Int16(POLLIN), revents: 0)) }

            // -1 (no limit) while connected and no check is due.
            var timeout = [connectAt, source.checkAt].compactMap { $0.map(pollTimeout(until:)) }.min() ?? -1
            if source.hasBufferedEvents { timeout = 0 }
            if poll(&fds, nfds_t(fds.count), timeout) < 0 {
                if errno == EINTR { continue }  // the signal's byte is in the pipe; the next poll sees it
                throw CtlFailure("poll failed: \(Errno(rawValue: errno))", exitCode: .cannotConnect)
            }

            if signals != nil, fds[signalIndex].revents != 0 { return nil }
            if fds[settingsIndex].revents != 0 {
                userSettings?.drain()
                try readUserSettings()
            }
            if fds.count > daemonIndex, fds[daemonIndex].revents != 0 {
                try readDaemon()
            }
            if fds[0].revents != 0 || fds[1].revents != 0 || source.hasBufferedEvents {
                if let ended = try handle(source.readAvailable()) { return ended }
            }
            if let checkAt = source.checkAt, checkAt <= .now {
                if let ended = try handle(source.check()) { return ended }
            }
        }
    }

    /// Carries out what the source said; the source's last word when it ended.
    private mutating func handle(_ events: [FocusSourceEvent]) throws -> String? {
        for event in events {
            switch event {
            case .focused(let window): try perform(link.focused(window))
            case .rotated(let rotation): try perform(link.rotated(rotation))
            case .outputs(let outputs): try perform(link.outputsChanged(outputs))
            case .log(let line): try perform([.log(line)])
            case .textDirection(let direction): try perform(link.textDirectionChanged(direction))
            case .touchpadScrolling(let natural): try perform(link.touchpadScrollingChanged(natural: natural))
            case .ended(let message): return message
            }
        }
        return nil
    }

    /// The user's settings file as it is now, to the link (which sends a change).
    private mutating func readUserSettings() throws {
        guard let userSettings else { return }
        var problems: [String] = []
        let text = userSettings.read { problems.append($0) }
        try perform(problems.map { .log($0) } + link.userSettingsChanged(text))
    }

    private mutating func connect() throws {
        do {
            connection = try Connection(path: socketPath)
            connectAt = nil
            try perform(link.connected())
        } catch let error as ConnectError {
            try perform(link.connectFailed(error.description))
        }
    }

    /// Reads what the daemon sent and hands each line to the link; notices its end.
    private mutating func readDaemon() throws {
        guard let connection else { return }
        do {
            try connection.reader.fill()
        } catch let error as Errno {
            return try perform(link.closed("reading from \(socketPath) failed: \(error)"))
        } catch {
            return try perform(link.closed("\(error)"))  // a line past LineReader's bound
        }
        while let line = connection.reader.bufferedLine() {
            try perform(link.received(line))
            guard self.connection === connection else { return }  // the line ended the connection
        }
        if connection.reader.atEnd { try perform(link.closed()) }
    }

    /// Carries out the link's actions in order; a write that fails is one more input.
    private mutating func perform(_ actions: [ShellLink.Action]) throws {
        var pending = actions[...]
        while let action = pending.popFirst() {
            switch action {
            case .send(let line):
                guard let connection else { continue }
                do {
                    try connection.send(line)
                } catch {
                    pending = link.closed(error.description)[...]
                }
            case .retry(let delay):
                connection = nil
                connectAt = .now + delay
            case .log(let line):
                standardError("\(link.name): \(line)")
            case .verbose(let line):
                if verbose { standardError("\(link.name): \(line)") }
            case .fail(let message):
                throw CtlFailure(message, exitCode: .errorReply)
            }
        }
    }
}
