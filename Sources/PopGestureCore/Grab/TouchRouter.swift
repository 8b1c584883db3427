import Logging

/// Grab mode's decision for one grabbed touchscreen: which of the real device's events
/// its uinput clone receives. Frames of the real device go in, each with the engine's
/// ``Verdict`` for that frame; an ``Action`` comes out, and the caller only carries it
/// out (swift-nio style). Pure: time comes from the events, and the hold's deadline is
/// an input (``expire(at:)``) like any other event.
///
/// **Per slot** (clone slot `s` is real slot `s`, with the same tracking ids):
///
/// ```
/// idle ──lands alone, holdable──▶ holding ──the pan becomes a back──▶ claimed ──tracking id ends──▶ idle
///   │                               │ lift, second finger, not a back, deadline,
///   │                               │ buffer full, SYN_DROPPED: held frames written
///   └──lands otherwise──▶ passthrough ◀┘
///                          │ the pan becomes a back: cancelled on the clone ──▶ claimed
///                          └ lift ──▶ idle       SYN_DROPPED, vanished: cancelled ──▶ idle
/// ```
///
/// - *passthrough*: the contact is on the clone; its events are written as read.
/// - *holding*: it landed alone inside the edge zone in edge mode and is being
///   decided (UIKit's `delaysTouchesBegan`); its frames are buffered, never written
///   unless released. Released frames keep their original events and times.
/// - *claimed*: the gesture owns it (UIKit's `cancelsTouchesInView`). It is cancelled
///   on the clone if the clone had it (`MT_TOOL_PALM`, which libinput turns into
///   `TOUCH_CANCEL`), and nothing of it is written until its tracking id ends. A
///   claim is never given back.
///
/// Frames carry several slots: the events of holding and claimed slots are taken
/// out, the rest written, with `ABS_MT_SLOT` re-inserted where the clone's current
/// slot would be wrong. When a frame is split, the pointer emulation (`BTN_TOUCH`,
/// `BTN_TOOL_*`, `ABS_X`, `ABS_Y`, `ABS_PRESSURE`) is dropped from it and `BTN_TOUCH`
/// re-sent when whether the clone has a contact down changed; the emulated position
/// is not recomputed (libinput ignores it on multitouch devices).
///
/// Not thread-safe; one owner, the thread that reads the device.
public struct TouchRouter: Sendable {
    public enum SlotState: String, Sendable, Hashable {
        case idle, passthrough, holding, claimed
    }

    /// What the engine made of this device's pan, after the frame (see
    /// ``GestureEngine/touchVerdict(of:)``).
    public enum Verdict: Sendable, Hashable {
        /// No pan of this device is being decided or tracked as a back: nothing may be
        /// held. A slot already claimed stays claimed.
        case none
        /// The device's pan is being decided. `holdable`: a touch that landed alone
        /// would pass every guard that does not depend on its movement, in edge mode
        /// (inside the edge zone of the back's destination).
        case deciding(holdable: Bool)
        /// The pan is an interactive back on these slots: the gesture owns them.
        case back(SlotSet)
    }

    /// What the clone gets for one input. Every case but `nothing` and `forward`
    /// writes ``output`` (complete frames, each ending in `SYN_REPORT`, in order).
    public enum Action: Sendable, Hashable {
        /// Nothing reaches the clone.
        case nothing
        /// Write the frame exactly as it was read.
        case forward
        /// Write ``output``: the frame without the events of these slots (held or
        /// claimed), or rewritten with an `ABS_MT_SLOT` when the set is empty.
        case forwardExcept(SlotSet)
        /// Write ``output``: the held frames, oldest first, with their original events,
        /// then what this input leaves of its own frame.
        case release
        /// Cancel these slots on the clone first (`ABS_MT_SLOT s`,
        /// `ABS_MT_TOOL_TYPE MT_TOOL_PALM`, `ABS_MT_TRACKING_ID -1`, `SYN_REPORT`), then
        /// write ``output`` when it is not empty. The router assumes nothing about the
        /// clone's current slot afterwards.
        case cancel(SlotSet)
    }

