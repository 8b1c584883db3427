import PopGestureCore
import PopGestureSynthesis

/// Devices and helpers for the server tests (test targets cannot share files, so this
/// copies the core tests' protocol B touchscreen).
enum Fixtures {
    /// Protocol B, 10 slots, 0…4095 on both axes at 16 units/mm (255.9375 mm square),
    /// `INPUT_PROP_DIRECT`: the core tests' `Fixtures.touchscreen`.
    static let touchscreen: DeviceDescription = {
        let axis = AbsoluteAxis(minimum: 0, maximum: 4095, resolution: 16)
        return DeviceDescription(
            name: "Fixture Touchscreen", bustype: 0x18, vendor: 0x03eb, product: 0x8a03, version: 1,
            properties: [InputProperty.direct],
            keys: [BTN.touch],
            eventTypes: [EV.syn, EV.key, EV.abs, EV.msc],
            axes: [
                ABS.x: axis,
                ABS.y: axis,
                ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
                ABS.mtTouchMajor: AbsoluteAxis(minimum: 0, maximum: 255),
                ABS.mtPositionX: axis,
                ABS.mtPositionY: axis,
                ABS.mtToolType: AbsoluteAxis(minimum: 0, maximum: MTTool.palm),
                ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
            ])
    }()

    /// Where every script starts, and the time requests carry in the tests.
    static let start = Timestamp(seconds: 1000, microseconds: 0)

    /// A back swipe: from 2 % of the width, 60 mm toward the trailing side in 150 ms.
    static func backSwipe(on device: DeviceDescription = touchscreen) -> TouchScript {
        var finger = TouchScript(device: device, start: start)
        finger.down(at: 0.02, 0.5)
        finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
        finger.up()
        return finger
    }

    /// A vertical scroll: never a back.
    static func scroll(on device: DeviceDescription = touchscreen) -> TouchScript {
        var finger = TouchScript(device: device, start: start)
        finger.down(at: 0.5, 0.3)
        finger.move(byMillimetres: 2, 60, over: .milliseconds(200))
        finger.up()
        return finger
    }

    /// The events of a script cut into frames, each ending at its `SYN_REPORT`, as the
    /// daemon's device reader hands them over.
    static func frames(_ events: [InputEvent]) -> [[InputEvent]] {
        var frames: [[InputEvent]] = [], current: [InputEvent] = []
        for event in events {
            current.append(event)
            if event.isFrameEnd {
                frames.append(current)
                current = []
            }
        }
        if !current.isEmpty { frames.append(current) }
        return frames
    }
}
