/// `popgestured`'s command line: `[run] [--config FILE] [--event-pipe FIFO] [-v] [--SETTING VALUE]...`,
/// plus the hidden test tool `debug-clone NODE [--grab] [--cancel-after N]`.
///
/// Every setting's flag comes from ``Configuration/Key/allCases`` (`--edge-width` for
/// `edge-width-mm`), and its value is kept as typed for the key's own parser, the one
/// that reads the file, so a flag is refused with the file's words. A flag's value is
/// the next argument whatever it looks like (`--rotation -90`), or follows `=`
/// (`--rotation=-90`). The daemon parses its few flags itself: a command-line library
/// would be most of the resident size of a daemon that reads them once (issue 30).
///
/// Limits: the kernel's (`ARG_MAX`); a value's length is the key's parser's to refuse.
public enum DaemonCommand: Sendable, Equatable {
    /// The daemon.
    case run(DaemonArguments)
    /// `--help`: ``DaemonArguments/usage`` on standard output, exit 0.
    case help
    /// Grab mode's device layer alone, for the VM's scenarios 89 and 91.
    case debugClone(devnode: String, grab: Bool, cancelAfter: Int)

    /// `arguments` without the program name.
    public static func parse(_ arguments: [String]) throws(DaemonArgumentError) -> DaemonCommand {
        var rest = arguments[...]
        switch rest.first {
        case "debug-clone":
            rest.removeFirst()
            return try parseDebugClone(rest)
        case "demo":
            throw DaemonArgumentError("the demo is its own program now: popgestured-demo (swift run popgestured-demo)")
        case "run":
            rest.removeFirst()
        default:
            break
        }
        var result = DaemonArguments()
        var verbose = false
        while let argument = rest.popFirst() {
            if argument == "-h" || argument == "--help" { return .help }
            if argument == "-v" || argument == "--verbose" { verbose = true; continue }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw DaemonArgumentError("unexpected argument '\(argument)'\(helpHint)")
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            func takeValue() throws(DaemonArgumentError) -> String {
                if let value { return value }
                guard let next = rest.popFirst() else { throw DaemonArgumentError("--\(name) needs a value") }
                return next
            }
            switch name {
            case "config": result.configurationPath = try takeValue()
            case "event-pipe": result.eventPipe = try takeValue()
            default:
                guard let key = Configuration.Key.allCases.first(where: { $0.flag == name }) else {
                    throw DaemonArgumentError("unknown option '--\(name)'\(helpHint)")
                }
                result.overrides[key] = try takeValue()
            }
        }
        if verbose { result.overrides[.logLevel] = "debug" }
        return .run(result)
    }

    private static let helpHint = " (popgestured --help lists the flags)"

    private static func parseDebugClone(_ arguments: ArraySlice<String>) throws(DaemonArgumentError) -> DaemonCommand {
        var rest = arguments
        var devnode: String?
        var grab = false
        var cancelAfter = 0
        while let argument = rest.popFirst() {
            switch argument {
            case "--grab": grab = true
            case "--cancel-after":
                guard let text = rest.popFirst(), let frames = Int(text), frames >= 0 else {
                    throw DaemonArgumentError("debug-clone: --cancel-after needs a number of frames, 0 or more")
                }
                cancelAfter = frames
            case _ where argument.hasPrefix("-"):
                throw DaemonArgumentError("debug-clone: unknown option '\(argument)'")
            default:
                guard devnode == nil else { throw DaemonArgumentError("debug-clone: one event node, not two") }
                devnode = argument
            }
        }
        guard let devnode else { throw DaemonArgumentError("debug-clone needs the touchscreen's event node") }
        return .debugClone(devnode: devnode, grab: grab, cancelAfter: cancelAfter)
    }
}

/// What `popgestured run` was given.
public struct DaemonArguments: Sendable, Equatable {
    /// `--config`: nil reads ``Configuration/defaultPath`` when it exists.
    public var configurationPath: String?
    /// `--event-pipe`: a FIFO of raw `input_event` records read as one more touchscreen.
    public var eventPipe: String?
    /// Every setting's flag given, by key, as typed (`-v` is `log-level debug`).
    public var overrides = ConfigurationOverrides()

    public init() {}

    /// The `--help` text: every flag, from the keys' table, with its default.
    public static var usage: String {
        let defaults = Configuration()
        var text = """
            popgestured: the iOS swipe-back gesture for Linux tablets.

            Usage: popgestured [run] [--config FILE] [--event-pipe FIFO] [-v] [--SETTING VALUE]...

            Finds touchscreens (and touchpads, unless `touchpads = off`) through udev, reads
            them, and serves clients on a Unix socket: the one systemd passes (socket
            activation), else --socket, else the configuration's `socket`. Flags override the
            configuration file; see docs/CONFIGURATION.md. SIGHUP reloads the file; SIGTERM
            stops cleanly. popgestured-demo shows a generated swipe; popgestured-replay runs
            a recording through the same engine.

            Options:
              --config FILE        Configuration file. Default \(Configuration.defaultPath), used when present.
              --event-pipe FIFO    A FIFO of raw input_event records (24 bytes each, CLOCK_MONOTONIC
                                   times), read as one more touchscreen: for benchmarks and tests
                                   without uinput (the [back-input] table then still decides
                                   swipes, and nothing is sent).
              -v, --verbose        Same as --log-level debug: every state transition.
              -h, --help           This text.

            Settings (each overrides its key in the file):

            """
        for key in Configuration.Key.allCases {
            let fileKey = key.flag == key.rawValue ? "" : "  (\(key.rawValue) in the file)"
            text += "  --\(key.flag) VALUE\(fileKey)\n      \(key.summary) Default: \(defaults.value(of: key)).\n"
        }
        return text
    }
}

/// A command line `popgestured` cannot run: said on standard error with `--help`'s hint, exit 64.
public struct DaemonArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ message: String) { description = message }
}
