import Logging

/// How a device's touches become one pan.
public enum PanSource: String, Sendable, Hashable, CaseIterable {
    /// One finger is the pan; a second finger cancels it. The touchscreen default.
    case oneFinger = "one-finger"
    /// Two fingers move together and their centroid is the pan, as browsers do for
    /// back on touchpads; one finger alone is pointer motion, a third cancels.
    /// The touchpad default.
    case twoFingerCentroid = "two-finger"
}

/// Per-device settings for turning touches into pans.
public struct PanSettings: Sendable, Hashable {
    public var source: PanSource
    /// A touch whose major axis is at least this long is a palm. Used only when the
    /// device reports `ABS_MT_TOUCH_MAJOR` with a resolution. Default 25 mm: a
    /// fingertip's contact is about 8–12 mm, a palm's edge several centimetres.
    public var palmSizeMillimetres: Double

    public init(source: PanSource, palmSizeMillimetres: Double = 25) {
        self.source = source
        self.palmSizeMillimetres = palmSizeMillimetres
    }

    public static func defaults(for kind: DeviceKind) -> PanSettings {
        PanSettings(source: kind == .touchpad ? .twoFingerCentroid : .oneFinger)
    }
}

/// Turns the frames of one device into a pan stream.
///
/// States: `idle` → `panning` (the counted fingers are down) → back to `idle` on
/// release, or to `disqualified` when the finger count goes wrong, a palm shows up
/// or events are lost; `disqualified` lasts until every finger is up, so a gesture
/// that went wrong never turns into a pan halfway through.
public struct PanRecognizer: Sendable {
    public enum State: Sendable, Equatable, CustomStringConvertible {
        case idle
        case panning
        case disqualified

        public var description: String {
            switch self {
            case .idle: "idle"
            case .panning: "panning"
            case .disqualified: "disqualified"
            }
        }
    }

    public let settings: PanSettings
    public let transform: ScreenTransform
    public private(set) var state: State = .idle

    private let palmMajorUnits: Int32
    /// The slots that make up the pan, and their tracking ids when it began.
    private var slots: (Int, Int) = (-1, -1)
    private var trackingIDs: (Int32, Int32) = (-1, -1)
    private var velocity = VelocityTracker()
    private var last: PanSample?
    private var logger: Logger

    public init(device: DeviceDescription, settings: PanSettings, transform: ScreenTransform, logger: Logger) {
        self.settings = settings
        self.transform = transform
        self.logger = logger
        if let major = device.axes[ABS.mtTouchMajor], major.resolution > 0, settings.palmSizeMillimetres.isFinite {
            let units = settings.palmSizeMillimetres * Double(major.resolution)
            palmMajorUnits = Int32(min(Double(Int32.max), max(0, units)))
        } else {
            palmMajorUnits = .max
        }
    }

    private var fingersNeeded: Int { settings.source == .oneFinger ? 1 : 2 }

    /// Reads a completed frame and returns the pan event it makes, if any.
    public mutating func process(_ touches: TouchState, resynced: Bool, at time: Timestamp) -> PanEvent? {
        var fingers = 0
        var palms = 0
        var first = -1, second = -1
        for i in touches.contacts.indices {
            let contact = touches.contacts[i]
            guard contact.isDown else { continue }
            if contact.isPalm || contact.touchMajor >= palmMajorUnits {
                palms += 1
                continue
            }
            fingers += 1
            if first < 0 { first = i } else if second < 0 { second = i }
        }
        // Touchpads with fewer slots than fingers report the rest through BTN_TOOL_*.
        if settings.source == .twoFingerCentroid { fingers = max(fingers, touches.toolFingerCount - palms) }

        switch state {
        case .idle:
            // Nothing down (a resync included), or fewer fingers than the pan needs: wait,
            // since fingers seldom land in the same frame.
            if palms == 0 && (fingers == 0 || fingers < fingersNeeded && !resynced) { return nil }
            guard !resynced, fingers == fingersNeeded, palms == 0 else {
                transition(to: .disqualified, "fingers=\(fingers) palms=\(palms) resynced=\(resynced)")
                return nil
            }
            // BTN_TOOL_DOUBLETAP can count fingers no slot holds yet (semi-mt pads send it
            // before, or without, any contact): a pan needs a position, so wait for one.
            guard first >= 0 else { return nil }
            slots = (first, second)
            trackingIDs = (touches.contacts[first].trackingID, second >= 0 ? touches.contacts[second].trackingID : -1)
            velocity.reset()
            transition(to: .panning, "fingers=\(fingers)")
            return .began(sample(touches, at: time))

        case .panning:
            if resynced { return cancel(.eventsDropped, at: time, fingers: fingers) }
            // A pan finger that turns into a palm is counted among the palms.
            if palms > 0 { return cancel(.palm, at: time, fingers: fingers + palms) }
            if !panContactsAreDown(touches) {
                // The pan's finger lifted (or one of the two): a release.
                let end = last ?? sample(touches, at: time)
                if fingers > 0 {
                    transition(to: .disqualified, "released with \(fingers) finger(s) left")
                } else {
                    transition(to: .idle, "released")
                }
                last = nil
                var released = end
                let v = velocity.velocity(at: time)
                (released.velocityX, released.velocityY, released.time) = (v.x, v.y, time)
                return .ended(released)
            }
            if fingers > fingersNeeded { return cancel(.extraFinger, at: time, fingers: fingers) }
            guard touches.contacts[slots.0].moved || (slots.1 >= 0 && touches.contacts[slots.1].moved) else {
                return nil
            }
            return .changed(sample(touches, at: time))

        case .disqualified:
            if fingers == 0 && palms == 0 { transition(to: .idle, "all fingers up") }
            return nil
        }
    }

    /// Cancels a pan in progress because its device is going away.
    public mutating func deviceRemoved(at time: Timestamp) -> PanEvent? {
        guard state == .panning else {
            state = .idle
            return nil
        }
        transition(to: .idle, "device removed")
        last = nil
        return .cancelled(.deviceRemoved, time: time)
    }

    private mutating func cancel(_ reason: PanCancelReason, at time: Timestamp, fingers: Int) -> PanEvent {
        transition(to: fingers == 0 ? .idle : .disqualified, reason.rawValue)
        last = nil
        return .cancelled(reason, time: time)
    }

    private func panContactsAreDown(_ touches: TouchState) -> Bool {
        isTracked(touches, slots.0, trackingIDs.0) && (slots.1 < 0 || isTracked(touches, slots.1, trackingIDs.1))
    }

    private func isTracked(_ touches: TouchState, _ slot: Int, _ id: Int32) -> Bool {
        let c = touches.contacts[slot]
        // A new tracking id in the same slot is another finger: the tracked one is gone.
        return c.phase == .down && c.trackingID == id
    }

    private mutating func sample(_ touches: TouchState, at time: Timestamp) -> PanSample {
        let a = touches.contacts[slots.0]
        var x = Double(a.x), y = Double(a.y)
        if slots.1 >= 0 {
            let b = touches.contacts[slots.1]
            x = (x + Double(b.x)) / 2
            y = (y + Double(b.y)) / 2
        }
        let point = transform.screenPoint(x: Int32(x.rounded()), y: Int32(y.rounded()))
        velocity.add(point, at: time)
        let v = velocity.velocity(at: time)
        let s = PanSample(position: point, velocityX: v.x, velocityY: v.y, time: time)
        last = s
        return s
    }

    private mutating func transition(to new: State, _ why: @autoclosure () -> String) {
        logger.debug("pan \(state) → \(new): \(why())")
        state = new
    }
}
