import CEvdev
import Glibc
import PopGestureCore
import SystemPackage

/// One `/dev/input/event*` node, read through libevdev.
///
/// Opened non-blocking, close-on-exec, with the kernel's timestamps switched to
/// `CLOCK_MONOTONIC` (evdev defaults to the wall clock, which jumps). Closing happens
/// in `deinit`. Use it from one thread: libevdev keeps per-device state.
public final class EvdevDevice {
    /// The path it was opened from.
    public let path: String
    /// The device's capabilities, read once at open.
    public let description: DeviceDescription
    /// What the kernel held when the device was opened (current slot, slot values,
    /// `BTN_TOUCH`): the events read after it are changes to it. Hand it to the engine
    /// with the description, so that contacts already down are held until they lift.
    public let stateAtOpen: DeviceStateAtOpen

    /// libevdev's handle; ``TouchClone`` reads the capabilities and the current slot from it.
    let handle: OpaquePointer
    private let fd: FileDescriptor
    /// NORMAL until a SYN_DROPPED, then SYNC until the resync is drained; kept across
    /// calls, since ``read(into:)`` may return in the middle of a resync.
    private var syncing = false

    /// The most events one ``read(into:)`` call delivers: 4096, four maximal frames
    /// (``GestureEngine/maximumFrameEvents``). A device that writes as fast as it is read
    /// (any uinput program can) would otherwise keep the reader in one call, buffering
    /// without end; `poll` reports the rest.
    public static let maximumEventsPerRead = 4 * GestureEngine.maximumFrameEvents

    /// The fd to `poll(2)` for `POLLIN`. Owned by this object: do not close it.
    public var fileDescriptor: CInt { fd.rawValue }

