@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// The touchpad bridge: a back swipe for an app marked `touchpad`, played as two fingers
/// scrolling on the daemon's virtual touchpad.
@Suite struct TouchpadBridgeTests {
    static let touchpad = BackInput(touchpad: .standard)
    static let altLeft = BackInput(codes: [56, 105], spelling: "alt+left")!
    typealias Action = TouchpadBridge.Action

    /// The engine with `firefox` marked `touchpad` and focused, in a session that said it
    /// scrolls touchpads traditionally (`natural` nil: it said nothing), fed a finger, its
    /// events fed to the bridge; the bridge's actions in order.
    struct Rig {
        var engine: GestureEngine
        var screen: DeviceID
        var script = TouchScript(device: Fixtures.touchscreen)
        var bridge = TouchpadBridge()
        var events: [EngineEvent] = []
        var seats: Set<Seat> = []

        init(input: BackInput = TouchpadBridgeTests.touchpad, natural: Bool? = false) throws {
            var settings = GestureSettings()
            settings.backInput = BackInputMap(standard: TouchpadBridgeTests.altLeft, apps: ["firefox": input])
            engine = GestureEngine(settings: settings)
            screen = engine.addDevice(Fixtures.touchscreen)
            engine.identify(ClientID(9), app: nil, pid: nil, isShell: true)
            try engine.shellReports(FocusState.Window(app: "firefox", pid: 42), by: ClientID(9), at: .zero)
            if let natural { try engine.reportTouchpadScrolling(natural: natural, by: ClientID(9), at: .zero) }
            engine.drainEvents { _ in }
        }

        /// A finger down at 1 % of the width, 40 mm to the right in 100 ms, then up.
        mutating func edgeSwipe() -> [Action] {
            script.down(at: 0.01, 0.5)
            script.move(byMillimetres: 40, 0, over: .milliseconds(100))
            script.up()
            return play()
        }

        /// The script through the engine, and its events through the bridge at their times,
        /// with the bridge's deadlines between them as the loop's timer would fire them.
        mutating func play() -> [Action] {
            for event in script.events { engine.handle(event, from: screen) }
            var actions: [Action] = []
            var engineEvents: [EngineEvent] = []
            engine.drainEvents { engineEvents.append($0) }
            for event in engineEvents {
                let time = TouchpadBridgeTests.time(of: event)
                actions += bridge.expire(until: time, seats: &seats)
                events.append(event)
                if let output = bridge.handle(event, at: time) {
                    seats.insert(output.seat)
                    actions += output.actions
                }
            }
            return actions + bridge.expire(until: Timestamp(seconds: 1 << 30, microseconds: 0), seats: &seats)
        }
    }

    static func x(_ action: Action) -> Double? {
        switch action {
        case .down(let f), .move(let f): f.xMillimetres
        case .lift, .pointer: nil
        }
    }

    /// When the engine made the event: the bridge is played at once.
    static func time(of event: EngineEvent) -> Timestamp {
        switch event {
        case .inputBegan(_, _, _, let t), .inputProgress(_, _, _, _, _, let t), .inputCancelled(_, _, _, let t),
             .backInput(_, _, _, _, let t):
            t
        default:
            .zero
        }
    }

    static func ms(_ milliseconds: Int64) -> Timestamp { Timestamp(microseconds: milliseconds * 1000) }

    /// The touchpad's own frames: the actions less the pointer's.
    static func fingers(_ actions: [Action]) -> [Action] {
        actions.filter { if case .pointer = $0 { false } else { true } }
    }

    static func lastProgress(_ events: [EngineEvent]) -> Double? {
        events.compactMap { if case .inputProgress(_, _, _, let p, _, _) = $0 { p } else { nil } }.last
    }

