import CEvdev
import Glibc
import PopGestureCore
import PopGestureProtocol
import SystemPackage

/// The daemon's virtual touchpad, "popgestured touchpad": through it the touchpad bridge
/// (``TouchpadBridge``) plays a back swipe as a two-finger horizontal scroll, for apps
/// that animate their own back from touchpad swipes.
///
/// A uinput device that udev tags `ID_INPUT_TOUCHPAD` and libinput takes for a clickpad:
/// multitouch protocol B with 2 slots, positions with resolutions (100 × 60 mm at 40
/// units per millimetre, ``TouchpadBridge/widthMillimetres``), `ABS_X`/`ABS_Y`,
/// `BTN_TOUCH`, `BTN_TOOL_FINGER`, `BTN_TOOL_DOUBLETAP`, `BTN_LEFT`,
/// `INPUT_PROP_POINTER` and `INPUT_PROP_BUTTONPAD` (libinput takes a touchpad with a
/// left button and no right one for a clickpad anyway, and says so in its log).
///
/// Its phys, `popgestured-touchpad/<seat>`, tells the daemon never to read it
/// (``isVirtualTouchpad(phys:)``) and the udev rules to leave it out, and puts it on
/// its seat (71-popgestured-back-seat.rules).
///
/// With it comes the bridge's absolute pointer, "popgestured pointer": `ABS_X`/`ABS_Y`
/// over the screen (0…``pointerRange``) and a `BTN_LEFT` never pressed, which udev
/// tags `ID_INPUT_MOUSE` (as a VM's tablet) and compositors map to their whole layout.
/// It puts the pointer under the finger before the fingers land
/// (``TouchpadBridge/Action/pointer(x:y:)``), as the scroll goes to the surface under
/// the pointer. It shares the touchpad's phys, so every rule that places or skips the
/// touchpad does the same for it.
///
/// Closing happens in `deinit`; the kernel removes the devices then. Not thread-safe:
/// the input thread alone sends.
public final class VirtualTouchpad {
    /// The name udev, `libinput list-devices` and the logs show.
    public static let name = ClientRequest.virtualTouchpadName
    /// Units per millimetre on both axes.
    public static let unitsPerMillimetre: Int32 = 40
    /// The two fingers.
    static let slotCount = 2
    /// The pointer's name.
    public static let pointerName = "popgestured pointer"
    /// The pointer's axes run 0…32767 over the layout, as a VM's USB tablet's.
    static let pointerRange: Int32 = 32767

    public let seat: Seat
    /// `/dev/input/eventN`, when udev had made it by the time `init` returned; for logs.
    public let devnode: String?

    private let device: UinputDevice
    private let pointer: UinputDevice
    /// The pointer's last position (its axes start at 0): the kernel drops an axis
    /// value equal to the last one.
    private var pointerAt: (x: Int32, y: Int32) = (0, 0)
    private var nextTrackingID: Int32 = 1
    private var fingersDown = false

    /// The phys of `seat`'s virtual touchpad.
    public static func phys(of seat: Seat) -> String { physPrefix + seat.rawValue }
    static let physPrefix = "popgestured-touchpad/"
    /// Whether a device with this phys is a popgestured virtual touchpad, which the
    /// daemon writes and never reads.
    public static func isVirtualTouchpad(phys: String) -> Bool { phys.hasPrefix(physPrefix) }

