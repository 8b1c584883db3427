import CEvdev
import Glibc
import PopGestureCore
import SystemPackage

/// A uinput clone of a touchscreen, for grab mode: while the daemon holds the real
/// device (``EvdevDevice/grab()``), the compositor reads this one, and gets only the
/// frames the daemon forwards.
///
/// Made with libevdev from a ``CloneTemplate`` (see there for what it keeps and what it
/// changes: `phys`, `INPUT_PROP_DIRECT`, `ABS_MT_TOOL_TYPE`, fuzz 0; the name is the real one).
/// What is written is decided by a ``CloneStream``: frames as they came, and a cancel
/// that libinput reports as `TOUCH_CANCEL`, never `TOUCH_UP`.
///
/// Each call is one `write(2)` of raw `input_event`s that carry the times they are
/// given. Kernels since 6.5 keep a written time when it is `CLOCK_MONOTONIC`, not in
/// the future and at most 10 s old; older kernels, and a time of zero, stamp the
/// events when they are written.
///
/// Closing happens in `deinit`: the kernel removes the device, and libinput cancels
/// the touches still down on it (as it does on any unplug). Call ``releaseAll(at:)``
/// first all the same, so that a contact ends as a cancel before the device goes. The
/// kernel does the same when the process dies, since the uinput fd closes with it.
///
/// Use it from one thread: it keeps the clone's slot state.
public final class TouchClone {
    /// The clone's name: the real name (``CloneTemplate/cloneName(of:)``).
    public let name: String
    /// `/dev/input/eventN`, when the kernel and udev had made it by the time `init`
    /// returned (libevdev reads sysfs for it).
    public let devnode: String?
    /// `/sys/devices/virtual/input/inputN`.
    public let syspath: String?
    /// The most events one ``forward(_:)`` call takes: ``GestureEngine/maximumFrameEvents``
    /// (1024), the engine's own limit for one frame.
    public static let maximumForwardEvents = GestureEngine.maximumFrameEvents

    private let device: UinputDevice
    private var stream: CloneStream
    /// Reused for every write, so forwarding allocates nothing once it has grown.
    private var events: [InputEvent] = []
    private var raw: [input_event] = []

    /// Clones the device `device` is open on, with its current slot (libevdev follows
    /// it as events are read) and its `EV_MSC` codes. For a protocol A device, pass the
    /// stream the clone gets: `description` =
    /// ``ProtocolAConverter/convertedDescription`` (mtdev's slots start at 0).
    ///
    /// Throws as ``init(template:currentSlot:)`` does (a protocol A device without its
    /// converted description has no slots: `.invalidDescription`).
    public convenience init(cloning device: EvdevDevice, as description: DeviceDescription? = nil) throws(InputError) {
        let handle = device.handle
        var misc: Set<UInt16> = []
        if libevdev_has_event_type(handle, UInt32(EV_MSC)) != 0 {
            for code in 0...UInt32(MSC_MAX) where libevdev_has_event_code(handle, UInt32(EV_MSC), code) != 0 {
                misc.insert(UInt16(code))
            }
        }
        let sysname = device.path.split(separator: "/").last.map(String.init) ?? device.path
        let slot = libevdev_get_num_slots(handle) > 0 ? libevdev_get_current_slot(handle) : 0
        try self.init(
            template: CloneTemplate(cloning: description ?? device.description, sysname: sysname, miscCodes: misc),
            currentSlot: slot)
    }

    /// Creates the clone. `currentSlot` is the slot the events to be forwarded start
    /// in (0 for a stream mtdev converts from protocol A).
    ///
    /// Throws `.invalidDescription`, creating nothing, when the template has no
    /// `ABS_MT_SLOT` (protocol B is what the clone speaks; convert protocol A with
    /// ``ProtocolAConverter`` and clone its ``ProtocolAConverter/convertedDescription``).
    /// Throws `.uinput` with the cause and the fix when uinput refuses (see
    /// ``BackInputDevice``'s errors: no module, no permission).
    public init(template: CloneTemplate, currentSlot: Int32 = 0) throws(InputError) {
        let clone = template.description
        guard template.slotCount > 0, clone.has(axis: ABS.mtTrackingID) else {
            throw InputError(
                .invalidDescription, "\(clone.name): a touch clone needs ABS_MT_SLOT and ABS_MT_TRACKING_ID")
        }
        guard let device = libevdev_new() else { throw InputError(.outOfMemory, "libevdev_new failed") }
        libevdev_set_name(device, clone.name)
        libevdev_set_phys(device, template.phys)
        libevdev_set_id_bustype(device, Int32(clone.bustype))
        libevdev_set_id_vendor(device, Int32(clone.vendor))
        libevdev_set_id_product(device, Int32(clone.product))
        libevdev_set_id_version(device, Int32(clone.version))
        for property in clone.properties where property >= 0 && property <= Int(INPUT_PROP_MAX) {
            libevdev_enable_property(device, UInt32(property))
        }
        libevdev_enable_event_type(device, UInt32(EV_SYN))
        for key in clone.keys where Int32(key) <= KEY_MAX {
            libevdev_enable_event_code(device, UInt32(EV_KEY), UInt32(key), nil)
        }
        for (code, axis) in clone.axes {
            var info = input_absinfo(
                value: 0, minimum: axis.minimum, maximum: axis.maximum, fuzz: axis.fuzz, flat: axis.flat,
                resolution: axis.resolution)
            libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(code), &info)
        }
        for code in template.miscCodes where Int32(code) <= MSC_MAX {
            libevdev_enable_event_code(device, UInt32(EV_MSC), UInt32(code), nil)
        }

