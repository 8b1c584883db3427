@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// Grab mode's router driven the way the engine side drives it: each frame goes to the
/// engine, then to the router with the engine's verdict, and a fake clone carries out
/// the actions and tells what the app would see, as `libinput debug-events` would.
@Suite struct TouchRouterTests {
    /// What the app sees of the clone: per contact `down`, `motion`, `up` or `cancel`.
    struct Clone {
        /// Every event written, cancels included.
        var written: [InputEvent] = []
        var seen: [String] = []
        private var slot = 0
        private var ids = [Int32](repeating: -1, count: 16)
        private var tools = [Int32](repeating: MTTool.finger, count: 16)
        private var cancelled = Set<Int>()
        private var moved = Set<Int>()
        private var landed = Set<Int>()
        private(set) var touching = false

        mutating func carryOut(_ action: TouchRouter.Action, frame: [InputEvent], router: TouchRouter) {
            switch action {
            case .nothing: break
            case .forward: write(frame)
            case .forwardExcept, .release: write(router.output)
            case .cancel(let slots):
                let time = frame.last?.time ?? .zero
                for s in slots {
                    write([
                        InputEvent(time: time, type: EV.abs, code: ABS.mtSlot, value: Int32(s)),
                        InputEvent(time: time, type: EV.abs, code: ABS.mtToolType, value: MTTool.palm),
                        InputEvent(time: time, type: EV.abs, code: ABS.mtTrackingID, value: -1),
                        InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0),
                    ])
                }
                write(router.output)
            }
        }

        /// libinput's reading: a palm on a live slot cancels it, a new contact in a slot
        /// still marked palm is swallowed.
        mutating func write(_ events: [InputEvent]) {
            for e in events {
                written.append(e)
                switch (e.type, e.code) {
                case (EV.abs, ABS.mtSlot): slot = Int(e.value)
                case (EV.abs, ABS.mtToolType):
                    tools[slot] = e.value
                    if e.value == MTTool.palm && ids[slot] >= 0 && !cancelled.contains(slot) {
                        seen.append("cancel \(slot)")
                        cancelled.insert(slot)
                    }
                case (EV.abs, ABS.mtTrackingID):
                    if e.value < 0 {
                        if ids[slot] >= 0 && !cancelled.contains(slot) { seen.append("up \(slot)") }
                        cancelled.remove(slot)
                    } else if e.value != ids[slot] {
                        if tools[slot] == MTTool.palm {
                            seen.append("swallowed \(slot)")
                        } else {
                            seen.append("down \(slot)")
                            landed.insert(slot)
                        }
                    }
                    ids[slot] = e.value
                    moved.remove(slot)
                case (EV.abs, ABS.mtPositionX), (EV.abs, ABS.mtPositionY):
                    if ids[slot] >= 0 && !landed.contains(slot) { moved.insert(slot) }
                case (EV.key, BTN.touch): touching = e.value != 0
                case (EV.syn, SYN.report):
                    for s in moved.sorted() where ids[s] >= 0 && !cancelled.contains(s) { seen.append("motion \(s)") }
                    moved.removeAll()
                    landed.removeAll()
                default: break
                }
            }
        }

