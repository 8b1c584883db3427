import CEvdev
import Glibc
import PopGestureCore
@testable import PopGestureInput
import SystemPackage
import Testing

/// The clone and the grab need `/dev/uinput`, which this host's kernel lacks: those
/// tests run where it exists (the VM tier's scenario 91 proves both end to end, read
/// by libinput).
@Suite struct TouchCloneTests {
    static let hasUinput = access(BackInputDevice.uinputPath, F_OK) == 0
    static let template = CloneTemplate(cloning: CloneTemplateTests.panel, sysname: "event7", miscCodes: [MSC.timestamp])

    @Test func aDescriptionWithoutSlotsIsRefusedBeforeUinput() {
        var description = CloneTemplateTests.panel
        description.axes[ABS.mtSlot] = nil
        let error = #expect(throws: InputError.self) {
            try TouchClone(template: CloneTemplate(cloning: description, sysname: "event1"))
        }
        #expect(error?.code == .invalidDescription)
    }

    @Test func withoutUinputTheErrorNamesTheClone() {
        guard !Self.hasUinput else { return }  // covered by the tests below instead
        let error = #expect(throws: InputError.self) { try TouchClone(template: Self.template) }
        #expect(error?.code == .uinput)
        #expect(error?.message.hasPrefix("cannot create the touch clone \"ELAN Touchscreen\"") == true)
        #expect(error?.message.contains("modprobe uinput") == true)
    }

    /// Every event readable now on `fd`.
    static func drain(_ fd: FileDescriptor) -> [input_event] {
        var events: [input_event] = []
        var event = input_event()
        while (try? withUnsafeMutableBytes(of: &event, { try fd.read(into: $0) })) == MemoryLayout<input_event>.size {
            events.append(event)
        }
        return events
    }

    static func tap(_ id: Int32) -> [InputEvent] {
        let t = Timestamp.zero
        return [
            InputEvent(time: t, type: EV.abs, code: ABS.mtSlot, value: 0),
            InputEvent(time: t, type: EV.abs, code: ABS.mtTrackingID, value: id),
            InputEvent(time: t, type: EV.abs, code: ABS.mtPositionX, value: 100),
            InputEvent(time: t, type: EV.key, code: BTN.touch, value: 1),
            InputEvent(time: t, type: EV.syn, code: SYN.report, value: 0),
        ]
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func theCloneHasTheRealCapabilitiesAndTheToolType() throws {
        let clone = try TouchClone(template: Self.template)
        let fd = try FileDescriptor.open(FilePath(try #require(clone.devnode)), .readOnly, options: [.nonBlocking])
        defer { try? fd.close() }
        var created: OpaquePointer?
        #expect(libevdev_new_from_fd(fd.rawValue, &created) == 0)
        let evdev = try #require(created)
        defer { libevdev_free(evdev) }
        #expect(String(cString: libevdev_get_name(evdev)) == "ELAN Touchscreen")
        #expect(String(cString: libevdev_get_phys(evdev)) == "popgestured/event7")
        #expect(libevdev_get_id_vendor(evdev) == 0x04f3)
        #expect(libevdev_has_property(evdev, UInt32(INPUT_PROP_DIRECT)) == 1)
        #expect(libevdev_get_abs_maximum(evdev, UInt32(ABS_MT_TOOL_TYPE)) == MT_TOOL_MAX)
        #expect(libevdev_get_abs_resolution(evdev, UInt32(ABS_MT_POSITION_X)) == 10)
        #expect(libevdev_get_num_slots(evdev) == 10)
        #expect(libevdev_has_event_code(evdev, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP)) == 1)
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func aForwardedFrameAndACancelArriveAsWritten() throws {
        let clone = try TouchClone(template: Self.template)
        let fd = try FileDescriptor.open(FilePath(try #require(clone.devnode)), .readOnly, options: [.nonBlocking])
        defer { try? fd.close() }
        try clone.forward(Self.tap(5))
        #expect(clone.slotsDown == [0])
        try clone.cancel(slot: 0)
        #expect(clone.slotsDown.isEmpty)
        let abs = Self.drain(fd).filter { $0.type == EV_ABS }.map { [Int32($0.code), $0.value] }
        #expect(abs == [
            [ABS_MT_TRACKING_ID, 5], [ABS_MT_POSITION_X, 100],
            [ABS_MT_TOOL_TYPE, MT_TOOL_PALM], [ABS_MT_TRACKING_ID, -1],
        ])
        try clone.forward(Self.tap(6))
        let next = Self.drain(fd).filter { $0.type == EV_ABS }.map { [Int32($0.code), $0.value] }
        #expect(next == [[ABS_MT_TOOL_TYPE, MT_TOOL_FINGER], [ABS_MT_TRACKING_ID, 6]])
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func framesThatAreNoFramesAreRefused() throws {
        let clone = try TouchClone(template: Self.template)
        let unended = #expect(throws: InputError.self) { try clone.forward(Self.tap(1).dropLast()) }
        #expect(unended?.code == .invalidFrame)
        let long = Array(repeating: Self.tap(1)[2], count: TouchClone.maximumForwardEvents) + [Self.tap(1)[4]]
        let tooLong = #expect(throws: InputError.self) { try clone.forward(long) }
        #expect(tooLong?.code == .invalidFrame)
        #expect(clone.slotsDown.isEmpty)
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func aGrabIsExclusiveAndSeesContactsDown() throws {
        // A clone serves as the "real" device here: any uinput touchscreen does.
        let real = try TouchClone(template: Self.template)
        let devnode = try #require(real.devnode)
        let first = try EvdevDevice(path: devnode)
        let second = try EvdevDevice(path: devnode)
        try first.grab()
        #expect(first.isGrabbed)
        let busy = #expect(throws: InputError.self) { try second.grab() }
        #expect(busy?.code == .grabFailed)
        #expect(busy?.errno == .resourceBusy)
        #expect(try !first.kernelContactsDown())
        try real.forward(Self.tap(3))
        #expect(try first.kernelContactsDown())
        try real.releaseAll()
        #expect(try !first.kernelContactsDown())
        try first.ungrab()
        #expect(!first.isGrabbed)
        try second.grab()
        #expect(second.isGrabbed)
    }
}