    /// How long a touch is held at most before it is released: 250 ms. UIKit's edge
    /// pan decides within a few frames; a finger resting at the edge longer than this
    /// is not the start of a swipe, and an app must not wait for it. Past it a back
    /// still happens, through the cancel path.
    public static let holdLimit: Duration = .milliseconds(250)
    /// Frames held at most before release: 128, over a second at 100 Hz (the hold
    /// limit ends a hold long before, unless a device's frames come faster than 500 Hz).
    public static let maximumHeldFrames = 128
    /// Events held at most: 4096, so a device sending long frames cannot make the
    /// buffer grow past a few hundred kilobytes. Past either bound the hold is released.
    public static let maximumHeldEvents = 4096

    private struct Slot {
        var state: SlotState = .idle
        var trackingID: Int32 = -1
        /// The real device's `ABS_MT_TOOL_TYPE` for the slot, as last reported.
        var toolType: Int32 = MTTool.finger
        /// The clone's last contact here was cancelled, so its tool type is still
        /// `MT_TOOL_PALM`: libinput would swallow the next contact (`PALM_WAS_PALM`)
        /// unless the tool type is written again before its tracking id.
        var palmOnClone = false
        var isDown: Bool { trackingID >= 0 }
    }

    private let singleTouch: Bool
    /// The device sends `BTN_TOUCH` as multitouch pointer emulation.
    private let emulatesPointer: Bool
    private let holdLimit: Duration
    private var slots: ContiguousArray<Slot>
    /// The real device's current slot.
    private var currentSlot: Int
    /// The clone's current slot as far as written here; -1 when unknown (after a cancel).
    private var cloneSlot: Int
    /// The clone's `BTN_TOUCH`, as written.
    private var cloneTouching = false
    private var syntheticTrackingIDs: Int32 = 0

    private var heldSlot = -1
    private var held: [InputEvent] = []
    private var heldFrames = 0
    /// When the hold in progress must end; nil when nothing is held. Arm a timer for it
    /// and call ``expire(at:)`` when it fires.
    public private(set) var holdDeadline: Timestamp?

    /// What to write for the last action, see ``Action``. Valid until the next call.
    public private(set) var output: [InputEvent] = []

    /// Per event of the frame being handled: its slot, `newContact + slot` for the
    /// events of a contact that began in this frame, or one of the tags below.
    private var tags: [Int32] = []
    private static let frameLevel: Int32 = -1
    private static let slotSelect: Int32 = -2
    private static let newContact: Int32 = 1 << 16

    private var logger: Logger

    /// A router for a device with no contact down (grab mode grabs only then).
    ///
    /// - Parameter currentSlot: the real device's current slot when routing starts
    ///   (libevdev's, at the grab): the kernel names a slot only when it changes, so
    ///   the frames that follow may address it without `ABS_MT_SLOT`. Nil: the
    ///   description's first slot. The clone's slot is then taken as unknown, so the
    ///   first split frame names its slot.
    public init(device: DeviceDescription, currentSlot: Int? = nil, holdLimit: Duration = TouchRouter.holdLimit,
                logger: Logger = Logger(label: "popgestured.grab")) {
        singleTouch = device.touchProtocol == .singleTouch
        emulatesPointer = !singleTouch && device.has(key: BTN.touch)
        self.holdLimit = holdLimit
        slots = ContiguousArray(repeating: Slot(), count: max(1, device.slotCount))
        self.currentSlot = currentSlot ?? Int(device.axes[ABS.mtSlot]?.minimum ?? 0)
        cloneSlot = currentSlot == nil ? self.currentSlot : -1
        self.logger = logger
        held.reserveCapacity(256)
        output.reserveCapacity(256)
        tags.reserveCapacity(64)
    }

    /// The slot's state, for tests and `status`; `.idle` for slots not tracked.
    public func state(of slot: Int) -> SlotState {
        slots.indices.contains(slot) ? slots[slot].state : .idle
    }

    /// The slots the clone has a contact down in.
    public var slotsDownOnClone: SlotSet {
        var set = SlotSet()
        for i in slots.indices where slots[i].state == .passthrough && slots[i].isDown { set.insert(i) }
        return set
    }

    // MARK: - Frames