        self.device = try UinputDevice(
            template: device, phys: template.phys, creating: "the touch clone \"\(clone.name)\"")
        name = clone.name
        stream = CloneStream(slotCount: template.slotCount, currentSlot: currentSlot)
        devnode = self.device.devnode
        syspath = self.device.syspath
        events.reserveCapacity(64)
        raw.reserveCapacity(64)
    }

    /// Forwarding starts (again) while the real device is at `slot`: call it at the
    /// grab, since frames read before it were not forwarded and may have moved the
    /// real device's current slot (``EvdevDevice/currentSlot``).
    public func followSource(slot: Int32) {
        stream.follow(sourceSlot: slot)
    }

    /// Every event of a frame the real device sent, before what the router made of it is
    /// forwarded (``CloneStream/observe(_:)``): a contact the clone gets later starts
    /// from the real device's values, even those the kernel did not send again.
    public func observe(_ frame: [InputEvent]) {
        for event in frame { stream.observe(event) }
    }

    /// Gives the clone the real device's current axis values (``CloneStream/appendState(axes:slots:at:into:)``):
    /// call it at the grab, with nothing down, right after ``followSource(slot:)``.
    /// Throws `.uinput` when the write fails.
    public func copyState(of device: EvdevDevice) throws(InputError) {
        let handle = device.handle
        let codes = device.description.axes.keys.sorted()
        let axes = codes.filter { $0 < ABS.mtSlot }.map { code in
            (code: code, value: libevdev_get_event_value(handle, UInt32(EV_ABS), UInt32(code)))
        }
        let slotCount = max(0, Int(libevdev_get_num_slots(handle)))
        let slots = (0..<slotCount).map { slot in
            codes.filter { $0 > ABS.mtSlot && $0 != ABS.mtTrackingID }.map { code in
                (code: code, value: libevdev_get_slot_value(handle, UInt32(slot), UInt32(code)))
            }
        }
        events.removeAll(keepingCapacity: true)
        stream.appendState(axes: axes, slots: slots, at: .zero, into: &events)
        try write()
    }

    /// The clone slots with a contact down, from what was written.
    public var slotsDown: [Int32] { stream.slotsDown }

    /// Writes one or more frames as they came (see ``CloneStream`` for the few events
    /// it adds or leaves out); `events` must end with `SYN_REPORT`.
    ///
    /// Throws `.invalidFrame`, writing nothing, for more than ``maximumForwardEvents``
    /// events or a last event that is not `SYN_REPORT`. Throws `.uinput` when the write
    /// fails; the clone is then unusable: destroy it.
    public func forward(_ events: some BidirectionalCollection<InputEvent>) throws(InputError) {
        guard events.count <= Self.maximumForwardEvents else {
            throw InputError(
                .invalidFrame, "\(name): \(events.count) events to forward, more than \(Self.maximumForwardEvents)")
        }
        guard let last = events.last, last.isFrameEnd else {
            throw InputError(.invalidFrame, "\(name): a forwarded frame must end with SYN_REPORT")
        }
        self.events.removeAll(keepingCapacity: true)
        for event in events { stream.forward(event, into: &self.events) }
        try write()
    }

    /// Ends the contact in clone slot `slot` as a cancel: libinput sends `TOUCH_CANCEL`
    /// and no `TOUCH_UP`. The slot's next touch begins normally (``forward(_:)`` resets
    /// its tool type). Writes nothing when the slot is not down on the clone.
    ///
    /// `time` stamps the frame (the time of the real frame that caused it); nil lets the
    /// kernel stamp it. Throws `.uinput` when the write fails.
    public func cancel(slot: Int32, at time: Timestamp? = nil) throws(InputError) {
        events.removeAll(keepingCapacity: true)
        guard stream.cancel(slot: slot, at: time ?? .zero, into: &events) else { return }
        try write()
    }

    /// Cancels every contact still down on the clone, in one frame: before an unplug,
    /// a stop or a re-open, so that no touch is left down. Writes nothing when none is.
    public func releaseAll(at time: Timestamp? = nil) throws(InputError) {
        events.removeAll(keepingCapacity: true)
        guard stream.cancelAll(at: time ?? .zero, into: &events) else { return }
        try write()
    }

    /// Writes `events` in one `write(2)`.
    private func write() throws(InputError) {
        guard !events.isEmpty else { return }
        raw.removeAll(keepingCapacity: true)
        for event in events { raw.append(input_event(event)) }
        let fd = device.fd
        let size = raw.count * MemoryLayout<input_event>.stride
        while true {
            let written = raw.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, size) }
            if written == size { return }
            if written < 0 && errno == EINTR { continue }
            let code = written < 0 ? Errno(rawValue: errno) : Errno.ioError
            throw InputError(.uinput, "\(name): writing to the clone failed: \(code)", errno: code)
        }
    }
}
