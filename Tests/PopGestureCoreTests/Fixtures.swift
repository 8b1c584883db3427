@testable import PopGestureCore
import Testing

/// Device descriptions and event helpers shared by the core's unit tests.
///
/// Everything lives inside `Fixtures` so that other test files in this module can
/// add their own helpers without clashing.
enum Fixtures {
    // MARK: - Devices

    /// A protocol B touchscreen with the axes a typical panel reports:
    /// `ABS_MT_SLOT`, positions, tracking ids, tool type and touch major, plus the
    /// legacy `ABS_X`/`ABS_Y` and `BTN_TOUCH` pointer emulation, and `INPUT_PROP_DIRECT`.
    static func slotTouchscreen(
        name: String = "Fixture Touchscreen", slots: Int32 = 10,
        x: ClosedRange<Int32> = 0...4095, y: ClosedRange<Int32> = 0...4095, resolution: Int32 = 16
    ) -> DeviceDescription {
        let axisX = AbsoluteAxis(minimum: x.lowerBound, maximum: x.upperBound, resolution: resolution)
        let axisY = AbsoluteAxis(minimum: y.lowerBound, maximum: y.upperBound, resolution: resolution)
        return DeviceDescription(
            name: name, bustype: 0x18, vendor: 0x03eb, product: 0x8a03, version: 1,
            properties: [InputProperty.direct],
            keys: [BTN.touch],
            eventTypes: [EV.syn, EV.key, EV.abs, EV.msc],
            axes: [
                ABS.x: axisX,
                ABS.y: axisY,
                ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: slots - 1),
                ABS.mtTouchMajor: AbsoluteAxis(minimum: 0, maximum: 255),
                ABS.mtPositionX: axisX,
                ABS.mtPositionY: axisY,
                ABS.mtToolType: AbsoluteAxis(minimum: 0, maximum: MTTool.palm),
                ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
            ])
    }

    /// Protocol B, 10 slots, 0…4095 on both axes at 16 units/mm (255.9375 mm square),
    /// `INPUT_PROP_DIRECT`.
    static let touchscreen = slotTouchscreen()

    /// Like `touchscreen` but landscape (0…4095 × 0…2559) and with no resolution on
    /// any axis, as many panels report (the Atmel maXTouch in the recordings).
    static let noResolutionTouchscreen = slotTouchscreen(
        name: "Fixture Touchscreen Without Resolution", x: 0...4095, y: 0...2559, resolution: 0)

    /// A single-touch screen: `ABS_X`/`ABS_Y` and `BTN_TOUCH`, no multitouch axes.
    static let singleTouch = DeviceDescription(
        name: "Fixture Single Touch", bustype: 0x03,
        properties: [InputProperty.direct],
        keys: [BTN.touch],
        eventTypes: [EV.syn, EV.key, EV.abs],
        axes: [
            ABS.x: AbsoluteAxis(minimum: 0, maximum: 1023, resolution: 4),
            ABS.y: AbsoluteAxis(minimum: 0, maximum: 767, resolution: 4),
        ])

    /// A protocol B touchpad with 2 slots that reports up to five fingers through
    /// `BTN_TOOL_*`, `INPUT_PROP_POINTER` and `INPUT_PROP_BUTTONPAD`.
    static let touchpad = DeviceDescription(
        name: "Fixture Touchpad", bustype: 0x18,
        properties: [InputProperty.pointer, InputProperty.buttonpad],
        keys: [BTN.left, BTN.touch, BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap,
               BTN.toolQuadTap, BTN.toolQuintTap],
        eventTypes: [EV.syn, EV.key, EV.abs],
        axes: [
            ABS.x: AbsoluteAxis(minimum: 0, maximum: 1216, resolution: 12),
            ABS.y: AbsoluteAxis(minimum: 0, maximum: 680, resolution: 12),
            ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 1),
            ABS.mtPositionX: AbsoluteAxis(minimum: 0, maximum: 1216, resolution: 12),
            ABS.mtPositionY: AbsoluteAxis(minimum: 0, maximum: 680, resolution: 12),
            ABS.mtToolType: AbsoluteAxis(minimum: 0, maximum: MTTool.palm),
            ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
        ])

    /// A device with the given position axes and nothing else of note, for transform tests.
    static func device(
        x: ClosedRange<Int32>, y: ClosedRange<Int32>, resolutionX: Int32 = 0, resolutionY: Int32 = 0,
        reportedSize: PhysicalSize? = nil
    ) -> DeviceDescription {
        var device = DeviceDescription(
            name: "Fixture Axes", properties: [InputProperty.direct], keys: [BTN.touch],
            eventTypes: [EV.syn, EV.key, EV.abs],
            axes: [
                ABS.x: AbsoluteAxis(minimum: x.lowerBound, maximum: x.upperBound, resolution: resolutionX),
                ABS.y: AbsoluteAxis(minimum: y.lowerBound, maximum: y.upperBound, resolution: resolutionY),
            ])
        device.reportedSize = reportedSize
        return device
    }

    // MARK: - Events

    /// Writes evdev events the way a device sends them, so a test reads like the
    /// device talking: `slot(0); trackingID(5); position(x: 100, y: 200); report()`.
    ///
    /// Every event of a frame carries the frame's time; `report()` ends the frame and
    /// moves the clock on by `frameInterval`.
    final class Talk {
        private(set) var time: Timestamp
        var frameInterval: Int64
        private var pending: [InputEvent] = []

        init(startingAt time: Timestamp = Timestamp(seconds: 1000, microseconds: 0), frameInterval: Int64 = 10_000) {
            self.time = time
            self.frameInterval = frameInterval
        }

        func event(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            pending.append(InputEvent(time: time, type: type, code: code, value: value))
        }

        // Protocol B
        func slot(_ slot: Int32) { event(EV.abs, ABS.mtSlot, slot) }
        func trackingID(_ id: Int32) { event(EV.abs, ABS.mtTrackingID, id) }
        /// `ABS_MT_TRACKING_ID -1`: the finger in the current slot lifted.
        func lift() { trackingID(-1) }
        func position(x: Int32, y: Int32) {
            event(EV.abs, ABS.mtPositionX, x)
            event(EV.abs, ABS.mtPositionY, y)
        }
        func positionX(_ x: Int32) { event(EV.abs, ABS.mtPositionX, x) }
        func toolType(_ tool: Int32) { event(EV.abs, ABS.mtToolType, tool) }
        func touchMajor(_ major: Int32) { event(EV.abs, ABS.mtTouchMajor, major) }

        // Single touch and legacy pointer emulation
        func absolute(x: Int32, y: Int32) {
            event(EV.abs, ABS.x, x)
            event(EV.abs, ABS.y, y)
        }
        func key(_ code: UInt16, _ down: Bool) { event(EV.key, code, down ? 1 : 0) }
        func touch(_ down: Bool) { key(BTN.touch, down) }

        // Misc and sync
        func mscTimestamp(_ microseconds: Int32) { event(EV.msc, MSC.timestamp, microseconds) }
        /// `SYN_DROPPED`: the kernel's buffer overflowed.
        func dropped() { event(EV.syn, SYN.dropped, 0) }
        /// `SYN_REPORT`: ends the frame.
        func report() {
            event(EV.syn, SYN.report, 0)
            time = Timestamp(microseconds: time.microseconds + frameInterval)
        }

        /// The events written since the last call, oldest first.
        func take() -> [InputEvent] {
            defer { pending.removeAll() }
            return pending
        }
    }

    /// Feeds everything `talk` has written to `touches`, returning one result per event.
    @discardableResult
    static func feed(_ talk: Talk, to touches: inout TouchState) -> [TouchStateResult] {
        talk.take().map { touches.handle($0) }
    }

    /// Feeds one frame's events and returns the result of its last event, which is the
    /// frame's `.frame(resynced:)` when the frame ended with `report()`.
    /// Records an issue when an event before the last one did not return `.pending`.
    static func frame(_ talk: Talk, to touches: inout TouchState) -> TouchStateResult? {
        let results = feed(talk, to: &touches)
        if results.dropLast().contains(where: { $0 != .pending }) {
            Issue.record("a frame ended before its last event: \(results)")
        }
        return results.last
    }
}
