/// One contact as the device last reported it, in device units.
public struct Contact: Sendable, Equatable {
    /// Where the contact is in its life, as of the frame just completed.
    public enum Phase: Sendable, Equatable {
        /// No finger in this slot.
        case inactive
        /// The finger landed in this frame.
        case began
        /// The finger was down before this frame and still is.
        case down
        /// The finger lifted in this frame.
        case ended
        /// The contact vanished in a resync after `SYN_DROPPED`: its end was never seen,
        /// so it must not count as a release.
        case cancelled
        /// Down since before the device was opened, or landed while such a contact was
        /// down: its landing was never seen, so it is ignored (never a finger) until it lifts.
        case held
    }

    public internal(set) var phase: Phase = .inactive
    /// The kernel's tracking id, or one made up for single-touch devices.
    public internal(set) var trackingID: Int32 = -1
    public internal(set) var x: Int32 = 0
    public internal(set) var y: Int32 = 0
    /// `ABS_MT_TOOL_TYPE` (`MTTool`); on single-touch devices `MTTool.pen` while
    /// `BTN_TOOL_PEN` or `BTN_TOOL_RUBBER` is down. Like every slot value it stays
    /// as last reported, also for the slot's next contact: the kernel (and mtdev) send
    /// a slot's value only when it changes.
    public internal(set) var toolType: Int32 = MTTool.finger
    /// `ABS_MT_TOUCH_MAJOR` in device units, 0 when never reported. Kept like `toolType`.
    public internal(set) var touchMajor: Int32 = 0
    /// Moved in this frame.
    public internal(set) var moved = false

    /// Down after this frame (began or stayed).
    public var isDown: Bool { phase == .began || phase == .down }
    /// The device calls it a palm (`MT_TOOL_PALM`). The pan layer also takes a large
    /// touch for one.
    public var isPalm: Bool { toolType == MTTool.palm }
    /// A finger (`MT_TOOL_FINGER`); pens, palms and any other tool are not.
    public var isFinger: Bool { toolType == MTTool.finger }
}

/// What one event did to the touch state.
public enum TouchStateResult: Sendable, Equatable {
    /// The event was absorbed; the frame is not complete yet.
    case pending
    /// `SYN_REPORT` completed a frame: read `contacts`, then call `endFrame()`.
    /// `resynced` is true when the frame is libevdev's resync after `SYN_DROPPED`.
    case frame(resynced: Bool)
}

/// Touch state of one device, fed one evdev event at a time: protocol B slots, or
/// `ABS_X`/`ABS_Y` with `BTN_TOUCH` for single-touch devices. Protocol A must be
/// converted to slots first (mtdev does this in the input layer).
///
/// **`SYN_DROPPED`.** When the kernel drops events, a reader using libevdev with
/// `LIBEVDEV_READ_FLAG_SYNC` receives `SYN_DROPPED` followed by the events that bring
/// the device state up to date, ending with `SYN_REPORT`. This type takes that
/// sequence as a snapshot: slots whose tracking id ended become `.cancelled`
/// (never `.ended`, since no release was seen), new ids become `.began`, and the
/// frame reports `resynced: true` so the pan layer can drop what it was doing.
/// libevdev may split the resync in two frames (touches that ended, then touches
/// that began); only the first reports `resynced`, and a finger that landed during
/// the drop then begins like any new finger. A raw kernel stream that carries
/// `SYN_DROPPED` without a libevdev resync behaves the same: at worst a touch is
/// cancelled, never stuck.
public struct TouchState: Sendable {
    public let touchProtocol: TouchProtocol
    /// Indexed by slot. Its size is fixed at creation, so frames never allocate.
    public private(set) var contacts: ContiguousArray<Contact>
    /// Fingers the device says are down through `BTN_TOOL_*`, which can exceed the
    /// slot count on touchpads that track fewer slots than fingers. 0 when unknown.
    public private(set) var toolFingerCount = 0

    private var currentSlot = 0
    private var resyncing = false
    /// Contacts were down at open and not all have lifted since: new contacts are held too.
    private var holding = false
    private var syntheticTrackingIDs: Int32 = 0
    /// Events for slots beyond the tracked count (the declared count, at most
    /// `DeviceDescription.maximumTrackedSlots`), which some firmware sends. Saturates.
    public private(set) var ignoredSlotEvents = 0

    /// Starts from `state`, what the kernel held when the device was opened; nil when
    /// unknown (a recording), taken as nothing down and the first slot current.
    public init(device: DeviceDescription, atOpen state: DeviceStateAtOpen? = nil) {
        touchProtocol = device.touchProtocol
        contacts = ContiguousArray(repeating: Contact(), count: max(1, device.slotCount))
        currentSlot = Int(device.axes[ABS.mtSlot]?.minimum ?? 0)
        if let state { seed(state) }
    }

    /// Events carry only changes, so they apply on top of the state at open: the current
    /// slot, and every slot's values (a slot's next contact keeps the values it does not
    /// resend). Contacts down now are held until they lift, as libinput ignores them.
    private mutating func seed(_ state: DeviceStateAtOpen) {
        toolFingerCount = state.toolFingerCount
        holding = state.hasContactsDown
        if touchProtocol == .singleTouch {
            contacts[0].x = state.x
            contacts[0].y = state.y
            if state.touching { hold(0, trackingID: nextSyntheticTrackingID()) }
            return
        }
        currentSlot = state.currentSlot
        for (slot, values) in zip(contacts.indices, state.slots) {
            contacts[slot].x = values.x
            contacts[slot].y = values.y
            contacts[slot].toolType = values.toolType
            contacts[slot].touchMajor = values.touchMajor
            if values.trackingID >= 0 { hold(slot, trackingID: values.trackingID) }
        }
    }