    /// Opens `path` read-only.
    ///
    /// Throws `.openFailed` when `open(2)` fails (see `errno`: `ENOENT` often means the
    /// node vanished between udev's report and the open), `.notEvdev` when the path is not
    /// an evdev node, `.deviceGone` when it was unplugged during setup.
    public init(path: String) throws(InputError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readOnly, options: [.nonBlocking, .closeOnExec])
        } catch {
            let errno = error as? Errno
            throw InputError(.openFailed, "cannot open \(path): \(errno?.description ?? "\(error)")", errno: errno)
        }

        var created: OpaquePointer?
        let status = libevdev_new_from_fd(fd.rawValue, &created)
        guard status == 0, let handle = created else {
            try? fd.close()
            throw Self.setupError(path, status, doing: "libevdev_new_from_fd")
        }
        // Every timestamp the core compares must come from one clock that never jumps.
        let clock = libevdev_set_clock_id(handle, CLOCK_MONOTONIC)
        guard clock == 0 else {
            libevdev_free(handle)
            try? fd.close()
            throw Self.setupError(path, clock, doing: "setting CLOCK_MONOTONIC")
        }

        self.path = path
        self.fd = fd
        self.handle = handle
        description = DeviceDescription(libevdev: handle)
        stateAtOpen = DeviceStateAtOpen(libevdev: handle)
    }

    deinit {
        libevdev_free(handle)  // does not close the fd
        try? fd.close()
    }

    /// Reads every event available now and passes each to `body`, in order. Returns
    /// when the kernel has nothing more (`EAGAIN`); call it again when `poll` says so.
    ///
    /// **`SYN_DROPPED`.** When the kernel's buffer overflowed, `body` receives the
    /// `SYN_DROPPED` event, then libevdev's resync (`LIBEVDEV_READ_FLAG_SYNC`): the
    /// events that turn the last state the caller saw into the device's current state,
    /// each frame ending with `SYN_REPORT`. Events queued after the drop are discarded by
    /// libevdev; normal events follow the resync. When nothing changed the resync is
    /// empty and the next ordinary frame follows `SYN_DROPPED` directly. This is the
    /// sequence `TouchState` expects: feed every event through unchanged.
    ///
    /// Returns after ``maximumEventsPerRead`` events even when more are waiting.
    ///
    /// Events delivered before an error stay delivered. Throws `.deviceGone` once the
    /// device is unplugged (`ENODEV`) and `.readFailed` for any other error; either way
    /// the device is unusable: drop it.
    public func read(into body: (InputEvent) -> Void) throws(InputError) {
        var raw = input_event()
        var delivered = 0
        while delivered < Self.maximumEventsPerRead {
            let flags = syncing ? LIBEVDEV_READ_FLAG_SYNC : LIBEVDEV_READ_FLAG_NORMAL
            let status = libevdev_next_event(handle, flags.rawValue, &raw)
            switch status {
            case Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue):
                body(InputEvent(raw))
                delivered += 1
            case Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue):
                // In normal mode this is the SYN_DROPPED itself; in sync mode, a resync event.
                body(InputEvent(raw))
                delivered += 1
                syncing = true
            case -EAGAIN where syncing:
                syncing = false  // resync done; normal events may be waiting
            case -EAGAIN:
                return
            case -EINTR:
                continue
            case -ENODEV:
                throw InputError(.deviceGone, "\(path): device gone", errno: .operationNotSupportedByDevice)
            default:
                let errno = Errno(rawValue: -status)
                throw InputError(.readFailed, "\(path): read failed: \(errno)", errno: errno)
            }
        }
    }

    /// Whether this fd holds the device's grab (``grab()``).
    public private(set) var isGrabbed = false

    /// Takes the device for this fd alone (`EVIOCGRAB` through `libevdev_grab`): from
    /// now on no other reader gets its events, the compositor included, until
    /// ``ungrab()``. Contacts down at that moment end for nobody: other readers get no
    /// release. Grab only while no finger is down.
    ///
    /// The kernel drops the grab when this fd closes (`evdev_release` calls
    /// `evdev_ungrab`): at `deinit`, and when the process dies in any way, SIGKILL
    /// included, since the kernel closes its fds then. A grab never outlives the daemon.
    ///
    /// Does nothing when already grabbed. Throws `.grabFailed` when another process holds
    /// the grab (`EBUSY`) or the kernel refuses, `.deviceGone` after an unplug.
    public func grab() throws(InputError) {
        guard !isGrabbed else { return }
        let status = libevdev_grab(handle, LIBEVDEV_GRAB)
        guard status == 0 else {
            let errno = Errno(rawValue: -status)
            if errno == .operationNotSupportedByDevice {
                throw InputError(.deviceGone, "\(path): device gone", errno: errno)
            }
            let why = errno == .resourceBusy ? "another process holds it" : "\(errno)"
            throw InputError(.grabFailed, "\(path): cannot grab the device: \(why)", errno: errno)
        }
        isGrabbed = true
    }

    /// Gives the grab back (`EVIOCGRAB` 0): other readers get the device's events again.
    /// Does nothing when not grabbed; an unplugged device has no grab left, so `ENODEV`
    /// counts as done. Throws `.grabFailed` when the kernel refuses otherwise.
    public func ungrab() throws(InputError) {
        guard isGrabbed else { return }
        let status = libevdev_grab(handle, LIBEVDEV_UNGRAB)
        let errno = Errno(rawValue: -status)
        guard status == 0 || errno == .operationNotSupportedByDevice else {
            throw InputError(.grabFailed, "\(path): cannot release the grab: \(errno)", errno: errno)
        }
        isGrabbed = false
    }

    /// The slot libevdev has as current after the events read so far: the slot the
    /// next `ABS_MT_*` event addresses unless an `ABS_MT_SLOT` comes first. 0 for a
    /// device without slots.
    public var currentSlot: Int32 {
        libevdev_get_num_slots(handle) > 0 ? libevdev_get_current_slot(handle) : 0
    }

    /// Whether a finger is down on the device now, asked of the kernel (not of the
    /// events read so far): any slot with a tracking id (`EVIOCGMTSLOTS`, the first
    /// ``DeviceDescription/maximumTrackedSlots`` slots), or `BTN_TOUCH` down
    /// (`EVIOCGKEY`; all a protocol A device has). Right after ``grab()``, it tells
    /// whether a finger landed before the grab took: then ``ungrab()`` and wait for idle.
    ///
    /// Throws `.deviceGone` after an unplug and `.readFailed` when the kernel refuses.
    public func kernelContactsDown() throws(InputError) -> Bool {
        func check(_ status: CInt) throws(InputError) -> Bool {
            guard status >= 0 else {
                let errno = Errno(rawValue: -status)
                if errno == .operationNotSupportedByDevice {
                    throw InputError(.deviceGone, "\(path): device gone", errno: errno)
                }
                throw InputError(.readFailed, "\(path): cannot read the contacts down: \(errno)", errno: errno)
            }
            return status > 0
        }
        let slots = libevdev_get_num_slots(handle)
        if slots > 0, description.has(axis: ABS.mtTrackingID),
           try check(popgestured_slots_down(fd.rawValue, UInt32(min(Int(slots), DeviceDescription.maximumTrackedSlots)))) {
            return true
        }
        return description.has(key: BTN.touch) ? try check(popgestured_key_down(fd.rawValue, UInt32(BTN.touch))) : false
    }

    private static func setupError(_ path: String, _ status: CInt, doing what: String) -> InputError {
        let errno = Errno(rawValue: -status)
        let code: InputError.Code = switch errno {
        case .operationNotSupportedByDevice: .deviceGone  // ENODEV
        case .noMemory: .outOfMemory
        // The evdev ioctls fail with ENOTTY on anything else (files, /dev/null, ttys).
        case .inappropriateIOCTLForDevice, .invalidArgument: .notEvdev
        default: .openFailed
        }
        let message = code == .notEvdev ? "\(path) is not an evdev node (\(errno))" : "\(path): \(what) failed: \(errno)"
        return InputError(code, message, errno: errno)
    }
}

