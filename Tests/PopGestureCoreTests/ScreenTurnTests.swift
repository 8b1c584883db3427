import PopGestureProtocol
@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// The gesture turns with the screen (issue 20): the shell's or the sensor's rotation,
/// and the shell's text direction, on a landscape panel, 256 × 160 mm.
///
/// Scripts move in the panel's own millimetres. Turned 90° clockwise, the panel's
/// left edge is the top of the screen and its bottom edge the screen's left, so a
/// screen point (x, y) is the panel point (y, 1 − x): a move toward the screen's right
/// is a move toward the panel's top.
@Suite struct ScreenTurnTests {
    static let app = ClientID(1)
    static let shell = ClientID(2)
    static let stranger = ClientID(3)
    static let panel = Fixtures.slotTouchscreen(name: "Landscape Panel", x: 0...4095, y: 0...2559, resolution: 16)

    struct Rig {
        var engine = GestureEngine()
        var screen: DeviceID
        var script = TouchScript(device: ScreenTurnTests.panel)
        var events: [EngineEvent] = []
        private var fed = 0

        /// An app with a two-page navigator, focused by a connected shell.
        init(configuration: DeviceConfiguration = .init()) throws {
            engine.identify(ScreenTurnTests.app, app: "org.example.App", pid: 100, isShell: false)
            engine.identify(ScreenTurnTests.shell, app: nil, pid: 300, isShell: true)
            try engine.shellReports(.init(app: "org.example.App", pid: 100), by: ScreenTurnTests.shell, at: script.time)
            try engine.perform(.create(navigator: "main", pages: [Page(id: "root"), Page(id: "detail")], layout: nil,
                                       barFollowsTopPage: true), from: ScreenTurnTests.app, at: script.time)
            screen = engine.addDevice(ScreenTurnTests.panel, configuration: configuration)
            engine.drainEvents { _ in }
        }

        mutating func feed() {
            for event in script.events.dropFirst(fed) { engine.handle(event, from: screen) }
            fed = script.events.count
            engine.drainEvents { events.append($0) }
        }

        mutating func turn(_ rotation: Rotation) throws(NavigationError) {
            try engine.reportRotation(rotation, output: "DSI-1", by: ScreenTurnTests.shell, at: script.time)
            engine.drainEvents { events.append($0) }
        }

        /// The navigator's pages, and the events since the last call, which it forgets.
        mutating func take() -> [EngineEvent] {
            defer { events = [] }
            return events
        }

        /// A finger at 2 % of the landscape width, 40 mm to the right (3 mm up), then up.
        mutating func landscapeBack() {
            script.down(at: 0.02, 0.5)
            script.move(byMillimetres: 40, -3, over: .milliseconds(200))
            script.up()
            feed()
        }

        /// On the screen turned 90° clockwise: a finger at 2 % of the turned width, half-way
        /// down, then 40 mm toward the turned screen's right, then up.
        mutating func turnedBack() {
            script.down(at: 0.5, 0.98)
            script.move(byMillimetres: 0, -40, over: .milliseconds(200))
            script.up()
            feed()
        }
    }

    static func backs(_ events: [EngineEvent]) -> Int { events.filter { $0.kind == "back" }.count }
    static func rejections(_ events: [EngineEvent]) -> [RejectionReason] {
        events.compactMap { if case .rejected(let reason, _, _) = $0 { reason } else { nil } }
    }

    @Test("Turned 90°: a finger down at 2 % of the turned width, 40 mm toward the turned screen's trailing side, then up: back")
    func backOnTheTurnedScreen() throws {
        var rig = try Rig()
        try rig.turn(.clockwise90)
        #expect(rig.engine.screenTransform(of: rig.screen)?.rotation == .clockwise90)
        #expect(rig.engine.screenTransform(of: rig.screen)?.screenSize.width == 2559.0 / 16)
        rig.turnedBack()
        #expect(Self.backs(rig.take()) == 1)
        #expect(rig.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root"])
    }

    @Test("The panel motion that was a back before the turn is refused as too steep after it")
    func samePanelMotionAfterTheTurnIsVertical() throws {
        var rig = try Rig()
        try rig.request(.push(navigator: "main", page: Page(id: "more"), animated: false))
        rig.landscapeBack()
        #expect(Self.backs(rig.take()) == 1)
        try rig.request(.settle(navigator: "main"))
        try rig.turn(.clockwise90)
        rig.landscapeBack()
        let events = rig.take()
        #expect(Self.backs(events) == 0)
        #expect(Self.rejections(events) == [.tooSteep])
    }

