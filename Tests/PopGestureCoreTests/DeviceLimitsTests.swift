import Logging
@testable import PopGestureCore
import Testing

/// What a device can send that must not trap the engine (issue 7, defects 6 and 7):
/// extreme axis ranges, absurd slot counts, timestamps at the ends of Int64, and
/// `BTN_TOOL_*` counts without contacts.
@Suite struct DeviceLimitsTests {
    /// A protocol B touchscreen whose position axes span all of Int32.
    static let fullRangeScreen = Fixtures.slotTouchscreen(x: Int32.min...Int32.max, y: Int32.min...Int32.max, resolution: 0)

    // MARK: Axis ranges

    @Test("An axis from −2³¹ to 2³¹−1 has its span in Int64")
    func fullRangeSpan() {
        let axis = AbsoluteAxis(minimum: .min, maximum: .max)
        #expect(axis.span == 4_294_967_295)
        #expect(AbsoluteAxis(minimum: 5, maximum: -5).span == -10)
    }

    @Test("A full-range screen is accepted and maps its corners to 0 and 1")
    func fullRangeTransform() throws {
        try Self.fullRangeScreen.validate()
        let transform = ScreenTransform(device: Self.fullRangeScreen)
        #expect(transform.screenPoint(x: .min, y: .min).x == 0)
        #expect(transform.screenPoint(x: .max, y: .max).y == 1)
    }

    @Test("A full-range screen takes a swipe at its extremes without trapping")
    func fullRangeEngine() throws {
        var engine = GestureEngine()
        let screen = engine.addDevice(Self.fullRangeScreen)
        let talk = Fixtures.Talk()
        talk.slot(0); talk.trackingID(1); talk.position(x: .min, y: .min); talk.report()
        talk.position(x: .max, y: .max); talk.report()
        talk.lift(); talk.report()
        for event in talk.take() { engine.handle(event, from: screen) }
        #expect(engine.arbiterState == .idle)
    }

