import Foundation
import PopGestureCore
@testable import PopGestureInput
import PopGestureSynthesis
import Testing

/// `/sys/class/drm` as a temporary tree of real files: the connectors, their `status`,
/// `enabled` and `edid`, and which display a touchscreen drives. Never the machine's.
@Suite struct DisplayConnectorsTests {
    /// A folder laid out as `/sys/class/drm`, removed when the test ends.
    final class DRMTree {
        let root: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("popgestured-drm-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        /// A connector folder as the kernel makes it. As in sysfs, the class folder holds
        /// a symbolic link to the device's folder when `linked`.
        func connector(
            _ folder: String, status: String? = "connected", enabled: String? = "enabled", edid: [UInt8]? = nil,
            linked: Bool = false
        ) throws {
            var place = root.appendingPathComponent(folder)
            if linked {
                place = root.appendingPathComponent("devices/pci0000:00/drm/\(folder)")
                try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    atPath: root.appendingPathComponent(folder).path, withDestinationPath: place.path)
            } else {
                try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
            }
            if let status { try Data((status + "\n").utf8).write(to: place.appendingPathComponent("status")) }
            if let enabled { try Data((enabled + "\n").utf8).write(to: place.appendingPathComponent("enabled")) }
            // The kernel always has the file: empty while nothing is connected.
            try Data(edid ?? []).write(to: place.appendingPathComponent("edid"))
        }

        func file(_ path: String, _ bytes: [UInt8]) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }

