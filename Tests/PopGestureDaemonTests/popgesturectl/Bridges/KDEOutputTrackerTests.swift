import PopGestureProtocol
import Testing
@testable import popgesturectl

/// What the KDE bridge makes of KWin's output devices, without KWin: the events as
/// libwayland hands them over, in the order KWin 5.27 sends them (geometry, the rest,
/// name, done, per device).
@Suite struct KDEOutputTrackerTests {
    static func device(
        _ id: WaylandObjectID, _ name: String, enabled: Bool = true, transform: Int32 = 0, size: (Int32, Int32) = (0, 0)
    ) -> [KDEOutputEvent] {
        [.geometry(id, widthMillimetres: size.0, heightMillimetres: size.1, transform: transform),
         .enabled(id, enabled), .name(id, name), .done(id)]
    }

    static func run(_ tracker: inout KDEOutputTracker, _ events: [KDEOutputEvent]) -> [FocusSourceEvent] {
        events.flatMap { tracker.handle($0) }
    }

    static func output(_ name: String, _ rotation: Int64, size: (Double, Double)? = nil) -> ClientRequest.Output {
        ClientRequest.Output(
            name: name, rotation: rotation, widthMillimetres: size?.0, heightMillimetres: size?.1,
            isBuiltIn: OutputList.isBuiltIn(name))
    }

    static func outputs(_ list: ClientRequest.Output...) -> FocusSourceEvent { .outputs(OutputList(list)) }

    @Test("each device's done lists the enabled outputs with name, rotation, size and built-in")
    func listsAtEachDone() {
        var tracker = KDEOutputTracker()
        let first = Self.run(&tracker, Self.device(3, "eDP-1", transform: 1, size: (256, 144)))
        #expect(first == [Self.outputs(Self.output("eDP-1", 90, size: (256, 144)))])
        let second = Self.run(&tracker, Self.device(4, "HDMI-A-1", transform: 2, size: (600, 340)))
        #expect(second == [Self.outputs(Self.output("eDP-1", 90, size: (256, 144)), Self.output("HDMI-A-1", 180, size: (600, 340)))])
        #expect(tracker.outputs.outputs.map(\.isBuiltIn) == [true, false])
    }

    @Test("nothing before done; a change is reported once, a repeat not at all")
    func onlyChangesAtDone() {
        var tracker = KDEOutputTracker()
        _ = Self.run(&tracker, Self.device(3, "DSI-1", size: (70, 140)))
        #expect(tracker.handle(.geometry(3, widthMillimetres: 70, heightMillimetres: 140, transform: 3)) == [])
        #expect(tracker.handle(.done(3)) == [Self.outputs(Self.output("DSI-1", 270, size: (70, 140)))])
        #expect(Self.run(&tracker, [.geometry(3, widthMillimetres: 70, heightMillimetres: 140, transform: 3), .done(3)]) == [])
    }

    @Test("KWin's unknown size (0, or -1 × -1 for a virtual output, or one side) is no size")
    func unknownSizes() {
        var tracker = KDEOutputTracker()
        _ = Self.run(&tracker, Self.device(3, "eDP-1", size: (-1, -1)))
        #expect(tracker.outputs == OutputList([Self.output("eDP-1", 0)]))
        _ = Self.run(&tracker, Self.device(3, "eDP-1", size: (300, 0)))
        #expect(tracker.outputs == OutputList([Self.output("eDP-1", 0)]))
        _ = Self.run(&tracker, Self.device(3, "eDP-1", size: (300, 200)))
        #expect(tracker.outputs == OutputList([Self.output("eDP-1", 0, size: (300, 200))]))
    }

    @Test("a disabled output is left out; enabling it lists it")
    func disabled() {
        var tracker = KDEOutputTracker()
        _ = Self.run(&tracker, Self.device(3, "eDP-1"))
        #expect(Self.run(&tracker, Self.device(4, "HDMI-A-1", enabled: false)) == [])
        #expect(Self.run(&tracker, [.enabled(4, true), .done(4)]) == [Self.outputs(Self.output("eDP-1", 0), Self.output("HDMI-A-1", 0))])
        #expect(Self.run(&tracker, [.enabled(3, false), .done(3)]) == [Self.outputs(Self.output("HDMI-A-1", 0))])
    }

    @Test("an output that goes away is dropped from the list at once (its global has no done)")
    func removed() {
        var tracker = KDEOutputTracker()
        _ = Self.run(&tracker, Self.device(3, "eDP-1") + Self.device(4, "HDMI-A-1"))
        #expect(tracker.handle(.removed(4)) == [Self.outputs(Self.output("eDP-1", 0))])
        #expect(tracker.handle(.removed(4)) == [])
        #expect(tracker.handle(.removed(3)) == [Self.outputs()])
    }

    @Test("a flipped transform gives its turn, logged once; an undefined one leaves the output out")
    func oddTransforms() {
        var tracker = KDEOutputTracker()
        let flipped = Self.run(&tracker, Self.device(3, "eDP-1", transform: 5))
        #expect(flipped.count == 2)
        #expect(flipped.first.map { if case .log(let line) = $0 { line.contains("mirrored (transform flipped-90)") } else { false } } == true)
        #expect(flipped.last == Self.outputs(Self.output("eDP-1", 90)))
        let undefined = Self.run(&tracker, Self.device(4, "HDMI-A-1", transform: 9))
        #expect(undefined.contains { if case .log(let line) = $0 { line.contains("transform 9") } else { false } })
        #expect(tracker.outputs.outputs.map(\.name) == ["eDP-1"])
    }

    @Test("an output without a name, or with one past 256 bytes, is left out, logged once")
    func badNames() {
        var tracker = KDEOutputTracker()
        let long = String(repeating: "x", count: 257)
        let events = Self.run(&tracker, Self.device(3, long) + [.geometry(5, widthMillimetres: 1, heightMillimetres: 1, transform: 0), .enabled(5, true), .done(5)])
        #expect(events.filter { if case .log = $0 { true } else { false } }.count == 1)
        #expect(tracker.outputs.outputs.isEmpty)
    }

    @Test("at most 16 outputs are listed, in KWin's order; the rest logged once")
    func bounded() {
        var tracker = KDEOutputTracker()
        var events: [FocusSourceEvent] = []
        for id in 1...20 { events += Self.run(&tracker, Self.device(WaylandObjectID(id), "DP-\(id)")) }
        #expect(tracker.outputs.outputs.map(\.name) == (1...16).map { "DP-\($0)" })
        #expect(events.filter { if case .log = $0 { true } else { false } }.count == 1)
    }
}
