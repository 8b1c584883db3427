import CUdev
import Glibc
import PopGestureCore

/// A touchscreen or touchpad as udev describes it, before it is opened.
///
/// A grab mode clone (``TouchClone``: `phys` starting `popgestured/`) is never one,
/// whichever daemon made it: reading its own clone, the daemon would see every
/// forwarded frame twice, and clone the clone. Nor is the daemon's virtual touchpad
/// (``VirtualTouchpad``: `phys` starting `popgestured-touchpad/`), whose scrolls are its own.
public struct InputDeviceInfo: Sendable, Hashable {
    /// The evdev node, always `/dev/input/event*`.
    public var devnode: String
    /// The device's `/sys` path (`.../inputN/eventM`). Unlike the devnode, which the
    /// kernel hands to the next device once this one is gone, it names this device
    /// instance only (`inputN` is never reused while the system runs): match udev
    /// events on it.
    public var syspath: String
    /// The kernel's name for the device (the parent `inputN`'s `NAME`); the devnode when
    /// the kernel gave none.
    public var name: String
    /// From udev's `ID_INPUT_TOUCHPAD` / `ID_INPUT_TOUCHSCREEN`.
    public var kind: DeviceKind
    /// `LIBINPUT_CALIBRATION_MATRIX` as udev has it; nil when not set. The text is not
    /// checked here: parse it with `CalibrationMatrix(udevProperty:)`.
    public var calibration: String?
    /// Millimetres, from `ID_INPUT_WIDTH_MM` and `ID_INPUT_HEIGHT_MM`; nil unless both are
    /// positive numbers. Meant for `DeviceDescription.reportedSize`, which the opened
    /// device leaves nil.
    public var size: PhysicalSize?
    /// The output the device sits on, from udev's `WL_OUTPUT` (the property libinput's
    /// `libinput_device_get_output_name` reads, set by a rule or hwdb); nil when unset.
    public var output: String?
    /// The seat it belongs to, from udev's `ID_SEAT` (seat0 when unset, as logind
    /// counts it); nil when that names no seat logind would take: a device on no seat.
    public var seat: Seat?
    /// udev's `ID_BUS` (`usb`, `i2c`, `bluetooth`); nil when unset, as it often is for
    /// I²C-HID touchscreens. With the evdev bus type it tells a built-in touchscreen
    /// from a plugged one (``DisplayConnectors/touchscreenIsBuiltIn(udevBus:bustype:integration:)``).
    public var bus: String?
    /// systemd's `ID_INTEGRATION` (`internal` or `external`, from its 65-integration
    /// rules: a USB device on a port marked `removable=fixed` is internal); nil when unset.
    /// It wins over ``bus``: many 2-in-1 laptops wire their touchscreen over USB.
    public var integration: String?

    public init(
        devnode: String, syspath: String, name: String, kind: DeviceKind,
        calibration: String? = nil, size: PhysicalSize? = nil, output: String? = nil, seat: Seat? = .seat0,
        bus: String? = nil, integration: String? = nil
    ) {
        self.integration = integration
        self.devnode = devnode
        self.syspath = syspath
        self.name = name
        self.kind = kind
        self.calibration = calibration
        self.size = size
        self.output = output
        self.seat = seat
        self.bus = bus
    }

