import Glibc
import PopGestureDaemon

// The binary systemd runs: the daemon (`run`, the default), and the hidden `debug-clone`
// test tool. `--help` lists the flags; DaemonCommand parses them.

/// Exit statuses: sysexits.h's EX_USAGE for a command line or configuration refused,
/// 1 for a daemon that could not start.
enum ExitStatus {
    static let usage: Int32 = 64
    static let failure: Int32 = 1
}

func complain(_ message: String) {
    var line = "popgestured: \(message)\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The daemon, until SIGTERM; its exit status.
func runDaemon(_ arguments: DaemonArguments) -> Int32 {
    let configuration: Configuration
    do {
        configuration = try Configuration.load(file: arguments.configurationPath, overrides: arguments.overrides)
    } catch {
        // Refuse to run half-configured; systemd's Restart=on-failure gives up after its limit.
        complain("\(error)")
        return ExitStatus.usage
    }
    let logging = DaemonLogging(level: configuration.logLevel)
    var daemon = Daemon(
        configuration: configuration, configurationPath: arguments.configurationPath,
        overrides: arguments.overrides, logger: logging.makeLogger(), onReload: { logging.setLevel($0.logLevel) })
    daemon.eventPipe = arguments.eventPipe
    // Logging is queued (DaemonLogging), so the last lines are written out before exit.
    defer { logging.flush() }
    do {
        try daemon.run()
        return 0
    } catch {
        daemon.logger.critical("cannot start: \(error)")
        return ExitStatus.failure
    }
}

let command: DaemonCommand
do {
    command = try DaemonCommand.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    complain("\(error)")
    exit(ExitStatus.usage)
}
switch command {
case .help:
    print(DaemonArguments.usage, terminator: "")
case .run(let arguments):
    exit(runDaemon(arguments))
case .debugClone(let devnode, let grab, let cancelAfter):
    do {
        try DebugClone(devnode: devnode, grab: grab, cancelAfter: cancelAfter).run()
    } catch {
        complain("debug-clone: \(error)")
        exit(ExitStatus.failure)
    }
}
