import ArgumentParser
import Glibc
import PopGestureProtocol
import SystemPackage

/// `popgesturectl bridge x11`: an EWMH window manager's active window, from the X
/// server, to popgestured.
struct X11Bridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "x11",
        abstract: "Tell popgestured which window has focus on an X display (EWMH _NET_ACTIVE_WINDOW).",
        discussion: """
            Watches the root window's _NET_ACTIVE_WINDOW and reports the active window's \
            _NET_WM_PID and the class part of its WM_CLASS (the app id; Wayland's app_id \
            corresponds to it). No active window is reported as no focused window. \
            With RandR 1.2 it also sends every connected, enabled output: its name, \
            rotation and physical size, again at each RandR change. \
            Ends with 0 when the X server goes away, as at the end of the session.
            """)

    @Option(help: ArgumentHelp("The X display.", discussion: "Default: $DISPLAY.", valueName: "display"))
    var display: String?

    @OptionGroup var options: BridgeOptions

    static let name = "popgesturectl bridge x11"

    func run() throws {
        try Self.run(display: display, options: options)
    }

    /// Runs the bridge on `display` (nil: `$DISPLAY`): for `bridge x11` and `bridge auto`.
    static func run(display: String?, options: BridgeOptions) throws {
        // A write to an X server that just went away must be an error libxcb reports, not a death.
        signal(SIGPIPE, SIG_IGN)
        let source: X11FocusSource
        do {
            source = try X11FocusSource(display: display) { standardError("\(Self.name): \($0)") }
        } catch {
            throw CtlFailure("\(error)", exitCode: .cannotConnect)
        }
        try Bridge.run(source, initial: source.initial(), name: Self.name, options: options)
    }
}

/// The X server as a `FocusSource`: its connection's descriptor, the active window's
/// changes, and whether libxcb holds events that `poll` cannot see.
final class X11FocusSource: FocusSource {
    let display: XDisplay
    let watcher: ActiveWindowWatcher
    private var readSinceDrain = false
    /// Whether RandR may have changed the outputs since they were last read; false for
    /// good without RandR 1.2.
    private var outputsStale: Bool
    private var reportedOutputs: OutputList?

    /// Connects to `display` (nil: `$DISPLAY`) and starts watching the root window and,
    /// with RandR 1.2, the outputs.
    init(display name: String?, log: @escaping (String) -> Void) throws(XDisplayError) {
        display = try XDisplay(name: name)
        watcher = try ActiveWindowWatcher(display: display, log: log)
        if let problem = display.watchOutputs() {
            log("\(problem): the outputs are not sent")
            outputsStale = false
        } else {
            outputsStale = true
        }
    }

    var descriptor: FileDescriptor { display.descriptor }

    /// True after a read: waiting for its replies, libxcb may have queued events, which
    /// `poll` on `descriptor` cannot see, so `readAvailable` must run again first.
    var hasBufferedEvents: Bool { readSinceDrain || outputsStale }

    /// The window active now, before any event.
    func initial() -> FocusedWindow {
        readSinceDrain = true
        return watcher.read()
    }

    /// Every queued event first, then one read: changes that came together are one report.
    func readAvailable() -> [FocusSourceEvent] {
        var stale = false
        while let event = display.nextEvent() {
            if event == .outputsChanged { outputsStale = true }
            stale = watcher.needsReading(after: event) || stale
        }
        readSinceDrain = stale
        var events: [FocusSourceEvent] = []
        if stale, let window = watcher.readIfChanged() { events.append(.focused(window)) }
        if outputsStale {
            outputsStale = false
            readSinceDrain = true  // the replies may have brought events in
            // More than the protocol takes are read, so that a disconnected one counts for none.
            if let outputs = display.outputs(limit: 4 * ProtocolLimits.maximumOutputs) {
                let list = X11Outputs.list(outputs)
                if list != reportedOutputs {
                    reportedOutputs = list
                    events.append(.outputs(list))
                }
            }
        }
        display.flush()
        if let failure = display.failure {
            events.append(.ended("the X display \(display.name) went away (\(failure)); done"))
        }
        return events
    }
}

/// Which window is active, from the window manager's `_NET_ACTIVE_WINDOW` on the root
/// window, and which app and process it belongs to.
///
/// It also watches the active window itself: its properties, since a client may set
/// `_NET_WM_PID` or `WM_CLASS` after the window manager made it active, and its end,
/// since a window manager may leave `_NET_ACTIVE_WINDOW` naming a window that is gone
/// (openbox does, when the last window closes).
final class ActiveWindowWatcher {
    let display: XDisplay
    private let activeWindowAtom: XAtom
    private let pidAtom: XAtom
    private let utf8StringAtom: XAtom
    private let log: (String) -> Void
    private var active = XWindow.none
    private var reported: FocusedWindow?

