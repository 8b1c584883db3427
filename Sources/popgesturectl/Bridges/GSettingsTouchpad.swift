import Glibc
import SystemPackage

/// GNOME's touchpad natural scrolling, `org.gnome.desktop.peripherals.touchpad
/// natural-scroll`, for a desktop that applies that key to every touchpad but has no
/// GNOME Shell to report it: Phosh, whose phoc does (the wlroots bridge runs there).
/// Read with `gsettings get` at start and followed through `gsettings monitor`, a child
/// process whose output the bridge's loop polls (`descriptor`); GSettings itself (its
/// dconf database) is not a library this bridge links.
///
/// Its lines are at most ``maximumLineBytes``: a longer one, or the child's end, stops
/// the following (logged once); the value said last stays.
final class GSettingsTouchpadScrolling {
    static let schema = "org.gnome.desktop.peripherals.touchpad"
    static let key = "natural-scroll"
    static let program = "/usr/bin/gsettings"
    /// `natural-scroll: false` is 21 bytes.
    static let maximumLineBytes = 256

    /// `gsettings monitor`'s output.
    let descriptor: FileDescriptor
    private let monitor: pid_t
    private var pending: [UInt8] = []
    private(set) var natural: Bool?
    private var ended = false

    /// Whether the session is one whose compositor applies GNOME's touchpad keys
    /// without GNOME Shell: `XDG_CURRENT_DESKTOP` names Phosh.
    static func wanted(desktop: String?) -> Bool {
        (desktop ?? "").split(separator: ":").contains { $0.lowercased() == "phosh" }
    }

    /// Starts `gsettings monitor`, then reads the value now; the reason when gsettings is
    /// not there or the schema is not installed. `environment`: the children's (`KEY=VALUE`),
    /// default this process's.
    static func start(environment: [String]? = nil) -> Result<GSettingsTouchpadScrolling, GSettingsError> {
        guard access(program, X_OK) == 0 else {
            return .failure(GSettingsError("\(program) is not installed (Debian: libglib2.0-bin)"))
        }
        guard let (pid, output) = spawn([program, "monitor", schema, key], environment: environment) else {
            return .failure(GSettingsError("cannot run \(program) monitor: \(Errno(rawValue: errno))"))
        }
        let following = GSettingsTouchpadScrolling(monitor: pid, descriptor: output)
        guard let (getter, getterOutput) = spawn([program, "get", schema, key], environment: environment) else {
            return .failure(GSettingsError("cannot run \(program) get: \(Errno(rawValue: errno))"))
        }
        // Its one short line is in the pipe once it has ended.
        var status: Int32 = 0
        waitpid(getter, &status, 0)
        var bytes = [UInt8](repeating: 0, count: maximumLineBytes)
        let count = bytes.withUnsafeMutableBytes { (try? getterOutput.read(into: $0)) ?? 0 }
        try? getterOutput.close()
        guard let value = parse(bytes[..<count]) else {
            return .failure(GSettingsError("\(program) get \(schema) \(key) said \(String(decoding: bytes[..<count], as: UTF8.self).debugDescription)"))
        }
        following.natural = value
        return .success(following)
    }

    private init(monitor: pid_t, descriptor: FileDescriptor) {
        self.monitor = monitor
        self.descriptor = descriptor
    }

    deinit {
        kill(monitor, SIGTERM)
        var status: Int32 = 0
        waitpid(monitor, &status, 0)
        try? descriptor.close()
    }

    /// `true` or `false`, or `natural-scroll: true` as `monitor` prints it; nil otherwise.
    static func parse(_ line: some Collection<UInt8>) -> Bool? {
        let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard let value = words.last, words.count == 1 || (words.count == 2 && words[0] == key + ":") else { return nil }
        return switch value {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// What `monitor` printed since the last call: the new value when it changed; a line
    /// for the log when the following stopped.
    func read() -> [FocusSourceEvent] {
        guard !ended else { return [] }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count: Int
        do {
            count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
        } catch Errno.wouldBlock, Errno.interrupted {
            return []
        } catch {
            return stop("reading \(Self.program) monitor failed: \(error)")
        }
        guard count > 0 else { return stop("\(Self.program) monitor ended") }
        pending += chunk[..<count]
        var events: [FocusSourceEvent] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = pending[..<newline]
            pending.removeSubrange(...newline)
            if let value = Self.parse(line), value != natural {
                natural = value
                events.append(.touchpadScrolling(natural: value))
            }
        }
        if pending.count > Self.maximumLineBytes { return events + stop("\(Self.program) monitor printed a line over \(Self.maximumLineBytes) bytes") }
        return events
    }

    private func stop(_ why: String) -> [FocusSourceEvent] {
        ended = true
        return [.log("\(why): GNOME's touchpad natural-scroll is no longer followed (the last value stays)")]
    }

    /// `argv` with its standard output on a pipe (non-blocking, close-on-exec on our side)
    /// and its standard input and error on /dev/null; nil when it could not start.
    private static func spawn(_ argv: [String], environment: [String]?) -> (pid_t, FileDescriptor)? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        // Neither end stays open in other children; the child's stdout is a dup2, without it.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The bridge blocks SIGTERM and SIGINT to read them in its loop; a child inherits
        // that mask, and would then outlive the SIGTERM that ends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.map { $0.map { strdup($0) } + [nil] }
        defer {
            arguments.forEach { free($0) }
            variables?.forEach { free($0) }
        }
        let result = variables.map { posix_spawn(&pid, argv[0], &actions, &attributes, arguments, $0) }
            ?? posix_spawn(&pid, argv[0], &actions, &attributes, arguments, environ)
        close(ends[1])
        guard result == 0 else {
            close(ends[0])
            errno = result
            return nil
        }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return (pid, FileDescriptor(rawValue: ends[0]))
    }
}

/// Why GNOME's touchpad setting cannot be followed; the description is the whole message.
struct GSettingsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
