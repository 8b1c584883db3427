import PopGestureCore
@testable import PopGestureDaemon
import PopGestureInput
import Testing

/// A touchscreen with no size of its own takes its display's (issue 27), from
/// connectors the tests make: never this machine's `/sys/class/drm`.
@Suite struct DisplaySizeTests {
    static let touchscreen = InputDeviceInfo(
        devnode: "/dev/input/event5", syspath: "/sys/devices/platform/i2c/input/input9/event5", name: "Goodix",
        kind: .touchscreen)
    static let i2c: UInt16 = 0x18
    static let usb: UInt16 = 0x03

    static let panel = DisplayConnector(
        name: "DSI-1", isBuiltIn: true, isConnected: true, isEnabled: true, size: PhysicalSize(width: 95, height: 54))
    static let monitor = DisplayConnector(
        name: "HDMI-A-1", isBuiltIn: false, isConnected: true, size: PhysicalSize(width: 527, height: 296))

    static func axes(resolution: Int32) -> DeviceDescription {
        let axis = AbsoluteAxis(minimum: 0, maximum: 799, resolution: resolution)
        return DeviceDescription(name: "Goodix", bustype: i2c, axes: [ABS.x: axis, ABS.y: axis])
    }

    @Test("needed only for a touchscreen whose axes have no resolution and for which udev gives no size")
    func isNeeded() {
        #expect(DisplaySize.isNeeded(kind: .touchscreen, description: Self.axes(resolution: 0)))
        #expect(!DisplaySize.isNeeded(kind: .touchpad, description: Self.axes(resolution: 0)))
        #expect(!DisplaySize.isNeeded(kind: .touchscreen, description: Self.axes(resolution: 8)))
        var reported = Self.axes(resolution: 0)
        reported.reportedSize = PhysicalSize(width: 95, height: 54)
        #expect(!DisplaySize.isNeeded(kind: .touchscreen, description: reported))
    }

    @Test("a built-in touchscreen takes the built-in panel's size, not the monitor's")
    func builtInPanel() {
        let lookup = DisplaySize.lookUp(for: Self.touchscreen, bustype: Self.i2c, among: [Self.monitor, Self.panel])
        #expect(lookup.size == PhysicalSize(width: 95, height: 54))
        #expect(lookup.message == "no size of its own: using its display DSI-1 (built-in)'s, 95 × 54 mm from its EDID")
    }

    @Test("WL_OUTPUT names the display; udev's ID_BUS usb makes a touchscreen external")
    func namedAndExternal() {
        var named = Self.touchscreen
        named.output = "HDMI-A-1"
        #expect(DisplaySize.lookUp(for: named, bustype: Self.i2c, among: [Self.panel, Self.monitor]).size
                == PhysicalSize(width: 527, height: 296))
        var usb = Self.touchscreen
        usb.bus = "usb"
        let external = DisplaySize.lookUp(for: usb, bustype: Self.i2c, among: [Self.panel, Self.monitor])
        #expect(external.size == nil)
        #expect(external.message
                == "no size of its own, and cannot tell which of DSI-1, HDMI-A-1 it drives (set WL_OUTPUT): assuming 217 × 136 mm")
        #expect(DisplaySize.lookUp(for: usb, bustype: Self.usb, among: [Self.monitor]).size == Self.monitor.size)
    }

    @Test("no display, or one without a size: the guess, and the log says why")
    func noSize() {
        let none = DisplaySize.lookUp(for: Self.touchscreen, bustype: Self.i2c, among: [])
        #expect(none == DisplaySize.Lookup(
            size: nil, message: "no size of its own, and no connected display in /sys/class/drm: assuming 217 × 136 mm"))
        var sizeless = Self.panel
        sizeless.size = nil
        sizeless.sizeProblem = "its EDID gives no size"
        let lookup = DisplaySize.lookUp(for: Self.touchscreen, bustype: Self.i2c, among: [sizeless])
        #expect(lookup.size == nil)
        #expect(lookup.message
                == "no size of its own, and its display DSI-1 (built-in) gives none (its EDID gives no size): assuming 217 × 136 mm")
    }

    @Test("the size reaches the engine: the touchscreen's millimetres are the panel's")
    func reachesTheEngine() {
        let description = Self.axes(resolution: 0)
        let lookup = DisplaySize.lookUp(for: Self.touchscreen, bustype: description.bustype, among: [Self.panel])
        var engine = GestureEngine()
        let id = engine.addDevice(description, configuration: DeviceConfiguration(displaySize: lookup.size))
        #expect(engine.screenTransform(of: id)?.sizeSource == .display)
        #expect(engine.screenTransform(of: id)?.screenSize == PhysicalSize(width: 95, height: 54))
    }
}
