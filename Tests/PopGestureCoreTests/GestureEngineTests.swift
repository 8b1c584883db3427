import PopGestureProtocol
@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// The engine end to end on fixture devices: what crosses module lines (requests
/// under the finger, clients leaving, devices leaving, two devices at once).
@Suite struct GestureEngineTests {
    static let app = ClientID(1)
    static let other = ClientID(2)

    struct Rig {
        var engine = GestureEngine()
        var screen: DeviceID
        var script: TouchScript
        var events: [EngineEvent] = []

        init(
            device: DeviceDescription = Fixtures.touchscreen, configuration: DeviceConfiguration = .init(),
            pages: [String] = ["root", "detail"]
        ) throws {
            script = TouchScript(device: device)
            try engine.perform(.create(navigator: "main", pages: pages.map { Page(id: $0) }, layout: nil,
                                       barFollowsTopPage: true), from: GestureEngineTests.app, at: script.time)
            engine.drainEvents { _ in }
            screen = engine.addDevice(device, configuration: configuration)
        }

        /// Feeds what the script wrote since the last call.
        mutating func feed(from device: DeviceID? = nil) {
            for event in script.events.dropFirst(fed) { engine.handle(event, from: device ?? screen) }
            fed = script.events.count
            engine.drainEvents { events.append($0) }
        }
        private var fed = 0

        mutating func request(
            _ request: NavigationRequest, from client: ClientID = GestureEngineTests.app
        ) throws(NavigationError) {
            try engine.perform(request, from: client, at: script.time)
            engine.drainEvents { events.append($0) }
        }
    }

