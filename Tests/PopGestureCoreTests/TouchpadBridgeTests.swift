@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// The touchpad bridge: a back swipe for an app marked `touchpad`, played as two fingers
/// scrolling on the daemon's virtual touchpad.
@Suite struct TouchpadBridgeTests {
    static let touchpad = BackInput(touchpad: .standard)
    static let altLeft = BackInput(codes: [56, 105], spelling: "alt+left")!
    typealias Action = TouchpadBridge.Action

    /// The engine with `firefox` marked `touchpad` and focused, fed a finger, its events
    /// fed to the bridge; the bridge's actions in order.
    struct Rig {
        var engine: GestureEngine
        var screen: DeviceID
        var script = TouchScript(device: Fixtures.touchscreen)
        var bridge = TouchpadBridge()
        var events: [EngineEvent] = []
        var seats: Set<Seat> = []

        init(input: BackInput = TouchpadBridgeTests.touchpad) throws {
            var settings = GestureSettings()
            settings.backInput = BackInputMap(standard: TouchpadBridgeTests.altLeft, apps: ["firefox": input])
            engine = GestureEngine(settings: settings)
            screen = engine.addDevice(Fixtures.touchscreen)
            engine.identify(ClientID(9), app: nil, pid: nil, isShell: true)
            try engine.shellReports(FocusState.Window(app: "firefox", pid: 42), by: ClientID(9), at: .zero)
            engine.drainEvents { _ in }
        }

        /// A finger down at 1 % of the width, 40 mm to the right in 100 ms, then up.
        mutating func edgeSwipe() -> [Action] {
            script.down(at: 0.01, 0.5)
            script.move(byMillimetres: 40, 0, over: .milliseconds(100))
            script.up()
            return play()
        }

        mutating func play() -> [Action] {
            for event in script.events { engine.handle(event, from: screen) }
            var actions: [Action] = []
            engine.drainEvents { event in
                events.append(event)
                if let output = bridge.handle(event) {
                    seats.insert(output.seat)
                    actions += output.actions
                }
            }
            return actions
        }
    }

    static func x(_ action: Action) -> Double? {
        switch action {
        case .down(let f), .move(let f): f.xMillimetres
        case .lift: nil
        }
    }

    static func lastProgress(_ events: [EngineEvent]) -> Double? {
        events.compactMap { if case .inputProgress(_, _, _, let p, _) = $0 { p } else { nil } }.last
    }

