import Testing
@testable import popgesturectl

/// What the wlroots bridge makes of the compositor's events, without a compositor: the
/// events as libwayland would hand them over, in the order phoc sends them.
@Suite struct WlrootsFocusTests {
    static func focus(_ app: String?) -> FocusSourceEvent { .focused(FocusedWindow(app: app, pid: nil)) }
    static func rotated(_ degrees: Int64, _ output: String?) -> FocusSourceEvent {
        .rotated(OutputRotation(degrees: degrees, output: output)!)
    }

    /// A window's properties and its `done`.
    static func window(_ id: WaylandObjectID, app: String, activated: Bool) -> [WlrootsEvent] {
        [.toplevelAppID(id, app), .toplevelActivated(id, activated), .toplevelDone(id)]
    }

    static func output(_ id: WaylandObjectID, _ name: String, enabled: Bool = true, transform: Int32 = 0) -> [WlrootsEvent] {
        [.headName(id, name), .headEnabled(id, enabled), .headTransform(id, transform)]
    }

    static func feed(_ tracker: inout WlrootsTracker, _ events: [WlrootsEvent]) -> [FocusSourceEvent] {
        events.flatMap { tracker.handle($0) }
    }

    @Test("the activated window is the focus; a change applies at its done, and is reported once")
    func activatedWindow() {
        var tracker = WlrootsTracker()
        #expect(Self.feed(&tracker, Self.window(1, app: "One", activated: false)) == [Self.focus(nil)])
        #expect(Self.feed(&tracker, [.toplevelAppID(2, "Two"), .toplevelActivated(2, true)]).isEmpty, "nothing before done")
        #expect(tracker.handle(.toplevelDone(2)) == [Self.focus("Two")])
        #expect(tracker.handle(.toplevelDone(2)).isEmpty, "the same again is no change")
        // A task switch: Two deactivated, then One activated.
        #expect(Self.feed(&tracker, [.toplevelActivated(2, false), .toplevelDone(2)]) == [Self.focus(nil)])
        #expect(Self.feed(&tracker, [.toplevelActivated(1, true), .toplevelDone(1)]) == [Self.focus("One")])
        #expect(tracker.handle(.toplevelClosed(1)) == [Self.focus(nil)], "the focused window closes: no window")
    }

    @Test("two activated windows (two seats): the latest activated is the focus")
    func latestActivatedWins() {
        var tracker = WlrootsTracker()
        _ = Self.feed(&tracker, Self.window(1, app: "One", activated: true))
        #expect(Self.feed(&tracker, Self.window(2, app: "Two", activated: true)) == [Self.focus("Two")])
        #expect(tracker.handle(.toplevelClosed(2)) == [Self.focus("One")])
    }

    @Test("an app id the protocol does not take is sent as unknown, logged once")
    func longAppID() {
        var tracker = WlrootsTracker()
        let long = String(repeating: "a", count: 257)
        let first = Self.feed(&tracker, Self.window(1, app: long, activated: true))
        #expect(first.count == 2)
        guard case .log(let line) = first.first else { Issue.record("\(first)"); return }
        #expect(line.hasPrefix("a window's app id is 257 bytes, past the protocol's 256"), "\(line)")
        #expect(first.last == Self.focus(nil))
        let again = Self.feed(&tracker, Self.window(2, app: long + "b", activated: true))
        #expect(again.allSatisfy { if case .log = $0 { false } else { true } }, "logged once: \(again)")
        #expect(FocusedWindow(app: String(repeating: "a", count: 256), pid: nil).app != nil, "256 bytes is still an app id")
    }

