import ArgumentParser
import Glibc
import PopGestureBus
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
    /// Where the Debian package and a source install put the script (desktop/install):
    /// outside KWin's own scripts folder, so that KWin manages no package of that id.
    static let scriptPaths = [
        "/usr/share/popgestured/kwin/popgestured-bridge.js",
        "/usr/local/share/popgestured/kwin/popgestured-bridge.js",
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
        let kwinScript = KWinScript(bus: source.bus, path: path)
        do {
            try kwinScript.loadAfresh()
        } catch {
            throw CtlFailure("\(name): cannot load the KWin script: \(error)", exitCode: .cannotConnect)
        }
        defer { kwinScript.unload() }
        try Bridge.run(KDESource(bus: source, script: kwinScript, waylandDisplay: waylandDisplay), name: name, options: options)
    }
}

/// The bridge's KWin script, loaded through KWin's `org.kde.kwin.Scripting` by path under
/// an id of its own. KWin's `start()` unloads every loaded script whose id is that of an
/// installed KWin package that is not enabled (`queryScriptsToLoad`): the id is no
/// package's, and KWin may still unload it (another program's `unloadScript`), which
/// only asking shows.
struct KWinScript {
    let bus: SessionBus
    let path: String
    /// The id KWin knows the script by.
    static let id = "popgestured-bridge"
    /// The id of earlier versions, a KWin package's: KWin unloaded it at once.
    static let earlierID = "popgestured"
    private static let scripting = ("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting")
    /// How often the bridge asks whether the script is still loaded: one round trip.
    static let checkInterval = Duration.seconds(5)

    /// Is the script loaded now?
    func isLoaded() throws(DBusError) -> Bool {
        try call("isScriptLoaded", [Self.id]).first == .bool(true)
    }

    /// Loads and starts it; one left loaded by a bridge that died reported to that
    /// bridge, not to this one, so it is unloaded first, as is one of the earlier id.
    func loadAfresh() throws(DBusError) {
        for id in [Self.id, Self.earlierID] where try call("isScriptLoaded", [id]).first == .bool(true) {
            try call("unloadScript", [id])
        }
        let answer = try call("loadScript", [path, Self.id]).first
        guard case .integer(let number)? = answer, number >= 0 else {
            throw DBusError(name: "", message: "KWin did not load \(path) (loadScript answered \(String(describing: answer)))")
        }
        try call("start")
    }

    func unload() {
        _ = try? call("unloadScript", [Self.id])
    }

    @discardableResult
    private func call(_ member: String, _ arguments: [String] = []) throws(DBusError) -> [DBusValue] {
        try bus.call(Self.scripting.0, Self.scripting.1, Self.scripting.2, member, arguments)
    }
}

/// KWin as a `FocusSource`: its script's calls on the session bus (the focus), its
/// output devices on its Wayland socket (the outputs), and its input device for the
/// daemon's virtual touchpad (the touchpad's scrolling, read at each check). The outputs are extra: when they
/// cannot be read the bridge says so once and carries on with the focus; the bus alone
/// says when KWin has gone.
struct KDESource: FocusSource {
    let bus: DesktopBusSource
    let script: KWinScript
    /// When to ask KWin whether the script is still loaded.
    private(set) var checkAt: ContinuousClock.Instant?
    /// Whether the last check found it gone and could not load it again.
    private var reloadFailed = false
    private(set) var outputs: KDEOutputDevices?
    private var tracker = KDEOutputTracker()
    private var touchpad = KWinTouchpadScrolling()
    /// Lines to log at the first read: why there are no outputs.
    private var startLogs: [FocusSourceEvent] = []
    private var started = false

    /// Connects to KWin's Wayland display `waylandDisplay` (nil: `$WAYLAND_DISPLAY`) for the
    /// outputs; never fails: without them, `readAvailable` first logs why.
    init(bus: DesktopBusSource, script: KWinScript, waylandDisplay: String?) {
        self.bus = bus
        self.script = script
        checkAt = .now + KWinScript.checkInterval
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

    /// KWin says nothing when it unloads a script: without it no window is ever
    /// reported, so the bridge asks, and loads it again.
    mutating func check() throws -> [FocusSourceEvent] {
        checkAt = .now + KWinScript.checkInterval
        return readTouchpad() + checkScript()
    }

    /// KWin's natural scrolling for the virtual touchpad, when it changed.
    private mutating func readTouchpad() -> [FocusSourceEvent] {
        let bus = bus.bus
        return touchpad.read(nodes: KWinTouchpadScrolling.eventNodes()) { path, interface, property in
            try bus.call("org.kde.KWin", path, "org.freedesktop.DBus.Properties", "Get", [interface, property]).first
        }
    }

    private mutating func checkScript() -> [FocusSourceEvent] {
        do {
            if try script.isLoaded() {
                reloadFailed = false
                return []
            }
        } catch {
            return []  // KWin is leaving or busy; the bus says when it has gone
        }
        do {
            try script.loadAfresh()
            reloadFailed = false
            return [.log("KWin unloaded the script \(KWinScript.id) (another program's unloadScript?), so no window "
                + "was reported: loaded it again")]
        } catch {
            defer { reloadFailed = true }
            return reloadFailed ? [] : [.log("KWin unloaded the script \(KWinScript.id) and cannot load it again "
                + "(\(error)): no window is reported; trying every \(KWinScript.checkInterval)")]
        }
    }

    /// The devices' first state waits in libwayland's queue after connecting, where `poll`
    /// cannot see it.
    var hasBufferedEvents: Bool { !started || bus.hasBufferedEvents || outputs?.hasQueuedEvents == true }

    mutating func readAvailable() throws -> [FocusSourceEvent] {
        var out = started ? [] : startLogs + readTouchpad()
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