    /// One complete frame of the real device (ending in `SYN_REPORT`; protocol B or
    /// single-touch, protocol A converted), after the engine has seen it. A frame that
    /// carries `SYN_DROPPED` is libevdev's resync: contacts that vanished in it are
    /// cancelled on the clone, not lifted, and nothing stays held.
    public mutating func handle(frame events: [InputEvent], verdict: Verdict) -> Action {
        output.removeAll(keepingCapacity: true)
        let time = events.last?.time ?? .zero
        var ended = SlotSet(), began = SlotSet(), resync = false
        tagEvents(events, ended: &ended, began: &began, resync: &resync)

        var cancels = SlotSet(), maskOld = SlotSet(), maskNew = SlotSet()
        var released = false, holdingNow = false

        // The contacts that were there before the frame.
        for s in slots.indices {
            let endedHere = ended.contains(s)
            switch slots[s].state {
            case .idle:
                break
            case .passthrough:
                if endedHere {
                    if resync {
                        cancels.insert(s)
                        maskOld.insert(s)
                        transition(s, to: .idle, "vanished in a resync: cancelled")
                    } else {
                        transition(s, to: .idle, "lifted")
                    }
                } else if case .back(let owned) = verdict, owned.contains(s), !began.contains(s) {
                    cancels.insert(s)
                    maskOld.insert(s)
                    transition(s, to: .claimed, "the back began: cancelled on the clone")
                }
            case .holding:
                if endedHere {
                    if resync {
                        dropHold()
                        maskOld.insert(s)
                        transition(s, to: .idle, "vanished in a resync: never on the clone")
                    } else {
                        released = release(s, "lifted", time: time)
                        slots[s].state = .idle
                    }
                } else if case .back(let owned) = verdict, owned.contains(s), !began.contains(s) {
                    dropHold()
                    maskOld.insert(s)
                    transition(s, to: .claimed, "the back began: never on the clone")
                } else if resync {
                    released = release(s, "events dropped", time: time)
                } else if downCount > 1 {
                    released = release(s, "another finger landed", time: time)
                } else if case .deciding = verdict {
                    if time >= holdDeadline ?? time {
                        released = release(s, "deadline passed", time: time)
                    } else if heldFrames >= Self.maximumHeldFrames || held.count + events.count > Self.maximumHeldEvents {
                        released = release(s, "hold buffer full", time: time)
                    } else {
                        holdingNow = true
                        maskOld.insert(s)
                    }
                } else {
                    released = release(s, "not a back", time: time)
                }
            case .claimed:
                maskOld.insert(s)
                if endedHere { transition(s, to: .idle, "its touch ended") }
            }
        }

        // The contacts that began in the frame.
        for s in began where slots.indices.contains(s) && slots[s].isDown {
            if !resync, case .back(let owned) = verdict, owned.contains(s) {
                maskNew.insert(s)
                transition(s, to: .claimed, "landed as a back: never on the clone")
            } else if !resync, case .deciding(holdable: true) = verdict, downCount == 1, heldSlot < 0, !released {
                maskNew.insert(s)
                heldSlot = s
                holdingNow = true
                let deadline = time + holdLimit
                holdDeadline = deadline
                transition(s, to: .holding, "landed alone in the edge zone; deadline \(deadline)")
            } else {
                transition(s, to: .passthrough, resync ? "down after a resync" : "landed")
            }
        }

        if !cancels.isEmpty { cloneSlot = -1 }
        for c in cancels { slots[c].palmOnClone = true }
        let splitting = !maskOld.isEmpty || !maskNew.isEmpty || holdingNow || !cancels.isEmpty || resync
            || slots.contains(where: { $0.state == .claimed })
        let frameStart = output.count
        emit(events, maskOld: maskOld, maskNew: maskNew, split: splitting, holding: holdingNow)
        if holdingNow {
            held.append(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0))
            heldFrames += 1
        }

