import ArgumentParser
import PopGestureCommandLine
import PopGestureDaemon

/// `popgestured` with no subcommand: the daemon.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the daemon (the default).",
        discussion: """
            Finds touchscreens (and touchpads, unless `touchpads = off`) through udev, reads
            them, and serves clients on a Unix socket: the one systemd passes (socket
            activation), else --socket, else the configuration's `socket`.
            Flags override the configuration file (\(Configuration.defaultPath)); see
            docs/CONFIGURATION.md. SIGHUP reloads the file; SIGTERM stops cleanly.
            """)

    @Option(help: "Configuration file. Default \(Configuration.defaultPath), used when present.")
    var config: String?

    @OptionGroup(title: "Gesture settings") var gesture: GestureSettingFlags

    @Option(name: .setting(.socket), help: .setting(.socket)) var socket: String?
    @Option(name: .setting(.touchpads), help: .setting(.touchpads)) var touchpads: String?
    @Option(name: .setting(.screen), help: .setting(.screen)) var screen: String?
    @Option(name: .setting(.grab), help: .setting(.grab)) var grab: String?
    @Option(name: .setting(.clients), help: .setting(.clients)) var clients: String?
    @Option(name: .setting(.maximumClients), help: .setting(.maximumClients)) var maximumClients: String?
    @Option(name: .setting(.logLevel), help: .setting(.logLevel)) var logLevel: String?
    @Option(name: .setting(.backInput), help: .setting(.backInput)) var backInput: String?
    @Option(name: .setting(.backInputMode), help: .setting(.backInputMode)) var backInputMode: String?

    @Option(help: ArgumentHelp(
        "A FIFO of raw input_event records (24 bytes each, CLOCK_MONOTONIC times), read as one more touchscreen: for benchmarks and tests without uinput (the [back-input] table then still decides swipes, and nothing is sent).",
        valueName: "fifo"))
    var eventPipe: String?

    @Flag(name: .shortAndLong, help: "Same as --log-level debug: every state transition.")
    var verbose = false

    /// Every flag given, by key.
    var overrides: ConfigurationOverrides {
        var overrides = gesture.overrides
        overrides[.socket] = socket
        overrides[.touchpads] = touchpads
        overrides[.screen] = screen
        overrides[.grab] = grab
        overrides[.clients] = clients
        overrides[.maximumClients] = maximumClients
        overrides[.logLevel] = verbose ? "debug" : logLevel
        overrides[.backInput] = backInput
        overrides[.backInputMode] = backInputMode
        return overrides
    }

    func run() throws {
        let overrides = self.overrides
        let configuration: Configuration
        do {
            configuration = try Configuration.load(file: config, overrides: overrides)
        } catch {
            // Refuse to run half-configured; systemd's Restart=on-failure gives up after its limit.
            throw ValidationError("\(error)")
        }
        let logging = DaemonLogging(level: configuration.logLevel)
        var daemon = Daemon(
            configuration: configuration, configurationPath: config, overrides: overrides,
            logger: logging.makeLogger(), onReload: { logging.setLevel($0.logLevel) })
        daemon.eventPipe = eventPipe
        // Logging is queued (DaemonLogging), so the last lines are written out before exit.
        defer { logging.flush() }
        do {
            try daemon.run()
        } catch {
            daemon.logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
    }
}
