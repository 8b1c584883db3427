import PopGestureCore

/// Writes the evdev events a real device would send for a scripted gesture, so that
/// tests and the demo read like the gesture they describe:
///
/// ```swift
/// var script = TouchScript(device: atmel)
/// script.down(at: 0.02, 0.5)                  // 2 % of the width, half-way down
/// script.move(byMillimetres: 40, 0, over: .milliseconds(120))
/// script.up()
/// ```
///
/// Positions are in fractions and millimetres of the panel in its own orientation,
/// with no rotation or calibration: the script never mirrors ``ScreenTransform``'s
/// formulas. Tests that write a gesture in a rotated or calibrated screen's terms map
/// it onto the panel with a reference of their own. Each device's own protocol is
/// written: slots (B), `SYN_MT_REPORT` (A) or `ABS_X`/`BTN_TOUCH`.
public struct TouchScript: Sendable {
    public let device: DeviceDescription
    /// Time between frames while moving. Default 10 ms (a 100 Hz touchscreen).
    public var frameInterval: Duration
    public private(set) var events: [InputEvent] = []
    public private(set) var time: Timestamp

    struct Finger: Sendable {
        var slot: Int
        var trackingID: Int32
        var x: Double  // panel fractions
        var y: Double
        var palm: Bool
    }

    private var fingers: [Int: Finger] = [:]
    private var nextTrackingID: Int32 = 100
    private let axes: (x: AbsoluteAxis, y: AbsoluteAxis)

    public init(
        device: DeviceDescription,
        start: Timestamp = Timestamp(seconds: 1000, microseconds: 0), frameInterval: Duration = .milliseconds(10)
    ) {
        self.device = device
        self.time = start
        self.frameInterval = frameInterval
        panelSize = ScreenTransform(device: device).deviceSize
        axes = device.positionAxes ?? (AbsoluteAxis(minimum: 0, maximum: 1000), AbsoluteAxis(minimum: 0, maximum: 1000))
    }

    /// The panel's own size in millimetres (``ScreenTransform/deviceSize``): what
    /// ``move(_:byMillimetres:_:over:)`` measures in.
    public let panelSize: PhysicalSize

    /// Puts finger `finger` down at a panel position given as fractions of its width and height.
    public mutating func down(_ finger: Int = 0, at x: Double, _ y: Double, palm: Bool = false) {
        place(finger, at: x, y, palm: palm)
        frame(changed: [finger], began: [finger])
    }

    private mutating func place(_ finger: Int, at x: Double, _ y: Double, palm: Bool = false) {
        let used = Set(fingers.values.map(\.slot))
        let slot = (0..<max(1, device.slotCount)).first { !used.contains($0) } ?? 0
        fingers[finger] = Finger(slot: slot, trackingID: nextTrackingID, x: x, y: y, palm: palm)
        nextTrackingID += 1
    }

    /// One scan of the panel at `time` (not before the last frame), in one frame: the
    /// fingers that landed since the last scan (at panel fractions), those that moved
    /// (millimetres) and those that lifted. A panel reports what it found at a scan, so
    /// a landing, a move and a lift can share a frame.
    public mutating func scan(
        at time: Timestamp, landing: [(finger: Int, x: Double, y: Double)] = [],
        moving: [(finger: Int, dx: Double, dy: Double)] = [], lifting: [Int] = []
    ) {
        self.time = max(self.time, time)
        for land in landing { place(land.finger, at: land.x, land.y) }
        let size = panelSize
        for move in moving {
            fingers[move.finger]?.x += move.dx / size.width
            fingers[move.finger]?.y += move.dy / size.height
        }
        frame(changed: landing.map(\.finger) + moving.map(\.finger) + lifting, began: landing.map(\.finger),
              ended: lifting)
        for f in lifting { fingers[f] = nil }
    }

    /// Moves fingers by millimetres on the panel in equal steps, one frame per `frameInterval`.
    public mutating func move(_ finger: Int = 0, byMillimetres dx: Double, _ dy: Double, over duration: Duration) {
        move([finger], byMillimetres: dx, dy, over: duration)
    }

    /// Moves several fingers together.
    public mutating func move(_ moving: [Int], byMillimetres dx: Double, _ dy: Double, over duration: Duration) {
        let steps = max(1, Int(duration.microsecondsRounded / max(1, frameInterval.microsecondsRounded)))
        let size = panelSize
        for _ in 0..<steps {
            time = time + frameInterval
            for f in moving {
                fingers[f]?.x += dx / size.width / Double(steps)
                fingers[f]?.y += dy / size.height / Double(steps)
            }
            frame(changed: moving)
        }
    }

    /// Moves each listed finger by its own millimetres in one frame, `frameInterval`
    /// after the last: fingers that go separate ways, as in a pinch.
    public mutating func step(_ moves: [(finger: Int, dx: Double, dy: Double)]) {
        time = time + frameInterval
        let size = panelSize
        for move in moves {
            fingers[move.finger]?.x += move.dx / size.width
            fingers[move.finger]?.y += move.dy / size.height
        }
        frame(changed: moves.map(\.finger))
    }

