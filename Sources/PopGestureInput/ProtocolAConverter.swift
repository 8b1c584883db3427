import CMtdev
import PopGestureCore

/// Turns multitouch protocol A (anonymous contacts separated by `SYN_MT_REPORT`) into
/// protocol B slots, with mtdev's plumbing API. It needs no fd, so live devices and
/// recordings share it.
///
/// mtdev buffers a whole frame: events come out only once their `SYN_REPORT` went in.
///
/// A frame keeps its first ``maximumContactsPerFrame`` contacts; the kernel sets no such
/// limit on protocol A, and mtdev cannot take more.
public final class ProtocolAConverter {
    /// Contacts of one frame passed to mtdev: 31. libmtdev 1.1.6 never returns from a
    /// frame of 32 or more (measured: 31 take microseconds, 32 still ran after 120 s), so
    /// a broken or hostile device would stall the one loop until the watchdog. The
    /// contacts after these, up to the frame's `SYN_REPORT`, are dropped and counted in
    /// ``droppedContacts``; no real touchscreen reports 31 fingers.
    public static let maximumContactsPerFrame = 31

    private let handle: UnsafeMutablePointer<mtdev>
    /// Contacts (`SYN_MT_REPORT`s) of the frame in progress passed to mtdev.
    private var contactsInFrame = 0
    /// Contacts dropped because their frame had ``maximumContactsPerFrame`` already, since
    /// the converter was made.
    public private(set) var droppedContacts = 0

    /// The description of the converted stream: the same device with slots.
    public let convertedDescription: DeviceDescription

    public init(device: DeviceDescription) throws(InputError) {
        guard let handle = mtdev_new() else { throw InputError(.outOfMemory, "mtdev_new failed") }
        guard mtdev_init(handle) == 0 else {
            mtdev_delete(handle)
            throw InputError(.converterSetup, "mtdev_init failed for \(device.name)")
        }
        self.handle = handle
        var converted = device
        for (code, axis) in device.axes where code > ABS.mtSlot && code <= ABS.max {
            let c = Int32(code)
            mtdev_set_mt_event(handle, c, 1)
            mtdev_set_abs_minimum(handle, c, axis.minimum)
            mtdev_set_abs_maximum(handle, c, axis.maximum)
            mtdev_set_abs_fuzz(handle, c, axis.fuzz)
            mtdev_set_abs_resolution(handle, c, axis.resolution)
        }
        // mtdev_configure would read these from the fd; the plumbing API leaves them to us.
        handle.pointee.caps.has_mtdata = 1
        handle.pointee.caps.has_slot = 0
        handle.pointee.caps.slot.minimum = 0
        handle.pointee.caps.slot.maximum = Int32(device.slotCount - 1)
        converted.axes[ABS.mtSlot] = AbsoluteAxis(minimum: 0, maximum: Int32(device.slotCount - 1))
        converted.axes[ABS.mtTrackingID] = AbsoluteAxis(minimum: 0, maximum: 65535)
        convertedDescription = converted
    }

    /// The state at open of the converted stream. mtdev starts empty, at slot 0, so a
    /// finger already down comes out as a new contact: only `BTN_TOUCH` (all the kernel
    /// keeps for protocol A) carries over, and `TouchState` then holds every contact mtdev
    /// reports until all have lifted once. A device without `BTN_TOUCH` cannot say.
    public static func convertedState(_ state: DeviceStateAtOpen) -> DeviceStateAtOpen {
        DeviceStateAtOpen(touching: state.touching, toolFingerCount: state.toolFingerCount)
    }

    // mtdev_delete frees only the handle; mtdev_close frees the state mtdev_init allocated
    // (about 20 KB). Deleting alone leaked that for every protocol A device ever added.
    deinit { mtdev_close_delete(handle) }

    /// Whether mtdev can take the event. mtdev indexes fixed arrays by code without
    /// checking (an `EV_ABS` code above `ABS_MAX` crashes inside it), so only the types the
    /// engine reads, with codes in range, go in: `EV_SYN` up to `SYN_MAX`, `EV_KEY` up to
    /// `KEY_MAX`, `EV_ABS` up to `ABS_MAX`. Nothing else carries anything the engine uses.
    static func accepts(_ event: InputEvent) -> Bool {
        switch event.type {
        case EV.syn: event.code <= UInt16(SYN_MAX)
        case EV.key: event.code <= UInt16(KEY_MAX)
        case EV.abs: event.code <= UInt16(ABS_MAX)
        default: false
        }
    }

    /// Counts the frame's contacts; false for the events of a contact past the limit.
    private func keepsContact(_ event: InputEvent) -> Bool {
        let endsContact = event.type == EV.syn && event.code == SYN.mtReport
        let ofContact = endsContact || (event.type == EV.abs && event.code > ABS.mtSlot)
        if event.isFrameEnd {
            contactsInFrame = 0
        } else if ofContact && contactsInFrame >= Self.maximumContactsPerFrame {
            if endsContact { droppedContacts += 1 }
            return false
        } else if endsContact {
            contactsInFrame += 1
        }
        return true
    }

    /// Feeds one protocol A event; `emit` receives the protocol B events it completes.
    /// Events mtdev cannot take (see ``accepts(_:)``) and contacts past
    /// ``maximumContactsPerFrame`` are dropped here.
    public func convert(_ event: InputEvent, _ emit: (InputEvent) -> Void) {
        guard Self.accepts(event), keepsContact(event) else { return }
        var raw = input_event()
        raw.time.tv_sec = Int(event.time.microseconds / 1_000_000)
        raw.time.tv_usec = Int(event.time.microseconds % 1_000_000)
        raw.type = event.type
        raw.code = event.code
        raw.value = event.value
        mtdev_put_event(handle, &raw)
        while mtdev_empty(handle) == 0 {
            mtdev_get_event(handle, &raw)
            emit(InputEvent(
                time: Timestamp(seconds: Int64(raw.time.tv_sec), microseconds: Int64(raw.time.tv_usec)),
                type: raw.type, code: raw.code, value: raw.value))
        }
    }
}
