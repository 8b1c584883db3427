import CEvdev
import Glibc
import PopGestureCore
@testable import PopGestureInput
import Testing

/// Real libevdev, with devices built by `libevdev_new()`: this host has no uinput, so
/// reading live events is left to the VM tests.
@Suite struct EvdevDeviceTests {
    /// A libevdev device with no fd; freed by `body`'s caller.
    static func withDevice<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        let evdev = try #require(libevdev_new())
        defer { libevdev_free(evdev) }
        return try body(evdev)
    }

    static func enable(_ evdev: OpaquePointer, abs code: UInt16, _ axis: AbsoluteAxis) {
        var info = input_absinfo(
            value: 0, minimum: axis.minimum, maximum: axis.maximum, fuzz: axis.fuzz, flat: axis.flat,
            resolution: axis.resolution)
        libevdev_enable_event_code(evdev, UInt32(EV_ABS), UInt32(code), &info)
    }

    static func enable(_ evdev: OpaquePointer, key code: UInt16) {
        libevdev_enable_event_code(evdev, UInt32(EV_KEY), UInt32(code), nil)
    }

    /// A ten-slot touchscreen, as a Wacom or Goodix panel reports itself.
    static let touchscreenAxes: [UInt16: AbsoluteAxis] = [
        ABS.x: AbsoluteAxis(minimum: 0, maximum: 4095, fuzz: 4, resolution: 16),
        ABS.y: AbsoluteAxis(minimum: 0, maximum: 2559, fuzz: 4, resolution: 16),
        ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
        ABS.mtTouchMajor: AbsoluteAxis(minimum: 0, maximum: 255, flat: 2),
        ABS.mtPositionX: AbsoluteAxis(minimum: 0, maximum: 4095, fuzz: 4, resolution: 16),
        ABS.mtPositionY: AbsoluteAxis(minimum: 0, maximum: 2559, fuzz: 4, resolution: 16),
        ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
    ]

    static func makeTouchscreen(_ evdev: OpaquePointer) {
        libevdev_set_name(evdev, "fixture touchscreen")
        libevdev_set_id_bustype(evdev, 0x18)
        libevdev_set_id_vendor(evdev, 0x056a)
        libevdev_set_id_product(evdev, 0x5256)
        libevdev_set_id_version(evdev, 0x0110)
        libevdev_enable_property(evdev, UInt32(InputProperty.direct))
        enable(evdev, key: BTN.touch)
        for (code, axis) in touchscreenAxes { enable(evdev, abs: code, axis) }
    }

    @Test func theDescriptionCarriesEverythingLibevdevKnows() throws {
        let description = try Self.withDevice { evdev in
            Self.makeTouchscreen(evdev)
            return DeviceDescription(libevdev: evdev)
        }
        #expect(description.name == "fixture touchscreen")
        #expect(description.bustype == 0x18)
        #expect(description.vendor == 0x056a)
        #expect(description.product == 0x5256)
        #expect(description.version == 0x0110)
        #expect(description.properties == [InputProperty.direct])
        #expect(description.keys == [BTN.touch])
        #expect(description.eventTypes.isSuperset(of: [EV.key, EV.abs]))
        #expect(!description.eventTypes.contains(EV.rel))
        #expect(description.axes == Self.touchscreenAxes)
        #expect(description.inferredKind == .touchscreen)
        #expect(description.touchProtocol == .slots)
        #expect(description.slotCount == 10)
    }

    @Test func aClickpadDescribesItselfAsATouchpad() throws {
        let description = try Self.withDevice { evdev in
            libevdev_enable_property(evdev, UInt32(InputProperty.pointer))
            libevdev_enable_property(evdev, UInt32(InputProperty.buttonpad))
            for key in [BTN.left, BTN.toolFinger, BTN.touch, BTN.toolDoubleTap] { Self.enable(evdev, key: key) }
            for code in [ABS.x, ABS.y, ABS.mtPositionX, ABS.mtPositionY] {
                Self.enable(evdev, abs: code, AbsoluteAxis(minimum: -3000, maximum: 3000, resolution: 40))
            }
            Self.enable(evdev, abs: ABS.mtSlot, AbsoluteAxis(minimum: 0, maximum: 4))
            return DeviceDescription(libevdev: evdev)
        }
        #expect(description.properties == [InputProperty.pointer, InputProperty.buttonpad])
        #expect(description.inferredKind == .touchpad)
        #expect(description.positionAxes?.x == AbsoluteAxis(minimum: -3000, maximum: 3000, resolution: 40))
        #expect(description.slotCount == 5)
    }

    @Test func kernelEventsKeepTheirTimestamp() {
        var raw = input_event()
        raw.time.tv_sec = 1234
        raw.time.tv_usec = 567_890
        raw.type = EV.abs
        raw.code = ABS.mtPositionX
        raw.value = -5
        #expect(InputEvent(raw) == InputEvent(
            time: Timestamp(microseconds: 1_234_567_890), type: EV.abs, code: ABS.mtPositionX, value: -5))
    }

    // MARK: - Opening what is not an evdev node

    /// fds open on `path`, found through /proc so a leak shows.
    static func openFileDescriptors(to path: String) throws -> Int {
        let directory = try #require(opendir("/proc/self/fd"))
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var target = [UInt8](repeating: 0, count: 4096)
            let length = target.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { readlink("/proc/self/fd/" + name, $0.baseAddress!, $0.count) }
            }
            if length > 0, String(decoding: target.prefix(length), as: UTF8.self) == path { count += 1 }
        }
        return count
    }

    @Test func devNullIsNotEvdevAndItsFdIsClosed() throws {
        let before = try Self.openFileDescriptors(to: "/dev/null")
        for _ in 0..<10 {
            let error = #expect(throws: InputError.self) { try EvdevDevice(path: "/dev/null") }
            #expect(error?.code == .notEvdev)
            #expect(error?.errno?.rawValue == ENOTTY)
        }
        #expect(try Self.openFileDescriptors(to: "/dev/null") == before)
    }

    @Test func aDirectoryIsNotEvdev() {
        let error = #expect(throws: InputError.self) { try EvdevDevice(path: "/proc/self") }
        #expect(error?.code == .notEvdev)
    }

    @Test func aMissingPathFailsToOpen() {
        let error = #expect(throws: InputError.self) { try EvdevDevice(path: "/dev/input/event-missing") }
        #expect(error?.code == .openFailed)
        #expect(error?.errno?.rawValue == ENOENT)
        #expect(error?.message.contains("/dev/input/event-missing") == true)
    }
}
