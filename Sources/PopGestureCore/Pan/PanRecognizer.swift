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
    /// A touch whose major axis is at least this long is a palm, which, like one the
    /// device marks `MT_TOOL_PALM`, excludes only itself. Used only when the device
    /// reports `ABS_MT_TOUCH_MAJOR` with a resolution. Default 25 mm: a fingertip's
    /// contact is about 8–12 mm, a palm's edge several centimetres.
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
/// release, or to `disqualified` when the finger count goes wrong or events are lost;
/// `disqualified` lasts until every finger is up, so a gesture that went wrong never
/// turns into a pan halfway through.
///
/// **Palms and pens exclude themselves, not the others**, as libinput's touchscreen
/// palm detection does. A contact that is not a finger (`MT_TOOL_PALM`, a touch whose
/// major axis reaches ``PanSettings/palmSizeMillimetres``, `MT_TOOL_PEN` or any other
/// tool) neither pans nor counts as an extra finger, so a finger next to the hand that
/// holds the tablet still swipes back. Once a contact has been one it stays excluded
/// until it lifts, even if the device later calls it a finger again. A pan's own
/// finger that turns into one cancels that pan (`palm`).
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
    /// Replaced when the screen turns (``turn(to:at:)``).
    public private(set) var transform: ScreenTransform
    public private(set) var state: State = .idle

    private let palmMajorUnits: Int32
    /// The slots that make up the pan, and their tracking ids when it began.
    private var slots: (Int, Int) = (-1, -1)
    private var trackingIDs: (Int32, Int32) = (-1, -1)
    /// Per slot: the contact there has been a palm or another tool, so it is no finger
    /// until it lifts. Sized once, as `TouchState`'s contacts are.
    private var excluded: ContiguousArray<Bool>
    private var velocity = VelocityTracker()
    /// Kept across pans: the scan rate is the device's, not the touch's.
    private var scan = ScanInterval()
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
        excluded = ContiguousArray(repeating: false, count: max(1, device.slotCount))
    }

    /// The slots the pan in progress uses; empty unless panning. Read-only, for grab
    /// mode (``TouchRouter``): the slots a back claims.
    public var panSlots: SlotSet {
        guard state == .panning else { return SlotSet() }
        var set = SlotSet()
        set.insert(slots.0)
        if slots.1 >= 0 { set.insert(slots.1) }
        return set
    }

    private var fingersNeeded: Int { settings.source == .oneFinger ? 1 : 2 }

    /// Reads a completed frame and returns the pan event it makes, if any.
    public mutating func process(_ touches: TouchState, resynced: Bool, at time: Timestamp) -> PanEvent? {
        scan.frame(at: time)
        var fingers = 0
        var others = 0  // Palms, pens and other tools that are down.
        var first = -1, second = -1
        for i in touches.contacts.indices where excluded.indices.contains(i) {
            let contact = touches.contacts[i]
            // Written only on change: most frames leave every slot as it was.
            switch contact.phase {
            case .inactive, .cancelled:
                if excluded[i] { excluded[i] = false }
                continue
            case .held:
                continue  // Down since the device was opened: never a finger (TouchState).
            case .began:
                if excluded[i] { excluded[i] = false }  // A new contact in this slot: judged on its own.
            case .down, .ended:
                break
            }
            if !excluded[i] && (!contact.isFinger || contact.touchMajor >= palmMajorUnits) { excluded[i] = true }
            guard contact.isDown else { continue }
            if excluded[i] {
                others += 1
                continue
            }
            fingers += 1
            if first < 0 { first = i } else if second < 0 { second = i }
        }
        // Touchpads with fewer slots than fingers report the rest through BTN_TOOL_*.
        if settings.source == .twoFingerCentroid { fingers = max(fingers, touches.toolFingerCount - others) }

        switch state {
        case .idle:
            // Nothing down but palms and pens, or fewer fingers than the pan needs: wait,
            // since fingers seldom land in the same frame.
            if fingers == 0 || fingers < fingersNeeded && !resynced { return nil }
            if resynced {
                // Down across lost events: where and when they landed is unknown.
                return fail(fingers >= fingersNeeded ? .eventsDropped : nil, at: time, "fingers=\(fingers) resynced")
            }
            if fingers > fingersNeeded { return fail(.extraFinger, at: time, "\(fingers) fingers landed at once") }
            // BTN_TOOL_DOUBLETAP can count fingers no slot holds yet (semi-mt pads send it
            // before, or without, any contact): a pan needs a position, so wait for one.
            guard first >= 0 else { return nil }
            slots = (first, second)
            trackingIDs = (touches.contacts[first].trackingID, second >= 0 ? touches.contacts[second].trackingID : -1)
            velocity.reset()
            transition(to: .panning, "fingers=\(fingers) others=\(others)")
            return .began(sample(touches, at: time))

        case .panning:
            if resynced { return cancel(.eventsDropped, at: time, fingers: fingers) }
            if panContactStoppedBeingAFinger(touches) { return cancel(.palm, at: time, fingers: fingers) }
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
                // Seen at one scan and gone at the next, the finger lifted moving: its
                // velocity is the scans', not diluted by a rest it never made (at 60 Hz
                // that rest halved a two-scan flick's). Gone later, it rested first.
                let liftedMoving = time - end.time <= scan.microseconds.saturatingMultiplied(by: 3) / 2
                let v = velocity.velocity(at: liftedMoving ? end.time : time)
                (released.velocityX, released.velocityY) = (v.x, v.y)
                (released.time, released.scanInterval) = (time, scan.microseconds)
                return .ended(released)
            }
            if fingers > fingersNeeded { return cancel(.extraFinger, at: time, fingers: fingers) }
            guard touches.contacts[slots.0].moved || (slots.1 >= 0 && touches.contacts[slots.1].moved) else {
                return nil
            }
            return .changed(sample(touches, at: time))

        case .disqualified:
            if fingers == 0 { transition(to: .idle, "all fingers up") }
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

    /// The screen turned: positions go through `transform` from now on. A pan in
    /// progress is cancelled (`rotated`), since where it began is on the old screen; its
    /// fingers then count for nothing until every one has lifted, as after any cancel,
    /// so the next touch is the first on the turned screen.
    public mutating func turn(to transform: ScreenTransform, at time: Timestamp) -> PanEvent? {
        self.transform = transform
        guard state == .panning else { return nil }
        return cancel(.rotated, at: time, fingers: 1)
    }

    private mutating func cancel(_ reason: PanCancelReason, at time: Timestamp, fingers: Int) -> PanEvent {
        transition(to: fingers == 0 ? .idle : .disqualified, reason.rawValue)
        last = nil
        return .cancelled(reason, time: time)
    }

    /// No pan begins until every finger is up; `reason` nil fails silently.
    private mutating func fail(
        _ reason: PanCancelReason?, at time: Timestamp, _ why: @autoclosure () -> String
    ) -> PanEvent? {
        transition(to: .disqualified, why())
        return reason.map { .failed($0, time: time) }
    }

    /// A pan's contact, still the same one (down, or lifting in this frame), became a
    /// palm or another tool.
    private func panContactStoppedBeingAFinger(_ touches: TouchState) -> Bool {
        stoppedBeingAFinger(touches, slots.0, trackingIDs.0) || stoppedBeingAFinger(touches, slots.1, trackingIDs.1)
    }

    private func stoppedBeingAFinger(_ touches: TouchState, _ slot: Int, _ id: Int32) -> Bool {
        guard excluded.indices.contains(slot), excluded[slot] else { return false }
        let c = touches.contacts[slot]
        return c.trackingID == id && (c.phase == .down || c.phase == .ended)
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
        let s = PanSample(position: point, time: time, scanInterval: scan.microseconds)
        last = s
        return s
    }

    private mutating func transition(to new: State, _ why: @autoclosure () -> String) {
        logger.debug("pan \(state) → \(new): \(why())")
        state = new
    }
}
