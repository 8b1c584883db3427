import PopGestureCore
@testable import PopGestureInput
import Testing

/// The property mapping without udev, then real libudev on this host.
@Suite struct UdevInputMonitorTests {
    static let parent = ["NAME": "\"Wacom HID 5256 Finger\"", "PRODUCT": "18/56a/5256/110"]
    static let touchscreen = ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1", "DEVNAME": "/dev/input/event5"]

    static func info(
        devnode: String? = "/dev/input/event5", _ properties: [String: String],
        parent: [String: String] = parent
    ) -> InputDeviceInfo? {
        InputDeviceInfo(
            devnode: devnode, syspath: "/sys/devices/platform/i2c/input/input7/event5",
            properties: properties, parentProperties: parent)
    }

    @Test func aTouchscreen() throws {
        let info = try #require(Self.info(Self.touchscreen))
        #expect(info == InputDeviceInfo(
            devnode: "/dev/input/event5", syspath: "/sys/devices/platform/i2c/input/input7/event5",
            name: "Wacom HID 5256 Finger", kind: .touchscreen))
    }

    @Test("ID_SEAT: unset is seat0, the node's or its parent's names the seat, a bad one is no seat")
    func theSeat() {
        #expect(Self.info(Self.touchscreen)?.seat == .seat0)
        #expect(Self.info(Self.touchscreen.merging(["ID_SEAT": "seat1"]) { $1 })?.seat == Seat(rawValue: "seat1"))
        #expect(Self.info(Self.touchscreen, parent: Self.parent.merging(["ID_SEAT": "seat2"]) { $1 })?.seat
            == Seat(rawValue: "seat2"))
        let bad = Self.info(Self.touchscreen.merging(["ID_SEAT": "seat1 x"]) { $1 })
        #expect(bad != nil && bad?.seat == nil, "still a touchscreen, on no seat")
    }

    @Test("ID_BUS: udev's bus as it says it, nil when unset or empty")
    func theBus() {
        #expect(Self.info(Self.touchscreen)?.bus == nil)
        #expect(Self.info(Self.touchscreen.merging(["ID_BUS": "usb"]) { $1 })?.bus == "usb")
        #expect(Self.info(Self.touchscreen.merging(["ID_BUS": ""]) { $1 })?.bus == nil)
    }

    /// Issue 28: the touch access rule granted any node tagged touch, even a keyboard.
    @Test("a touch node that also types (its parent's KEY= has KEY_ESC..KEY_KPDOT) is not read")
    func aTouchpadThatTypesIsSkipped() {
        let touchpad = ["ID_INPUT": "1", "ID_INPUT_TOUCHPAD": "1", "ID_INPUT_KEYBOARD": "1"]
        // Tests/VM/keyboard-touchpad.desc as the kernel writes its KEY=: clickpad buttons, keys 1-127.
        let typing = Self.parent.merging(["KEY": "e520 10000 0 0 ffffffffffffffff fffffffffffffffe"]) { $1 }
        #expect(Self.info(touchpad, parent: typing) == nil)
        // A touchscreen with the home key (KEY_LEFTMETA, Goodix) and BTN_TOUCH is read.
        let home = Self.parent.merging(["KEY": "400 0 0 0 2000000000000000 0"]) { $1 }
        #expect(Self.info(Self.touchscreen, parent: home)?.kind == .touchscreen)
    }

    @Test("typesText: keys 1-83 type, KEY_RESERVED and keys from 84 up do not, on 64- and 32-bit words", arguments: [
        ("fffffffffffffffe", 64, true), ("1", 64, false), ("2", 64, true), ("80000 0", 64, true),
        ("100000 0", 64, false), ("2000000000000000 0", 64, false), ("400 0 0 0 0 0", 64, false),
        ("1 0", 64, true), ("1 0 0", 32, true), ("100000 0 0", 32, false), ("1 0", 32, true),
        ("", 64, true), ("zz", 64, true),
    ])
    func typesText(bitmap: String, bitsPerWord: Int, types: Bool) {
        #expect(InputDeviceInfo.typesText(keyBitmap: bitmap, bitsPerWord: bitsPerWord) == types)
    }

    @Test func aTouchpad() {
        let info = Self.info(["ID_INPUT": "1", "ID_INPUT_TOUCHPAD": "1", "ID_INPUT_MOUSE": "1"])
        #expect(info?.kind == .touchpad)
    }

    @Test func bothTagsMakeATouchpadAsInLibinput() {
        let info = Self.info(["ID_INPUT_TOUCHPAD": "1", "ID_INPUT_TOUCHSCREEN": "1"])
        #expect(info?.kind == .touchpad)
    }

    @Test(arguments: [
        ["ID_INPUT": "1", "ID_INPUT_KEYBOARD": "1"],
        ["ID_INPUT": "1", "ID_INPUT_MOUSE": "1"],
        ["ID_INPUT": "1", "ID_INPUT_TABLET": "1"],
        ["ID_INPUT_TOUCHSCREEN": "0"],
        [:],
    ])
    func neitherIsSkipped(properties: [String: String]) {
        #expect(Self.info(properties) == nil)
    }

    @Test(arguments: ["/dev/input/mouse2", "/dev/input/js0", "/dev/input/by-path/x-event", nil])
    func onlyEventNodesCount(devnode: String?) {
        #expect(Self.info(devnode: devnode, Self.touchscreen) == nil)
    }

    @Test func aNodeThatDoesNotExistIsNotProcessed() throws {
        let monitor = try UdevInputMonitor()
        #expect(!monitor.hasProcessed(devnode: "/dev/input/event99999"))
        #expect(!monitor.hasProcessed(devnode: "/dev/null"))
    }

    /// The daemon must never read (and clone) a grab mode clone, its own or another's.
    @Test func touchClonesAreSkipped() {
        var parent = Self.parent
        parent["PHYS"] = "\"popgestured/event4\""
        #expect(Self.info(Self.touchscreen, parent: parent) == nil)
        parent["PHYS"] = "\"i2c-WCOM5256:00\""
        #expect(Self.info(Self.touchscreen, parent: parent) != nil)
        #expect(CloneTemplate.isClone(phys: CloneTemplate(cloning: CloneTemplateTests.panel, sysname: "event4").phys))
    }

    @Test func theCalibrationTextIsPassedOnUnparsed() {
        var properties = Self.touchscreen
        properties["LIBINPUT_CALIBRATION_MATRIX"] = "0 1 0 -1 0 1"
        #expect(Self.info(properties)?.calibration == "0 1 0 -1 0 1")
        #expect(Self.info(Self.touchscreen)?.calibration == nil)
    }

    @Test func theOutputIsUdevsWLOutput() {
        var properties = Self.touchscreen
        properties["WL_OUTPUT"] = "eDP-1"
        #expect(Self.info(properties)?.output == "eDP-1")
        properties["WL_OUTPUT"] = ""
        #expect(Self.info(properties)?.output == nil)
        #expect(Self.info(Self.touchscreen)?.output == nil)
    }

    @Test func theSizeNeedsBothPositiveMillimetres() {
        func size(_ width: String?, _ height: String?) -> PhysicalSize? {
            var properties = Self.touchscreen
            properties["ID_INPUT_WIDTH_MM"] = width
            properties["ID_INPUT_HEIGHT_MM"] = height
            return Self.info(properties)?.size
        }
        #expect(size("256", "160") == PhysicalSize(width: 256, height: 160))
        #expect(size("256", nil) == nil)
        #expect(size(nil, "160") == nil)
        #expect(size("0", "160") == nil)
        #expect(size("wide", "160") == nil)
    }

    @Test func theNameFallsBackToTheDevnode() {
        #expect(Self.info(Self.touchscreen, parent: ["NAME": "Goodix Capacitive TouchScreen"])?.name
            == "Goodix Capacitive TouchScreen")
        #expect(Self.info(Self.touchscreen, parent: [:])?.name == "/dev/input/event5")
    }

    // MARK: - Real libudev

    @Test func theMonitorOpensAndEnumeratesOnThisHost() throws {
        let monitor = try UdevInputMonitor()
        #expect(monitor.fileDescriptor >= 0)
        // Whatever this host has, every entry must be a touch device's event node.
        for info in monitor.enumerate() {
            #expect(InputDeviceInfo.isEventNode(info.devnode))
        }
        #expect(monitor.receive().allSatisfy { change in
            if case .removed(let devnode, _) = change { return InputDeviceInfo.isEventNode(devnode) }
            return true
        })
    }
}
