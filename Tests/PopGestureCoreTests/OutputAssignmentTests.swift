@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// Each touchscreen turns with its own output (issue 27): the shell lists its outputs,
/// and the engine finds the one each touchscreen drives.
@Suite struct OutputAssignmentTests {
    static let app = ClientID(1)
    static let shell = ClientID(2)
    /// A built-in panel on I²C, 256 × 160 mm, and an external USB touch monitor of the same size.
    static let builtIn = Fixtures.slotTouchscreen(name: "Builtin Panel", x: 0...4095, y: 0...2559, resolution: 16)
    static let external: DeviceDescription = {
        var monitor = Fixtures.slotTouchscreen(name: "USB Touch Monitor", x: 0...4095, y: 0...2559, resolution: 16)
        monitor.bustype = 0x03
        return monitor
    }()

    static func output(_ name: String, _ rotation: Rotation, builtIn: Bool = false, inputs: [String] = []) -> OutputReport {
        OutputReport(name: name, rotation: rotation, isBuiltIn: builtIn, inputs: inputs)
    }

    // MARK: - Which output a touchscreen drives

    @Test("WL_OUTPUT first, then the compositor's mapping, then the built-in panel, then the only output")
    func outputChoiceOrder() {
        let panel = Self.output("eDP-1", .clockwise90, builtIn: true)
        let monitor = Self.output("HDMI-A-1", .none, inputs: ["1003:35331:USB_Touch_Monitor"])
        let hintsOfExternal = OutputHints(wlOutput: nil, description: Self.external)
        #expect(hintsOfExternal.names == ["USB Touch Monitor", "1003:35331:USB_Touch_Monitor"])
        #expect(!hintsOfExternal.isBuiltIn)
        #expect(hintsOfExternal.output(among: [panel, monitor])?.name == "HDMI-A-1", "sway's map_to_output")

        let hintsOfPanel = OutputHints(wlOutput: nil, description: Self.builtIn)
        #expect(hintsOfPanel.isBuiltIn)
        #expect(hintsOfPanel.output(among: [monitor, panel])?.name == "eDP-1", "the built-in panel")

        let pinned = OutputHints(wlOutput: "HDMI-A-1", description: Self.builtIn)
        #expect(pinned.output(among: [panel, monitor])?.name == "HDMI-A-1", "udev's WL_OUTPUT over everything")
        #expect(pinned.output(among: [panel]) == nil, "WL_OUTPUT names an output the shell does not list: no guess")

        let unmapped = OutputHints(wlOutput: nil, description: Self.external)
        #expect(unmapped.output(among: [panel, Self.output("DP-2", .none)]) == nil, "an external screen among several, unmapped")
        #expect(unmapped.output(among: [Self.output("DP-2", .upsideDown)])?.name == "DP-2", "the only output")
        #expect(unmapped.output(among: []) == nil)
    }

    // MARK: - Through the engine

    struct Rig {
        var engine = GestureEngine()
        var events: [EngineEvent] = []

        init() throws {
            engine.identify(OutputAssignmentTests.app, app: "org.example.App", pid: 100, isShell: false)
            engine.identify(OutputAssignmentTests.shell, app: nil, pid: 300, isShell: true)
            try engine.shellReports(.init(app: "org.example.App", pid: 100), by: OutputAssignmentTests.shell, at: .zero)
            try engine.perform(.create(navigator: "main", pages: [Page(id: "root"), Page(id: "a"), Page(id: "b"), Page(id: "c")],
                                       layout: nil, barFollowsTopPage: true), from: OutputAssignmentTests.app, at: .zero)
        }

        mutating func add(_ description: DeviceDescription) -> DeviceID {
            engine.addDevice(description, configuration: DeviceConfiguration(
                output: OutputHints(wlOutput: nil, description: description)))
        }

        mutating func report(_ outputs: [OutputReport]) throws(NavigationError) {
            try engine.reportOutputs(outputs, by: OutputAssignmentTests.shell, at: .zero)
            engine.drainEvents { events.append($0) }
        }

        mutating func play(_ script: TouchScript, on device: DeviceID) -> [EngineEvent] {
            for event in script.events { engine.handle(event, from: device) }
            var out: [EngineEvent] = []
            engine.drainEvents { out.append($0) }
            return out
        }
    }

    static func backs(_ events: [EngineEvent]) -> Int { events.filter { $0.kind == "back" }.count }

    /// On the panel's own axes: a finger at 2 % of its width, 40 mm to its right, then up.
    static func panelRightward(_ device: DeviceDescription, start: Timestamp) -> TouchScript {
        swipe(device, start: start, from: (0.02, 0.5), byMillimetres: (40, -2))
    }

    /// On a panel turned 90° clockwise, rightward as the user sees it: from the panel's
    /// bottom edge toward its top.
    static func turnedRightward(_ device: DeviceDescription, start: Timestamp) -> TouchScript {
        swipe(device, start: start, from: (0.5, 0.98), byMillimetres: (2, -40))
    }

    static func swipe(
        _ device: DeviceDescription, start: Timestamp, from point: (Double, Double), byMillimetres move: (Double, Double),
        over duration: Duration = .milliseconds(200)
    ) -> TouchScript {
        var script = TouchScript(device: device, start: start)
        script.down(at: point.0, point.1)
        script.move(byMillimetres: move.0, move.1, over: duration)
        script.up()
        return script
    }