        if !cancels.isEmpty { return .cancel(cancels) }
        if released { return .release }
        if output.count == frameStart { return .nothing }
        if !splitting && output == events { return .forward }
        var masked = maskOld
        for s in maskNew { masked.insert(s) }
        return .forwardExcept(masked)
    }

    /// A hold's deadline passed with no frame since: its frames are released.
    public mutating func expire(at time: Timestamp) -> Action {
        output.removeAll(keepingCapacity: true)
        guard heldSlot >= 0, let deadline = holdDeadline, time >= deadline else { return .nothing }
        return release(heldSlot, "deadline passed", time: time) ? .release : .nothing
    }

    /// The device is going away, or the daemon stops or ungrabs it: every contact the
    /// clone has down is cancelled (never lifted), held frames are dropped, and the
    /// router starts over as if nothing were down.
    public mutating func cancelAll(at time: Timestamp) -> Action {
        output.removeAll(keepingCapacity: true)
        let cancels = slotsDownOnClone
        for c in cancels { slots[c].palmOnClone = true }
        if heldSlot >= 0 { dropHold() }
        for s in slots.indices where slots[s].state != .idle || slots[s].isDown {
            transition(s, to: .idle, "device gone or released")
            slots[s].trackingID = -1
        }
        cloneSlot = -1
        if emulatesPointer && cloneTouching {
            output.append(InputEvent(time: time, type: EV.key, code: BTN.touch, value: 0))
            output.append(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0))
            cloneTouching = false
        }
        if !cancels.isEmpty { return .cancel(cancels) }
        return output.isEmpty ? .nothing : .forwardExcept(SlotSet())
    }

    // MARK: - Reading a frame

    private var downCount: Int {
        var n = 0
        for slot in slots where slot.isDown { n += 1 }
        return n
    }

    /// Walks the frame once: updates the real contacts and tags each event with the
    /// contact it belongs to.
    private mutating func tagEvents(_ events: [InputEvent], ended: inout SlotSet, began: inout SlotSet, resync: inout Bool) {
        tags.removeAll(keepingCapacity: true)
        for event in events {
            var tag = Self.frameLevel
            if event.type == EV.syn {
                if event.code == SYN.dropped { resync = true }
            } else if singleTouch {
                tag = 0
                if event.type == EV.key && event.code == BTN.touch {
                    if event.value != 0 && !slots[0].isDown {
                        slots[0].trackingID = syntheticTrackingIDs
                        syntheticTrackingIDs = syntheticTrackingIDs == .max ? 0 : syntheticTrackingIDs + 1
                        began.insert(0)
                    } else if event.value == 0 && slots[0].isDown {
                        slots[0].trackingID = -1
                        if began.contains(0) { began.remove(0) } else { ended.insert(0) }
                    }
                }
            } else if event.type == EV.abs && event.code == ABS.mtSlot {
                currentSlot = Int(event.value)
                tag = Self.slotSelect
            } else if event.type == EV.abs && event.code > ABS.mtSlot && event.code <= ABS.max {
                let s = currentSlot
                // A slot no clone slot can be (negative, absurd): written in place, never decided on.
                guard s >= 0 && s < Int(Self.newContact) else {
                    tags.append(Self.frameLevel)
                    continue
                }
                tag = Int32(s)
                if event.code == ABS.mtToolType && slots.indices.contains(s) { slots[s].toolType = event.value }
                if event.code == ABS.mtTrackingID && slots.indices.contains(s) {
                    let id = slots[s].trackingID
                    if event.value < 0 {
                        if id >= 0 {
                            if began.contains(s) { began.remove(s) } else { ended.insert(s) }
                            slots[s].trackingID = -1
                        }
                    } else if event.value != id {
                        // A new id in a live slot replaces its contact (as `TouchState` does).
                        if id >= 0 && !began.contains(s) { ended.insert(s) }
                        slots[s].trackingID = event.value
                        began.insert(s)
                    }
                }
                if began.contains(s) { tag |= Self.newContact }
            }
            tags.append(tag)
        }
        // A single-touch frame is one contact's: all of it belongs to the new one.
        if singleTouch && began.contains(0) {
            for i in tags.indices where tags[i] == 0 { tags[i] = Self.newContact }
        }
    }

    // MARK: - Writing

    private static func isPointerEmulation(_ event: InputEvent) -> Bool {
        switch event.type {
        case EV.key:
            event.code == BTN.touch || event.code == BTN.toolFinger || event.code == BTN.toolDoubleTap
                || event.code == BTN.toolTripleTap || event.code == BTN.toolQuadTap || event.code == BTN.toolQuintTap
        case EV.abs:
            event.code == ABS.x || event.code == ABS.y || event.code == 0x18  // ABS_PRESSURE
        default:
            false
        }
    }

    /// Appends to ``output`` what the clone gets of this frame, and to the hold buffer
    /// the events of the held contact. `split`: the frame is not written as read.
    private mutating func emit(
        _ events: [InputEvent], maskOld: SlotSet, maskNew: SlotSet, split: Bool, holding: Bool
    ) {
        let start = output.count
        var content = false
        for (i, event) in events.enumerated() {
            let tag = tags[i]
            switch tag {
            case Self.slotSelect:
                // The held contact's frames are kept as read.
                if holding && Int(event.value) == heldSlot { held.append(event) }
                // Split frames select slots where their kept events need it.
                if !split {
                    output.append(event)
                    cloneSlot = Int(event.value)
                }
            case Self.frameLevel:
                if event.type == EV.syn {
                    guard event.code == SYN.report else { continue }  // uinput cannot pass SYN_DROPPED.
                    if split { fixTouch(at: event.time) }
                    // A split frame left with nothing but its MSC events is not written.
                    if !split || content || output[start...].contains(where: { $0.type != EV.msc }) {
                        output.append(event)
                    } else {
                        output.removeSubrange(start...)
                    }
                    continue
                }
                if holding { held.append(event) }
                if split && emulatesPointer && Self.isPointerEmulation(event) { continue }
                if event.type == EV.key && event.code == BTN.touch && emulatesPointer { cloneTouching = event.value != 0 }
                output.append(event)
            default:
                let isNew = tag & Self.newContact != 0
                let s = Int(tag & ~Self.newContact)
                if isNew ? maskNew.contains(s) : maskOld.contains(s) {
                    if holding && s == heldSlot { held.append(event) }
                    continue
                }
                if singleTouch && event.type == EV.key && event.code == BTN.touch { cloneTouching = event.value != 0 }
                write(event, slot: s)
                content = true
            }
        }
    }

    /// Appends one event of slot `s`, selecting the slot on the clone first when its
    /// current slot differs, and writing the tool type again before a new contact in a
    /// slot whose last contact was cancelled.
    private mutating func write(_ event: InputEvent, slot s: Int) {
        guard !singleTouch else {
            output.append(event)
            return
        }
        if cloneSlot != s {
            output.append(InputEvent(time: event.time, type: EV.abs, code: ABS.mtSlot, value: Int32(truncatingIfNeeded: s)))
            cloneSlot = s
        }
        if event.code == ABS.mtTrackingID && event.value >= 0 && slots.indices.contains(s) && slots[s].palmOnClone {
            // The real value: a real palm stays one.
            output.append(InputEvent(time: event.time, type: EV.abs, code: ABS.mtToolType, value: slots[s].toolType))
            slots[s].palmOnClone = false
        }
        output.append(event)
    }

    /// Re-sends `BTN_TOUCH` when whether the clone has a contact down changed.
    private mutating func fixTouch(at time: Timestamp) {
        guard emulatesPointer else { return }
        let touching = !slotsDownOnClone.isEmpty
        guard touching != cloneTouching else { return }
        output.append(InputEvent(time: time, type: EV.key, code: BTN.touch, value: touching ? 1 : 0))
        cloneTouching = touching
    }

    // MARK: - Holding

    /// Writes the held frames to ``output``; the slot becomes passthrough. Returns true.
    private mutating func release(_ s: Int, _ why: String, time: Timestamp) -> Bool {
        for event in held {
            if event.type == EV.key && event.code == BTN.touch { cloneTouching = event.value != 0 }
            if !singleTouch && event.type == EV.abs && event.code == ABS.mtSlot {
                output.append(event)
                cloneSlot = Int(event.value)
            } else if !singleTouch && event.type == EV.abs && event.code > ABS.mtSlot && event.code <= ABS.max {
                write(event, slot: s)
            } else {
                output.append(event)
            }
        }
        logger.debug("grab: slot \(s) released, \(heldFrames) frame(s): \(why)")
        dropHold()
        transition(s, to: .passthrough, why)
        return true
    }

    private mutating func dropHold() {
        held.removeAll(keepingCapacity: true)
        heldFrames = 0
        heldSlot = -1
        holdDeadline = nil
    }

    private mutating func transition(_ s: Int, to new: SlotState, _ why: @autoclosure () -> String) {
        guard slots.indices.contains(s) else { return }
        logger.debug("grab: slot \(s) \(slots[s].state.rawValue) → \(new.rawValue): \(why())")
        slots[s].state = new
    }
}
