import PopGestureCore
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

    @Test("each device's done lists the enabled outputs with name, rotation, size and built-in")
    func listsAtEachDone() {
        var tracker = KDEOutputTracker()
        let first = Self.run(&tracker, Self.device(3, "eDP-1", transform: 1, size: (256, 144)))
        #expect(first == [.outputs([OutputReport(
            name: "eDP-1", rotation: .clockwise90, size: PhysicalSize(width: 256, height: 144), isBuiltIn: true)])])
        let second = Self.run(&tracker, Self.device(4, "HDMI-A-1", transform: 2, size: (600, 340)))
        #expect(second == [.outputs([
            OutputReport(name: "eDP-1", rotation: .clockwise90, size: PhysicalSize(width: 256, height: 144), isBuiltIn: true),
            OutputReport(name: "HDMI-A-1", rotation: .upsideDown, size: PhysicalSize(width: 600, height: 340)),
        ])])
    }

    @Test("nothing before done; a change is reported once, a repeat not at all")
    func onlyChangesAtDone() {
        var tracker = KDEOutputTracker()
        _ = Self.run(&tracker, Self.device(3, "DSI-1", size: (70, 140)))
        #expect(tracker.handle(.geometry(3, widthMillimetres: 70, heightMillimetres: 140, transform: 3)) == [])
        #expect(tracker.handle(.done(3)) == [.outputs([OutputReport(
            name: "DSI-1", rotation: .clockwise270, size: PhysicalSize(width: 70, height: 140), isBuiltIn: true)])])
        #expect(Self.run(&tracker, [.geometry(3, widthMillimetres: 70, heightMillimetres: 140, transform: 3), .done(3)]) == [])
    }

    @Test("KWin's unknown size (0, or -1 for a virtual output) and an absurd one are no size")
    func unknownSizes() {
        #expect(KDEOutputTracker.size(width: 0, height: 0) == nil)
        #expect(KDEOutputTracker.size(width: -1, height: -1) == nil)
        #expect(KDEOutputTracker.size(width: 300, height: 0) == nil)
        #expect(KDEOutputTracker.size(width: 20_000, height: 100) == nil)
        #expect(KDEOutputTracker.size(width: 1, height: 10_000) == PhysicalSize(width: 1, height: 10_000))
    }

    @Test("a disabled output is left out; enabling it lists it")
    func disabled() {
        var tracker = KDEOutputTracker()
        _ = Self.run(&tracker, Self.device(3, "eDP-1"))
        #expect(Self.run(&tracker, Self.device(4, "HDMI-A-1", enabled: false)) == [])
        #expect(Self.run(&tracker, [.enabled(4, true), .done(4)]) == [.outputs([
            OutputReport(name: "eDP-1", rotation: .none, isBuiltIn: true), OutputReport(name: "HDMI-A-1", rotation: .none),
        ])])
        #expect(Self.run(&tracker, [.enabled(3, false), .done(3)]) == [.outputs([OutputReport(name: "HDMI-A-1", rotation: .none)])])
    }

    @Test("an output that goes away is dropped from the list at once (its global has no done)")
    func removed() {
        var tracker = KDEOutputTracker()
        _ = Self.run(&tracker, Self.device(3, "eDP-1") + Self.device(4, "HDMI-A-1"))
        #expect(tracker.handle(.removed(4)) == [.outputs([OutputReport(name: "eDP-1", rotation: .none, isBuiltIn: true)])])
        #expect(tracker.handle(.removed(4)) == [])
        #expect(tracker.handle(.removed(3)) == [.outputs([])])
    }

    @Test("a flipped transform gives its turn, logged once; an undefined one leaves the output out")
    func oddTransforms() {
        var tracker = KDEOutputTracker()
        let flipped = Self.run(&tracker, Self.device(3, "eDP-1", transform: 5))
        #expect(flipped.count == 2)
        #expect(flipped.first.map { if case .log(let line) = $0 { line.contains("mirrored (transform flipped-90)") } else { false } } == true)
        #expect(flipped.last == .outputs([OutputReport(name: "eDP-1", rotation: .clockwise90, isBuiltIn: true)]))
        let undefined = Self.run(&tracker, Self.device(4, "HDMI-A-1", transform: 9))
        #expect(undefined.contains { if case .log(let line) = $0 { line.contains("transform 9") } else { false } })
        #expect(tracker.outputs.map(\.name) == ["eDP-1"])
    }

    @Test("an output without a name, or with one past 256 bytes, is left out, logged once")
    func badNames() {
        var tracker = KDEOutputTracker()
        let long = String(repeating: "x", count: 257)
        let events = Self.run(&tracker, Self.device(3, long) + [.geometry(5, widthMillimetres: 1, heightMillimetres: 1, transform: 0), .enabled(5, true), .done(5)])
        #expect(events.filter { if case .log = $0 { true } else { false } }.count == 1)
        #expect(tracker.outputs.isEmpty)
    }

    @Test("at most 16 outputs are listed, in KWin's order; the rest logged once")
    func bounded() {
        var tracker = KDEOutputTracker()
        var events: [FocusSourceEvent] = []
        for id in 1...20 { events += Self.run(&tracker, Self.device(WaylandObjectID(id), "DP-\(id)")) }
        #expect(tracker.outputs.map(\.name) == (1...16).map { "DP-\($0)" })
        #expect(events.filter { if case .log = $0 { true } else { false } }.count == 1)
    }

    @Test("the verbose line names each output's rotation, size and built-in")
    func description() {
        #expect(describeOutputs([]) == "no enabled output")
        #expect(describeOutputs([
            OutputReport(name: "eDP-1", rotation: .clockwise90, size: PhysicalSize(width: 256, height: 144), isBuiltIn: true),
            OutputReport(name: "Virtual-1", rotation: .none),
        ]) == "eDP-1 90° 256×144 mm built-in, Virtual-1 0°")
    }
}