    @Test("A rotation mid-swipe cancels the interactive pop, and nothing goes back")
    func rotationMidSwipeCancels() throws {
        var rig = try Rig()
        rig.script.down(at: 0.02, 0.5)
        rig.script.move(byMillimetres: 30, 0, over: .milliseconds(150))
        rig.feed()
        #expect(rig.take().first?.kind == "pop-began")
        try rig.turn(.clockwise90)
        let cancel = rig.take()
        #expect(cancel.contains { if case .popCancelled(_, .rotated, _) = $0 { true } else { false } })
        #expect(rig.engine.arbiterState == .idle)
        // The finger goes on and lifts: nothing more, and nothing goes back.
        rig.script.move(byMillimetres: 40, 0, over: .milliseconds(100))
        rig.script.up()
        rig.feed()
        #expect(Self.backs(rig.take()) == 0)
        #expect(rig.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root", "detail"])
        // The next touch is the first on the turned screen.
        rig.turnedBack()
        #expect(Self.backs(rig.take()) == 1)
    }

    @Test("A rotation while the pan is still being decided rejects it as rotated")
    func rotationWhileDecidingRejects() throws {
        var rig = try Rig()
        rig.script.down(at: 0.02, 0.5)
        rig.script.move(byMillimetres: 1, 0, over: .milliseconds(20))
        rig.feed()
        #expect(rig.take().isEmpty)
        try rig.turn(.upsideDown)
        #expect(Self.rejections(rig.take()) == [.rotated])
    }

    @Test("The same rotation again changes nothing: a swipe in progress goes on")
    func sameRotationKeepsTheSwipe() throws {
        var rig = try Rig()
        try rig.turn(.clockwise90)
        rig.script.down(at: 0.5, 0.98)
        rig.script.move(byMillimetres: 0, -20, over: .milliseconds(100))
        rig.feed()
        try rig.turn(.clockwise90)
        rig.script.move(byMillimetres: 0, -20, over: .milliseconds(100))
        rig.script.up()
        rig.feed()
        #expect(Self.backs(rig.take()) == 1)
    }