    /// The mapping from udev properties, without udev. Nil for anything but an event
    /// node of a touchscreen or touchpad, and for a touch clone or the daemon's virtual
    /// touchpad (which it writes, and would otherwise read its own scrolls from).
    init?(devnode: String?, syspath: String, properties: [String: String], parentProperties: [String: String]) {
        // A touchscreen also gets mouseN (and sometimes jsN) nodes; only evdev's nodes carry MT.
        guard let devnode, Self.isEventNode(devnode) else { return nil }
        // The kernel's uevent of the parent inputN carries PHYS="…", quotes included.
        if let phys = parentProperties["PHYS"].map(Self.unquoted),
           CloneTemplate.isClone(phys: phys) || VirtualTouchpad.isVirtualTouchpad(phys: phys) { return nil }
        // A node that types is not read, whatever udev tags it (the touch access rule gives
        // it no entry either): the daemon would read what is typed.
        if let keys = parentProperties["KEY"], Self.typesText(keyBitmap: keys) { return nil }
        // Touchpad first, as libinput decides when both are set.
        if properties["ID_INPUT_TOUCHPAD"] == "1" {
            kind = .touchpad
        } else if properties["ID_INPUT_TOUCHSCREEN"] == "1" {
            kind = .touchscreen
        } else {
            return nil
        }
        self.devnode = devnode
        self.syspath = syspath
        name = parentProperties["NAME"].map(Self.unquoted) ?? devnode
        calibration = properties["LIBINPUT_CALIBRATION_MATRIX"]
        output = properties["WL_OUTPUT"].flatMap { $0.isEmpty ? nil : $0 }
        bus = properties["ID_BUS"].flatMap { $0.isEmpty ? nil : $0 }
        integration = (properties["ID_INTEGRATION"] ?? parentProperties["ID_INTEGRATION"]).flatMap { $0.isEmpty ? nil : $0 }
        // 73-seat-late.rules copies the parent's onto the node; a rule may set either.
        seat = Seat(udevProperty: properties["ID_SEAT"] ?? parentProperties["ID_SEAT"])
        if let width = properties["ID_INPUT_WIDTH_MM"].flatMap(Double.init),
           let height = properties["ID_INPUT_HEIGHT_MM"].flatMap(Double.init),
           width.isFinite, height.isFinite, width > 0, height > 0 {
            size = PhysicalSize(width: width, height: height)
        }
    }

    /// Whether a key bitmap as the kernel writes it (the inputN's `KEY=` uevent or
    /// `capabilities/key`: hex words of `long` bits, most significant first, leading zero
    /// words left out) has a key of a keyboard's main block: `KEY_ESC` to `KEY_KPDOT`
    /// (codes 1-83: letters, digits, punctuation, the keypad). A home, power, volume or
    /// back key is no keyboard (Goodix panels send `KEY_LEFTMETA`). Text that is no
    /// bitmap counts as typing. The same rule as `systemd/udev/popgestured-touch-access`.
    static func typesText(keyBitmap: String, bitsPerWord: Int = CLong.bitWidth) -> Bool {
        let words = keyBitmap.split(separator: " ").map { UInt64($0, radix: 16) }
        guard !words.isEmpty, !words.contains(nil) else { return true }
        var bits = words.reversed().map { $0! }  // least significant first
        bits += [UInt64](repeating: 0, count: max(0, 128 / bitsPerWord - bits.count))
        func word(_ bit: Int) -> UInt64 { bits[bit / bitsPerWord] }
        for code in 1...83 where word(code) >> (code % bitsPerWord) & 1 == 1 { return true }
        return false
    }

    static func isEventNode(_ devnode: String) -> Bool {
        devnode.hasPrefix("/dev/input/event")
    }

    /// The kernel writes `NAME="..."` into the uevent, quotes included.
    static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.first == "\"", text.last == "\"" else { return text }
        return String(text.dropFirst().dropLast())
    }
}

/// What happened to an input device since the last `receive()`.
public enum UdevChange: Sendable, Hashable {
    /// A touch device appeared.
    case added(InputDeviceInfo)
    /// A touch device's properties changed (say a new calibration matrix): re-open it.
    case changed(InputDeviceInfo)
    /// An event node went away, or stopped being a touch device. Reported for every
    /// event node, touch device or not: ignore syspaths you do not have open. Match on
    /// `syspath`: the devnode may already belong to a newer device.
    case removed(devnode: String, syspath: String)
}

