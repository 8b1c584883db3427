import CEvdev
import Glibc
import SystemPackage

/// A device the daemon makes through uinput, from a libevdev template: the one place
/// that opens `/dev/uinput`, creates the device, and removes it. ``BackInputDevice``
/// and ``TouchClone`` are made of it.
///
/// Closing happens in `deinit`: `UI_DEV_DESTROY`, then the fd; the kernel removes the
/// device (it does so too when the process dies, since the fd closes with it).
final class UinputDevice {
    /// The uinput node: the kernel's `uinput` module makes it; the unit's udev rule
    /// gives it to the `popgestured-uinput` group.
    static let path = "/dev/uinput"

    /// The libevdev device the uinput device was made from; owned.
    let template: OpaquePointer
    /// libevdev's uinput handle, for `libevdev_uinput_write_event`.
    let handle: OpaquePointer
    /// `/dev/uinput`, O_RDWR | O_CLOEXEC.
    let fd: CInt
    /// `/dev/input/eventN`, when the kernel and udev had made it by the time `init`
    /// returned (libevdev reads sysfs for it).
    let devnode: String?
    /// `/sys/devices/virtual/input/inputN`.
    let syspath: String?

    /// Creates the device `template` describes, taking ownership of `template` (freed
    /// here when creation fails). `phys` is set first when given: libevdev never sets it
    /// itself, and `UI_SET_PHYS` must come before the device exists.
    ///
    /// Throws `.uinput` naming `what` (`the back input device`), the cause and the fix:
    /// `/dev/uinput` missing (`ENOENT`: load the `uinput` module), not permitted
    /// (`EACCES`: the group and udev rule in systemd/), or the kernel refused it.
    init(template: OpaquePointer, phys: String? = nil, creating what: String) throws(InputError) {
        let fd = Glibc.open(Self.path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            let status = -errno
            libevdev_free(template)
            throw Self.creationError(status, creating: what)
        }
        var created: OpaquePointer?
        var status: CInt = 0
        if let phys { status = popgestured_uinput_set_phys(fd, phys) }
        if status == 0 { status = libevdev_uinput_create_from_device(template, fd, &created) }
        guard status == 0, let handle = created else {
            Glibc.close(fd)
            libevdev_free(template)
            throw Self.creationError(status, creating: what)
        }
        self.template = template
        self.handle = handle
        self.fd = fd
        devnode = libevdev_uinput_get_devnode(handle).map { String(cString: $0) }
        syspath = libevdev_uinput_get_syspath(handle).map { String(cString: $0) }
    }

    deinit {
        libevdev_uinput_destroy(handle)  // UI_DEV_DESTROY: the kernel removes the device
        Glibc.close(fd)
        libevdev_free(template)
    }

    /// The error for a failed creation of `what`, with its fix.
    static func creationError(_ status: CInt, creating what: String) -> InputError {
        let errno = Errno(rawValue: -status)
        let fix = switch errno {
        case .noSuchFileOrDirectory, .noSuchAddressOrDevice:
            "load the uinput module (modprobe uinput; systemd/modules-load.d/popgestured.conf loads it at boot)"
        case .permissionDenied, .notPermitted:
            "give the daemon write access to \(path) (the popgestured-uinput group and the udev rule in systemd/, then udevadm trigger)"
        default:
            "the kernel refused the device"
        }
        return InputError(.uinput, "cannot create \(what) on \(path): \(errno); \(fix)", errno: errno)
    }
}