    @Test("Two touchscreens on two outputs turned apart: each swipe is decided on its own output")
    func twoScreensTwoTransforms() throws {
        var rig = try Rig()
        let panel = rig.add(Self.builtIn)
        let monitor = rig.add(Self.external)
        try rig.report([
            Self.output("eDP-1", .clockwise90, builtIn: true),
            Self.output("HDMI-A-1", .none, inputs: ["USB Touch Monitor"]),
        ])
        #expect(rig.engine.rotation(of: panel) == DeviceRotation(.clockwise90, source: .shell, output: "eDP-1"))
        #expect(rig.engine.rotation(of: monitor) == DeviceRotation(.none, source: .shell, output: "HDMI-A-1"))

        let t = Timestamp(seconds: 1000, microseconds: 0)
        #expect(Self.backs(rig.play(Self.turnedRightward(Self.builtIn, start: t), on: panel)) == 1,
                "rightward on the turned panel")
        #expect(Self.backs(rig.play(Self.panelRightward(Self.external, start: Timestamp(seconds: 1002, microseconds: 0)), on: monitor)) == 1,
                "rightward on the upright monitor")
        #expect(Self.backs(rig.play(Self.panelRightward(Self.builtIn, start: Timestamp(seconds: 1004, microseconds: 0)), on: panel)) == 0,
                "rightward on the bare panel is upward on the turned screen")
        #expect(Self.backs(rig.play(Self.turnedRightward(Self.external, start: Timestamp(seconds: 1006, microseconds: 0)), on: monitor)) == 0,
                "upward on the upright monitor")
    }

    @Test("The shell's transform 0 is the truth: the sensor's left-up turns nothing and cancels no swipe")
    func shellZeroOverTheSensor() throws {
        var rig = try Rig()
        let panel = rig.add(Self.builtIn)
        try rig.report([Self.output("eDP-1", .none, builtIn: true)])
        #expect(!rig.engine.needsSensor)
        var script = TouchScript(device: Self.builtIn, start: Timestamp(seconds: 1000, microseconds: 0))
        script.down(at: 0.02, 0.5)
        script.move(byMillimetres: 20, -1, over: .milliseconds(100))
        var events = rig.play(script, on: panel)
        let played = script.events.count
        // A tilt mid-swipe, as a sway tablet picked up: sway never turns its output.
        rig.engine.reportSensor(.leftUp, at: script.time)
        rig.engine.drainEvents { events.append($0) }
        #expect(rig.engine.screenTransform(of: panel)?.rotation == Rotation.none)
        #expect(!events.contains { $0.kind == "screen-changed" })
        script.move(byMillimetres: 25, 0, over: .milliseconds(100))
        script.up()
        for event in script.events.dropFirst(played) { rig.engine.handle(event, from: panel) }
        rig.engine.drainEvents { events.append($0) }
        #expect(Self.backs(events) == 1, "the swipe went on and went back")
        #expect(rig.engine.rotation(of: panel)?.source == .shell)
    }

    @Test("The shell leaves: its outputs go with it, and the sensor is needed again")
    func outputsForgottenWithTheShell() throws {
        var rig = try Rig()
        let panel = rig.add(Self.builtIn)
        rig.engine.reportSensor(.rightUp, at: .zero)
        #expect(rig.engine.rotation(of: panel) == DeviceRotation(.clockwise270, source: .sensor))
        try rig.report([Self.output("eDP-1", .upsideDown, builtIn: true)])
        #expect(rig.engine.rotation(of: panel) == DeviceRotation(.upsideDown, source: .shell, output: "eDP-1"))
        #expect(rig.events.contains { $0.kind == "screen-changed" })
        rig.engine.clientDisconnected(Self.shell, at: .zero)
        #expect(rig.engine.needsSensor)
        #expect(rig.engine.rotation(of: panel) == DeviceRotation(.clockwise270, source: .sensor))
    }

    @Test("A 4.3-inch panel with no resolution takes its output's 95 × 54 mm: a start 4 mm from the edge is in the edge zone")
    func smallPanelTakesItsOutputsSize() throws {
        var rig = try Rig()
        rig.engine.settings.mode = .edge
        let phone = Fixtures.slotTouchscreen(name: "Phone Panel", x: 0...1919, y: 0...1079, resolution: 0)
        let panel = rig.add(phone)
        #expect(rig.engine.screenTransform(of: panel)?.sizeSource == .assumed)
        let start = Timestamp(seconds: 1000, microseconds: 0)
        // 4 mm of 95 mm of glass, at 4.2 % of the width; on the assumed 217 mm it is 9.1 mm in.
        // The script measures in the panel's assumed millimetres: 130 of 217 is 60 % of the
        // width, over 600 ms (the landing, estimated a scan back, stays out of the zone).
        let fromTheEdge = Self.swipe(
            phone, start: start, from: (4.0 / 95, 0.5), byMillimetres: (130, -1), over: .milliseconds(600))
        #expect(Self.backs(rig.play(fromTheEdge, on: panel)) == 0, "guessed 217 mm wide: outside the 4.8 mm zone")

        try rig.report([OutputReport(name: "DSI-1", rotation: .none, size: PhysicalSize(width: 95, height: 54), isBuiltIn: true)])
        let transform = try #require(rig.engine.screenTransform(of: panel))
        #expect(transform.sizeSource == .output)
        #expect(transform.screenSize == PhysicalSize(width: 95, height: 54))
        let again = Self.swipe(
            phone, start: Timestamp(seconds: 1002, microseconds: 0), from: (4.0 / 95, 0.5), byMillimetres: (130, -1),
            over: .milliseconds(600))
        #expect(Self.backs(rig.play(again, on: panel)) == 1, "the real 95 mm: 4 mm in is in the zone")
    }

    @Test("Only seat0's shell lists outputs")
    func onlyTheShell() throws {
        var rig = try Rig()
        do {
            try rig.engine.reportOutputs([Self.output("eDP-1", .clockwise90)], by: Self.app, at: .zero)
            Issue.record("an app's outputs were taken")
        } catch {
            #expect(error.code == .notShell)
        }
    }
}
