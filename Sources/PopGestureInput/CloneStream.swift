import PopGestureCore

/// What a ``TouchClone`` writes, decided without uinput: the events of each forwarded
/// frame, the cancel frame, and the state both need (which clone slots are down, which
/// were cancelled, which slot the kernel's clone is at).
///
/// **Forwarding** writes a frame as it came, except:
/// - `ABS_MT_SLOT` is written only before the next `ABS_MT_*` event and only when the
///   clone is not already at that slot (as the kernel itself does). So a frame that
///   follows a cancel, and addresses the real device's current slot without naming it,
///   still reaches the right clone slot.
/// - A slot that was cancelled gets `ABS_MT_TOOL_TYPE MT_TOOL_FINGER` right before its
///   next tracking id: libinput reads the tool type when a touch begins, and a slot
///   still marked palm would swallow the touch. A tool type the stream sets itself
///   comes after, as the device sent it.
/// - A tracking id −1 for a slot that is not down on the clone (it was cancelled) is
///   left out: there is nothing to lift.
/// - `ABS_MT_*` events addressed to a slot the clone lacks (past
///   ``DeviceDescription/maximumTrackedSlots``) are left out: the kernel would put them
///   in the clone's previous slot.
/// - `SYN_DROPPED` and `SYN_MT_REPORT` are left out: uinput cannot pass the first on,
///   and the clone speaks protocol B only.
///
/// **Cancelling** a slot is one frame, `ABS_MT_SLOT s`, `ABS_MT_TOOL_TYPE MT_TOOL_PALM`,
/// `ABS_MT_TRACKING_ID -1`, then, when no slot is left down, `BTN_TOUCH` and
/// `BTN_TOOL_*` released, then `SYN_REPORT`. libinput turns a live slot that becomes a
/// palm into `TOUCH_CANCEL`, and the −1 in the same frame sends nothing more: no
/// `TOUCH_UP`. The clone's slot is free at once.
public struct CloneStream: Sendable {
    /// Slots the clone has: `0..<slotCount`.
    public let slotCount: Int
    /// The slot the forwarded stream addresses (its last `ABS_MT_SLOT`).
    public private(set) var streamSlot: Int32
    /// The slot the kernel's clone is at (the last `ABS_MT_SLOT` written).
    public private(set) var cloneSlot: Int32 = 0
    private var down: [Bool]
    private var cancelled: [Bool]
    /// `BTN_TOUCH` and `BTN_TOOL_*` last written as pressed, as bits of ``touchKeys``.
    private var keysDown: UInt8 = 0

    /// The keys released when the last contact is cancelled.
    static let touchKeys: [UInt16] = [
        BTN.touch, BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap, BTN.toolQuintTap,
    ]

    /// A stream for a clone with `slotCount` slots (at most
    /// ``DeviceDescription/maximumTrackedSlots``), whose source is at `currentSlot`
    /// (libevdev's current slot of the real device when the clone is made; the kernel
    /// starts the clone at slot 0).
    public init(slotCount: Int, currentSlot: Int32 = 0) {
        self.slotCount = max(0, min(slotCount, DeviceDescription.maximumTrackedSlots))
        streamSlot = currentSlot
        down = Array(repeating: false, count: self.slotCount)
        cancelled = Array(repeating: false, count: self.slotCount)
    }

    /// The source's current slot changed without the stream seeing it: frames read
    /// while nothing was forwarded (before a grab). The frames that follow may address
    /// `slot` without naming it.
    public mutating func follow(sourceSlot slot: Int32) {
        streamSlot = slot
    }

    /// The clone slots with a contact down, ascending.
    public var slotsDown: [Int32] { down.indices.filter { down[$0] }.map(Int32.init) }

    /// Whether slot `slot` was cancelled and has not begun a touch since.
    public func isCancelled(_ slot: Int32) -> Bool { isTracked(slot) && cancelled[Int(slot)] }

    private func isTracked(_ slot: Int32) -> Bool { slot >= 0 && Int(slot) < slotCount }

    /// Appends to `out` what the clone must get for one forwarded event.
    public mutating func forward(_ event: InputEvent, into out: inout [InputEvent]) {
        switch event.type {
        case EV.syn:
            if event.code == SYN.report { out.append(event) }
        case EV.abs where event.code == ABS.mtSlot:
            streamSlot = event.value
        case EV.abs where event.code > ABS.mtSlot && event.code <= ABS.max:
            let slot = streamSlot
            guard isTracked(slot) else { return }
            let index = Int(slot)
            if event.code == ABS.mtTrackingID && event.value < 0 && !down[index] { return }
            if cloneSlot != slot {
                out.append(InputEvent(time: event.time, type: EV.abs, code: ABS.mtSlot, value: slot))
                cloneSlot = slot
            }
            if event.code == ABS.mtToolType {
                cancelled[index] = false
            } else if event.code == ABS.mtTrackingID {
                if event.value >= 0 && cancelled[index] {
                    out.append(InputEvent(time: event.time, type: EV.abs, code: ABS.mtToolType, value: MTTool.finger))
                    cancelled[index] = false
                }
                down[index] = event.value >= 0
            }
            out.append(event)
        case EV.key:
            if let bit = Self.touchKeys.firstIndex(of: event.code) {
                if event.value != 0 { keysDown |= 1 << bit } else { keysDown &= ~(1 << bit) }
            }
            out.append(event)
        default:
            out.append(event)
        }
    }

    /// Appends the cancel frame of `slot` to `out`, or nothing when the slot is not down
    /// on the clone (never begun, lifted, or cancelled already). Returns whether it did.
    @discardableResult
    public mutating func cancel(slot: Int32, at time: Timestamp, into out: inout [InputEvent]) -> Bool {
        guard appendCancel(slot: slot, at: time, into: &out) else { return false }
        endCancelFrame(at: time, into: &out)
        return true
    }

    /// Appends one frame cancelling every slot still down, or nothing when none is.
    /// Returns whether it did.
    @discardableResult
    public mutating func cancelAll(at time: Timestamp, into out: inout [InputEvent]) -> Bool {
        var any = false
        for slot in slotsDown { any = appendCancel(slot: slot, at: time, into: &out) || any }
        guard any else { return false }
        endCancelFrame(at: time, into: &out)
        return true
    }

    private mutating func appendCancel(slot: Int32, at time: Timestamp, into out: inout [InputEvent]) -> Bool {
        guard isTracked(slot), down[Int(slot)] else { return false }
        out.append(InputEvent(time: time, type: EV.abs, code: ABS.mtSlot, value: slot))
        out.append(InputEvent(time: time, type: EV.abs, code: ABS.mtToolType, value: MTTool.palm))
        out.append(InputEvent(time: time, type: EV.abs, code: ABS.mtTrackingID, value: -1))
        cloneSlot = slot
        down[Int(slot)] = false
        cancelled[Int(slot)] = true
        return true
    }

    private mutating func endCancelFrame(at time: Timestamp, into out: inout [InputEvent]) {
        if !down.contains(true) {
            for (bit, key) in Self.touchKeys.enumerated() where keysDown & (1 << bit) != 0 {
                out.append(InputEvent(time: time, type: EV.key, code: key, value: 0))
            }
            keysDown = 0
        }
        out.append(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0))
    }
}