    private mutating func hold(_ slot: Int, trackingID: Int32) {
        contacts[slot].phase = .held
        contacts[slot].trackingID = trackingID
    }

    /// Feeds one event. Returns `.frame` on `SYN_REPORT`.
    public mutating func handle(_ event: InputEvent) -> TouchStateResult {
        switch event.type {
        case EV.syn:
            switch event.code {
            case SYN.report:
                return .frame(resynced: completeFrame())
            case SYN.dropped:
                resyncing = true
            default:
                break
            }
        case EV.abs:
            if touchProtocol == .singleTouch {
                handleSingleTouchAxis(event.code, event.value)
            } else {
                handleSlotAxis(event.code, event.value)
            }
        case EV.key:
            handleKey(event.code, event.value)
        default:
            break  // MSC_TIMESTAMP, MSC_SCAN and friends carry nothing we use.
        }
        return .pending
    }

    /// Call once the frame reported by `handle` has been read: finished contacts
    /// leave, new ones settle to `.down`.
    public mutating func endFrame() {
        for i in contacts.indices {
            contacts[i].moved = false
            switch contacts[i].phase {
            case .began: contacts[i].phase = .down
            case .ended, .cancelled:
                contacts[i].phase = .inactive
            case .inactive, .down, .held: break
            }
        }
    }

    /// Number of fingers down after this frame: palms, pens and other tools excluded.
    public var fingerCount: Int {
        var n = 0
        for c in contacts where c.isDown && c.isFinger { n += 1 }
        return n
    }

    // MARK: - Protocol B

    private mutating func handleSlotAxis(_ code: UInt16, _ value: Int32) {
        if code == ABS.mtSlot {
            currentSlot = Int(value)
            return
        }
        guard contacts.indices.contains(currentSlot) else {
            if ignoredSlotEvents < .max { ignoredSlotEvents += 1 }
            return
        }
        switch code {
        case ABS.mtTrackingID:
            setTrackingID(value, slot: currentSlot)
        case ABS.mtPositionX:
            if contacts[currentSlot].x != value { contacts[currentSlot].x = value; contacts[currentSlot].moved = true }
        case ABS.mtPositionY:
            if contacts[currentSlot].y != value { contacts[currentSlot].y = value; contacts[currentSlot].moved = true }
        case ABS.mtToolType:
            contacts[currentSlot].toolType = value
        case ABS.mtTouchMajor:
            contacts[currentSlot].touchMajor = value
        default:
            break
        }
    }

    private mutating func setTrackingID(_ id: Int32, slot: Int) {
        let endPhase: Contact.Phase = resyncing ? .cancelled : .ended
        if id < 0 {
            if contacts[slot].isDown { contacts[slot].phase = endPhase }
            // A held contact was never a finger: its lift is no release.
            if contacts[slot].phase == .held { contacts[slot].phase = .inactive }
            return
        }
        if contacts[slot].isDown || contacts[slot].phase == .held, contacts[slot].trackingID == id { return }
        if holding {
            hold(slot, trackingID: id)
            return
        }
        // A new id in a slot that was still down replaces its finger; the pan layer
        // notices the changed tracking id and treats the old finger as gone.
        contacts[slot].phase = .began
        contacts[slot].trackingID = id
        // The tool type and touch major stay as last reported for this slot: the kernel
        // does not resend unchanged values, and libevdev's resync sends them before the id.
    }

    // MARK: - Single touch

    private mutating func handleSingleTouchAxis(_ code: UInt16, _ value: Int32) {
        switch code {
        case ABS.x:
            if contacts[0].x != value { contacts[0].x = value; contacts[0].moved = true }
        case ABS.y:
            if contacts[0].y != value { contacts[0].y = value; contacts[0].moved = true }
        default:
            break
        }
    }

    private mutating func handleKey(_ code: UInt16, _ value: Int32) {
        switch code {
        case BTN.touch where touchProtocol == .singleTouch:
            if value != 0 && !contacts[0].isDown && contacts[0].phase != .held {
                let id = nextSyntheticTrackingID()
                if holding {
                    hold(0, trackingID: id)
                } else {
                    contacts[0].phase = .began
                    contacts[0].trackingID = id
                }
            } else if value == 0 && contacts[0].isDown {
                contacts[0].phase = resyncing ? .cancelled : .ended
            } else if value == 0 && contacts[0].phase == .held {
                contacts[0].phase = .inactive
            }
        case BTN.toolPen where touchProtocol == .singleTouch, BTN.toolRubber where touchProtocol == .singleTouch:
            contacts[0].toolType = value != 0 ? MTTool.pen : MTTool.finger  // A stylus is never a finger.
        case BTN.toolFinger: setToolFingers(1, value)
        case BTN.toolDoubleTap: setToolFingers(2, value)
        case BTN.toolTripleTap: setToolFingers(3, value)
        case BTN.toolQuadTap: setToolFingers(4, value)
        case BTN.toolQuintTap: setToolFingers(5, value)
        default:
            break
        }
    }

    private mutating func nextSyntheticTrackingID() -> Int32 {
        defer { syntheticTrackingIDs &+= 1 }
        return syntheticTrackingIDs
    }

    private mutating func setToolFingers(_ count: Int, _ value: Int32) {
        if value != 0 {
            toolFingerCount = count
        } else if toolFingerCount == count {
            toolFingerCount = 0
        }
    }

    // MARK: - Frames

    /// Returns whether this frame was a resync.
    private mutating func completeFrame() -> Bool {
        let wasResync = resyncing
        resyncing = false
        // Holding ends with the first frame in which no held contact is left.
        if holding && !contacts.contains(where: { $0.phase == .held }) { holding = false }
        return wasResync
    }
}
