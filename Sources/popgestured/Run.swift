import ArgumentParser
import Logging
import PopGestureCore
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

    @Option(help: "Socket path when not socket-activated. Default \(Configuration.defaultSocketPath).")
    var socket: String?

    @Option(help: "fullscreen (start anywhere) or edge (start at the leading edge).")
    var mode: GestureMode?

    @Option(help: "Edge zone width in edge mode, in mm.")
    var edgeWidth: Double?

    @Option(help: "Distance before the gesture is decided, in mm.")
    var decisionDistance: Double?

    @Option(help: "Steepest start still taken as a back, in degrees.")
    var maxAngle: Double?

    @Option(help: "Progress (0…1 of the width) past which a release commits.")
    var commitProgress: Double?

    @Option(help: "Release velocity that commits, in mm/s.")
    var flingVelocity: Double?

    @Option(help: "Default layout of navigators: ltr or rtl.")
    var layout: LayoutDirection?

    @Option(help: "How long an animated push or pop blocks the gesture at most, in ms.")
    var transitionTimeout: Int?

    @Option(help: "Touchscreen rotation in degrees clockwise: 0, 90, 180 or 270.")
    var rotation: Int?

    @Option(help: "Touchpads: off, two-finger or one-finger.")
    var touchpads: TouchpadMode?

    @Option(help: "Which touchscreens show the apps: all, or one touchscreen's udev WL_OUTPUT or name.")
    var screen: String?

    @Option(help: "Who may connect: seat (root, the daemon's user, each seat's active user) or any.")
    var clients: ClientsMode?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level?

    @Flag(name: .shortAndLong, help: "Same as --log-level debug: every state transition.")
    var verbose = false

    func run() throws {
        let overrides = ConfigurationOverrides(
            mode: mode, edgeWidthMillimetres: edgeWidth, decisionDistanceMillimetres: decisionDistance,
            maxAngleDegrees: maxAngle, commitProgress: commitProgress,
            flingVelocityMillimetresPerSecond: flingVelocity, layout: layout,
            transitionTimeoutMilliseconds: transitionTimeout, rotation: rotation, touchpads: touchpads,
            socketPath: socket, clients: clients, logLevel: verbose ? .debug : logLevel, screen: screen)
        let configuration: Configuration
        do {
            configuration = try Configuration.load(file: config, overrides: overrides)
        } catch {
            // Refuse to run half-configured; systemd's Restart=on-failure gives up after its limit.
            throw ValidationError("\(error)")
        }
        let logging = DaemonLogging(level: configuration.logLevel)
        let daemon = Daemon(
            configuration: configuration, configurationPath: config, overrides: overrides,
            logger: logging.makeLogger(), onReload: { logging.setLevel($0.logLevel) })
        do {
            try daemon.run()
        } catch {
            daemon.logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
    }
}

extension TouchpadMode: ExpressibleByArgument {}
extension ClientsMode: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
