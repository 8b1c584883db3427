import ArgumentParser
import Glibc
import SystemPackage

/// `popgesturectl bridge kde`: KWin's active window, through a KWin script that the
/// bridge loads, and KWin's outputs, through kde-output-device-v2, to popgestured.
struct KDEBridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kde",
        abstract: "Tell popgestured which window has focus in KDE Plasma (KWin), through a KWin script.",
        discussion: """
            Owns org.popgestured.Bridge on the session bus, then loads the KWin script \
            popgestured (--script) through KWin's org.kde.kwin.Scripting interface and \
            starts it. The script calls the bridge at every activation with the window's \
            resourceClass (its app id: Wayland app_id, X11 WM_CLASS class) and pid. It \
            works with KWin 5.27 (Plasma 5) and KWin 6. The outputs (each one's name, \
            rotation and physical size) it reads as a Wayland client of KWin's, through \
            kde-output-device-v2, as kscreen-doctor does; without them, focus only. Ends \
            with 0 when KWin leaves the session bus, and unloads the script when it ends. \
            See docs/BRIDGES.md.
            """)

    @Option(help: ArgumentHelp(
        "The KWin script's main.js.",
        discussion: "Default: the first of \(KDEBridge.scriptPaths.joined(separator: ", ")) that exists.",
        valueName: "path"))
    var script: String?

    @Option(name: .customLong("wayland-display"), help: ArgumentHelp(
        "KWin's Wayland display, for the outputs.", discussion: "Default: $WAYLAND_DISPLAY, else wayland-0.", valueName: "name"))
    var waylandDisplay: String?

    @OptionGroup var options: BridgeOptions

    static let name = "popgesturectl bridge kde"
    /// The name KWin knows the script by: the package's plugin id (metadata.json).
    static let pluginName = "popgestured"
    /// Where the Debian package and a source install put the script.
    static let scriptPaths = [
        "/usr/share/kwin/scripts/popgestured/contents/code/main.js",
        "/usr/local/share/kwin/scripts/popgestured/contents/code/main.js",
    ]

    func run() throws {
        try Self.run(script: script, waylandDisplay: waylandDisplay, options: options)
    }

    /// Runs the bridge: for `bridge kde` and `bridge auto`.
    static func run(script: String?, waylandDisplay: String? = nil, options: BridgeOptions) throws {
        guard let path = script ?? scriptPaths.first(where: { access($0, R_OK) == 0 }) else {
            throw CtlFailure("\(name): the KWin script is not installed (\(scriptPaths.joined(separator: " or "))): "
                + "install the popgestured package, or give --script", exitCode: .usage)
        }
        let source = try DesktopBusSource(compositorName: "org.kde.KWin", shownName: "KWin") { standardError("\(name): \($0)") }
        let scripting = ("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting")
        do {
            // A script left loaded by a bridge that died reported to it, not to this one: start afresh.
            if case .bool(true)? = try source.bus.call(scripting.0, scripting.1, scripting.2, "isScriptLoaded", [pluginName]).first {
                try source.bus.call(scripting.0, scripting.1, scripting.2, "unloadScript", [pluginName])
            }
            let id = try source.bus.call(scripting.0, scripting.1, scripting.2, "loadScript", [path, pluginName]).first
            guard case .integer(let number)? = id, number >= 0 else {
                throw DBusError(name: "", message: "KWin did not load \(path) (loadScript answered \(String(describing: id)))")
            }
            try source.bus.call(scripting.0, scripting.1, scripting.2, "start")
        } catch let error as DBusError {
            throw CtlFailure("\(name): cannot load the KWin script: \(error)", exitCode: .cannotConnect)
        }
        defer { _ = try? source.bus.call(scripting.0, scripting.1, scripting.2, "unloadScript", [pluginName]) }
        try Bridge.run(KDESource(bus: source, waylandDisplay: waylandDisplay), name: name, options: options)
    }
}

/// KWin as a `FocusSource`: its script's calls on the session bus (the focus), and its
/// output devices on its Wayland socket (the outputs). The outputs are extra: when they
/// cannot be read the bridge says so once and carries on with the focus; the bus alone
/// says when KWin has gone.
struct KDESource: FocusSource {
    let bus: DesktopBusSource
    private(set) var outputs: KDEOutputDevices?
    private var tracker = KDEOutputTracker()
    /// Lines to log at the first read: why there are no outputs.
    private var startLogs: [FocusSourceEvent] = []
    private var started = false

    /// Connects to KWin's Wayland display `waylandDisplay` (nil: `$WAYLAND_DISPLAY`) for the
    /// outputs; never fails: without them, `readAvailable` first logs why.
    init(bus: DesktopBusSource, waylandDisplay: String?) {
        self.bus = bus
        do {
            let devices = try KDEOutputDevices(name: waylandDisplay)
            if devices.offersDevices {
                outputs = devices
            } else {
                startLogs.append(.log("KWin at \(devices.name) lists no \(KDEOutputDevices.interfaceName) "
                    + "(kde-output-device-v2): the outputs are not sent"))
            }
        } catch {
            startLogs.append(.log("\(error): the outputs are not sent"))
        }
    }

    var descriptor: FileDescriptor { bus.descriptor }
    var otherDescriptor: FileDescriptor? { outputs?.descriptor }

    /// The devices' first state waits in libwayland's queue after connecting, where `poll`
    /// cannot see it.
    var hasBufferedEvents: Bool { !started || bus.hasBufferedEvents || outputs?.hasQueuedEvents == true }

    mutating func readAvailable() throws -> [FocusSourceEvent] {
        var out = started ? [] : startLogs
        started = true
        if let outputs {
            do {
                for event in try outputs.dispatch() { out += tracker.handle(event) }
            } catch {
                // KWin closes its socket as it quits; the bus says so in its own words.
                self.outputs = nil
                if case .broken(ended: false) = error.kind { out.append(.log("\(error): the outputs are no longer followed")) }
            }
        }
        out += try bus.readAvailable()
        return WlrootsSource.lastOfEach(out)
    }
}