    @Test("A 40 mm swipe from 1 % of the width: two fingers land at 85 mm, scroll left with the progress, run on 20 mm, lift")
    func swipeOf40Millimetres() throws {
        var rig = try Rig()
        let actions = rig.edgeSwipe()

        #expect(rig.events.contains { if case .backInput = $0 { true } else { false } }, "the daemon committed")
        #expect(rig.seats == [.seat0])
        guard case .pointer(let x, let y) = actions.first else { Issue.record("the pointer goes first: \(actions)"); return }
        #expect(x < 0.1 && abs(y - 0.5) < 0.01, "under the finger, near the left edge at half the height: \(x), \(y)")
        #expect(actions.dropFirst().first == .down(TouchpadBridge.Fingers(xMillimetres: 85, yMillimetres: [22, 38])))
        #expect(actions.last == .lift)
        #expect(actions.dropFirst(2).dropLast().allSatisfy {
            switch $0 {
            case .down, .lift, .pointer: false
            case .move: true
            }
        })
        let xs = actions.compactMap(Self.x)
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $1 <= $0 }, "the fingers only move left: a scroll toward the back")
        // 40 mm on the 256 mm wide fixture: progress 0.156, 9.4 mm at 60 mm per width.
        let progress = try #require(Self.lastProgress(rig.events))
        #expect(abs(progress - 40.0 / 256) < 0.01)
        let moves = actions.compactMap { if case .move(let f) = $0 { f.xMillimetres } else { nil } }
        let whileHeld = try #require(moves.last { abs($0 - (85 - 60 * progress)) < 1e-9 }, "the fingers followed the progress")
        #expect(whileHeld < 85)
        let end = try #require(xs.last)
        #expect(abs(end - (85 - 60 * progress - 20)) < 1e-9, "on the commit they run on 20 mm")
        // The run: after the first move (timed from the last frame) and until the last
        // (what is left), 2 mm a deadline, 4 ms apart; then the lift.
        let run = Array(actions.suffix(8).dropLast().compactMap(Self.x))
        #expect(zip(run, run.dropFirst()).dropLast().allSatisfy { abs($0 - $1 - 2) < 1e-9 }, "\(run)")
        #expect(rig.bridge.state == .idle)
        #expect(rig.bridge.deadline == nil)
    }

    @Test("A finger down at 2 % of the width and 80 % of the height: the pointer goes there before the fingers land")
    func pointerUnderTheFinger() throws {
        var rig = try Rig()
        rig.script.down(at: 0.02, 0.8)
        rig.script.move(byMillimetres: 40, 0, over: .milliseconds(100))
        rig.script.up()
        let actions = rig.play()
        let began = try #require(rig.events.lazy.compactMap { event -> ScreenPoint?? in
            if case .inputBegan(_, .seat0, let pointer, _) = event { pointer } else { nil }
        }.first, "input-began, on seat0")
        let point = try #require(began, "one screen: the point is known")
        #expect(actions.first == .pointer(x: point.x, y: point.y))
        #expect(point.x > 0.02 && point.x < 0.1, "where the finger is when the swipe begins: \(point.x)")
        #expect(abs(point.y - 0.8) < 0.01)
        #expect(actions.filter { if case .pointer = $0 { true } else { false } }.count == 1, "once a swipe")
        #expect(rig.bridge.pointer == nil, "taken by the landing")
    }

    @Test("The shell reports two outputs: where the screen sits among them is unknown, so the pointer stays put")
    func twoOutputsLeaveThePointer() throws {
        var rig = try Rig()
        let outputs = [OutputReport(name: "eDP-1", rotation: .none, isBuiltIn: true), OutputReport(name: "HDMI-A-1", rotation: .none)]
        try rig.engine.reportOutputs(outputs, by: ClientID(9), at: .zero)
        rig.engine.drainEvents { _ in }
        let actions = rig.edgeSwipe()
        #expect(actions.first == .down(TouchpadBridge.Fingers(xMillimetres: 85, yMillimetres: [22, 38])), "\(actions)")
        #expect(!actions.contains { if case .pointer = $0 { true } else { false } })
        #expect(rig.events.contains { if case .inputBegan(_, _, nil, _) = $0 { true } else { false } })
    }

    @Test("Two fingers swiping 40 mm right on a touchpad: no screen position, so its input-began places no pointer")
    func touchpadSwipePlacesNoPointer() throws {
        var settings = GestureSettings()
        settings.backInput = BackInputMap(standard: Self.altLeft, apps: [:])
        settings.mode = .fullscreen
        var engine = GestureEngine(settings: settings)
        let pad = engine.addDevice(Fixtures.touchpad, configuration: DeviceConfiguration(kind: .touchpad))
        var script = TouchScript(device: Fixtures.touchpad)
        script.down(0, at: 0.2, 0.4)
        script.down(1, at: 0.3, 0.6)
        script.move([0, 1], byMillimetres: 40, 0, over: .milliseconds(100))
        script.up(0)
        script.up(1)
        for event in script.events { engine.handle(event, from: pad) }
        var began: [ScreenPoint?] = []
        engine.drainEvents { if case .inputBegan(_, _, let pointer, _) = $0 { began.append(pointer) } }
        #expect(began == [nil])
    }

    @Test("A second swipe that began while the first one's fingers ran puts the pointer at its own finger when it lands")
    func waitingSwipeTakesItsOwnPoint() throws {
        var bridge = TouchpadBridge()
        let began = { (y: Double) in
            EngineEvent.inputBegan(app: "firefox", seat: .seat0, pointer: ScreenPoint(x: 0.03, y: y, xMillimetres: 8, yMillimetres: 0),
                                   time: .zero)
        }
        let progress = { (p: Double) in
            EngineEvent.inputProgress(Self.touchpad, app: "firefox", seat: .seat0, progress: p, commit: 0.3, time: .zero)
        }
        let back = EngineEvent.backInput(Self.touchpad, app: "firefox", seat: .seat0, reason: .progress, time: .zero)
        #expect(bridge.handle(began(0.25), at: Self.ms(0)) == nil)
        #expect(bridge.handle(progress(0), at: Self.ms(0))?.actions.first == .pointer(x: 0.03, y: 0.25))
        _ = bridge.handle(back, at: Self.ms(1))
        _ = bridge.handle(began(0.75), at: Self.ms(10))
        _ = bridge.handle(progress(0.1), at: Self.ms(10))
        _ = bridge.handle(back, at: Self.ms(12))
        var actions: [Action] = []
        while let deadline = bridge.deadline {
            let output = bridge.expire(at: deadline)
            actions += try #require(output).actions
        }
        let firstLift = try #require(actions.firstIndex(of: .lift))
        #expect(actions[firstLift + 1] == .pointer(x: 0.03, y: 0.75), "\(actions)")
        #expect(actions[firstLift + 2] == .down(.init(xMillimetres: 85, yMillimetres: [22, 38])))
    }

    @Test("A swipe released short of the commit lifts the fingers back where they landed: no back")
    func cancelReturnsAndLifts() throws {
        var rig = try Rig()
        rig.script.down(at: 0.01, 0.5)
        rig.script.move(byMillimetres: 8, 0, over: .milliseconds(300))
        rig.script.rest(.milliseconds(200))
        rig.script.up()
        let actions = rig.play()

        #expect(rig.events.contains { if case .inputCancelled(_, _, .released, _) = $0 { true } else { false } })
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

    @Test("Before the session says how it scrolls touchpads, a firefox marked touchpad gets the standard key")
    func unknownScrollingSendsTheKey() throws {
        var rig = try Rig(natural: nil)
        #expect(rig.edgeSwipe().isEmpty, "nothing on the touchpad: it might scroll the wrong way")
        let sent = rig.events.compactMap { if case .backInput(let input, _, _, _, _) = $0 { input } else { nil } }
        #expect(sent == [Self.altLeft])
    }

    @Test("A session that scrolls naturally: the same swipe lands the fingers at 15 mm and moves them right, then lifts")
    func naturalSessionMovesRight() throws {
        var rig = try Rig(natural: true)
        let actions = Self.fingers(rig.edgeSwipe())
        #expect(actions.first == .down(TouchpadBridge.Fingers(xMillimetres: 15, yMillimetres: [22, 38])))
        let xs = actions.compactMap(Self.x)
        #expect(try #require(xs.last) > 15 + 20, "followed the progress, then ran on 20 mm, to the right")
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $1 >= $0 })
        #expect(actions.last == .lift)
        let sent = rig.events.compactMap { if case .backInput(let input, _, _, _, _) = $0 { input } else { nil } }
        #expect(sent.map(\.spelling) == ["touchpad"], "observers see the entry as configured")
    }

    @Test("An entry that fixes the scrolling keeps it whatever the session says")
    func fixedScrollingWins() throws {
        let traditional = BackInput(touchpad: TouchpadScroll(millimetresPerWidth: 60, scrolling: .traditional))
        var rig = try Rig(input: traditional, natural: true)
        #expect(Self.fingers(rig.edgeSwipe()).first == .down(TouchpadBridge.Fingers(xMillimetres: 85, yMillimetres: [22, 38])))
        var unknown = try Rig(input: traditional, natural: nil)
        #expect(Self.fingers(unknown.edgeSwipe()).first == .down(TouchpadBridge.Fingers(xMillimetres: 85, yMillimetres: [22, 38])),
                "a fixed entry needs no word from the session")
    }

    @Test("A session that takes no touchpad bridge (GNOME Shell): firefox gets the standard key, until its shell goes")
    func sessionDeclinesTheBridge() throws {
        var rig = try Rig(natural: false)
        try rig.engine.reportTouchpadScrolling(natural: true, bridge: false, by: ClientID(9), at: .zero)
        var summaries: [FocusSummary] = []
        rig.engine.drainEvents { if case .focusChanged(let summary) = $0 { summaries.append(summary) } }
        #expect(summaries.map(\.touchpadBridge) == [false], "observers, and the daemon's touchpad, are told")
        #expect(rig.engine.navigation.focus.touchpadScrolling(on: .seat0) == nil)
        #expect(rig.edgeSwipe().isEmpty, "nothing on the touchpad")
        let sent = rig.events.compactMap { if case .backInput(let input, _, _, _, _) = $0 { input } else { nil } }
        #expect(sent == [Self.altLeft])
        rig.engine.clientDisconnected(ClientID(9), at: .zero)
        #expect(!rig.engine.navigation.focus.touchpadBridgeDeclined(on: .seat0), "forgotten with its shell")
        #expect(rig.engine.navigation.focusSummary(on: .seat0).touchpadBridge)
    }

    @Test("Only the shell says how the session scrolls, and a new shell starts from nothing")
    func onlyTheShellSays() throws {
        var rig = try Rig(natural: true)
        rig.engine.identify(ClientID(10), app: "files", pid: 7, isShell: false)
        #expect(throws: NavigationError.self) {
            try rig.engine.reportTouchpadScrolling(natural: false, by: ClientID(10), at: .zero)
        }
        #expect(rig.engine.navigation.focus.touchpadScrolling(on: .seat0) == true)
        rig.engine.clientDisconnected(ClientID(9), at: .zero)
        #expect(rig.engine.navigation.focus.touchpadScrolling(on: .seat0) == nil, "gone with its shell")
    }

    @Test("The exact frames: progress 0.02 at 0 ms, 0.1 at 1, 10, 20, 30 and 33 ms, a write of 9 ms, then a commit at 40 ms, at 60 mm per width")
    func exactFrames() throws {
        var bridge = TouchpadBridge()
        let fingers = { (x: Double) in TouchpadBridge.Fingers(xMillimetres: x, yMillimetres: [22, 38]) }
        let progress = { (p: Double) in
            EngineEvent.inputProgress(Self.touchpad, app: "firefox", seat: .seat0, progress: p, commit: 0.3, time: .zero)
        }
        let move = { (x: Double) in TouchpadBridge.Output(seat: .seat0, actions: [.move(fingers(x))]) }
        #expect(bridge.handle(progress(0.02), at: Self.ms(0)) == .init(seat: .seat0, actions: [.down(fingers(85))]),
                "down alone: no move in the same instant")
        #expect(bridge.deadline == nil, "while the finger is down, the fingers move at its events only")
        #expect(bridge.handle(progress(0.1), at: Self.ms(1)) == nil, "no move within 2 ms of the last frame")
        // 6 mm wanted: at most 0.25 mm/ms since the last frame, 2.5 mm in 10 ms.
        #expect(bridge.handle(progress(0.1), at: Self.ms(10)) == move(82.5))
        #expect(bridge.handle(progress(0.1), at: Self.ms(20)) == move(80))
        // The write took 9 ms: the next frame counts from then.
        bridge.played(at: Self.ms(29))
        #expect(bridge.handle(progress(0.1), at: Self.ms(30)) == nil)
        #expect(bridge.handle(progress(0.1), at: Self.ms(33)) == move(79), "4 ms: 1 mm, caught up at 6 mm")
        #expect(bridge.expire(at: Self.ms(40)) == nil, "no timer frames while the finger is down")
        // The commit: the goal runs on 20 mm, at 0.5 mm/ms.
        #expect(bridge.handle(.backInput(Self.touchpad, app: "firefox", seat: .seat0, reason: .progress, time: .zero),
                              at: Self.ms(40)) == move(75.5), "7 ms since the last frame: 3.5 mm")
        #expect(bridge.deadline == Self.ms(44))
        var run: [Action] = []
        while let deadline = bridge.deadline {
            let output = bridge.expire(at: deadline)
            run += try #require(output).actions
        }
        // 9.5 mm → 26 mm: 2 mm a deadline, the last 0.5 mm, then the lift in the same output.
        #expect(run == [73.5, 71.5, 69.5, 67.5, 65.5, 63.5, 61.5, 59.5, 59].map { .move(fingers($0)) } + [.lift])
        #expect(bridge.state == .idle)
        #expect(bridge.handle(.inputCancelled(app: "firefox", seat: .seat0, reason: .released, time: .zero), at: Self.ms(90)) == nil,
                "nothing is down")
    }

    /// Issue 28: the second swipe was dropped, though the comment said it played after.
    @Test("A second back while the last one's fingers still run plays after their lift: lift, down a frame later, run on, lift")
    func nextSwipeWaitsForTheLift() throws {
        var bridge = TouchpadBridge()
        let progress = { (p: Double) in
            EngineEvent.inputProgress(Self.touchpad, app: "firefox", seat: .seat0, progress: p, commit: 0.3, time: .zero)
        }
        let back = EngineEvent.backInput(Self.touchpad, app: "firefox", seat: .seat0, reason: .progress, time: .zero)
        _ = bridge.handle(progress(0), at: Self.ms(0))
        _ = bridge.handle(back, at: Self.ms(1))
        #expect(bridge.handle(progress(0.05), at: Self.ms(10)) == nil, "the first swipe's fingers are running on")
        #expect(bridge.handle(progress(0.1), at: Self.ms(11)) == nil)
        #expect(bridge.handle(back, at: Self.ms(12)) == nil, "the second swipe committed: it waits")
        var actions: [Action] = []
        while let deadline = bridge.deadline {
            let output = bridge.expire(at: deadline)
            actions += try #require(output).actions
        }
        let lifts = actions.indices.filter { actions[$0] == .lift }
        #expect(lifts.count == 2, "\(actions)")
        let firstLift = try #require(lifts.first)
        #expect(actions[firstLift + 1] == .down(.init(xMillimetres: 85, yMillimetres: [22, 38])), "the second lands after the lift")
        // Its run: progress 0.1 at 60 mm a width, 6 mm, then 20 mm on: at 85 - 26 mm it lifts.
        #expect(actions[actions.count - 2] == .move(.init(xMillimetres: 85 - 26, yMillimetres: [22, 38])))
        #expect(bridge.state == .idle)
    }

    @Test("A second swipe cancelled while the last one's fingers still run is dropped: one lift, nothing lands")
    func aCancelledWaitingSwipeIsDropped() throws {
        var bridge = TouchpadBridge()
        let progress = { (p: Double) in
            EngineEvent.inputProgress(Self.touchpad, app: "firefox", seat: .seat0, progress: p, commit: 0.3, time: .zero)
        }
        _ = bridge.handle(progress(0), at: Self.ms(0))
        _ = bridge.handle(.backInput(Self.touchpad, app: "firefox", seat: .seat0, reason: .progress, time: .zero), at: Self.ms(1))
        _ = bridge.handle(progress(0.05), at: Self.ms(10))
        _ = bridge.handle(.inputCancelled(app: "firefox", seat: .seat0, reason: .released, time: .zero), at: Self.ms(11))
        var actions: [Action] = []
        while let deadline = bridge.deadline {
            let output = bridge.expire(at: deadline)
            actions += try #require(output).actions
        }
        #expect(actions.filter { $0 == .lift }.count == 1)
        #expect(!actions.contains { if case .down = $0 { true } else { false } })
        // The next swipe after that lands at once, as any first swipe.
        #expect(bridge.handle(progress(0.1), at: Self.ms(500))?.actions == [.down(.init(xMillimetres: 85, yMillimetres: [22, 38]))])
    }

    /// Issue 28: one bridge state for every seat.
    @Test("Two seats' swipes at once: each seat's touchpad gets its own fingers down, moving and lifted; neither waits")
    func twoSeatsAtOnce() {
        let seat1 = Seat(rawValue: "seat1")!
        var bridges = TouchpadBridges()
        let progress = { (seat: Seat, p: Double) in
            EngineEvent.inputProgress(Self.touchpad, app: "firefox", seat: seat, progress: p, commit: 0.3, time: .zero)
        }
        #expect(bridges.handle(progress(.seat0, 0), at: Self.ms(0))?.seat == .seat0)
        #expect(bridges.handle(progress(seat1, 0), at: Self.ms(1))?.actions == [.down(.init(xMillimetres: 85, yMillimetres: [22, 38]))],
                "seat1 lands at once, though seat0's fingers are down")
        #expect(bridges.handle(progress(.seat0, 0.05), at: Self.ms(12))?.seat == .seat0)
        #expect(bridges.handle(progress(seat1, 0.05), at: Self.ms(13))?.seat == seat1)
        let ends = [
            bridges.handle(.backInput(Self.touchpad, app: "firefox", seat: .seat0, reason: .progress, time: .zero), at: Self.ms(20)),
            bridges.handle(.inputCancelled(app: "firefox", seat: seat1, reason: .released, time: .zero), at: Self.ms(21)),
        ]
        var lifted = Set(ends.compactMap { $0 }.filter { $0.actions.last == .lift }.map(\.seat))
        var now = Self.ms(21)
        while let deadline = bridges.deadline, now < Self.ms(10_000) {
            now = max(now, deadline)
            for output in bridges.expire(at: now) where output.actions.last == .lift { lifted.insert(output.seat) }
        }
        #expect(lifted == [.seat0, seat1])
        #expect(bridges.bridges.values.allSatisfy { $0.state == .idle })
        #expect(bridges.handle(.inputCancelled(app: nil, seat: Seat(rawValue: "seat2")!, reason: .released, time: .zero),
                               at: now) == nil, "an end on a seat with no swipe plays nothing")
    }

    @Test("After the fingers rested, a commit runs on at its speed: the first move counts at most 12 ms")
    func runAfterRestStartsAtSpeed() {
        var bridge = TouchpadBridge()
        let held = EngineEvent.inputProgress(Self.touchpad, app: nil, seat: .seat0, progress: 0.05, commit: 0.3, time: .zero)
        _ = bridge.handle(held, at: Self.ms(0))
        _ = bridge.handle(held, at: Self.ms(12))
        #expect(bridge.deadline == nil, "3 mm down, at the goal: resting")
        let lifted = bridge.handle(.backInput(Self.touchpad, app: nil, seat: .seat0, reason: .progress, time: .zero), at: Self.ms(8000))
        #expect(lifted?.actions == [.move(.init(xMillimetres: 85 - 3 - 6, yMillimetres: [22, 38]))], "6 mm: 0.5 mm/ms for 12 ms")
    }

    @Test("A timer fired early, or while the finger is down, moves nothing")
    func earlyExpiryWaits() {
        var bridge = TouchpadBridge()
        _ = bridge.handle(.inputProgress(Self.touchpad, app: nil, seat: .seat0, progress: 0.2, commit: 0.3, time: .zero), at: Self.ms(0))
        #expect(bridge.expire(at: Self.ms(10)) == nil)
        #expect(bridge.handle(.inputProgress(Self.touchpad, app: nil, seat: .seat0, progress: 0.2, commit: 0.3, time: .zero),
                              at: Self.ms(10))?.actions.count == 1, "2.5 mm at the finger's event")
        #expect(bridge.handle(.inputCancelled(app: nil, seat: .seat0, reason: .released, time: .zero), at: Self.ms(11)) == nil,
                "1 ms after the last frame: the run back waits")
        #expect(bridge.deadline == Self.ms(14))
        #expect(bridge.expire(at: Self.ms(11)) == nil, "a timer fired early")
        #expect(bridge.expire(at: Self.ms(14))?.actions == [.move(.init(xMillimetres: 84.5, yMillimetres: [22, 38]))],
                "2 mm back in 4 ms")
        #expect(bridge.expire(at: Self.ms(18))?.actions == [.move(.init(xMillimetres: 85, yMillimetres: [22, 38])), .lift],
                "where they landed, lifted")
        #expect(TouchpadBridge().deadline == nil)
        var idle = TouchpadBridge()
        #expect(idle.expire(at: Self.ms(10)) == nil)
    }

    @Test("Natural scrolling: the fingers land at 15 mm and move right")
    func naturalMovesRight() {
        var bridge = TouchpadBridge()
        let natural = BackInput(touchpad: TouchpadScroll(millimetresPerWidth: 100, scrolling: .natural))
        let seat1 = Seat(rawValue: "seat1")!
        let down = bridge.handle(.inputProgress(natural, app: nil, seat: seat1, progress: 0.25, commit: 0.3, time: .zero), at: Self.ms(0))
        #expect(down?.seat == seat1)
        #expect(down?.actions == [.down(.init(xMillimetres: 15, yMillimetres: [22, 38]))])
        let moved = bridge.handle(.inputProgress(natural, app: nil, seat: seat1, progress: 0.25, commit: 0.3, time: .zero), at: Self.ms(10))
        #expect(moved?.actions == [.move(.init(xMillimetres: 17.5, yMillimetres: [22, 38]))])
    }

    @Test("The travel stops at 70 mm, the touchpad's width less its margins")
    func travelIsBounded() {
        #expect(TouchpadBridge.travel(progress: 1, scroll: TouchpadScroll(millimetresPerWidth: 400, scrolling: .traditional)) == 70)
        #expect(TouchpadBridge.travel(progress: -0.5, scroll: .standard) == 0)
    }

    @Test("A cut-off touchpad lifts where the fingers are")
    func abandonLifts() {
        var bridge = TouchpadBridge()
        _ = bridge.handle(.inputProgress(Self.touchpad, app: nil, seat: .seat0, progress: 0.2, commit: 0.3, time: .zero), at: .zero)
        #expect(bridge.abandon() == TouchpadBridge.Output(seat: .seat0, actions: [.lift]))
        #expect(bridge.abandon() == nil)
    }

    @Test("touchpad entries parse, with a distance and the scrolling, else the session's", arguments: [
        ("touchpad", TouchpadScroll.standard),
        ("Touchpad", TouchpadScroll.standard),
        ("touchpad:80", TouchpadScroll(millimetresPerWidth: 80, scrolling: .session)),
        ("touchpad:natural", TouchpadScroll(millimetresPerWidth: 60, scrolling: .natural)),
        ("touchpad:traditional", TouchpadScroll(millimetresPerWidth: 60, scrolling: .traditional)),
        ("touchpad : 32.5 : natural", TouchpadScroll(millimetresPerWidth: 32.5, scrolling: .natural)),
        ("touchpad:400:Traditional", TouchpadScroll(millimetresPerWidth: 400, scrolling: .traditional)),
    ])
    func parses(_ text: String, _ expected: TouchpadScroll) throws {
        #expect(try TouchpadScroll.parse(text) == expected)
        #expect(try TouchpadScroll.parse(expected.description) == expected, "its spelling reads back")
    }

    @Test("wrong touchpad entries are refused with the reason", arguments: [
        ("touchpad:3", "no touchpad distance"), ("touchpad:abc", "no touchpad distance"),
        ("touchpad:nan", "no touchpad distance"), ("touchpad:60:sideways", "not understood"),
        ("touchpad:natural:80", "not understood"), ("touchpad:session", "no touchpad distance"),
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

extension TouchpadBridge {
    /// Fires every deadline up to `time`, as the daemon's timer would; the actions in order.
    mutating func expire(until time: Timestamp, seats: inout Set<Seat>) -> [Action] {
        var actions: [Action] = []
        while let deadline, deadline <= time, let output = expire(at: deadline) {
            seats.insert(output.seat)
            actions += output.actions
        }
        return actions
    }
}