    /// Creates the touchpad of `seat`. Throws `.uinput` with the cause and the fix, as
    /// ``BackInputDevice/init(codes:seat:)`` does.
    public init(seat: Seat = .seat0) throws(InputError) {
        guard let device = libevdev_new() else { throw InputError(.outOfMemory, "libevdev_new failed") }
        libevdev_set_name(device, Self.name)
        libevdev_set_phys(device, Self.phys(of: seat))
        libevdev_set_id_bustype(device, Int32(BUS_VIRTUAL))
        libevdev_enable_property(device, UInt32(INPUT_PROP_POINTER))
        libevdev_enable_property(device, UInt32(INPUT_PROP_BUTTONPAD))
        libevdev_enable_event_type(device, UInt32(EV_SYN))
        for key in [BTN_LEFT, BTN_TOUCH, BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP] {
            libevdev_enable_event_code(device, UInt32(EV_KEY), UInt32(key), nil)
        }
        let width = Int32(TouchpadBridge.widthMillimetres) * Self.unitsPerMillimetre
        let height = Int32(TouchpadBridge.heightMillimetres) * Self.unitsPerMillimetre
        let axes: [(Int32, Int32)] = [
            (ABS_X, width), (ABS_Y, height), (ABS_MT_POSITION_X, width), (ABS_MT_POSITION_Y, height),
        ]
        for (code, maximum) in axes {
            var info = input_absinfo(
                value: 0, minimum: 0, maximum: maximum, fuzz: 0, flat: 0, resolution: Self.unitsPerMillimetre)
            libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(code), &info)
        }
        var slots = input_absinfo(value: 0, minimum: 0, maximum: Int32(Self.slotCount - 1), fuzz: 0, flat: 0, resolution: 0)
        libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_MT_SLOT), &slots)
        var ids = input_absinfo(value: 0, minimum: 0, maximum: 0xffff, fuzz: 0, flat: 0, resolution: 0)
        libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_MT_TRACKING_ID), &ids)

        self.device = try UinputDevice(template: device, phys: Self.phys(of: seat), creating: "the virtual touchpad")
        pointer = try Self.makePointer(seat: seat)
        self.seat = seat
        devnode = self.device.devnode
    }

    /// The absolute pointer: udev's input_id takes absolute axes with a mouse button and
    /// no touch for a mouse (`ID_INPUT_MOUSE`), libinput for an absolute pointer.
    private static func makePointer(seat: Seat) throws(InputError) -> UinputDevice {
        guard let pointer = libevdev_new() else { throw InputError(.outOfMemory, "libevdev_new failed") }
        libevdev_set_name(pointer, pointerName)
        libevdev_set_phys(pointer, phys(of: seat))
        libevdev_set_id_bustype(pointer, Int32(BUS_VIRTUAL))
        libevdev_enable_event_type(pointer, UInt32(EV_SYN))
        libevdev_enable_event_code(pointer, UInt32(EV_KEY), UInt32(BTN_LEFT), nil)
        for code in [ABS_X, ABS_Y] {
            var info = input_absinfo(value: 0, minimum: 0, maximum: pointerRange, fuzz: 0, flat: 0, resolution: 0)
            libevdev_enable_event_code(pointer, UInt32(EV_ABS), UInt32(code), &info)
        }
        return try UinputDevice(template: pointer, phys: phys(of: seat), creating: "the virtual pointer")
    }

    /// Plays `actions`, one frame each, at once: the bridge paces them by its deadline.
    /// Throws `.uinput` when a write fails; the fingers are then lifted as far as the
    /// device lets, so that none stays down.
    public func play(_ actions: [TouchpadBridge.Action]) throws(InputError) {
        do throws(InputError) {
            for action in actions { try play(action) }
        } catch {
            if fingersDown { try? play(.lift) }
            throw error
        }
    }

    private func play(_ action: TouchpadBridge.Action) throws(InputError) {
        switch action {
        case .pointer(let x, let y):
            let place = (x: Self.pointerUnits(x), y: Self.pointerUnits(y))
            if pointerAt.x == place.x || pointerAt.y == place.y {
                // An unchanged axis would be dropped: one unit off first, so both move.
                try write(pointer, EV_ABS, ABS_X, place.x == 0 ? 1 : place.x - 1)
                try write(pointer, EV_ABS, ABS_Y, place.y == 0 ? 1 : place.y - 1)
                try write(pointer, EV_SYN, SYN_REPORT, 0)
            }
            try write(pointer, EV_ABS, ABS_X, place.x)
            try write(pointer, EV_ABS, ABS_Y, place.y)
            try write(pointer, EV_SYN, SYN_REPORT, 0)
            pointerAt = place
            return
        case .down(let fingers):
            for slot in 0..<Self.slotCount {
                try write(EV_ABS, ABS_MT_SLOT, Int32(slot))
                try write(EV_ABS, ABS_MT_TRACKING_ID, nextTrackingID)
                nextTrackingID = nextTrackingID % 0xffff + 1
                try writePosition(of: slot, fingers, withY: true)
            }
            try write(EV_KEY, BTN_TOUCH, 1)
            try write(EV_KEY, BTN_TOOL_DOUBLETAP, 1)
            fingersDown = true
        case .move(let fingers):
            for slot in 0..<Self.slotCount {
                try write(EV_ABS, ABS_MT_SLOT, Int32(slot))
                try writePosition(of: slot, fingers, withY: false)
            }
        case .lift:
            for slot in 0..<Self.slotCount {
                try write(EV_ABS, ABS_MT_SLOT, Int32(slot))
                try write(EV_ABS, ABS_MT_TRACKING_ID, -1)
            }
            try write(EV_KEY, BTN_TOUCH, 0)
            try write(EV_KEY, BTN_TOOL_DOUBLETAP, 0)
            fingersDown = false
        }
        try write(EV_SYN, SYN_REPORT, 0)
    }

    /// Slot `slot`'s position, and the single-touch axes for slot 0.
    private func writePosition(of slot: Int, _ fingers: TouchpadBridge.Fingers, withY: Bool) throws(InputError) {
        let x = Self.units(fingers.xMillimetres, maximum: TouchpadBridge.widthMillimetres)
        let y = Self.units(fingers.yMillimetres[min(slot, fingers.yMillimetres.count - 1)],
                           maximum: TouchpadBridge.heightMillimetres)
        try write(EV_ABS, ABS_MT_POSITION_X, x)
        if withY { try write(EV_ABS, ABS_MT_POSITION_Y, y) }
        if slot == 0 {
            try write(EV_ABS, ABS_X, x)
            if withY { try write(EV_ABS, ABS_Y, y) }
        }
    }

    /// A fraction of the screen to pointer units, within the axis.
    static func pointerUnits(_ fraction: Double) -> Int32 {
        let clamped = min(max(fraction.isFinite ? fraction : 0, 0), 1)
        return Int32((clamped * Double(pointerRange)).rounded())
    }

    /// Millimetres to device units, within the axis.
    static func units(_ millimetres: Double, maximum: Double) -> Int32 {
        let clamped = min(max(millimetres.isFinite ? millimetres : 0, 0), maximum)
        return Int32((clamped * Double(unitsPerMillimetre)).rounded())
    }

    private func write(_ type: Int32, _ code: Int32, _ value: Int32) throws(InputError) {
        try write(device, type, code, value)
    }

    private func write(_ target: UinputDevice, _ type: Int32, _ code: Int32, _ value: Int32) throws(InputError) {
        let status = libevdev_uinput_write_event(target.handle, UInt32(type), UInt32(code), value)
        guard status == 0 else {
            let errno = Errno(rawValue: -status)
            let what = target === device ? "touchpad" : "pointer"
            throw InputError(.uinput, "writing to the virtual \(what) failed: \(errno)", errno: errno)
        }
    }
}