    init(display: XDisplay, log: @escaping (String) -> Void) throws(XDisplayError) {
        self.display = display
        self.log = log
        activeWindowAtom = try display.atom("_NET_ACTIVE_WINDOW")
        pidAtom = try display.atom("_NET_WM_PID")
        utf8StringAtom = try display.atom("UTF8_STRING")
        display.watch(display.root, for: .properties)
        display.flush()
        if display.property(activeWindowAtom, of: display.root, maximumBytes: X11Properties.cardinalReadBytes) == .absent {
            log("the window manager does not set _NET_ACTIVE_WINDOW (yet): no window has focus until it does")
        }
    }

    /// Reads the active window now and watches it; returns what it is.
    func read() -> FocusedWindow {
        let root = display.property(activeWindowAtom, of: display.root, maximumBytes: X11Properties.cardinalReadBytes)
        let window = X11Properties.activeWindow(from: root.property)
        if window != active {
            if active != .none { display.watch(active, for: []) }
            if window != .none { display.watch(window, for: [.properties, .structure]) }
            active = window
        }
        let described = describe(window)
        reported = described
        return described
    }

    /// Whether `event` may change what `read` finds.
    func needsReading(after event: XEvent) -> Bool {
        switch event {
        case .propertyChanged(let window, let atom):
            (window == display.root && atom == activeWindowAtom)
                || (window == active && window != .none && (atom == pidAtom || atom == .wmClass))
        case .destroyed(let window):
            // Read again: the window manager's word, or no window when it still names this one.
            window == active && window != .none
        case .error, .outputsChanged, .other:
            false
        }
    }

    /// Reads again; returns the window when it differs from the last read's.
    func readIfChanged() -> FocusedWindow? {
        let previous = reported
        let now = read()
        return now == previous ? nil : now
    }

    private func describe(_ window: XWindow) -> FocusedWindow {
        guard window != .none else { return .none }
        let wmClass = display.property(.wmClass, of: window, maximumBytes: X11Properties.wmClassReadBytes)
        let pid = display.property(pidAtom, of: window, maximumBytes: X11Properties.cardinalReadBytes)
        // Gone between the window manager's word and our read: the next change follows soon.
        if wmClass == .windowGone || pid == .windowGone { return .none }
        var result = FocusedWindow.none
        do {
            result.app = try X11Properties.appID(fromWMClass: wmClass.property, utf8String: utf8StringAtom)
        } catch X11Properties.Problem.absent {
            // Legal (ICCCM asks for it, not every client sets it): the pid may still match.
        } catch {
            log("window \(window): WM_CLASS \(error); its app is unknown")
        }
        do {
            result.pid = try X11Properties.pid(fromNetWMPID: pid.property)
        } catch X11Properties.Problem.absent {
            // Clients need not set it; a remote client's pid would mean nothing here anyway.
        } catch {
            log("window \(window): _NET_WM_PID \(error); its pid is unknown")
        }
        return result
    }
}

/// What RandR's outputs mean for the daemon: pure, so the rules are tested without a server.
enum X11Outputs {
    /// RandR's rotation bits as the daemon's `rotation`. RandR's `RR_Rotate_90` (xrandr's
    /// `left`) turns the picture 90° counter-clockwise, as a wl_output transform of 90 does
    /// (Xwayland maps one to the other, `wl_transform_to_xrandr`), and the daemon counts
    /// that turn as 90. A reflection (`RR_Reflect_X`, `_Y`) sends its turn only: the daemon
    /// does not mirror. nil when no one rotation bit is set.
    static func rotation(fromRandR bits: UInt16) -> Int64? {
        switch bits & 0x0f {
        case 1: 0  // RR_Rotate_0
        case 2: 90  // RR_Rotate_90
        case 4: 180  // RR_Rotate_180
        case 8: 270  // RR_Rotate_270
        default: nil
        }
    }

    /// The connected outputs that show part of the screen, in RandR's order, with their
    /// rotation, size (RandR's millimetres, untransformed; 0 is unknown) and built-in by
    /// connector name (`eDP-1`, `LVDS-1`, `DSI-1`).
    static func list(_ outputs: [XDisplay.RandROutput]) -> OutputList {
        OutputList(outputs.compactMap { output in
            guard output.connected, output.enabled, let rotation = rotation(fromRandR: output.rotation) else { return nil }
            return ClientRequest.Output(
                name: output.name, rotation: rotation, widthMillimetres: Double(output.widthMillimetres),
                heightMillimetres: Double(output.heightMillimetres), isBuiltIn: OutputList.isBuiltIn(output.name))
        })
    }
}