    /// Turns a finger into a palm (`MT_TOOL_PALM`) where it is.
    public mutating func becomePalm(_ finger: Int = 0) {
        fingers[finger]?.palm = true
        time = time + frameInterval
        frame(changed: [finger])
    }

    /// Lifts a finger, one frame later.
    public mutating func up(_ finger: Int = 0) {
        time = time + frameInterval
        frame(changed: [finger], ended: [finger])
        fingers[finger] = nil
    }

    /// Lets time pass with nothing sent, as a resting finger does.
    public mutating func rest(_ duration: Duration) {
        time = time + duration
    }

    /// Writes `SYN_DROPPED` and then the resync libevdev would give: every finger
    /// listed in `lost` is gone and the others are where they are now.
    public mutating func dropEvents(lost: [Int]) {
        time = time + frameInterval
        emit(EV.syn, SYN.dropped, 0)
        frame(changed: lost, ended: lost, report: true)
        for f in lost { fingers[f] = nil }
    }

    // MARK: - Writing frames

    private mutating func frame(changed: [Int], began: [Int] = [], ended: [Int] = [], report: Bool = true) {
        switch device.touchProtocol {
        case .slots: slotFrame(changed: changed, began: began, ended: ended)
        case .anonymousContacts: anonymousFrame(began: began, ended: ended)
        case .singleTouch: singleTouchFrame(began: began, ended: ended)
        }
        if report { emit(EV.syn, SYN.report, 0) }
    }

    private mutating func slotFrame(changed: [Int], began: [Int], ended: [Int]) {
        for f in changed.sorted() {
            guard let finger = fingers[f] else { continue }
            emit(EV.abs, ABS.mtSlot, Int32(finger.slot))
            if ended.contains(f) {
                emit(EV.abs, ABS.mtTrackingID, -1)
                continue
            }
            if began.contains(f) { emit(EV.abs, ABS.mtTrackingID, finger.trackingID) }
            let (x, y) = deviceUnits(finger)
            emit(EV.abs, ABS.mtPositionX, x)
            emit(EV.abs, ABS.mtPositionY, y)
            touchSize()
            if device.has(axis: ABS.mtToolType) || finger.palm {
                emit(EV.abs, ABS.mtToolType, finger.palm ? MTTool.palm : MTTool.finger)
            }
        }
        legacyPointer(began: began, ended: ended)
    }

    private mutating func anonymousFrame(began: [Int], ended: [Int]) {
        for f in fingers.keys.sorted() where !ended.contains(f) {
            guard let finger = fingers[f] else { continue }
            let (x, y) = deviceUnits(finger)
            emit(EV.abs, ABS.mtPositionX, x)
            emit(EV.abs, ABS.mtPositionY, y)
            touchSize()
            emit(EV.syn, SYN.mtReport, 0)
        }
        if fingers.count == ended.count { emit(EV.syn, SYN.mtReport, 0) }
        legacyPointer(began: began, ended: ended)
    }

    private mutating func singleTouchFrame(began: [Int], ended: [Int]) {
        legacyPointer(began: began, ended: ended)
    }

    /// `ABS_X`/`ABS_Y` follow the first finger and `BTN_TOUCH` says whether any is down,
    /// as the kernel's `input_mt_report_pointer_emulation` does.
    private mutating func legacyPointer(began: [Int], ended: [Int]) {
        let remaining = fingers.keys.filter { !ended.contains($0) }.sorted()
        if let first = remaining.first, let finger = fingers[first] {
            let (x, y) = deviceUnits(finger)
            emit(EV.abs, ABS.x, x)
            emit(EV.abs, ABS.y, y)
        }
        if remaining.count == began.count && !began.isEmpty { emit(EV.key, BTN.touch, 1) }
        if remaining.isEmpty { emit(EV.key, BTN.touch, 0) }
    }

    /// A fingertip's contact, about 8 mm across, on devices that report touch size
    /// (mtdev takes a contact with a major axis of 0 on such devices as lifted).
    private mutating func touchSize() {
        for code in [ABS.mtTouchMajor, ABS.mtTouchMinor] {
            guard let axis = device.axes[code] else { continue }
            let units = axis.resolution > 0 ? 8 * Int64(axis.resolution) : max(1, axis.span / 30)
            emit(EV.abs, code, Int32(min(Int64(axis.maximum), Int64(axis.minimum) + units)))
        }
    }

    private func deviceUnits(_ finger: Finger) -> (Int32, Int32) {
        func units(_ n: Double, _ axis: AbsoluteAxis) -> Int32 {
            let v = Double(axis.minimum) + n * Double(axis.span)
            return Int32(min(Double(axis.maximum), max(Double(axis.minimum), v.rounded())))
        }
        return (units(finger.x, axes.x), units(finger.y, axes.y))
    }

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: time, type: type, code: code, value: value))
    }
}