        /// `seen` with runs of motion folded: `["down 0", "motion 0", "up 0"]`.
        var summary: [String] {
            var out: [String] = []
            for s in seen where !(s.hasPrefix("motion") && out.last == s) { out.append(s) }
            return out
        }
    }

    struct Rig {
        var engine: GestureEngine
        var router: TouchRouter
        var clone = Clone()
        var script: TouchScript
        var screen: DeviceID
        var actions: [TouchRouter.Action] = []
        var engineEvents: [EngineEvent] = []
        /// Every event the real device sent.
        var sent: [InputEvent] = []
        private var fed = 0

        init(
            mode: GestureMode = .fullscreen, pages: [String] = ["root", "detail"],
            device: DeviceDescription = Fixtures.touchscreen
        ) throws {
            script = TouchScript(device: device)
            var settings = GestureSettings()
            settings.mode = mode
            engine = GestureEngine(settings: settings)
            try engine.perform(.create(navigator: "main", pages: pages.map { Page(id: $0) }, layout: nil,
                                       barFollowsTopPage: true), from: ClientID(1), at: script.time)
            engine.drainEvents { _ in }
            screen = engine.addDevice(device)
            router = TouchRouter(device: device)
        }

        /// Feeds what the script wrote since the last call, frame by frame, as the engine
        /// side does: engine first, then the router with the engine's verdict.
        mutating func feed() {
            var frame: [InputEvent] = []
            for event in script.events.dropFirst(fed) {
                frame.append(event)
                guard event.isFrameEnd else { continue }
                for e in frame { engine.handle(e, from: screen) }
                engine.drainEvents { engineEvents.append($0) }
                // A timer would fire first when the deadline passed before this frame.
                if let deadline = router.holdDeadline, deadline < event.time {
                    let expired = router.expire(at: deadline)
                    actions.append(expired)
                    clone.carryOut(expired, frame: [], router: router)
                }
                let action = router.handle(frame: frame, verdict: engine.touchVerdict(of: screen))
                actions.append(action)
                clone.carryOut(action, frame: frame, router: router)
                sent += frame
                frame.removeAll()
            }
            fed = script.events.count
        }

        var began: Bool { engineEvents.contains { if case .popBegan = $0 { true } else { false } } }
        var wentBack: Bool { engineEvents.contains { if case .back = $0 { true } else { false } } }
    }

    // MARK: - Passthrough

    @Test("A tap in the middle passes through unchanged")
    func tapPassesThrough() throws {
        var rig = try Rig()
        rig.script.down(at: 0.5, 0.5)
        rig.script.up()
        rig.feed()
        #expect(rig.actions == [.forward, .forward])
        #expect(rig.clone.written == rig.sent)
        #expect(rig.clone.summary == ["down 0", "up 0"])
        #expect(!rig.clone.touching)
    }

    @Test("A vertical scroll passes through unchanged, frame by frame")
    func scrollPassesThrough() throws {
        var rig = try Rig()
        rig.script.down(at: 0.5, 0.3)
        rig.script.move(byMillimetres: 0, 60, over: .milliseconds(300))
        rig.script.up()
        rig.feed()
        #expect(rig.actions.allSatisfy { $0 == .forward })
        #expect(rig.clone.written == rig.sent)
        #expect(rig.clone.summary == ["down 0", "motion 0", "up 0"])
        #expect(!rig.began)
    }

    @Test("A two-finger gesture passes through with both contacts, in order")
    func twoFingersPassThrough() throws {
        var rig = try Rig()
        rig.script.down(0, at: 0.4, 0.5)
        rig.script.down(1, at: 0.6, 0.5)
        rig.script.move([0, 1], byMillimetres: 40, 0, over: .milliseconds(200))
        rig.script.up(0)
        rig.script.up(1)
        rig.feed()
        #expect(rig.actions.allSatisfy { $0 == .forward })
        #expect(rig.clone.written == rig.sent)
        #expect(rig.clone.seen.contains("motion 1"))
        #expect(rig.clone.seen.filter { !$0.hasPrefix("motion") } == ["down 0", "down 1", "up 0", "up 1"])
        #expect(!rig.began)
    }

    @Test("Grabbed while the real device is at slot 2, a touch with no ABS_MT_SLOT is slot 2's")
    func routingStartsAtTheRealCurrentSlot() throws {
        let device = Fixtures.touchscreen
        var router = TouchRouter(device: device, currentSlot: 2)
        let t = Timestamp(microseconds: 1_000_000)
        func abs(_ code: UInt16, _ value: Int32) -> InputEvent { InputEvent(time: t, type: EV.abs, code: code, value: value) }
        let syn = InputEvent(time: t, type: EV.syn, code: SYN.report, value: 0)
        let landing = [abs(ABS.mtTrackingID, 40), abs(ABS.mtPositionX, 500), abs(ABS.mtPositionY, 500), syn]
        _ = router.handle(frame: landing, verdict: .none)
        #expect(router.state(of: 2) == .passthrough)
        #expect(router.state(of: 0) == .idle)
        // The back claims slot 2: the cancel names it.
        let moving = [abs(ABS.mtPositionX, 600), syn]
        #expect(router.handle(frame: moving, verdict: .back([2])) == .cancel([2]))
        #expect(router.state(of: 2) == .claimed)
    }

    // MARK: - Cancel path

    @Test("A fullscreen back swipe: frames pass until the pan begins, then the slot is cancelled, never lifted")
    func fullscreenBackIsCancelled() throws {
        var rig = try Rig()
        rig.script.down(at: 0.3, 0.5)
        // 2 mm a frame: the first move is not yet past the decision distance.
        rig.script.move(byMillimetres: 80, 0, over: .milliseconds(400))
        rig.script.up()
        rig.feed()
        #expect(rig.wentBack)
        let cancel = try #require(rig.actions.firstIndex(of: .cancel([0])))
        #expect(cancel > 0)
        #expect(rig.actions[..<cancel].allSatisfy { $0 == .forward })
        #expect(rig.actions[(cancel + 1)...].allSatisfy { $0 == .nothing })
        #expect(rig.clone.summary == ["down 0", "motion 0", "cancel 0"])
        #expect(!rig.clone.touching, "BTN_TOUCH follows the cancel")
        #expect(rig.router.state(of: 0) == .idle)

        // The app gets the next touch in that slot whole, though the clone's slot was a palm.
        rig.script.down(at: 0.5, 0.5)
        rig.script.up()
        rig.feed()
        #expect(Array(rig.clone.summary.suffix(2)) == ["down 0", "up 0"])
    }

    @Test("A finger landing during a back passes through; the claimed one stays off the clone")
    func secondFingerDuringBackIsSplit() throws {
        var rig = try Rig()
        rig.script.down(0, at: 0.3, 0.5)
        rig.script.move(0, byMillimetres: 40, 0, over: .milliseconds(200))
        rig.script.down(1, at: 0.7, 0.2)
        rig.script.move([0, 1], byMillimetres: 10, 10, over: .milliseconds(50))
        rig.script.up(0)
        rig.script.up(1)
        rig.feed()
        #expect(rig.actions.contains(.cancel([0])))
        #expect(rig.actions.contains(.forwardExcept([0])))
        #expect(rig.clone.summary == ["down 0", "motion 0", "cancel 0", "down 1", "motion 1", "up 1"])
        #expect(rig.router.slotsDownOnClone.isEmpty)
    }

    // MARK: - Delay path

    @Test("An edge-mode back swipe from 1 % of the width: nothing at all reaches the clone")
    func edgeBackShowsNothing() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.01, 0.5)
        rig.script.move(byMillimetres: 80, 0, over: .milliseconds(200))
        rig.script.up()
        rig.feed()
        #expect(rig.wentBack)
        #expect(rig.clone.written.isEmpty)
        #expect(rig.actions.allSatisfy { $0 == .nothing })
        #expect(rig.router.holdDeadline == nil)
    }

    @Test("An edge touch that turns out to be a scroll is released with all its held frames, in order")
    func edgeScrollIsReleased() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.01, 0.3)
        rig.script.move(byMillimetres: 0, 60, over: .milliseconds(200))
        rig.script.up()
        rig.feed()
        let release = try #require(rig.actions.firstIndex(of: .release))
        #expect(release > 0, "held for a few frames first")
        #expect(rig.actions[..<release].allSatisfy { $0 == .nothing })
        #expect(rig.clone.written == rig.sent, "the same events, times included, in the same order")
        #expect(rig.clone.summary == ["down 0", "motion 0", "up 0"])
    }

    @Test("An edge tap arrives whole when the finger lifts")
    func edgeTapArrivesWhole() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.01, 0.5)
        rig.script.up()
        rig.feed()
        #expect(rig.actions == [.nothing, .release])
        #expect(rig.clone.written == rig.sent)
        #expect(rig.clone.summary == ["down 0", "up 0"])
    }

    @Test("A touch away from the edge in edge mode is never delayed")
    func edgeModeMiddleIsNotHeld() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.5, 0.5)
        rig.feed()
        #expect(rig.actions == [.forward])
        #expect(rig.router.state(of: 0) == .passthrough)
        #expect(rig.router.holdDeadline == nil)
    }

    @Test("A second finger releases a hold first, then lands")
    func secondFingerReleasesHold() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(0, at: 0.01, 0.5)
        rig.script.move(0, byMillimetres: 1, 0, over: .milliseconds(20))
        rig.feed()
        #expect(rig.router.state(of: 0) == .holding)
        #expect(rig.clone.written.isEmpty)
        rig.script.down(1, at: 0.5, 0.5)
        rig.feed()
        #expect(rig.actions.last == .release)
        #expect(rig.clone.written == rig.sent)
        #expect(rig.clone.summary == ["down 0", "motion 0", "down 1"])
        #expect(rig.router.state(of: 0) == .passthrough)
        #expect(rig.router.state(of: 1) == .passthrough)
    }

    @Test("The hold's deadline releases a resting edge touch; a back after it is cancelled instead")
    func deadlineReleases() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.01, 0.5)
        rig.feed()
        let landed = rig.sent.last!.time
        #expect(rig.router.holdDeadline == landed + TouchRouter.holdLimit)
        #expect(rig.router.expire(at: landed + .milliseconds(249)) == .nothing)
        #expect(rig.router.state(of: 0) == .holding)

        let expired = rig.router.expire(at: landed + .milliseconds(250))
        #expect(expired == .release)
        rig.clone.carryOut(expired, frame: [], router: rig.router)
        #expect(rig.clone.written == rig.sent)
        #expect(rig.clone.summary == ["down 0"])
        #expect(rig.router.holdDeadline == nil)

        // Degraded, never lost: the back still happens, through the cancel path.
        rig.script.rest(.milliseconds(300))
        rig.script.move(byMillimetres: 80, 0, over: .milliseconds(400))
        rig.script.up()
        rig.feed()
        #expect(rig.wentBack)
        #expect(rig.actions.contains(.cancel([0])))
        #expect(rig.clone.summary == ["down 0", "motion 0", "cancel 0"])
    }

    @Test("A frame after the deadline releases the hold before it is written")
    func lateFrameReleases() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.01, 0.5)
        rig.feed()
        // No timer in this test: the next frame comes after the deadline.
        var router = rig.router
        var script = rig.script
        script.rest(.milliseconds(400))
        script.move(byMillimetres: 0, 1, over: .milliseconds(10))
        let frame = Array(script.events.dropFirst(rig.sent.count))
        for e in frame { rig.engine.handle(e, from: rig.screen) }
        #expect(router.handle(frame: frame, verdict: rig.engine.touchVerdict(of: rig.screen)) == .release)
        #expect(router.output == rig.sent + frame)
    }

    @Test("A single-touch screen: a tap passes through, an edge back never reaches the clone")
    func singleTouch() throws {
        var rig = try Rig(mode: .edge, device: Fixtures.singleTouch)
        rig.script.down(at: 0.5, 0.5)
        rig.script.up()
        rig.feed()
        #expect(rig.actions == [.forward, .forward])
        #expect(rig.clone.written == rig.sent)

        let before = rig.clone.written.count
        rig.script.down(at: 0.01, 0.5)
        rig.script.move(byMillimetres: 80, 0, over: .milliseconds(400))
        rig.script.up()
        rig.feed()
        #expect(rig.wentBack)
        #expect(rig.clone.written.count == before)
    }

    // MARK: - Lost events and removal

    @Test("After SYN_DROPPED, a contact that vanished is cancelled on the clone, not lifted")
    func droppedEventsCancel() throws {
        var rig = try Rig()
        rig.script.down(0, at: 0.4, 0.5)
        rig.script.down(1, at: 0.6, 0.5)
        rig.feed()
        rig.script.dropEvents(lost: [0])
        rig.feed()
        #expect(rig.actions.last == .cancel([0]))
        #expect(rig.clone.summary == ["down 0", "down 1", "cancel 0"])
        #expect(!rig.clone.written.contains { $0.type == EV.syn && $0.code == SYN.dropped })
        #expect(rig.router.slotsDownOnClone == [1])
        #expect(rig.clone.touching)
    }

    @Test("A held edge touch that vanishes in a resync never reaches the clone")
    func droppedEventsDropHold() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.01, 0.5)
        rig.feed()
        rig.script.dropEvents(lost: [0])
        rig.feed()
        #expect(rig.clone.written.isEmpty)
        #expect(rig.router.holdDeadline == nil)
        #expect(rig.router.state(of: 0) == .idle)
    }

    @Test("A held edge touch still down after a resync is released: what it did meanwhile is unknown")
    func droppedEventsReleaseHold() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.01, 0.5)
        rig.feed()
        rig.script.dropEvents(lost: [])
        rig.feed()
        #expect(rig.actions.last == .release)
        #expect(rig.clone.summary == ["down 0"])
        #expect(rig.router.state(of: 0) == .passthrough)
    }

    @Test("Removal cancels every contact the clone has down, and only those")
    func removalCancelsAll() throws {
        var rig = try Rig()
        rig.script.down(0, at: 0.4, 0.5)
        rig.script.down(1, at: 0.6, 0.5)
        rig.feed()
        let action = rig.router.cancelAll(at: rig.script.time)
        #expect(action == .cancel([0, 1]))
        rig.clone.carryOut(action, frame: [], router: rig.router)
        #expect(rig.clone.summary == ["down 0", "down 1", "cancel 0", "cancel 1"])
        #expect(!rig.clone.touching)
        #expect(rig.router.slotsDownOnClone.isEmpty)
        #expect(rig.router.cancelAll(at: rig.script.time) == .nothing)
    }

    @Test("Removal during a hold drops it: the clone never had the touch")
    func removalDuringHold() throws {
        var rig = try Rig(mode: .edge)
        rig.script.down(at: 0.01, 0.5)
        rig.feed()
        #expect(rig.router.cancelAll(at: rig.script.time) == .nothing)
        #expect(rig.router.holdDeadline == nil)
        #expect(rig.clone.written.isEmpty)
    }

    // MARK: - The engine's verdict

    @Test("The engine's verdict: deciding and holdable at the edge in edge mode only, then back on the pan's slot")
    func engineVerdict() throws {
        var edge = try Rig(mode: .edge)
        edge.script.down(at: 0.01, 0.5)
        edge.feed()
        #expect(edge.engine.touchVerdict(of: edge.screen) == .deciding(holdable: true))
        edge.script.move(byMillimetres: 40, 0, over: .milliseconds(100))
        edge.feed()
        #expect(edge.engine.touchVerdict(of: edge.screen) == .back([0]))

        var fullscreen = try Rig()
        fullscreen.script.down(at: 0.01, 0.5)
        fullscreen.feed()
        #expect(fullscreen.engine.touchVerdict(of: fullscreen.screen) == .deciding(holdable: false))

        // A stack with nothing to pop holds nothing, even at the edge.
        var root = try Rig(mode: .edge, pages: ["root"])
        root.script.down(at: 0.01, 0.5)
        root.feed()
        #expect(root.engine.touchVerdict(of: root.screen) == .deciding(holdable: false))
        #expect(root.actions == [.forward])
    }
}
