import ArgumentParser
import PopGestureProtocol
import SystemPackage

/// `popgesturectl bridge …`: tell popgestured, as its shell, which window has focus.
/// Each window system is a subcommand of its own file; what they share is here.
struct Bridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tell popgestured which window has focus, as its shell, until the window system ends.",
        discussion: """
            A bridge connects to popgestured with hello's "role":"shell" and sends \
            focused-window (the window's app id and pid) at every focus change, so that \
            only the focused app's navigators get backs; where the desktop says them, also \
            the outputs (each one's rotation and size), or the rotation, and text-direction. When popgestured restarts, the bridge connects \
            again (after 0.5 s, doubling up to 5 s) and sends them at once. It ends with 0 when the window system does, or on Ctrl-C. \
            Only root, the daemon's user and a seat's active user may be the shell, and \
            only one at a time. `bridge auto` runs the one that fits the session, or \
            exits with 3 when none does. See docs/BRIDGES.md.
            """,
        subcommands: [AutoBridge.self, SwayBridge.self, WlrootsBridge.self, X11Bridge.self, KDEBridge.self, GNOMEBridge.self])
}

/// The options every bridge takes.
struct BridgeOptions: ParsableArguments {
    @OptionGroup var socketOptions: SocketOptions

    @Flag(help: "Print a line on stderr at each focus (and rotation) change. Default: only errors and lost connections.")
    var verbose = false
}

/// The window that has focus, as a bridge tells the daemon: its app id (Wayland
/// `app_id`, X11 `WM_CLASS` class) and its process id, each nil when unknown.
/// Both nil means no window has focus.
struct FocusedWindow: Equatable, CustomStringConvertible {
    var app: String?
    var pid: Int64?

    static let none = FocusedWindow(app: nil, pid: nil)

    /// Keeps only what the protocol takes: an app id of 1 to 256 bytes
    /// (`ProtocolLimits.maximumIdentifierBytes`) and a pid of 1 to `Int32.max`; anything
    /// else becomes unknown, so one odd window cannot get the bridge's requests refused.
    init(app: String?, pid: Int64?) {
        self.app = app.flatMap { (1...ProtocolLimits.maximumIdentifierBytes).contains($0.utf8.count) ? $0 : nil }
        self.pid = pid.flatMap { (1...Int64(Int32.max)).contains($0) ? $0 : nil }
    }

    /// `app firefox, pid 4321`. The app id is the window system's: one with a control
    /// character or a quote is shown quoted and escaped (`app "fire\u{7}fox"`).
    var description: String {
        if self == .none { return "no window" }
        let shownApp = app.map { quotedIfNeeded($0, limit: ProtocolLimits.maximumIdentifierBytes) } ?? "unknown"
        return "app \(shownApp), pid \(pid.map(String.init) ?? "unknown")"
    }
}

/// How the screen that touch maps to is turned, as a bridge tells the daemon (`rotation`):
/// `degrees` clockwise, 0, 90, 180 or 270, as the daemon's `rotation` setting counts
/// them; `output` is the compositor's name for the screen, nil when unknown.
struct OutputRotation: Equatable, CustomStringConvertible {
    var degrees: Int64
    var output: String?

    /// Keeps only what the protocol takes: a name of at most 256 bytes
    /// (`ProtocolLimits.maximumIdentifierBytes`), else unknown; `degrees` is one of the four.
    init?(degrees: Int64, output: String?) {
        guard [0, 90, 180, 270].contains(degrees) else { return nil }
        self.degrees = degrees
        self.output = output.flatMap { (1...ProtocolLimits.maximumIdentifierBytes).contains($0.utf8.count) ? $0 : nil }
    }

    /// `90° on DSI-1`; a name with odd characters is quoted.
    var description: String {
        "\(degrees)° on " + (output.map { quotedIfNeeded($0, limit: ProtocolLimits.maximumIdentifierBytes) } ?? "an unnamed output")
    }
}

/// Every enabled output, as a bridge tells the daemon (`outputs`), in the compositor's
/// order: name, rotation, physical size, built-in, and the inputs mapped to it.
struct OutputList: Equatable, CustomStringConvertible {
    /// The outputs as the protocol takes them.
    private(set) var outputs: [ClientRequest.Output]

    /// The connector names of a built-in panel, by prefix (the kernel's `eDP-1`, `DSI-1`,
    /// `LVDS-1`): the touchscreen of a tablet or a phone is on it.
    static let builtInPrefixes = ["eDP", "DSI", "LVDS"]

    /// Whether `name` is a built-in panel's connector.
    static func isBuiltIn(_ name: String) -> Bool {
        builtInPrefixes.contains { name.hasPrefix($0) }
    }

    /// Keeps only what the protocol takes, so that one odd output cannot get the list
    /// refused: an output without a name of 1 to 256 bytes, with a rotation other than
    /// 0, 90, 180 or 270, or of a name already listed is left out, and the list stops at
    /// `ProtocolLimits.maximumOutputs`; a size not above 0 or not finite is unknown (the
    /// compositor's 0 is "I do not know"), and each output keeps its first
    /// `ProtocolLimits.maximumInputsPerOutput` distinct inputs of 1 to 256 bytes.
    init(_ outputs: [ClientRequest.Output]) {
        var kept: [ClientRequest.Output] = []
        for var output in outputs where kept.count < ProtocolLimits.maximumOutputs {
            guard Self.fits(output.name), [0, 90, 180, 270].contains(output.rotation),
                  !kept.contains(where: { $0.name == output.name })
            else { continue }
            output.widthMillimetres = output.widthMillimetres.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
            output.heightMillimetres = output.heightMillimetres.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
            var inputs: [String] = []
            for input in output.inputs where Self.fits(input) && !inputs.contains(input) {
                if inputs.count < ProtocolLimits.maximumInputsPerOutput { inputs.append(input) }
            }
            output.inputs = inputs
            kept.append(output)
        }
        self.outputs = kept
    }