/// libudev, for the input subsystem: what touch devices exist, and which come and go.
///
/// Monitoring starts in `init`, before any `enumerate()`, so no device slips between
/// the two; a device can then show up in both (treat `.added` for an open devnode as
/// nothing new). Needs `systemd-udevd` running: without its database no device is a
/// touchscreen or touchpad, and no change arrives. Use it from one thread.
public final class UdevInputMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer

    /// The monitor's socket, non-blocking: `poll(2)` it for `POLLIN`, then `receive()`.
    /// Owned by this object: do not close it.
    public var fileDescriptor: CInt { udev_monitor_get_fd(monitor) }

    /// Throws `.udev` when libudev or its netlink socket cannot be set up.
    public init() throws(InputError) {
        guard let udev = udev_new() else {
            throw InputError(.udev, "udev_new failed: \(String(cString: strerror(errno)))")
        }
        // "udev", not "kernel": only after udevd has applied its rules are ID_INPUT_* set.
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            let reason = String(cString: strerror(errno))
            udev_unref(udev)
            throw InputError(.udev, "cannot create the udev monitor: \(reason)")
        }
        let filtered = udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        let receiving = filtered < 0 ? filtered : udev_monitor_enable_receiving(monitor)
        guard receiving >= 0 else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw InputError(.udev, "cannot listen to udev: \(String(cString: strerror(-receiving)))")
        }
        self.udev = udev
        self.monitor = monitor
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Whether udevd has processed the event node `devnode` (`/dev/input/eventN`): its
    /// rules ran and its database entry exists, so a compositor has been told. Grab mode
    /// grabs a real device only once its ``TouchClone``'s node is processed. Clones are
    /// never reported by ``receive()``, but their udev messages still make the monitor's
    /// fd readable: check pending clones whenever it is. False for anything else.
    public func hasProcessed(devnode: String) -> Bool {
        guard InputDeviceInfo.isEventNode(devnode),
              let device = udev_device_new_from_subsystem_sysname(udev, "input", String(devnode.dropFirst("/dev/input/".count)))
        else { return false }
        defer { udev_device_unref(device) }
        return udev_device_get_is_initialized(device) != 0
    }

    /// The touchscreens and touchpads present now, in `/sys` order. Empty when udev cannot
    /// scan.
    public func enumerate() -> [InputDeviceInfo] {
        guard let enumerator = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(enumerator) }
        udev_enumerate_add_match_subsystem(enumerator, "input")
        udev_enumerate_add_match_sysname(enumerator, "event*")
        guard udev_enumerate_scan_devices(enumerator) >= 0 else { return [] }
        var found: [InputDeviceInfo] = []
        var entry = udev_enumerate_get_list_entry(enumerator)
        while let current = entry {
            entry = udev_list_entry_get_next(current)
            guard let device = udev_device_new_from_syspath(udev, udev_list_entry_get_name(current)) else {
                continue  // gone since the scan
            }
            defer { udev_device_unref(device) }
            if let info = Self.info(of: device) { found.append(info) }
        }
        return found
    }

    /// Every change waiting on the monitor, oldest first. Never blocks.
    ///
    /// If the kernel dropped udev messages (the socket overflowed), the list ends with
    /// `.changed` for every touch device present, so a caller that re-opens on `.changed`
    /// is back in sync; a device whose removal was lost fails its next read with
    /// `.deviceGone`.
    public func receive() -> [UdevChange] {
        var changes: [UdevChange] = []
        var overflowed = false
        while true {
            errno = 0
            guard let device = udev_monitor_receive_device(monitor) else {
                // ENOBUFS is reported once per overflow; later messages are still readable.
                if errno == ENOBUFS && !overflowed {
                    overflowed = true
                    continue
                }
                break  // EAGAIN: drained
            }
            defer { udev_device_unref(device) }
            guard let action = udev_device_get_action(device).map({ String(cString: $0) }),
                  let syspath = udev_device_get_syspath(device).map({ String(cString: $0) }),
                  let devnode = udev_device_get_devnode(device).map({ String(cString: $0) }),
                  InputDeviceInfo.isEventNode(devnode)
            else { continue }
            switch action {
            case "add":
                if let info = Self.info(of: device) { changes.append(.added(info)) }
            case "change":
                // A rule may have taken the touch tag away: then the caller should let go.
                changes.append(
                    Self.info(of: device).map(UdevChange.changed) ?? .removed(devnode: devnode, syspath: syspath))
            case "remove":
                changes.append(.removed(devnode: devnode, syspath: syspath))
            default:
                break  // bind, unbind, move: nothing a reader needs
            }
        }
        if overflowed {
            changes += enumerate().map(UdevChange.changed)
        }
        return changes
    }

    private static func info(of device: OpaquePointer) -> InputDeviceInfo? {
        let parent = udev_device_get_parent_with_subsystem_devtype(device, "input", nil)  // owned by device
        return InputDeviceInfo(
            devnode: udev_device_get_devnode(device).map { String(cString: $0) },
            syspath: String(cString: udev_device_get_syspath(device)),
            properties: properties(udev_device_get_properties_list_entry(device)),
            parentProperties: parent.map { properties(udev_device_get_properties_list_entry($0)) } ?? [:])
    }

    private static func properties(_ first: OpaquePointer?) -> [String: String] {
        var result: [String: String] = [:]
        var entry = first
        while let current = entry {
            entry = udev_list_entry_get_next(current)
            guard let name = udev_list_entry_get_name(current) else { continue }
            result[String(cString: name)] = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
        }
        return result
    }
}
