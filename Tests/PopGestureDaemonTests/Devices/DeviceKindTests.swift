import Logging
import PopGestureCore
import PopGestureDaemon
import PopGestureSynthesis
import Testing

/// One kind per device, udev's (issue 8, defect 3): the daemon asks the configuration
/// for udev's kind, and the engine uses that kind, never the description's bits.
@Suite("A device's kind is udev's")
struct DeviceKindTests {
    /// A panel udev calls a touchscreen (hwdb or a rule says so) whose bits look like a
    /// touchpad: `BTN_TOOL_FINGER` and no `INPUT_PROP_DIRECT`. 217 × 136 mm at 10 units/mm.
    static let padLookingScreen: DeviceDescription = {
        let x = AbsoluteAxis(minimum: 0, maximum: 2170, resolution: 10)
        let y = AbsoluteAxis(minimum: 0, maximum: 1360, resolution: 10)
        return DeviceDescription(
            name: "Touchscreen With Touchpad Bits", bustype: 0x18,
            keys: [BTN.touch, BTN.toolFinger],
            eventTypes: [EV.syn, EV.key, EV.abs],
            axes: [
                ABS.x: x, ABS.y: y, ABS.mtPositionX: x, ABS.mtPositionY: y,
                ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
                ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
            ])
    }()

    /// Adds the device as the daemon does for a udev touchscreen, with `configuration`,
    /// plays `gesture` in the panel's own coordinates and returns what the engine said.
    static func play(
        _ configuration: Configuration = Configuration(), top: Page = Page(id: "detail"),
        _ gesture: (inout TouchScript) -> Void
    ) throws -> [EngineEvent] {
        var script = TouchScript(device: padLookingScreen)
        let start = script.time
        gesture(&script)
        var engine = GestureEngine(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        configuration.apply(to: &engine)
        try engine.perform(.create(navigator: "main", pages: [Page(id: "root"), top], layout: nil,
                                   barFollowsTopPage: true), from: ClientID(1), at: start)
        engine.drainEvents { _ in }
        let device = try #require(configuration.deviceConfiguration(for: .touchscreen))
        let id = engine.addDevice(padLookingScreen, configuration: device)
        var events: [EngineEvent] = []
        for event in script.events {
            engine.handle(event, from: id)
            engine.drainEvents { events.append($0) }
        }
        return events
    }

    static func backs(_ events: [EngineEvent]) -> Int {
        events.filter { if case .back = $0 { true } else { false } }.count
    }

    static func rejections(_ events: [EngineEvent]) -> [RejectionReason] {
        events.compactMap { if case .rejected(let reason, _, _) = $0 { reason } else { nil } }
    }

    @Test("its kind is taken from udev's, not from its bits")
    func kindIsUdevs() throws {
        #expect(Self.padLookingScreen.inferredKind == .touchpad)  // what the bits alone would say
        #expect(Configuration().deviceConfiguration(for: .touchscreen)?.kind == .touchscreen)
    }

    @Test("one finger from 2 % of the width, 60 mm to the right in 150 ms, goes back: a touchscreen's one-finger pan")
    func oneFingerPan() throws {
        let events = try Self.play { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(Self.backs(events) == 1, "\(events)")
    }

    @Test("with rotation 90, 60 mm up the panel from its bottom edge is a swipe from the screen's left edge: back")
    func rotationApplies() throws {
        var configuration = Configuration()
        configuration.rotation = .clockwise90
        // Turned 90° clockwise, the screen's left edge is the panel's bottom edge, and
        // the screen's right is the panel's up.
        let events = try Self.play(configuration) { finger in
            finger.down(at: 0.5, 0.98)
            finger.move(byMillimetres: 0, -60, over: .milliseconds(150))
            finger.up()
        }
        #expect(Self.backs(events) == 1, "\(events)")
    }

    @Test("edge mode: a swipe from the middle of the screen is rejected as outside the edge zone")
    func edgeRuleApplies() throws {
        var configuration = Configuration()
        configuration.gesture.mode = .edge
        let events = try Self.play(configuration) { finger in
            finger.down(at: 0.5, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(Self.rejections(events) == [.outsideEdgeZone], "\(events)")
        #expect(Self.backs(events) == 0)
    }

    @Test("the top page's exclusion zone and start distance apply: screen positions, not a touchpad's")
    func pageRulesApply() throws {
        let leftHalf = NormalizedRect(x: 0, y: 0, width: 0.5, height: 1)
        let excluded = try Self.play(top: Page(id: "detail", exclusionZones: [leftHalf])) { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(Self.rejections(excluded) == [.excluded], "\(excluded)")
        let far = try Self.play(top: Page(id: "detail", maxStartDistanceMillimetres: 20)) { finger in
            finger.down(at: 0.5, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(Self.rejections(far) == [.tooFarFromEdge], "\(far)")
    }
}
