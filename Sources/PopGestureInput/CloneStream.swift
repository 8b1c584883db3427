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
/// - A contact that begins gets, right after its tracking id, the slot's values the
///   source has and the clone lacks (``observe(_:)``): the kernel sends a value only
///   when it changes, and touches the clone never got (claimed, held) moved the
///   source's values alone.
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
    /// Per slot, the `ABS_MT_*` values the source has (``observe(_:)``) and those the
    /// clone has (as written): ``mtCodes`` values a slot, 0 until known, as the kernel
    /// starts a new device.
    private var sourceValues: [Int32]
    private var cloneValues: [Int32]
    /// The slot the source's stream addresses, as ``observe(_:)`` follows it.
    private var observedSlot: Int32
    /// `ABS_MT_TOUCH_MAJOR` … `ABS_MT_TOOL_Y`, one value each per slot.
    static let mtCodes = 0x30...0x3f

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
        sourceValues = Array(repeating: 0, count: self.slotCount * Self.mtCodes.count)
        cloneValues = sourceValues
        observedSlot = currentSlot
    }

    /// One event of the source as it came, forwarded or not: the stream keeps each
    /// slot's values, so that a contact the clone gets later starts from them. The
    /// kernel sends a value only when it changes: a touch landing where the last one
    /// in its slot lifted (a tap repeated, a scroll that keeps its x) brings no
    /// position, and frames the clone never got (a claimed or a held touch) moved
    /// the source's values without the clone's.
    public mutating func observe(_ event: InputEvent) {
        guard event.type == EV.abs else { return }
        if event.code == ABS.mtSlot {
            observedSlot = event.value
        } else if let index = valueIndex(slot: observedSlot, code: event.code) {
            sourceValues[index] = event.value
        }
    }

    /// Where `slot`'s value of `code` is kept; nil for untracked slots and other codes.
    private func valueIndex(slot: Int32, code: UInt16) -> Int? {
        guard isTracked(slot), Self.mtCodes.contains(Int(code)) else { return nil }
        return Int(slot) * Self.mtCodes.count + Int(code) - Self.mtCodes.lowerBound
    }

    /// The source's current slot changed without the stream seeing it: frames read
    /// while nothing was forwarded (before a grab). The frames that follow may address
    /// `slot` without naming it.
    public mutating func follow(sourceSlot slot: Int32) {
        streamSlot = slot
        observedSlot = slot
    }

    /// Appends the frame that gives the clone the source's axis values, for the moment
    /// forwarding starts (a grab, with nothing down). The kernel passes on a value only
    /// when it changes, so without it a touch landing where the last one in its slot
    /// was would never tell the clone its position, and the app would see it at the
    /// clone's old value (0 after it was made).
    ///
    /// `axes` are the source's other absolute axes (`ABS_X`, `ABS_Y`, …), `slots` each
    /// slot's `ABS_MT_*` values but the tracking id, by slot; slots the clone lacks are
    /// left out. Nothing is down, so libinput takes these as state, not as touches.
    public mutating func appendState(
        axes: [(code: UInt16, value: Int32)], slots: [[(code: UInt16, value: Int32)]], at time: Timestamp,
        into out: inout [InputEvent]
    ) {
        for axis in axes where axis.code < ABS.mtSlot {
            out.append(InputEvent(time: time, type: EV.abs, code: axis.code, value: axis.value))
        }
        for (slot, values) in slots.prefix(slotCount).enumerated() {
            let mt = values.filter { $0.code > ABS.mtSlot && $0.code <= ABS.max && $0.code != ABS.mtTrackingID }
            guard !mt.isEmpty else { continue }
            out.append(InputEvent(time: time, type: EV.abs, code: ABS.mtSlot, value: Int32(slot)))
            cloneSlot = Int32(slot)
            for value in mt {
                out.append(InputEvent(time: time, type: EV.abs, code: value.code, value: value.value))
                if let index = valueIndex(slot: Int32(slot), code: value.code) {
                    sourceValues[index] = value.value
                    cloneValues[index] = value.value
                }
            }
        }
        out.append(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0))
    }

    /// The clone slots with a contact down, ascending.
    public var slotsDown: [Int32] { down.indices.filter { down[$0] }.map(Int32.init) }

    /// Whether slot `slot` was cancelled and has not begun a touch since.
    public func isCancelled(_ slot: Int32) -> Bool { isTracked(slot) && cancelled[Int(slot)] }

    private func isTracked(_ slot: Int32) -> Bool { slot >= 0 && Int(slot) < slotCount }

    /// Appends to `out` what the clone must get for one forwarded event.
    public mutating func forward(_ event: InputEvent, into out: inout [InputEvent]) {
        observe(event)  // what is forwarded is the source's too
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
                    cloneValues[valueIndex(slot: slot, code: ABS.mtToolType)!] = MTTool.finger
                    cancelled[index] = false
                }
                let begins = event.value >= 0 && !down[index]
                down[index] = event.value >= 0
                out.append(event)
                if begins { catchUp(slot: slot, at: event.time, into: &out) }
                return
            }
            if let value = valueIndex(slot: slot, code: event.code) { cloneValues[value] = event.value }
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

    /// After a new contact's tracking id: the source's values of the slot that the
    /// clone lacks (see ``observe(_:)``), except the tool type, which the stream sets.
    private mutating func catchUp(slot: Int32, at time: Timestamp, into out: inout [InputEvent]) {
        for code in Self.mtCodes where code != Int(ABS.mtTrackingID) && code != Int(ABS.mtToolType) {
            let index = valueIndex(slot: slot, code: UInt16(code))!
            guard cloneValues[index] != sourceValues[index] else { continue }
            out.append(InputEvent(time: time, type: EV.abs, code: UInt16(code), value: sourceValues[index]))
            cloneValues[index] = sourceValues[index]
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
        cloneValues[valueIndex(slot: slot, code: ABS.mtToolType)!] = MTTool.palm
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