    @Test("A 40 mm swipe from 1 % of the width: two fingers land at 85 mm, scroll left with the progress, run on 60 mm, lift")
    func swipeOf40Millimetres() throws {
        var rig = try Rig()
        let actions = rig.edgeSwipe()

        #expect(rig.events.contains { if case .backInput = $0 { true } else { false } }, "the daemon committed")
        #expect(rig.seats == [.seat0])
        #expect(actions.first == .down(TouchpadBridge.Fingers(xMillimetres: 85, yMillimetres: [22, 38])))
        #expect(actions.last == .lift)
        #expect(actions.dropFirst().dropLast().allSatisfy { if case .move = $0 { true } else { false } })
        let xs = actions.compactMap(Self.x)
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $1 <= $0 }, "the fingers only move left: a scroll toward the back")
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $0 - $1 <= TouchpadBridge.maximumStepMillimetres + 1e-9 })
        // 40 mm on the 256 mm wide fixture: progress 0.156, 9.4 mm at 60 mm per width.
        let progress = try #require(Self.lastProgress(rig.events))
        #expect(abs(progress - 40.0 / 256) < 0.01)
        let moves = actions.compactMap { if case .move(let f) = $0 { f.xMillimetres } else { nil } }
        let whileHeld = try #require(moves.last { abs($0 - (85 - 60 * progress)) < 1e-9 }, "the fingers followed the progress")
        #expect(whileHeld < 85)
        #expect(xs.last == 25, "on the commit they run on to progress 1: 60 mm from where they landed")
    }

    @Test("A swipe released short of the commit lifts the fingers back where they landed: no back")
    func cancelReturnsAndLifts() throws {
        var rig = try Rig()
        rig.script.down(at: 0.01, 0.5)
        rig.script.move(byMillimetres: 8, 0, over: .milliseconds(300))
        rig.script.rest(.milliseconds(200))
        rig.script.up()
        let actions = rig.play()

        #expect(rig.events.contains { if case .inputCancelled(_, .released, _) = $0 { true } else { false } })
        #expect(!rig.events.contains { if case .backInput = $0 { true } else { false } })
        let xs = actions.compactMap(Self.x)
        #expect(try #require(xs.min()) < 85, "the fingers followed the finger first")
        #expect(xs.last == 85, "and went back to where they landed")
        #expect(actions.last == .lift)
        #expect(rig.bridge.state == .idle)
    }

    @Test("An app with a key back input plays nothing on the touchpad")
    func keyInputPlaysNothing() throws {
        var rig = try Rig(input: Self.altLeft)
        #expect(rig.edgeSwipe().isEmpty)
        #expect(rig.events.contains { if case .backInput = $0 { true } else { false } })
    }

    @Test("The exact frames: progress 0.02, then 0.1, then a commit, at 60 mm per width")
    func exactFrames() {
        var bridge = TouchpadBridge()
        let time = Timestamp.zero
        let begin = bridge.handle(.inputProgress(Self.touchpad, app: "firefox", seat: .seat0, progress: 0.02, time: time))
        #expect(begin?.seat == .seat0)
        #expect(begin?.actions.first == .down(.init(xMillimetres: 85, yMillimetres: [22, 38])))
        #expect(begin?.actions.count == 2)
        #expect(abs((begin?.actions.last).flatMap(Self.x).map { $0 - 83.8 } ?? 1) < 1e-9, "1.2 mm left: one frame")
        let moved = bridge.handle(.inputProgress(Self.touchpad, app: "firefox", seat: .seat0, progress: 0.1, time: time))
        // 1.2 mm → 6 mm: 4.8 mm in three steps of 1.6 mm.
        let xs = moved?.actions.compactMap(Self.x) ?? []
        #expect(xs.count == 3)
        #expect(zip(xs, [82.2, 80.6, 79.0]).allSatisfy { abs($0 - $1) < 1e-9 })
        guard case .scrolling(.seat0, .standard, let travel) = bridge.state else {
            Issue.record("not scrolling: \(bridge.state)")
            return
        }
        #expect(abs(travel - 6) < 1e-9)
        let done = bridge.handle(.backInput(Self.touchpad, app: "firefox", seat: .seat0, reason: .progress, time: time))
        // 6 mm → 60 mm (progress 1): 54 mm in 27 steps of 2 mm, then the lift.
        #expect(done?.actions.count == 28)
        #expect(done?.actions.dropLast().last == .move(.init(xMillimetres: 25, yMillimetres: [22, 38])))
        #expect(done?.actions.last == .lift)
        #expect(bridge.state == .idle)
        #expect(bridge.handle(.inputCancelled(app: "firefox", reason: .released, time: time)) == nil, "nothing is down")
    }

    @Test("Natural scrolling: the fingers land at 15 mm and move right")
    func naturalMovesRight() {
        var bridge = TouchpadBridge()
        let natural = BackInput(touchpad: TouchpadScroll(millimetresPerWidth: 100, natural: true))
        let output = bridge.handle(.inputProgress(natural, app: nil, seat: Seat(rawValue: "seat1")!, progress: 0.25, time: .zero))
        #expect(output?.seat == Seat(rawValue: "seat1"))
        #expect(output?.actions.first == .down(.init(xMillimetres: 15, yMillimetres: [22, 38])))
        #expect(output?.actions.last == .move(.init(xMillimetres: 40, yMillimetres: [22, 38])))
    }

    @Test("The travel stops at 70 mm, the touchpad's width less its margins")
    func travelIsBounded() {
        #expect(TouchpadBridge.travel(progress: 1, scroll: TouchpadScroll(millimetresPerWidth: 400, natural: false)) == 70)
        #expect(TouchpadBridge.travel(progress: -0.5, scroll: .standard) == 0)
    }

    @Test("A cut-off touchpad lifts where the fingers are")
    func abandonLifts() {
        var bridge = TouchpadBridge()
        _ = bridge.handle(.inputProgress(Self.touchpad, app: nil, seat: .seat0, progress: 0.2, time: .zero))
        #expect(bridge.abandon() == TouchpadBridge.Output(seat: .seat0, actions: [.lift]))
        #expect(bridge.abandon() == nil)
    }

    @Test("touchpad entries parse, with a distance and natural scrolling", arguments: [
        ("touchpad", TouchpadScroll.standard),
        ("Touchpad", TouchpadScroll.standard),
        ("touchpad:80", TouchpadScroll(millimetresPerWidth: 80, natural: false)),
        ("touchpad:natural", TouchpadScroll(millimetresPerWidth: 60, natural: true)),
        ("touchpad : 32.5 : natural", TouchpadScroll(millimetresPerWidth: 32.5, natural: true)),
    ])
    func parses(_ text: String, _ expected: TouchpadScroll) throws {
        #expect(try TouchpadScroll.parse(text) == expected)
        #expect(try TouchpadScroll.parse(expected.description) == expected, "its spelling reads back")
    }

    @Test("wrong touchpad entries are refused with the reason", arguments: [
        ("touchpad:3", "no touchpad distance"), ("touchpad:abc", "no touchpad distance"),
        ("touchpad:nan", "no touchpad distance"), ("touchpad:60:sideways", "not understood"),
        ("touchpad:", "no touchpad distance"), ("touchpad:" + String(repeating: "1", count: 40), "at most 32 bytes"),
    ])
    func refuses(_ text: String, _ message: String) {
        #expect { try TouchpadScroll.parse(text) } throws: { ($0 as? TouchpadScrollError)?.message.contains(message) == true }
    }

    @Test("text that is not a touchpad entry is left to the key names")
    func notTouchpad() throws {
        #expect(try TouchpadScroll.parse("alt+left") == nil)
        #expect(try TouchpadScroll.parse("touchpads") == nil)
    }

    @Test("a table with a touchpad entry uses the touchpad; its entries send no key")
    func mapUsesTouchpad() {
        let map = BackInputMap(standard: Self.altLeft, apps: ["firefox": Self.touchpad])
        #expect(map.usesTouchpad)
        #expect(map.allCodes == [56, 105])
        #expect(!BackInputMap(standard: Self.altLeft).usesTouchpad)
    }
}
