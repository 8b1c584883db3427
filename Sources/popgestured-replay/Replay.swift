import ArgumentParser
import Logging
import PopGestureCore
import PopGestureRecording

/// `popgestured-replay`: a tool of its own, not a subcommand of the daemon, so that the
/// binary systemd runs carries no recording readers and no Foundation (issue 12).
/// Without a subcommand it replays a recording (`play`).
@main
struct ReplayTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "popgestured-replay",
        abstract: "Run recordings or the gesture corpus through the gesture engine.",
        subcommands: [Replay.self, Corpus.self], defaultSubcommand: Replay.self)
}

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Run a recording through the gesture engine and print what a client receives (the default).",
        discussion: """
            Plays the recording with its own timestamps as one client whose navigator
            ("main", pages page1…pageN) is in front, and prints the JSON lines that client
            receives (docs/PROTOCOL.md). The output is deterministic. Use --observer to see
            rejected pans with their reasons too, and --verbose for the decision trace on stderr.
            Formats: evemu (with or without header; pair an events-only file with --desc)
            and libinput record YAML.
            """)

    @Argument(help: "The recording: .events, .evemu or libinput record .yml.")
    var recording: String

    @Option(help: "Device description (.desc) for a recording that has no header.")
    var desc: String?

    @Flag(help: "Print what an observer receives: every event, rejections included.")
    var observer = false

    @Flag(name: .shortAndLong, help: "Trace every state transition to stderr.")
    var verbose = false

    @OptionGroup var options: GestureOptions

    func run() throws {
        let logger = Self.stderrLogger(verbose: verbose)
        let loaded: Recording
        do {
            loaded = try Recording(contentsOf: recording, descriptionPath: desc)
        } catch {
            throw ValidationError("\(error)")
        }
        guard loaded.device.inferredKind != nil else {
            throw ValidationError("\(loaded.device.name) is neither a touchscreen nor a touchpad")
        }
        let start = loaded.events.first?.time ?? .zero
        var session = try ReplaySession(device: loaded.device, options: options, observer: observer, start: start, logger: logger)
        if verbose, let transform = session.screenTransform {
            let size = transform.screenSize
            logger.info("\(loaded.device.name): \(loaded.device.inferredKind?.rawValue ?? "?"), \(loaded.device.touchProtocol.rawValue), screen \(size.width)×\(size.height) mm\(transform.sizeIsAssumed ? " (assumed: no resolution)" : "")")
        }
        var lines: [String] = []
        session.run(loaded.events, into: &lines)
        for line in lines { print(line) }
    }

    static func stderrLogger(verbose: Bool) -> Logger {
        var logger = Logger(label: "popgestured") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}
