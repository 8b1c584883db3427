import ArgumentParser
import Glibc
import SystemPackage

/// `popgesturectl bridge wlroots`: a wlroots compositor's activated window and output
/// rotation, through its Wayland protocols, to popgestured.
struct WlrootsBridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wlroots",
        abstract: "Tell popgestured which window has focus, and how the screen is turned, in a wlroots compositor.",
        discussion: """
            For phoc (Phosh), labwc, Wayfire, Hyprland and any compositor that offers \
            wlr-foreign-toplevel-management: the activated window's app_id is the app id; \
            that protocol has no pid, so the pid is unknown. With wlr-output-management it \
            also sends every enabled output: its name, rotation (its transform) and \
            physical size, and whether it is a built-in panel (a name starting eDP, DSI or \
            LVDS); popgestured turns each touchscreen with its own output. Ends \
            with 0 when the compositor exits; exit 2 when it cannot connect or the \
            compositor lacks wlr-foreign-toplevel-management.
            """)

    @Option(name: .customLong("wayland-display"), help: ArgumentHelp(
        "The Wayland display.", discussion: "Default: $WAYLAND_DISPLAY, else wayland-0.", valueName: "name"))
    var waylandDisplay: String?

    @OptionGroup var options: BridgeOptions

    static let name = "popgesturectl bridge wlroots"

    func run() throws {
        let source: WlrootsSource
        do {
            source = try WlrootsSource(display: waylandDisplay)
        } catch {
            throw CtlFailure("\(Self.name): \(error)", exitCode: .cannotConnect)
        }
        try Self.run(source, options: options)
    }

    /// Runs the bridge on a source already connected: for `bridge wlroots` and `bridge auto`.
    static func run(_ source: WlrootsSource, options: BridgeOptions) throws {
        try Bridge.run(source, name: Self.name, options: options)
    }
}

/// A wlroots compositor as a `FocusSource`: its Wayland connection's descriptor, and what
/// `WlrootsTracker` makes of the events that come through it.
struct WlrootsSource: FocusSource {
    let display: WaylandDisplay
    private var tracker = WlrootsTracker()
    private var started = false
    /// In a Phosh session, GNOME's touchpad natural-scroll, which phoc applies
    /// (``GSettingsTouchpadScrolling``); nil elsewhere.
    private var touchpad: GSettingsTouchpadScrolling?
    /// Why it is not followed, for the first read; nil when it is, or is not wanted.
    private var touchpadProblem: String?

    /// Connects to `display` (nil: `$WAYLAND_DISPLAY`) and reads the windows and outputs
    /// there are; in a Phosh session (`desktop`, default `$XDG_CURRENT_DESKTOP`) follows
    /// GNOME's touchpad setting too. Throws `WaylandError` when there is no compositor,
    /// or it lacks the protocol.
    init(display name: String?, desktop: String? = getenv("XDG_CURRENT_DESKTOP").map { String(cString: $0) }) throws(WaylandError) {
        display = try WaylandDisplay(name: name)
        guard GSettingsTouchpadScrolling.wanted(desktop: desktop) else { return }
        switch GSettingsTouchpadScrolling.start() {
        case .success(let following): touchpad = following
        case .failure(let error): touchpadProblem = "\(error): the touchpad's natural scrolling is not sent"
        }
    }

    var descriptor: FileDescriptor { display.descriptor }
    var otherDescriptor: FileDescriptor? { touchpad?.descriptor }

    /// Before the first read the compositor's first lists wait in libwayland's queue,
    /// where `poll` cannot see them.
    var hasBufferedEvents: Bool { !started || display.hasQueuedEvents }

    mutating func readAvailable() throws -> [FocusSourceEvent] {
        let events: [WlrootsEvent]
        do {
            events = try display.dispatch()
        } catch {
            if case .broken(ended: true) = error.kind { return [.ended("\(error); done")] }
            throw CtlFailure("\(error)", exitCode: .cannotConnect)
        }
        var out: [FocusSourceEvent] = []
        if !started {
            if let natural = touchpad?.natural { out.append(.touchpadScrolling(natural: natural)) }
            if let touchpadProblem { out.append(.log(touchpadProblem)) }
        }
        out += touchpad?.read() ?? []
        if !started, !display.hasOutputManagement {
            out.append(.log("the compositor at \(display.name) does not offer zwlr_output_manager_v1 "
                + "(wlr-output-management): the outputs are not sent"))
        }
        for event in events {
            for change in tracker.handle(event) {
                out.append(change)
                if case .ended = change { return Self.lastOfEach(out) }
            }
        }
        if !started {
            started = true
            out += tracker.settle()
        }
        return Self.lastOfEach(out)
    }

    /// What came in one read, with only the last focus and the last outputs: a compositor
    /// deactivates one window and activates the next in two `done`s, sent together, and the
    /// daemon need not hear "no window" in between.
    static func lastOfEach(_ events: [FocusSourceEvent]) -> [FocusSourceEvent] {
        let lastFocus = events.lastIndex { if case .focused = $0 { true } else { false } }
        let lastRotation = events.lastIndex { if case .rotated = $0 { true } else { false } }
        let lastOutputs = events.lastIndex { if case .outputs = $0 { true } else { false } }
        return events.indices.compactMap { index in
            switch events[index] {
            case .focused: index == lastFocus ? events[index] : nil
            case .rotated: index == lastRotation ? events[index] : nil
            case .outputs: index == lastOutputs ? events[index] : nil
            case .log, .textDirection, .touchpadScrolling, .ended: events[index]
            }
        }
    }
}
