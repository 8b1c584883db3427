import PopGestureProtocol
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

    /// `.outputs` of these, as the bridge sends them.
    static func outputs(_ outputs: ClientRequest.Output...) -> FocusSourceEvent { .outputs(OutputList(outputs)) }

    @Test("every enabled output in the compositor's order, with its rotation, size and built-in; applied at the manager's done")
    func enabledOutputs() {
        var tracker = WlrootsTracker()
        let heads = Self.output(1, "HDMI-A-1", transform: 1) + [.headPhysicalSize(1, width: 600, height: 340)]
            + Self.output(2, "DSI-1", transform: 3) + [.headPhysicalSize(2, width: 68, height: 136)]
        #expect(Self.feed(&tracker, heads).isEmpty, "nothing before the manager's done")
        let hdmi = ClientRequest.Output(name: "HDMI-A-1", rotation: 90, widthMillimetres: 600, heightMillimetres: 340)
        var dsi = ClientRequest.Output(name: "DSI-1", rotation: 270, widthMillimetres: 68, heightMillimetres: 136, isBuiltIn: true)
        #expect(tracker.handle(.outputsDone) == [Self.outputs(hdmi, dsi)], "DSI-1 is a built-in panel")
        #expect(Self.feed(&tracker, [.headEnabled(2, false), .outputsDone]) == [Self.outputs(hdmi)], "a disabled output is not listed")
        dsi.rotation = 90
        #expect(Self.feed(&tracker, [.headEnabled(2, true), .headTransform(2, 1), .outputsDone]) == [Self.outputs(hdmi, dsi)])
        #expect(Self.feed(&tracker, [.headTransform(2, 1), .outputsDone]).isEmpty, "the same list is not sent again")
        #expect(Self.feed(&tracker, [.headFinished(1), .outputsDone]) == [Self.outputs(dsi)], "an output gone")
        #expect(Self.feed(&tracker, [.headEnabled(2, false), .outputsDone]) == [Self.outputs()], "no enabled output: an empty list")

        var laptop = WlrootsTracker()
        _ = Self.feed(&laptop, Self.output(7, "DP-1") + Self.output(8, "eDP-1", transform: 2) + Self.output(9, "LVDS-1"))
        #expect(laptop.handle(.outputsDone) == [Self.outputs(
            ClientRequest.Output(name: "DP-1", rotation: 0), ClientRequest.Output(name: "eDP-1", rotation: 180, isBuiltIn: true),
            ClientRequest.Output(name: "LVDS-1", rotation: 0, isBuiltIn: true))],
            "eDP and LVDS are built-in too; a size of 0 × 0 (headless) is unknown")
    }

    @Test("wl_output transforms as rotation: N × 90 is N × 90 clockwise; the flipped ones are mirror and turn",
          arguments: [(0, 0, false), (1, 90, false), (2, 180, false), (3, 270, false),
                      (4, 0, true), (5, 90, true), (6, 180, true), (7, 270, true)] as [(Int32, Int64, Bool)])
    func transforms(transform: Int32, degrees: Int64, flipped: Bool) {
        let rotation = WlrootsTracker.rotation(fromTransform: transform)
        #expect(rotation?.degrees == degrees)
        #expect(rotation?.flipped == flipped)
    }

    @Test("a mirrored output sends its rotation part and logs once; a transform outside 0 to 7 leaves the output out, logged")
    func oddTransforms() {
        var tracker = WlrootsTracker()
        let flipped = Self.feed(&tracker, Self.output(1, "DSI-1", transform: 5) + [.outputsDone])
        #expect(flipped == [
            .log("output DSI-1 is mirrored (transform flipped-90): only its rotation, 90°, is sent; popgestured does not mirror touches"),
            Self.outputs(ClientRequest.Output(name: "DSI-1", rotation: 90, isBuiltIn: true)),
        ])
        #expect(Self.feed(&tracker, [.headTransform(1, 6), .outputsDone])
            == [Self.outputs(ClientRequest.Output(name: "DSI-1", rotation: 180, isBuiltIn: true))], "logged once")
        #expect(WlrootsTracker.rotation(fromTransform: 8) == nil)
        let odd = Self.feed(&tracker, [.headTransform(1, 9), .outputsDone])
        #expect(odd == [
            .log("output DSI-1 has transform 9, which wl_output does not define (0 to 7): it is left out of the outputs"),
            Self.outputs(),
        ])
    }

    @Test("an output name past 256 bytes leaves the output out, logged; odd names are shown quoted")
    func outputNames() {
        var tracker = WlrootsTracker()
        let events = Self.feed(&tracker, Self.output(1, String(repeating: "x", count: 300)) + Self.output(2, "A") + [.outputsDone])
        #expect(events.count == 2)
        #expect(events.first.map { if case .log(let line) = $0 { line.contains("300 bytes") } else { false } } == true, "\(events)")
        #expect(events.last == Self.outputs(ClientRequest.Output(name: "A", rotation: 0)))
        #expect(OutputRotation(degrees: 90, output: "DSI\u{1b}1")?.description == #"90° on "DSI\u{1b}1""#)
        #expect(OutputRotation(degrees: 45, output: "DSI-1") == nil, "only the four the protocol takes")
        #expect(OutputList([ClientRequest.Output(name: "DSI\u{1b}1", rotation: 90)]).description == #""DSI\u{1b}1" 90°"#)
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
        let a0 = Self.outputs(ClientRequest.Output(name: "A", rotation: 0))
        let a90 = Self.outputs(ClientRequest.Output(name: "A", rotation: 90))
        let events: [FocusSourceEvent] = [
            Self.focus(nil), Self.rotated(0, "A"), a0, Self.focus("One"), .log("x"), Self.rotated(90, "A"), a90,
        ]
        #expect(WlrootsSource.lastOfEach(events) == [Self.focus("One"), .log("x"), Self.rotated(90, "A"), a90])
    }
}
