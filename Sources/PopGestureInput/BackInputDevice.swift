import CEvdev
import Glibc
import PopGestureCore
import SystemPackage

/// The daemon's own virtual input device, "popgestured back input": through it a
/// committed back reaches an app that has no navigator, as the keys or button of a
/// ``BackInput`` (Alt+Left by default).
///
/// A uinput device made with libevdev. It declares exactly the `EV_KEY` codes it is
/// created with, so it can send nothing else. When one of them is a mouse button
/// (`BTN_SIDE`, `BTN_EXTRA`, …), it also declares relative X/Y motion and the left
/// button: udev only tags a device `ID_INPUT_MOUSE` with those, and libinput (so every
/// Wayland compositor) ignores the buttons of a device that is not a pointer.
///
/// Closing happens in `deinit`; the kernel removes the device then.
///
/// Sendable: nothing changes after `init`, and each event is one `write(2)` to the
/// uinput fd. Send from one thread at a time all the same, or two combinations'
/// events interleave.
public final class BackInputDevice: @unchecked Sendable {
    /// The name udev, `libinput list-devices` and the logs show.
    public static let name = "popgestured back input"

    /// Every code the device was created with, sorted.
    public let codes: [UInt16]
    /// The seat whose swipes it sends. udev puts a device on it by its phys,
    /// `popgestured-back/<seat>` (71-popgestured-back-seat.rules), so that only that
    /// seat's compositor reads it.
    public let seat: Seat
    /// `/dev/input/eventN`, when the kernel and udev had made it by the time `init`
    /// returned (libevdev reads sysfs for it); for logs.
    public let devnode: String?
    /// `/sys/devices/virtual/input/inputN`; for logs.
    public let syspath: String?

    private let device: UinputDevice

    /// The uinput node (``UinputDevice/path``).
    public static let uinputPath = UinputDevice.path

    /// The phys of the back input device of `seat`, which the udev rule reads the seat from.
    public static func phys(of seat: Seat) -> String { "popgestured-back/\(seat.rawValue)" }

    /// Creates the device for `seat` with exactly `codes` (all `EV_KEY`: keys and buttons).
    ///
    /// Throws `.uinput` with the cause and the fix in the message: `/dev/uinput`
    /// missing (`ENOENT`: load the `uinput` module), not permitted (`EACCES`: the
    /// group and udev rule of systemd/README), or the kernel refused the device.
    /// Throws `.invalidDescription` for an empty set or a code above `KEY_MAX`.
    public init(codes: Set<UInt16>, seat: Seat = .seat0) throws(InputError) {
        guard !codes.isEmpty else {
            throw InputError(.invalidDescription, "a back input device needs at least one key or button")
        }
        if let bad = codes.first(where: { $0 == 0 || Int32($0) > KEY_MAX }) {
            throw InputError(.invalidDescription, "key code \(bad) is no key: it must be 1…\(KEY_MAX)")
        }
        guard let device = libevdev_new() else { throw InputError(.outOfMemory, "libevdev_new failed") }
        libevdev_set_name(device, Self.name)
        libevdev_set_id_bustype(device, Int32(BUS_VIRTUAL))
        libevdev_enable_event_type(device, UInt32(EV_KEY))
        for code in codes {
            libevdev_enable_event_code(device, UInt32(EV_KEY), UInt32(code), nil)
        }
        // A button is only a button on a pointer: udev's input_id wants REL_X, REL_Y
        // and BTN_LEFT (or BTN_MOUSE) to tag it ID_INPUT_MOUSE.
        if codes.contains(where: Self.isMouseButton) {
            libevdev_enable_event_type(device, UInt32(EV_REL))
            libevdev_enable_event_code(device, UInt32(EV_REL), UInt32(REL_X), nil)
            libevdev_enable_event_code(device, UInt32(EV_REL), UInt32(REL_Y), nil)
            libevdev_enable_event_code(device, UInt32(EV_KEY), UInt32(BTN_LEFT), nil)
        }

        self.device = try UinputDevice(template: device, phys: Self.phys(of: seat), creating: Self.what)
        self.codes = codes.sorted()
        self.seat = seat
        devnode = self.device.devnode
        syspath = self.device.syspath
    }

    /// How errors name the device.
    static let what = "the back input device"

    /// Presses `input`: every code down in order, one frame; every code up in
    /// reverse order, a second frame. Two frames, so that an app sees Alt held when
    /// Left goes down and released only after Left went up.
    ///
    /// Throws `.undeclaredCode`, sending nothing, when a code is not one the
    /// device was created with (the kernel would drop it silently). Throws `.uinput`
    /// when a write fails; keys pressed before the failure are released as far as
    /// the device lets.
    public func send(_ input: BackInput) throws(InputError) {
        if let missing = input.codes.first(where: { !codes.contains($0) }) {
            throw InputError(
                .undeclaredCode,
                "\(input) needs key code \(missing), which the back input device was not created with")
        }
        var pressed: [UInt16] = []
        do throws(InputError) {
            for code in input.codes {
                try write(UInt32(EV_KEY), code, 1)
                pressed.append(code)
            }
            try synchronize()
            for code in input.codes.reversed() {
                try write(UInt32(EV_KEY), code, 0)
                pressed.removeAll { $0 == code }
            }
            try synchronize()
        } catch {
            // Never leave a modifier held: the user's next key would carry Alt.
            for code in pressed.reversed() { try? write(UInt32(EV_KEY), code, 0) }
            try? synchronize()
            throw error
        }
    }

    /// Whether `code` is one of the mouse buttons (`BTN_MOUSE` … `BTN_TASK`).
    static func isMouseButton(_ code: UInt16) -> Bool {
        (Int32(BTN_MOUSE)...Int32(BTN_TASK)).contains(Int32(code))
    }

    private func write(_ type: UInt32, _ code: UInt16, _ value: Int32) throws(InputError) {
        let status = libevdev_uinput_write_event(device.handle, type, UInt32(code), value)
        guard status == 0 else {
            let errno = Errno(rawValue: -status)
            throw InputError(.uinput, "writing to the back input device failed: \(errno)", errno: errno)
        }
    }

    private func synchronize() throws(InputError) {
        try write(UInt32(EV_SYN), UInt16(SYN_REPORT), 0)
    }
}
