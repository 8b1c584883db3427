import CEvdev
import Glibc
import PopGestureCore
@testable import PopGestureInput
import SystemPackage
import Testing

/// The device itself needs `/dev/uinput`, which this host's kernel lacks: those tests
/// run where it exists (the VM tier's scenario 90 proves the device end to end).
@Suite struct BackInputDeviceTests {
    static let hasUinput = access(BackInputDevice.uinputPath, F_OK) == 0
    static let altLeft = BackInput(codes: [UInt16(KEY_LEFTALT), UInt16(KEY_LEFT)], spelling: "alt+left")!

    @Test func withoutUinputTheErrorSaysTheCauseAndTheFix() throws {
        guard !Self.hasUinput else { return }  // covered by the tests below instead
        let error = #expect(throws: InputError.self) { try BackInputDevice(codes: Set(Self.altLeft.codes)) }
        #expect(error?.code == .uinput)
        #expect(error?.errno == .noSuchFileOrDirectory)
        #expect(error?.message.contains("modprobe uinput") == true)
    }

    @Test func aRefusedOpenNamesTheGroup() {
        let error = UinputDevice.creationError(-EACCES, creating: BackInputDevice.what)
        #expect(error.errno == .permissionDenied)
        #expect(error.message.hasPrefix("cannot create the back input device on /dev/uinput: Permission denied"))
        #expect(error.message.contains("popgestured-uinput"))
    }

    @Test(arguments: [Set<UInt16>(), [0], [UInt16(KEY_MAX) + 1]])
    func codesThatAreNoKeysAreRefusedBeforeUinput(codes: Set<UInt16>) {
        let error = #expect(throws: InputError.self) { try BackInputDevice(codes: codes) }
        #expect(error?.code == .invalidDescription)
    }

    @Test func mouseButtonsAreTheBtnMouseRange() {
        #expect(BackInputDevice.isMouseButton(UInt16(BTN_SIDE)))
        #expect(BackInputDevice.isMouseButton(UInt16(BTN_LEFT)))
        #expect(BackInputDevice.isMouseButton(UInt16(BTN_TASK)))
        #expect(!BackInputDevice.isMouseButton(UInt16(KEY_BACK)))
        #expect(!BackInputDevice.isMouseButton(UInt16(BTN_TOUCH)))
        #expect(!BackInputDevice.isMouseButton(UInt16(BTN_JOYSTICK)))
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func aComboIsPressedInOrderAndReleasedInReverse() throws {
        let device = try BackInputDevice(codes: Set(Self.altLeft.codes))
        let devnode = try #require(device.devnode)
        let fd = try FileDescriptor.open(FilePath(devnode), .readOnly, options: [.nonBlocking])
        defer { try? fd.close() }
        try device.send(Self.altLeft)
        var events: [input_event] = []
        var event = input_event()
        while (try? withUnsafeMutableBytes(of: &event, { try fd.read(into: $0) })) == MemoryLayout<input_event>.size {
            events.append(event)
        }
        let keys = events.filter { $0.type == EV_KEY }.map { [Int32($0.code), $0.value] }
        #expect(keys == [[KEY_LEFTALT, 1], [KEY_LEFT, 1], [KEY_LEFT, 0], [KEY_LEFTALT, 0]])
        #expect(events.filter { $0.type == EV_SYN && $0.code == SYN_REPORT }.count == 2)
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func aCodeTheDeviceLacksIsRefused() throws {
        let device = try BackInputDevice(codes: [UInt16(KEY_BACK)])
        #expect(device.codes == [UInt16(KEY_BACK)])
        let error = #expect(throws: InputError.self) { try device.send(Self.altLeft) }
        #expect(error?.code == .undeclaredCode)
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func aMouseButtonMakesAPointer() throws {
        let side = BackInput(codes: [UInt16(BTN_SIDE)], spelling: "side")!
        let device = try BackInputDevice(codes: Set(side.codes))
        let devnode = try #require(device.devnode)
        let fd = try FileDescriptor.open(FilePath(devnode), .readOnly, options: [.nonBlocking])
        defer { try? fd.close() }
        var created: OpaquePointer?
        #expect(libevdev_new_from_fd(fd.rawValue, &created) == 0)
        let evdev = try #require(created)
        defer { libevdev_free(evdev) }
        #expect(String(cString: libevdev_get_name(evdev)) == BackInputDevice.name)
        #expect(libevdev_get_id_bustype(evdev) == BUS_VIRTUAL)
        #expect(libevdev_has_event_code(evdev, UInt32(EV_KEY), UInt32(BTN_SIDE)) == 1)
        #expect(libevdev_has_event_code(evdev, UInt32(EV_KEY), UInt32(BTN_LEFT)) == 1)
        #expect(libevdev_has_event_code(evdev, UInt32(EV_REL), UInt32(REL_X)) == 1)
        #expect(libevdev_has_event_code(evdev, UInt32(EV_REL), UInt32(REL_Y)) == 1)
        #expect(libevdev_has_event_code(evdev, UInt32(EV_KEY), UInt32(KEY_LEFTALT)) == 0)
        try device.send(side)
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func keysAloneMakeNoPointer() throws {
        let device = try BackInputDevice(codes: Set(Self.altLeft.codes))
        let fd = try FileDescriptor.open(FilePath(try #require(device.devnode)), .readOnly, options: [.nonBlocking])
        defer { try? fd.close() }
        var created: OpaquePointer?
        #expect(libevdev_new_from_fd(fd.rawValue, &created) == 0)
        let evdev = try #require(created)
        defer { libevdev_free(evdev) }
        #expect(libevdev_has_event_type(evdev, UInt32(EV_REL)) == 0)
        #expect(libevdev_has_event_code(evdev, UInt32(EV_KEY), UInt32(BTN_LEFT)) == 0)
        #expect(libevdev_has_event_code(evdev, UInt32(EV_KEY), UInt32(KEY_LEFT)) == 1)
    }
}