    @Test("the rotation is the built-in panel's, else the first enabled output's; applied at the manager's done")
    func touchOutput() {
        var tracker = WlrootsTracker()
        #expect(Self.feed(&tracker, Self.output(1, "HDMI-A-1", transform: 1) + Self.output(2, "DSI-1", transform: 3)).isEmpty)
        #expect(tracker.handle(.outputsDone) == [Self.rotated(270, "DSI-1")], "DSI-1 is the built-in panel")
        #expect(Self.feed(&tracker, [.headEnabled(2, false), .outputsDone]) == [Self.rotated(90, "HDMI-A-1")], "panel off: the first enabled")
        #expect(Self.feed(&tracker, [.headEnabled(2, true), .headTransform(2, 1), .outputsDone]) == [Self.rotated(90, "DSI-1")])
        #expect(Self.feed(&tracker, [.headTransform(1, 2), .outputsDone]).isEmpty, "the external output's turn is not the touchscreen's")
        #expect(Self.feed(&tracker, [.headFinished(2), .outputsDone]) == [Self.rotated(180, "HDMI-A-1")], "the panel gone")
        #expect(Self.feed(&tracker, [.headEnabled(1, false), .outputsDone]).isEmpty, "no enabled output: nothing to say")

        var laptop = WlrootsTracker()
        _ = Self.feed(&laptop, Self.output(7, "DP-1") + Self.output(8, "eDP-1", transform: 2) + Self.output(9, "LVDS-1"))
        #expect(laptop.handle(.outputsDone) == [Self.rotated(180, "eDP-1")], "eDP and LVDS are built-in too")
    }

    @Test("wl_output transforms as rotation: N × 90 is N × 90 clockwise; the flipped ones are mirror and turn",
          arguments: [(0, 0, false), (1, 90, false), (2, 180, false), (3, 270, false),
                      (4, 0, true), (5, 90, true), (6, 180, true), (7, 270, true)] as [(Int32, Int64, Bool)])
    func transforms(transform: Int32, degrees: Int64, flipped: Bool) {
        let rotation = WlrootsTracker.rotation(fromTransform: transform)
        #expect(rotation?.degrees == degrees)
        #expect(rotation?.flipped == flipped)
    }

    @Test("a mirrored output sends its rotation part and logs once; a transform outside 0 to 7 sends nothing, logged")
    func oddTransforms() {
        var tracker = WlrootsTracker()
        let flipped = Self.feed(&tracker, Self.output(1, "DSI-1", transform: 5) + [.outputsDone])
        #expect(flipped == [
            .log("output DSI-1 is mirrored (transform flipped-90): only its rotation, 90°, is sent; popgestured does not mirror touches"),
            Self.rotated(90, "DSI-1"),
        ])
        #expect(Self.feed(&tracker, [.headTransform(1, 6), .outputsDone]) == [Self.rotated(180, "DSI-1")], "logged once")
        #expect(WlrootsTracker.rotation(fromTransform: 8) == nil)
        let odd = Self.feed(&tracker, [.headTransform(1, 9), .outputsDone])
        #expect(odd == [.log("output DSI-1 has transform 9, which wl_output does not define (0 to 7): its rotation is not sent")])
    }

    @Test("an output name past 256 bytes is sent as unnamed, and shown quoted when odd")
    func outputNames() {
        var tracker = WlrootsTracker()
        let events = Self.feed(&tracker, Self.output(1, String(repeating: "x", count: 300)) + [.outputsDone])
        #expect(events.count == 2)
        #expect(events.last == Self.rotated(0, nil))
        #expect(OutputRotation(degrees: 90, output: "DSI\u{1b}1")?.description == #"90° on "DSI\u{1b}1""#)
        #expect(OutputRotation(degrees: 45, output: "DSI-1") == nil, "only the four the protocol takes")
    }

    @Test("at start, no activated window is reported as no window; a finished list ends the bridge")
    func startAndEnd() {
        var tracker = WlrootsTracker()
        #expect(tracker.settle() == [Self.focus(nil)])
        #expect(tracker.settle().isEmpty)
        guard case .ended(let message) = tracker.handle(.toplevelsFinished).first else { Issue.record("no end"); return }
        #expect(message.contains("stopped listing its windows"))
        #expect(tracker.handle(.overflow("more than 1024 windows")) == [.log("more than 1024 windows: the ones past it are not followed")])
        #expect(tracker.handle(.overflow("more than 64 outputs")).isEmpty, "logged once")
    }

    @Test("what came in one read is one report: a task switch's \"no window\" in between is dropped")
    func oneReportPerRead() {
        let events: [FocusSourceEvent] = [Self.focus(nil), Self.rotated(0, "A"), Self.focus("One"), .log("x"), Self.rotated(90, "A")]
        #expect(WlrootsSource.lastOfEach(events) == [Self.focus("One"), .log("x"), Self.rotated(90, "A")])
    }
}