    @Test("An empty position axis is refused with the axis named", arguments: [
        (0...0 as ClosedRange<Int32>, ABS.mtPositionX), (100...100, ABS.mtPositionX),
    ])
    func emptyAxisRefused(range: ClosedRange<Int32>, axis: UInt16) {
        let device = Fixtures.slotTouchscreen(x: range)
        #expect(throws: DeviceDescriptionError(.invalidAxisRange, axis: axis,
                                               "axis 0x35 has an empty range \(range.lowerBound)…\(range.upperBound)")) {
            try device.validate()
        }
    }

    @Test("An inverted axis is refused; so is an inverted slot axis")
    func invertedRefused() {
        var device = Fixtures.singleTouch
        device.axes[ABS.y] = AbsoluteAxis(minimum: 767, maximum: 0)
        do {
            try device.validate()
            Issue.record("an inverted ABS_Y was accepted")
        } catch {
            #expect(error.code == .invalidAxisRange && error.axis == ABS.y)
            #expect(error.message.contains("inverted"))
        }
        var slots = Fixtures.touchscreen
        slots.axes[ABS.mtSlot] = AbsoluteAxis(minimum: 3, maximum: 2)
        #expect(throws: DeviceDescriptionError.self) { try slots.validate() }
        slots.axes[ABS.mtSlot] = AbsoluteAxis(minimum: -1, maximum: 9)
        #expect(throws: DeviceDescriptionError.self) { try slots.validate() }
    }

    @Test("The fixtures, a one-slot device and devices without positions pass validation")
    func ordinaryDevicesPass() throws {
        for device in [Fixtures.touchscreen, Fixtures.singleTouch, Fixtures.touchpad, Fixtures.noResolutionTouchscreen,
                       Fixtures.slotTouchscreen(slots: 1), DeviceDescription(name: "no axes")] {
            try device.validate()
        }
    }

    // MARK: Slots

    @Test("A slot axis up to 2³¹−1 tracks 64 slots, and events for higher slots are ignored")
    func hugeSlotAxisClamped() {
        var device = Fixtures.touchscreen
        device.axes[ABS.mtSlot] = AbsoluteAxis(minimum: 0, maximum: .max)
        #expect(device.declaredSlotCount == 2_147_483_648)
        #expect(device.slotCount == DeviceDescription.maximumTrackedSlots)
        var touches = TouchState(device: device)
        #expect(touches.contacts.count == 64)
        let talk = Fixtures.Talk()
        talk.slot(63); talk.trackingID(7); talk.position(x: 10, y: 10)
        talk.slot(64); talk.trackingID(8); talk.position(x: 20, y: 20)
        talk.slot(.max); talk.trackingID(9)
        talk.report()
        Fixtures.feed(talk, to: &touches)
        #expect(touches.contacts[63].trackingID == 7)
        #expect(touches.fingerCount == 1)
        #expect(touches.ignoredSlotEvents == 4)
    }

    @Test("An engine with a 2³¹-slot device handles frames at the cost of 64 slots")
    func hugeSlotEngine() {
        var device = Fixtures.touchscreen
        device.axes[ABS.mtSlot] = AbsoluteAxis(minimum: 0, maximum: .max)
        var engine = GestureEngine()
        let id = engine.addDevice(device)
        let talk = Fixtures.Talk()
        talk.slot(1_000_000); talk.trackingID(1); talk.report()
        talk.slot(0); talk.trackingID(2); talk.position(x: 5, y: 5); talk.report()
        talk.lift(); talk.report()
        for event in talk.take() { engine.handle(event, from: id) }
        #expect(engine.arbiterState == .idle)
    }

    /// Keeps the messages logged at warning level and above.
    final class Warnings: @unchecked Sendable {
        private(set) var messages: [String] = []
        func logger() -> Logger {
            Logger(label: "test") { _ in Handler(box: self) }
        }
        struct Handler: LogHandler {
            let box: Warnings
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                     file: String, function: String, line: UInt) {
                if level >= .warning { box.messages.append(message.description) }
            }
        }
    }

    @Test("Clamped slots are logged once when the device is added and once at the first ignored event")
    func clampedSlotsLoggedOnce() {
        var device = Fixtures.touchscreen
        device.axes[ABS.mtSlot] = AbsoluteAxis(minimum: 0, maximum: 99)
        let warnings = Warnings()
        var engine = GestureEngine(logger: warnings.logger())
        let id = engine.addDevice(device)
        let talk = Fixtures.Talk()
        for _ in 0..<3 {
            talk.slot(80); talk.trackingID(1); talk.position(x: 1, y: 1)
            talk.slot(0); talk.trackingID(2); talk.position(x: 2, y: 2); talk.report()
            talk.slot(0); talk.lift(); talk.report()
        }
        for event in talk.take() { engine.handle(event, from: id) }
        #expect(warnings.messages.filter { $0.contains("declares 100 slots, tracking the first 64") }.count == 1)
        #expect(warnings.messages.filter { $0.contains("beyond the 64 tracked are ignored") }.count == 1)
        #expect(engine.touches(of: id)?.ignoredSlotEvents == 9)
    }

    @Test("Dropped frames are warned about once per device")
    func droppedFrames() {
        let warnings = Warnings()
        var engine = GestureEngine(logger: warnings.logger())
        let id = engine.addDevice(Fixtures.touchscreen)
        let time = Timestamp(seconds: 1, microseconds: 0)
        for _ in 0..<3 {
            engine.dropFrame(from: id, at: time)
            engine.handle(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0), from: id)
        }
        engine.dropFrame(from: DeviceID(7), at: time)  // no such device: nothing happens
        #expect(warnings.messages.count == 1)
        #expect(warnings.messages.first?.contains("longer than 1024 events") == true)
    }

    // MARK: Timestamps

    @Test("Timestamps saturate instead of trapping")
    func timestampsSaturate() {
        #expect(Timestamp(seconds: .max, microseconds: 999_999).microseconds == .max)
        #expect(Timestamp(seconds: .min, microseconds: -1).microseconds == .min)
        #expect(Timestamp(seconds: 9_223_372_036_854, microseconds: 775_807).microseconds == .max)
        #expect((Timestamp(microseconds: .max) + .seconds(1)).microseconds == .max)
        #expect((Timestamp(microseconds: .min) + .seconds(-1)).microseconds == .min)
        #expect((Timestamp(microseconds: .max) + .seconds(Int64.max)).microseconds == .max)
        #expect(Timestamp(microseconds: .max) - Timestamp(microseconds: .min) == .max)
        #expect(Timestamp(microseconds: .min) - Timestamp(microseconds: .max) == .min)
        #expect(Timestamp(microseconds: 5) - Timestamp(microseconds: 7) == -2)
        #expect(Timestamp(microseconds: .min).description == "-9223372036854.775808")
    }

    @Test("A swipe whose clock runs to Int64.max, wraps to Int64.min and goes backwards does not trap",
          arguments: [Int64.max - 5_000, Int64.min, 0])
    func extremeTimes(start: Int64) throws {
        var engine = GestureEngine()
        try engine.perform(.create(navigator: "main", pages: [Page(id: "a"), Page(id: "b")], layout: nil,
                                   barFollowsTopPage: true), from: ClientID(1), at: Timestamp(microseconds: start))
        let screen = engine.addDevice(Fixtures.touchscreen)
        var time = start
        func frame(_ events: [(UInt16, UInt16, Int32)], advance: Int64) {
            for (type, code, value) in events {
                engine.handle(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value), from: screen)
            }
            engine.handle(InputEvent(time: Timestamp(microseconds: time), type: EV.syn, code: SYN.report, value: 0), from: screen)
            time = time.addingReportingOverflow(advance).partialValue  // wraps on purpose
        }
        frame([(EV.abs, ABS.mtSlot, 0), (EV.abs, ABS.mtTrackingID, 1), (EV.abs, ABS.mtPositionX, 10),
               (EV.abs, ABS.mtPositionY, 2000)], advance: 10_000)
        for step in 1...20 {
            frame([(EV.abs, ABS.mtPositionX, Int32(10 + step * 100))], advance: step % 3 == 0 ? -1_000_000 : Int64.max / 3)
        }
        frame([(EV.abs, ABS.mtTrackingID, -1)], advance: 1)
        engine.drainEvents { _ in }
        #expect(engine.arbiterState == .idle)
    }

    @Test("Velocity over timestamps at both ends of Int64 is a number, not a trap")
    func velocityAtExtremes() {
        var tracker = VelocityTracker()
        let point = ScreenPoint(x: 0, y: 0, xMillimetres: 0, yMillimetres: 0)
        tracker.add(point, at: Timestamp(microseconds: .min))
        tracker.add(ScreenPoint(x: 1, y: 1, xMillimetres: 100, yMillimetres: 100), at: Timestamp(microseconds: .max))
        _ = tracker.velocity(at: Timestamp(microseconds: .min))
        let v = tracker.velocity(at: Timestamp(microseconds: .max))
        #expect(!v.x.isNaN)
    }

    // MARK: BTN_TOOL_* without contacts

    /// Runs what `talk` wrote through the touchpad fixture's touch state and recognizer.
    static func touchpadPans(_ talk: Fixtures.Talk) -> (kinds: [String], state: PanRecognizer.State) {
        let device = Fixtures.touchpad
        var touches = TouchState(device: device)
        var recognizer = PanRecognizer(device: device, settings: .defaults(for: .touchpad),
                                       transform: ScreenTransform(device: device), logger: Logger(label: "test"))
        var pans: [PanEvent] = []
        for event in talk.take() {
            guard case .frame(let resynced) = touches.handle(event) else { continue }
            if let pan = recognizer.process(touches, resynced: resynced, at: event.time) { pans.append(pan) }
            touches.endFrame()
        }
        return (PanRecognizerTests.kinds(pans), recognizer.state)
    }

    @Test("BTN_TOOL_DOUBLETAP pressed and released with no contact in any slot makes no pan")
    func doubleTapWithoutContacts() {
        let talk = Fixtures.Talk()
        talk.key(BTN.toolDoubleTap, true); talk.report()
        talk.key(BTN.toolDoubleTap, false); talk.report()
        let (kinds, state) = Self.touchpadPans(talk)
        #expect(kinds.isEmpty)
        #expect(state == .idle)
    }

    @Test("BTN_TOOL_DOUBLETAP before its contacts: the pan begins once a slot holds one")
    func doubleTapThenContact() {
        let talk = Fixtures.Talk()
        talk.key(BTN.toolDoubleTap, true); talk.report()
        talk.slot(0); talk.trackingID(4); talk.position(x: 300, y: 300); talk.report()
        talk.position(x: 400, y: 300); talk.report()
        talk.lift(); talk.key(BTN.toolDoubleTap, false); talk.report()
        let (kinds, state) = Self.touchpadPans(talk)
        #expect(kinds == ["began", "changed", "ended"])
        #expect(state == .idle)
    }
}