extension input_event {
    /// The kernel's record of `event`, as evdev gives it and uinput takes it. A time
    /// before the epoch is no valid time: it is written as zero, which uinput stamps.
    init(_ event: InputEvent) {
        let microseconds = max(0, event.time.microseconds)
        self.init()
        time.tv_sec = Int(microseconds / 1_000_000)
        time.tv_usec = Int(microseconds % 1_000_000)
        type = event.type
        code = event.code
        value = event.value
    }
}

extension InputEvent {
    init(_ raw: input_event) {
        self.init(
            time: Timestamp(seconds: Int64(raw.time.tv_sec), microseconds: Int64(raw.time.tv_usec)),
            type: raw.type, code: raw.code, value: raw.value)
    }
}

extension DeviceStateAtOpen {
    /// The state libevdev holds: right after `libevdev_new_from_fd` it is the kernel's
    /// (libevdev reads it with `EVIOCGMTSLOTS`, `EVIOCGABS` and `EVIOCGKEY`). Needs no fd.
    init(libevdev evdev: OpaquePointer) {
        func key(_ code: UInt16) -> Bool { libevdev_get_event_value(evdev, UInt32(EV_KEY), UInt32(code)) != 0 }
        self.init(
            touching: key(BTN.touch),
            x: libevdev_get_event_value(evdev, UInt32(EV_ABS), UInt32(ABS_X)),
            y: libevdev_get_event_value(evdev, UInt32(EV_ABS), UInt32(ABS_Y)))
        // The widest BTN_TOOL_* set wins, as the kernel sets only one of them.
        let tools = [BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap, BTN.toolQuintTap]
        toolFingerCount = (tools.lastIndex(where: key) ?? -1) + 1
        // Protocol A devices have no slots (libevdev gives -1): the kernel keeps no ABS_MT_* for them.
        let slotCount = libevdev_get_num_slots(evdev)
        guard slotCount > 0 else { return }
        currentSlot = Int(libevdev_get_current_slot(evdev))
        // libevdev gives 0 for a code the device lacks: without tracking ids no slot is down.
        let tracked = libevdev_has_event_code(evdev, UInt32(EV_ABS), UInt32(ABS_MT_TRACKING_ID)) != 0
        slots = (0..<UInt32(slotCount)).map { slot in
            func value(_ code: Int32) -> Int32 { libevdev_get_slot_value(evdev, slot, UInt32(code)) }
            return Slot(
                trackingID: tracked ? value(ABS_MT_TRACKING_ID) : -1,
                x: value(ABS_MT_POSITION_X), y: value(ABS_MT_POSITION_Y),
                toolType: value(ABS_MT_TOOL_TYPE), touchMajor: value(ABS_MT_TOUCH_MAJOR))
        }
    }
}

extension DeviceDescription {
    /// What libevdev knows about a device. Needs no fd: a `libevdev_new()` device with
    /// enabled codes works, which is how the tests build one.
    init(libevdev evdev: OpaquePointer) {
        self.init(
            name: String(cString: libevdev_get_name(evdev)),
            bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(evdev)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(evdev)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(evdev)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(evdev)))
        for property in 0...UInt32(INPUT_PROP_MAX) where libevdev_has_property(evdev, property) != 0 {
            properties.insert(Int(property))
        }
        for type in 0...UInt32(EV_MAX) where libevdev_has_event_type(evdev, type) != 0 {
            eventTypes.insert(UInt16(type))
        }
        if libevdev_has_event_type(evdev, UInt32(EV_KEY)) != 0 {
            for key in 0...UInt32(KEY_MAX) where libevdev_has_event_code(evdev, UInt32(EV_KEY), key) != 0 {
                keys.insert(UInt16(key))
            }
        }
        if libevdev_has_event_type(evdev, UInt32(EV_ABS)) != 0 {
            for code in 0...UInt32(ABS_MAX) {
                guard libevdev_has_event_code(evdev, UInt32(EV_ABS), code) != 0,
                      let info = libevdev_get_abs_info(evdev, code)?.pointee
                else { continue }
                axes[UInt16(code)] = AbsoluteAxis(
                    minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz, flat: info.flat,
                    resolution: info.resolution)
            }
        }
    }
}