    @Test("Only the shell reports a rotation or a text direction: another client gets not-shell")
    func strangersAreNotShell() throws {
        var rig = try Rig()
        rig.engine.identify(Self.stranger, app: "x", pid: 500, isShell: false)
        #expect(throws: NavigationError.self) {
            try rig.engine.reportRotation(.clockwise90, output: nil, by: Self.stranger, at: rig.script.time)
        }
        do {
            try rig.engine.reportTextDirection(.rightToLeft, by: Self.stranger, at: rig.script.time)
            Issue.record("a stranger's text direction was taken")
        } catch {
            #expect(error.code == .notShell)
        }
        #expect(rig.engine.rotationInForce.source == .configuration)
        #expect(rig.engine.directionInForce == (.leftToRight, .configuration))
    }

    @Test("Precedence under rotation = auto: the shell over the sensor; the shell gone, the sensor, then 0")
    func precedenceAndFallback() throws {
        var rig = try Rig()
        #expect(rig.engine.rotationInForce == (Rotation.none, .configuration))
        #expect(rig.engine.needsSensor)
        rig.engine.reportSensor(.rightUp, at: rig.script.time)
        #expect(rig.engine.rotationInForce == (.clockwise270, .sensor))
        try rig.turn(.clockwise90)
        #expect(rig.engine.rotationInForce == (.clockwise90, .shell))
        #expect(!rig.engine.needsSensor, "a shell that reports the screen makes the sensor unused")
        rig.engine.reportSensor(.normal, at: rig.script.time)
        #expect(rig.engine.rotationInForce == (.clockwise90, .shell))
        rig.engine.clientDisconnected(Self.shell, at: rig.script.time)
        #expect(rig.engine.rotationInForce == (Rotation.none, .sensor))
        #expect(rig.engine.screenTransform(of: rig.screen)?.rotation == Rotation.none)
        // Flat on the table: the sensor's last word stands.
        rig.engine.reportSensor(.undefined, at: rig.script.time)
        #expect(rig.engine.rotationInForce == (Rotation.none, .sensor))
        rig.engine.reportSensor(.bottomUp, at: rig.script.time)
        rig.engine.reportSensor(nil, at: rig.script.time)
        #expect(rig.engine.rotationInForce == (Rotation.none, .configuration))
    }

    @Test("An explicit rotation is never overruled by the sensor, and the sensor is not needed; the shell's word still wins")
    func explicitRotationOverTheSensor() throws {
        var rig = try Rig(configuration: DeviceConfiguration(rotation: .upsideDown))
        #expect(rig.engine.rotationInForce == (.upsideDown, .configuration))
        #expect(!rig.engine.needsSensor)
        rig.engine.reportSensor(.rightUp, at: rig.script.time)
        #expect(rig.engine.rotationInForce == (.upsideDown, .configuration))
        #expect(rig.engine.screenTransform(of: rig.screen)?.rotation == .upsideDown)
        try rig.turn(.clockwise90)
        #expect(rig.engine.rotationInForce == (.clockwise90, .shell))
        rig.engine.clientDisconnected(Self.shell, at: rig.script.time)
        #expect(rig.engine.rotationInForce == (.upsideDown, .configuration))
    }

    @Test("A device added after the turn starts turned")
    func deviceAddedAfterTheTurn() throws {
        var rig = try Rig()
        try rig.turn(.clockwise270)
        let second = rig.engine.addDevice(Self.panel)
        #expect(rig.engine.screenTransform(of: second)?.rotation == .clockwise270)
    }

    @Test("Touchpads never turn")
    func touchpadsNeverTurn() throws {
        var rig = try Rig()
        let pad = rig.engine.addDevice(Fixtures.touchpad, configuration: DeviceConfiguration(kind: .touchpad))
        try rig.turn(.clockwise90)
        rig.engine.reportSensor(.leftUp, at: rig.script.time)
        #expect(rig.engine.screenTransform(of: pad)?.rotation == Rotation.none)
        #expect(rig.engine.screenTransform(of: rig.screen)?.rotation == .clockwise90)
    }

    @Test("The shell says rtl: a swipe from the right edge toward the left goes back, one to the right is the wrong way")
    func textDirectionFromTheShell() throws {
        var rig = try Rig()
        try rig.engine.reportTextDirection(.rightToLeft, by: Self.shell, at: rig.script.time)
        #expect(rig.engine.directionInForce == (.rightToLeft, .shell))
        rig.landscapeBack()
        #expect(Self.rejections(rig.take()) == [.wrongDirection])
        rig.script.down(at: 0.98, 0.5)
        rig.script.move(byMillimetres: -40, 3, over: .milliseconds(200))
        rig.script.up()
        rig.feed()
        #expect(Self.backs(rig.take()) == 1)
    }

    @Test("A navigator that chose ltr keeps it whatever the shell says")
    func explicitLayoutWins() throws {
        var rig = try Rig()
        try rig.request(.configure(navigator: "main", layout: .leftToRight, barFollowsTopPage: true))
        try rig.engine.reportTextDirection(.rightToLeft, by: Self.shell, at: rig.script.time)
        rig.landscapeBack()
        #expect(Self.backs(rig.take()) == 1)
    }

    @Test("The shell gone, its text direction goes with it: the configuration's applies again")
    func textDirectionFallsBack() throws {
        var rig = try Rig()
        rig.engine.defaultLayout = .rightToLeft
        try rig.engine.reportTextDirection(.leftToRight, by: Self.shell, at: rig.script.time)
        #expect(rig.engine.navigation.defaultLayout == .leftToRight)
        rig.engine.clientDisconnected(Self.shell, at: rig.script.time)
        #expect(rig.engine.directionInForce == (.rightToLeft, .configuration))
        #expect(rig.engine.navigation.defaultLayout == .rightToLeft)
    }

    @Test("A new shell starts from nothing: the old shell's rotation is forgotten")
    func newShellForgetsTheOld() throws {
        var rig = try Rig()
        try rig.turn(.clockwise90)
        rig.engine.identify(ClientID(9), app: nil, pid: 301, isShell: true)
        #expect(rig.engine.rotationInForce == (Rotation.none, .configuration))
    }

    @Test("Orientations map to rotations as mutter maps them to transforms")
    func sensorMapping() {
        #expect(SensorOrientation.normal.rotation == Rotation.none)
        #expect(SensorOrientation.leftUp.rotation == .clockwise90)
        #expect(SensorOrientation.bottomUp.rotation == .upsideDown)
        #expect(SensorOrientation.rightUp.rotation == .clockwise270)
        #expect(SensorOrientation.undefined.rotation == nil)
        #expect(SensorOrientation(rawValue: "left-up") == .leftUp)
    }

    @Test("Changes are logged at info five to an episode, then at debug until 10 s pass without one")
    func changeLogLimit() {
        var limit = ChangeLogLimit()
        let start = Timestamp(seconds: 100, microseconds: 0)
        var verdicts: [ChangeLogLimit.Verdict] = []
        for i in 0..<7 { verdicts.append(limit.change(at: start + .seconds(i))) }
        #expect(verdicts == [.info(previousEpisode: nil), .info(previousEpisode: nil), .info(previousEpisode: nil),
                             .info(previousEpisode: nil), .lastInfo, .debug, .debug])
        #expect(limit.change(at: start + .seconds(17)) == .info(previousEpisode: 7))
        #expect(limit.change(at: start + .seconds(40)) == .info(previousEpisode: nil))
    }
}

extension ScreenTurnTests.Rig {
    mutating func request(_ request: NavigationRequest) throws(NavigationError) {
        try engine.perform(request, from: ScreenTurnTests.app, at: script.time)
        engine.drainEvents { events.append($0) }
    }
}