    private static func fits(_ name: String) -> Bool {
        (1...ProtocolLimits.maximumIdentifierBytes).contains(name.utf8.count)
    }

    /// `eDP-1 90° 256×144 mm built-in, HDMI-A-1 0°`; names with odd characters quoted.
    var description: String {
        guard !outputs.isEmpty else { return "no enabled output" }
        return outputs.map { output in
            var text = quotedIfNeeded(output.name, limit: ProtocolLimits.maximumIdentifierBytes) + " \(output.rotation)°"
            if let width = output.widthMillimetres, let height = output.heightMillimetres {
                text += " \(Self.shown(width))×\(Self.shown(height)) mm"
            }
            if output.isBuiltIn { text += " built-in" }
            if !output.inputs.isEmpty {
                text += " (inputs " + output.inputs.map { quotedIfNeeded($0, limit: 64) }.joined(separator: ", ") + ")"
            }
            return text
        }.joined(separator: ", ")
    }

    /// Whole millimetres without a fraction, as the compositors give them.
    private static func shown(_ millimetres: Double) -> String {
        millimetres == millimetres.rounded() && abs(millimetres) < 1e9 ? String(Int(millimetres)) : String(millimetres)
    }
}

/// A window system that a bridge watches: a descriptor for `poll`, read when readable.
protocol FocusSource {
    /// Readable when the window system has something to say.
    var descriptor: FileDescriptor { get }

    /// A second connection to the window system, polled with `descriptor`: when either is
    /// readable, `readAvailable` is called (it polls both itself to see which). Default: nil.
    var otherDescriptor: FileDescriptor? { get }

    /// Reads what is there (once: `poll` said readable) and says what it means, in order.
    /// Throws `CtlFailure` when the window system's stream cannot be read on.
    mutating func readAvailable() throws -> [FocusSourceEvent]

    /// True when events wait in a library's own buffer, where `poll` cannot see them
    /// (libxcb reads them in while it waits for a reply): `readAvailable` is then
    /// called without waiting. Default: false.
    var hasBufferedEvents: Bool { get }

    /// When `check` is due (nil: never): for a source that must ask the window system
    /// whether its reporter still runs, since nothing would say so. Default: nil.
    var checkAt: ContinuousClock.Instant? { get }

    /// Called once `checkAt` has passed; says what it found, in order, and sets the next
    /// `checkAt`. Default: nothing.
    mutating func check() throws -> [FocusSourceEvent]

    /// Whether this session takes the daemon's touchpad bridge: false where its virtual
    /// pointer devices would cost the session more than the bridge gives (GNOME Shell,
    /// whose touch mode, and with it the on-screen keyboard's showing up, ends while any
    /// pointer device is there). Sent with `touchpad-scrolling`. Default: true.
    var takesTouchpadBridge: Bool { get }
}

extension FocusSource {
    var hasBufferedEvents: Bool { false }
    var otherDescriptor: FileDescriptor? { nil }
    var checkAt: ContinuousClock.Instant? { nil }
    mutating func check() throws -> [FocusSourceEvent] { [] }
    var takesTouchpadBridge: Bool { true }
}

enum FocusSourceEvent: Equatable {
    /// This window has focus now (`.none`: no window has).
    case focused(FocusedWindow)
    /// The screen the touchscreens map to is turned this way now.
    case rotated(OutputRotation)
    /// The enabled outputs are these now (any of them changed).
    case outputs(OutputList)
    /// The session's text direction is this now.
    case textDirection(ClientRequest.Layout)
    /// The session scrolls the daemon's virtual touchpad ("popgestured touchpad")
    /// naturally (`true`) or not, now.
    case touchpadScrolling(natural: Bool)
    /// A line for stderr, always: something odd the window system said, logged once.
    case log(String)
    /// The window system went away, as it does at logout: the bridge ends with 0,
    /// printing this on stderr.
    case ended(String)
}

extension Bridge {
    /// Runs a bridge until `source` ends (exit 0, its message on stderr), Ctrl-C or
    /// SIGTERM (exit 0), or popgestured refuses it for good (`CtlFailure`, exit 1).
    /// `name` goes into hello, and starts every line on stderr. `initial`: the window
    /// focused at start, when the source learnt it before the loop (else its first
    /// `readAvailable` says).
    static func run(_ source: some FocusSource, initial: FocusedWindow? = nil, name: String, options: BridgeOptions) throws {
        var loop = BridgeLoop(
            source: source, link: ShellLink(name: name, touchpadBridge: source.takesTouchpadBridge), socketPath: options.socketOptions.resolvedPath,
            verbose: options.verbose, signals: StopSignals.install(),
            userSettings: UserSettingsWatch.forThisUser())
        if let ending = try loop.run(initial: initial) {
            standardError("\(name): \(ending)")
        }
    }
}