        var connectors: [DisplayConnector] { DisplayConnectors.read(root: root.path) }
    }

    static let tablet = EDIDBlock(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136)).bytes
    static let small = EDIDBlock(maximumCentimetres: (10, 5), detailedMillimetres: (95, 54), pixels: (800, 480)).bytes

    // MARK: - Reading

    @Test("a tablet: the built-in panel with its EDID size, an empty HDMI port, the card and render node left out")
    func tablet() throws {
        let tree = try DRMTree()
        try tree.connector("card0-eDP-1", edid: Self.tablet, linked: true)
        try tree.connector("card0-HDMI-A-1", status: "disconnected", enabled: "disabled")
        try tree.file("card0/dev", Array("226:0\n".utf8))
        try tree.file("renderD128/dev", Array("226:128\n".utf8))
        try tree.file("version", Array("drm 1.1.0 20060810\n".utf8))
        #expect(tree.connectors == [
            DisplayConnector(name: "HDMI-A-1", isBuiltIn: false, isConnected: false, isEnabled: false, sizeProblem: "no EDID"),
            DisplayConnector(
                name: "eDP-1", isBuiltIn: true, isConnected: true, isEnabled: true, size: PhysicalSize(width: 217, height: 136)),
        ])
    }

    @Test("the output name is the folder's without cardN-; anything else is no connector", arguments: [
        ("card0-eDP-1", "eDP-1"), ("card1-DSI-1", "DSI-1"), ("card12-HDMI-A-2", "HDMI-A-2"), ("card0-LVDS-1", "LVDS-1"),
        ("card0", nil), ("card0-", nil), ("cardX-eDP-1", nil), ("card-eDP-1", nil), ("renderD128", nil), ("version", nil),
    ] as [(String, String?)])
    func connectorName(folder: String, name: String?) {
        #expect(DisplayConnectors.connectorName(folder: folder) == name)
    }

    @Test("eDP, LVDS and DSI are built in; DP, HDMI, VGA, Virtual and lookalikes are not", arguments: [
        ("eDP-1", true), ("LVDS-1", true), ("DSI-2", true), ("DP-1", false), ("HDMI-A-1", false), ("VGA-1", false),
        ("Virtual-1", false), ("eDPX-1", false), ("DSIx", false),
    ])
    func builtInNames(name: String, builtIn: Bool) {
        #expect(DisplayConnector.isBuiltIn(name: name) == builtIn)
    }

    @Test("an EDID that is none, or gives no size, leaves the connector without a size and says why")
    func edidProblems() throws {
        let tree = try DRMTree()
        var broken = Self.tablet
        broken[66] &+= 1  // checksum now wrong
        try tree.connector("card0-DSI-1", edid: broken)
        try tree.connector("card0-DP-1", edid: EDIDBlock(maximumCentimetres: (160, 90), detailedMillimetres: (1600, 900)).bytes)
        try tree.connector("card0-DP-2", edid: Array(Self.tablet.prefix(100)))
        let byName = Dictionary(uniqueKeysWithValues: tree.connectors.map { ($0.name, $0) })
        #expect(byName["DSI-1"]?.size == nil)
        #expect(byName["DSI-1"]?.sizeProblem?.hasPrefix("its EDID is not one: the base block sums to") == true)
        #expect(byName["DP-1"]?.size == nil)
        #expect(byName["DP-1"]?.sizeProblem
                == "its EDID's detailed timing 1600 × 900 mm refused (aspect-ratio); maximum image size 1600 × 900 mm refused (aspect-ratio)")
        #expect(byName["DP-2"]?.sizeProblem == "its EDID is not one: 100 bytes, a base block has 128")
    }

    @Test("an edid file of 32 KiB is read (a base block and 255 extensions); one byte more gives no size")
    func edidLimit() throws {
        let tree = try DRMTree()
        let full = Self.small + [UInt8](repeating: 0x55, count: DisplayConnectors.maximumEDIDBytes - 128)
        try tree.connector("card0-DSI-1", edid: full)
        try tree.connector("card0-DSI-2", edid: full + [0])
        let connectors = tree.connectors
        #expect(connectors.first { $0.name == "DSI-1" }?.size == PhysicalSize(width: 95, height: 54))
        #expect(connectors.first { $0.name == "DSI-2" }?.size == nil)
        #expect(connectors.first { $0.name == "DSI-2" }?.sizeProblem == "its EDID is longer than 32768 bytes")
    }

    @Test("status and enabled: only the kernel's words count; a missing or over-long file is disconnected")
    func statusWords() throws {
        let tree = try DRMTree()
        try tree.connector("card0-DP-1", status: "unknown", enabled: "enabled")
        try tree.connector("card0-DP-2", status: nil, enabled: nil)
        try tree.connector("card0-DP-3", status: "connected" + String(repeating: " ", count: 80), enabled: "disabled")
        try tree.connector("card0-DP-4", status: "connected", enabled: "disabled")
        let state = Dictionary(uniqueKeysWithValues: tree.connectors.map { ($0.name, [$0.isConnected, $0.isEnabled]) })
        #expect(state["DP-1"] == [false, true])
        #expect(state["DP-2"] == [false, false])
        #expect(state["DP-3"] == [false, false], "past 64 bytes the file is not read")
        #expect(state["DP-4"] == [true, false])
    }

    @Test("a FIFO where the edid file should be reads as no EDID, without blocking")
    func fifoEDID() throws {
        let tree = try DRMTree()
        let folder = tree.root.appendingPathComponent("card0-eDP-1")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("connected\n".utf8).write(to: folder.appendingPathComponent("status"))
        #expect(mkfifo(folder.appendingPathComponent("edid").path, 0o600) == 0)
        #expect(tree.connectors == [DisplayConnector(name: "eDP-1", isBuiltIn: true, isConnected: true, sizeProblem: "no EDID")])
    }

    @Test("no folder, or one with no connector, gives none")
    func noFolder() throws {
        #expect(DisplayConnectors.read(root: "/nonexistent-popgestured-drm").isEmpty)
        let tree = try DRMTree()
        try tree.file("card0/dev", Array("226:0\n".utf8))
        #expect(tree.connectors.isEmpty)
    }

    @Test("at most 64 connectors are read, in name order")
    func connectorLimit() throws {
        let tree = try DRMTree()
        for n in 0..<70 { try tree.connector("card0-DP-\(String(n + 100))", status: "disconnected") }
        let connectors = tree.connectors
        #expect(connectors.count == DisplayConnectors.maximumConnectors)
        #expect(connectors.first?.name == "DP-100")
        #expect(connectors.last?.name == "DP-163")
    }

    // MARK: - Which display

    static let panel = DisplayConnector(
        name: "eDP-1", isBuiltIn: true, isConnected: true, size: PhysicalSize(width: 217, height: 136))
    static let monitor = DisplayConnector(
        name: "HDMI-A-1", isBuiltIn: false, isConnected: true, size: PhysicalSize(width: 527, height: 296))
    static let emptyPort = DisplayConnector(name: "DP-1", isBuiltIn: false, isConnected: false)
    static let secondPanel = DisplayConnector(name: "DSI-1", isBuiltIn: true, isConnected: true)

    @Test("WL_OUTPUT names the display, whatever the rest says")
    func wlOutputFirst() {
        let choice = DisplayConnectors.display(output: "HDMI-A-1", touchscreenIsBuiltIn: true, among: [Self.panel, Self.monitor])
        #expect(choice == DisplayConnectors.Choice(connector: Self.monitor, rule: .wlOutput))
        // Even a disconnected one: the rule says so, and it then has no size.
        let port = DisplayConnectors.display(output: "DP-1", touchscreenIsBuiltIn: false, among: [Self.panel, Self.emptyPort])
        #expect(port?.connector == Self.emptyPort)
    }

    @Test("a WL_OUTPUT that names no connector is passed over")
    func wlOutputUnknown() {
        let choice = DisplayConnectors.display(output: "HDMI-1", touchscreenIsBuiltIn: true, among: [Self.panel, Self.monitor])
        #expect(choice == DisplayConnectors.Choice(connector: Self.panel, rule: .builtIn))
    }

    @Test("a built-in touchscreen drives the one connected built-in panel, not the monitor beside it")
    func builtInPanel() {
        let choice = DisplayConnectors.display(
            output: nil, touchscreenIsBuiltIn: true, among: [Self.emptyPort, Self.monitor, Self.panel])
        #expect(choice == DisplayConnectors.Choice(connector: Self.panel, rule: .builtIn))
    }

    @Test("two built-in panels, or a USB touchscreen with a panel and a monitor: no choice")
    func ambiguous() {
        #expect(DisplayConnectors.display(
            output: nil, touchscreenIsBuiltIn: true, among: [Self.panel, Self.secondPanel, Self.monitor]) == nil)
        #expect(DisplayConnectors.display(output: nil, touchscreenIsBuiltIn: false, among: [Self.panel, Self.monitor]) == nil)
        #expect(DisplayConnectors.display(output: nil, touchscreenIsBuiltIn: false, among: []) == nil)
    }

    @Test("the only connected display, for a USB touchscreen or a built-in one with no built-in panel")
    func onlyConnected() {
        #expect(DisplayConnectors.display(output: nil, touchscreenIsBuiltIn: false, among: [Self.emptyPort, Self.monitor])
                == DisplayConnectors.Choice(connector: Self.monitor, rule: .onlyConnected))
        #expect(DisplayConnectors.display(output: nil, touchscreenIsBuiltIn: true, among: [Self.emptyPort, Self.monitor])
                == DisplayConnectors.Choice(connector: Self.monitor, rule: .onlyConnected))
        let disconnectedPanel = DisplayConnector(name: "eDP-1", isBuiltIn: true, isConnected: false)
        #expect(DisplayConnectors.display(output: nil, touchscreenIsBuiltIn: true, among: [disconnectedPanel, Self.monitor])
                == DisplayConnectors.Choice(connector: Self.monitor, rule: .onlyConnected))
    }

    @Test("built in: udev's ID_BUS when set, else evdev's bus type", arguments: [
        ("usb", UInt16(0x18), false), ("bluetooth", 0x18, false), ("i2c", 0x03, true), ("spi", 0, true),
        ("platform", 0, true), ("USB", 0x18, false),
        (nil, 0x18, true), (nil, 0x1C, true), (nil, 0x19, true), (nil, 0x03, false), (nil, 0x05, false), (nil, 0x06, false),
        ("", 0x18, true),
    ] as [(String?, UInt16, Bool)])
    func builtInTouchscreen(bus: String?, bustype: UInt16, builtIn: Bool) {
        #expect(DisplayConnectors.touchscreenIsBuiltIn(udevBus: bus, bustype: bustype) == builtIn)
    }

    @Test("systemd's ID_INTEGRATION wins: a 2-in-1's USB touchscreen on a fixed port is built in")
    func integrationWins() {
        #expect(DisplayConnectors.touchscreenIsBuiltIn(udevBus: "usb", bustype: 0x03, integration: "internal"))
        #expect(!DisplayConnectors.touchscreenIsBuiltIn(udevBus: "i2c", bustype: 0x18, integration: "external"))
        #expect(!DisplayConnectors.touchscreenIsBuiltIn(udevBus: "usb", bustype: 0x03, integration: nil))
    }
}