    @Test("A swipe across a quarter of the screen, resting before release, commits on progress")
    func commitOnProgress() throws {
        var rig = try Rig()
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 0.35 * rig.script.panelSize.width, 0, over: .milliseconds(900))
        rig.script.rest(.milliseconds(200))
        rig.script.up()
        rig.feed()
        let kinds = rig.events.map(\.kind)
        #expect(kinds.first == "pop-began")
        #expect(Array(kinds.suffix(3)) == ["pop-finished", "back", "bar"])
        #expect(rig.events.contains(.back(navigator: "main", owner: Self.app, popped: "detail", top: "root",
                                          time: rig.script.time)))
        #expect(rig.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root"])
        #expect(rig.engine.arbiterState == .idle)
    }

    @Test("After a committed back the navigator is transitioning until the client settles")
    func transitioningAfterBack() throws {
        var rig = try Rig(pages: ["a", "b", "c"])
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 40, 0, over: .milliseconds(100))
        rig.script.up()
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 40, 0, over: .milliseconds(100))
        rig.script.up()
        rig.feed()
        #expect(rig.events.filter { $0.kind == "back" }.count == 1)
        #expect(rig.events.contains { if case .rejected(.transitioning, _, _) = $0 { true } else { false } })
        try rig.request(.settle(navigator: "main"))
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 40, 0, over: .milliseconds(100))
        rig.script.up()
        rig.feed()
        #expect(rig.engine.navigation.navigators["main"]?.pages.map(\.id) == ["a"])
    }

    @Test("A client that pops its own page under the finger cancels the interactive pop")
    func stackChangedUnderTheFinger() throws {
        var rig = try Rig(pages: ["a", "b", "c"])
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 30, 0, over: .milliseconds(100))
        rig.feed()
        #expect(rig.events.first?.kind == "pop-began")
        try rig.request(.pop(navigator: "main", animated: false))
        #expect(rig.events.contains { if case .popCancelled(_, .stackChanged, _) = $0 { true } else { false } })
        rig.script.move(byMillimetres: 40, 0, over: .milliseconds(60))
        rig.script.up()
        rig.feed()
        #expect(!rig.events.contains { $0.kind == "back" }, "the rest of that swipe pops nothing")
        #expect(rig.engine.navigation.navigators["main"]?.pages.map(\.id) == ["a", "b"])
        #expect(rig.engine.arbiterState == .idle)
    }

    @Test("Updating a page's properties under the finger does not cancel the pop")
    func updateKeepsThePop() throws {
        var rig = try Rig()
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 30, 0, over: .milliseconds(100))
        rig.feed()
        try rig.request(.update(navigator: "main", page: Page(id: "detail", prefersBarHidden: true)))
        rig.script.move(byMillimetres: 40, 0, over: .milliseconds(60))
        rig.script.up()
        rig.feed()
        #expect(rig.events.contains { $0.kind == "back" })
    }

    @Test("A client that leaves mid-swipe takes its navigator along; the swipe pops nothing")
    func clientLeaves() throws {
        var rig = try Rig()
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 30, 0, over: .milliseconds(100))
        rig.feed()
        rig.engine.clientDisconnected(Self.app, at: rig.script.time)
        rig.engine.drainEvents { rig.events.append($0) }
        rig.script.move(byMillimetres: 40, 0, over: .milliseconds(60))
        rig.script.up()
        rig.feed()
        #expect(rig.engine.navigation.navigators.isEmpty)
        #expect(rig.engine.navigation.front(on: .seat0) == nil)
        #expect(!rig.events.contains { $0.kind == "back" })
    }

    @Test("Unplugging mid-swipe cancels the pop; events from the gone device are ignored")
    func deviceRemoved() throws {
        var rig = try Rig()
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 30, 0, over: .milliseconds(100))
        rig.feed()
        rig.engine.removeDevice(rig.screen, at: rig.script.time)
        rig.engine.drainEvents { rig.events.append($0) }
        #expect(rig.events.contains { if case .popCancelled(_, .deviceRemoved, _) = $0 { true } else { false } })
        rig.script.up()
        rig.feed()
        #expect(rig.engine.arbiterState == .idle)
        #expect(!rig.events.contains { $0.kind == "back" })
    }

    @Test("Plugging and unplugging 1,000 times reuses the freed id: storage stays at the devices present")
    func hotplugChurnReusesIDs() throws {
        var rig = try Rig()
        for _ in 0..<1_000 {
            let id = rig.engine.addDevice(Fixtures.touchpad, configuration: DeviceConfiguration(kind: .touchpad))
            #expect(id == DeviceID(1))
            #expect(rig.engine.deviceSlotCount == 2)
            rig.engine.removeDevice(id, at: rig.script.time)
        }
        #expect(rig.engine.deviceSlotCount == 1)
        rig.engine.removeDevice(rig.screen, at: rig.script.time)
        #expect(rig.engine.deviceSlotCount == 0)
        // The lowest free id is taken first: with 0 free and 1 present, the next is 0.
        let first = rig.engine.addDevice(Fixtures.touchscreen)
        let second = rig.engine.addDevice(Fixtures.touchscreen)
        rig.engine.removeDevice(first, at: rig.script.time)
        #expect(rig.engine.deviceSlotCount == 2)
        #expect(rig.engine.addDevice(Fixtures.touchscreen) == first)
        #expect(rig.engine.addDevice(Fixtures.touchscreen) == DeviceID(second.rawValue + 1))
    }

    @Test("A device that takes a removed device's id starts clean: no touches, frame or pan carried over")
    func reusedIDStartsClean() throws {
        var rig = try Rig()
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 30, 0, over: .milliseconds(100))
        rig.script.down(1, at: 0.5, 0.5)  // a second finger, its frame left unfinished
        let unfinished = rig.script.events.dropLast()  // everything but the last SYN_REPORT
        for event in unfinished { rig.engine.handle(event, from: rig.screen) }
        rig.engine.drainEvents { rig.events.append($0) }
        #expect(rig.engine.touches(of: rig.screen)?.fingerCount ?? 0 > 0)
        rig.engine.removeDevice(rig.screen, at: rig.script.time)
        rig.engine.drainEvents { rig.events.append($0) }
        #expect(rig.engine.arbiterState == .idle)

        let reused = rig.engine.addDevice(Fixtures.touchscreen)
        #expect(reused == rig.screen)
        #expect(rig.engine.touches(of: reused)?.fingerCount == 0)
        #expect(rig.engine.arbiterState == .idle)
        // A whole swipe on the new device goes back, as on a device never seen before.
        var fresh = TouchScript(device: Fixtures.touchscreen, start: rig.script.time)
        fresh.down(at: 0.1, 0.5)
        fresh.move(byMillimetres: 0.35 * fresh.panelSize.width, 0, over: .milliseconds(900))
        fresh.rest(.milliseconds(200))
        fresh.up()
        rig.events.removeAll()
        for event in fresh.events { rig.engine.handle(event, from: reused) }
        rig.engine.drainEvents { rig.events.append($0) }
        #expect(rig.events.filter { $0.kind == "back" }.count == 1)
        #expect(rig.engine.arbiterState == .idle)
    }

    @Test("A second device's pan while one is being tracked is rejected as busy")
    func busy() throws {
        var rig = try Rig()
        let second = rig.engine.addDevice(Fixtures.touchscreen)
        var other = TouchScript(device: Fixtures.touchscreen, start: rig.script.time)
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 30, 0, over: .milliseconds(50))
        rig.feed()
        other.down(at: 0.5, 0.5)
        other.move(byMillimetres: 30, 0, over: .milliseconds(50))
        for event in other.events { rig.engine.handle(event, from: second) }
        rig.engine.drainEvents { rig.events.append($0) }
        #expect(rig.events.contains { if case .rejected(.busy, let d, _) = $0 { d == second } else { false } })
        rig.script.move(byMillimetres: 30, 0, over: .milliseconds(50))
        rig.script.up()
        rig.feed()
        #expect(rig.events.filter { $0.kind == "back" }.count == 1)
    }

    @Test("Two touchscreens: a pan on the second while the first's pop is tracked or animating never joins or follows it")
    func secondScreenNeverInterleaves() throws {
        var rig = try Rig(pages: ["root", "middle", "detail"])
        let small = Fixtures.slotTouchscreen(name: "Second Screen", x: 0...2170, y: 0...1360, resolution: 10)
        let second = rig.engine.addDevice(small)
        var other = TouchScript(device: small, start: rig.script.time)
        func feedOther() {
            for event in other.events.dropFirst(otherFed) { rig.engine.handle(event, from: second) }
            otherFed = other.events.count
            var produced: [EngineEvent] = []
            rig.engine.drainEvents { produced.append($0) }
            rig.events += produced
        }
        var otherFed = 0
        // The first screen's pop: from 2 % of the width, 100 mm to the right (39 % of it).
        rig.script.down(at: 0.02, 0.5)
        rig.script.move(byMillimetres: 100, 0, over: .milliseconds(250))
        rig.feed()
        let progressBefore = rig.events.compactMap { if case .popProgress(_, let p, _) = $0 { p } else { nil } }.last
        // A second finger on the other screen, from its left edge, 100 mm to the right.
        other.rest(.milliseconds(250))
        other.down(at: 0.02, 0.5)
        other.move(byMillimetres: 100, 0, over: .milliseconds(100))
        feedOther()
        #expect(rig.events.filter { if case .rejected(.busy, let d, _) = $0 { d == second } else { false } }.count == 1)
        let progressAfter = rig.events.compactMap { if case .popProgress(_, let p, _) = $0 { p } else { nil } }.last
        #expect(progressAfter == progressBefore, "the other screen's finger moved the pop")
        // The first lifts: its own pop commits, once.
        rig.script.rest(.milliseconds(200))
        rig.script.up()
        rig.feed()
        #expect(rig.events.filter { $0.kind == "back" }.count == 1)
        // The other finger goes on and lifts: it never becomes a pop of its own.
        let count = rig.events.count
        other.move(byMillimetres: 20, 0, over: .milliseconds(50))
        other.up()
        feedOther()
        #expect(rig.events.count == count, "\(rig.events.dropFirst(count))")
        #expect(rig.engine.arbiterState == .idle)
        // While the committed pop animates, a fresh swipe on the other screen is refused.
        other.rest(.milliseconds(100))
        other.down(at: 0.02, 0.5)
        other.move(byMillimetres: 60, 0, over: .milliseconds(100))
        other.up()
        feedOther()
        // From the edge toward the back: it looked like a back, and says it was refused.
        #expect(rig.events.dropFirst(count).map(\.kind) == ["rejected", "refused"])
        #expect(rig.events.dropFirst(count).allSatisfy {
            switch $0 {
            case .rejected(.transitioning, let d, _), .refused(.transitioning, let d, _): d == second
            default: false
            }
        })
        #expect(rig.events.filter { $0.kind == "back" }.count == 1)
    }

    @Test("Two touchscreens: each one's start distance is in its own millimetres")
    func eachScreenInItsOwnMillimetres() throws {
        // The same 8.5 % of the width is 18.4 mm on a 217 mm screen and 21.8 mm on a 255.9 mm one.
        let small = Fixtures.slotTouchscreen(name: "Second Screen", x: 0...2170, y: 0...1360, resolution: 10)
        for (device, backs) in [(small, 1), (Fixtures.touchscreen, 0)] {
            var rig = try Rig()
            try rig.request(.update(navigator: "main", page: Page(id: "detail", maxStartDistanceMillimetres: 20)))
            let id = rig.engine.addDevice(device)
            var script = TouchScript(device: device, start: rig.script.time)
            script.down(at: 0.085, 0.5)
            script.move(byMillimetres: 60, 0, over: .milliseconds(150))
            script.up()
            for event in script.events { rig.engine.handle(event, from: id) }
            rig.engine.drainEvents { rig.events.append($0) }
            #expect(rig.events.filter { $0.kind == "back" }.count == backs, "\(device.name): \(rig.events)")
        }
    }

    @Test("A palm resting at the left bezel, a finger down at 2 % of the width, a move of 40 mm to the right, then up: back")
    func backBesideARestingPalm() throws {
        var rig = try Rig()
        rig.script.down(0, at: 0.005, 0.6, palm: true)
        rig.script.down(1, at: 0.02, 0.5)
        rig.script.move(1, byMillimetres: 40, 0, over: .milliseconds(200))
        rig.script.up(1)
        rig.script.up(0)
        rig.feed()
        #expect(rig.events.filter { $0.kind == "back" }.count == 1)
        #expect(rig.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root"])
        #expect(rig.engine.arbiterState == .idle)
    }

    @Test("Two fingers landing in the same frame are rejected as extra-finger, once")
    func fingersLandingTogetherAreRejected() throws {
        var rig = try Rig()
        let start = rig.script.time
        let talk = Fixtures.Talk(startingAt: start)
        PanRecognizerTests.twoFingersLandTogether(talk, steps: 10)
        for event in talk.take() { rig.engine.handle(event, from: rig.screen) }
        rig.engine.drainEvents { rig.events.append($0) }
        #expect(rig.events == [.rejected(.extraFinger, device: rig.screen, time: start)])
    }

    @Test("A 5 mm flick in 16 ms is no fling: released short of the commit progress, it is cancelled")
    func aShortFlickIsNoFling() throws {
        var rig = try Rig()
        rig.script.frameInterval = .milliseconds(8)
        rig.script.down(at: 0.1, 0.5)
        rig.script.move(byMillimetres: 5, 0, over: .milliseconds(16))
        rig.script.up()
        rig.feed()
        #expect(rig.events.first?.kind == "pop-began")
        #expect(rig.events.contains { if case .popCancelled(_, .released, _) = $0 { true } else { false } })
        #expect(!rig.events.contains { $0.kind == "back" })
    }

    @Test("On a touchpad, two fingers swiping right go back; one finger is pointer motion")
    func touchpad() throws {
        var rig = try Rig(device: Fixtures.touchpad, configuration: DeviceConfiguration(kind: .touchpad))
        rig.script.down(0, at: 0.3, 0.5)
        rig.script.move(0, byMillimetres: 30, 0, over: .milliseconds(100))
        rig.script.up(0)
        rig.feed()
        #expect(rig.events.isEmpty)
        rig.script.down(0, at: 0.2, 0.4)
        rig.script.down(1, at: 0.3, 0.6)
        rig.script.move([0, 1], byMillimetres: 40, 0, over: .milliseconds(100))
        rig.script.up(0)
        rig.script.up(1)
        rig.feed()
        #expect(rig.events.contains { $0.kind == "back" })
    }

    @Test("Two fingers resting 0.5 s on a touchpad, then swiping 40 mm right, go back; one finger resting as long on a touchscreen is a long press")
    func aTouchpadHasNoLongPress() throws {
        var rig = try Rig(device: Fixtures.touchpad, configuration: DeviceConfiguration(kind: .touchpad))
        rig.script.down(0, at: 0.2, 0.4)
        rig.script.down(1, at: 0.3, 0.6)
        rig.script.rest(.milliseconds(500))
        rig.script.move([0, 1], byMillimetres: 40, 0, over: .milliseconds(100))
        rig.script.up(0)
        rig.script.up(1)
        rig.feed()
        #expect(rig.events.contains { $0.kind == "back" }, "\(rig.events)")

        var screen = try Rig()
        screen.script.down(at: 0.3, 0.5)
        screen.script.rest(.milliseconds(500))
        screen.script.move(byMillimetres: 40, 0, over: .milliseconds(100))
        screen.script.up()
        screen.feed()
        #expect(screen.events.contains { if case .rejected(.longPress, _, _) = $0 { true } else { false } })
        #expect(!screen.events.contains { $0.kind == "back" })
    }

    @Test("Requests on another client's navigator are refused and change nothing")
    func ownership() throws {
        var rig = try Rig()
        for request in [NavigationRequest.push(navigator: "main", page: Page(id: "x"), animated: false),
                        .pop(navigator: "main", animated: false), .settle(navigator: "main")] {
            do {
                try rig.request(request, from: Self.other)
                Issue.record("\(request) was accepted from another client")
            } catch {
                #expect(error.code == .notOwner)
            }
        }
        #expect(rig.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root", "detail"])
    }

    @Test("Every top change tells the owner the bar visibility of the new top")
    func barFollowsTop() throws {
        var rig = try Rig()
        try rig.request(.push(navigator: "main", page: Page(id: "video", prefersBarHidden: true), animated: false))
        try rig.request(.pop(navigator: "main", animated: false))
        #expect(rig.events == [
            .bar(navigator: "main", owner: Self.app, page: "video", hidden: true),
            .bar(navigator: "main", owner: Self.app, page: "detail", hidden: false),
        ])
    }
}

extension EngineEvent {
    /// The type a client sees.
    var kind: String { ServerEvent(self).kind.rawValue }
}
