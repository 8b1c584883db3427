import PopGestureProtocol
@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// Where a committed back goes: the focused app's navigator in front, or the back
/// input for an app without one, and never an app out of focus.
@Suite struct RoutingTests {
    static let files = ClientID(1)
    static let maps = ClientID(2)
    static let shell = ClientID(9)
    static let altLeft = BackInput(codes: [56, 105], spelling: "alt+left")!
    static let mouseBack = BackInput(codes: [0x113], spelling: "side")!

    struct Rig {
        var engine: GestureEngine
        var screen: DeviceID
        var script: TouchScript
        var events: [EngineEvent] = []
        private var fed = 0

        init(backInput: BackInputMap = BackInputMap(standard: RoutingTests.altLeft)) {
            var settings = GestureSettings()
            settings.backInput = backInput
            engine = GestureEngine(settings: settings)
            script = TouchScript(device: Fixtures.touchscreen)
            screen = engine.addDevice(Fixtures.touchscreen)
        }

        mutating func navigator(_ id: String, of client: ClientID, app: String? = nil, pid: Int32? = nil) throws {
            engine.identify(client, app: app, pid: pid, isShell: false)
            try engine.perform(
                .create(navigator: id, pages: [Page(id: "root"), Page(id: "detail")], layout: nil, barFollowsTopPage: false),
                from: client, at: script.time)
            engine.drainEvents { _ in }
        }

        /// A finger down at `x` of the width, 40 mm to the right in 100 ms, then up.
        mutating func swipe(from x: Double = 0.01) -> [EngineEvent] {
            script.down(at: x, 0.5)
            script.move(byMillimetres: 40, 0, over: .milliseconds(100))
            script.up()
            return feed()
        }

        /// A finger down mid-screen moving 40 mm down: a scroll.
        mutating func scroll() -> [EngineEvent] {
            script.down(at: 0.5, 0.2)
            script.move(byMillimetres: 0, 40, over: .milliseconds(100))
            script.up()
            return feed()
        }

        /// Feeds what the script wrote since the last call; returns what came out.
        mutating func feed() -> [EngineEvent] {
            for event in script.events.dropFirst(fed) { engine.handle(event, from: screen) }
            fed = script.events.count
            var out: [EngineEvent] = []
            engine.drainEvents { out.append($0) }
            events += out
            return out
        }
    }

    static func backs(_ events: [EngineEvent]) -> [String] {
        events.compactMap {
            switch $0 {
            case .back(let navigator, _, _, _, _): "navigator \(navigator)"
            case .backInput(let input, let app, _, _, _): "input \(input) \(app ?? "-")"
            default: nil
            }
        }
    }

    // MARK: - No navigator: the back input

    @Test("With no client, an edge swipe from 1 % of the width sends the back input; observers see its progress")
    func edgeSwipeWithoutClients() {
        var rig = Rig()
        let events = rig.swipe(from: 0.01)
        #expect(Self.backs(events) == ["input alt+left -"])
        let kinds = events.map(\.kind)
        #expect(kinds.first == "input-began" && kinds.last == "back-input")
        #expect(kinds.dropFirst().dropLast().allSatisfy { $0 == "input-progress" }, "no pop-progress: the app knows nothing of it")
        let progress = Self.inputProgress(events)
        #expect(progress.count >= 2)
        #expect(progress == progress.sorted(), "a straight swipe only grows")
        #expect(abs((progress.last ?? 0) - 40 / (4095.0 / 16)) < 0.01, "40 mm of the fixture's 256: a fling committed it")
        #expect(
            events.allSatisfy { if case .inputProgress(_, _, _, _, let commit, _) = $0 { commit == 0.3 } else { true } },
            "each names the commit progress in force")
        #expect(events.allSatisfy { $0.owner == nil }, "observers only")
    }

    @Test("A swipe toward the back input held halfway to the commit point: input-progress follows the finger, nothing is sent")
    func heldHalfway() {
        var rig = Rig()
        rig.script.down(at: 0.01, 0.5)
        // Half of the commit progress (0.3 of the width): 0.15 of the width.
        let half = 0.15 * 4095 / 16  // the fixture: 4095 units at 16 per mm
        rig.script.move(byMillimetres: half, 0, over: .milliseconds(300))
        rig.script.rest(.milliseconds(100))
        let held = rig.feed()
        #expect(held.first?.kind == "input-began")
        let last = Self.inputProgress(held).last ?? 0
        #expect(abs(last - 0.15) < 0.01, "progress \(last) is where the finger is")
        #expect(Self.backs(held).isEmpty)
        rig.script.move(byMillimetres: -half, 0, over: .milliseconds(200))
        rig.script.rest(.milliseconds(200))
        rig.script.up()
        let released = rig.feed()
        #expect((Self.inputProgress(released).last ?? 1) < 0.01, "back to the edge")
        #expect(released.contains { if case .inputCancelled(_, _, .released, _) = $0 { true } else { false } })
        #expect(Self.backs(released).isEmpty)
    }

    static func inputProgress(_ events: [EngineEvent]) -> [Double] {
        events.compactMap { if case .inputProgress(_, _, _, let progress, _, _) = $0 { progress } else { nil } }
    }

    @Test("With no client, a swipe from the middle and a vertical scroll send nothing")
    func midScreenAndScroll() {
        var rig = Rig()
        let swipe = rig.swipe(from: 0.5)
        #expect(swipe.contains { if case .rejected(.outsideEdgeZone, _, _) = $0 { true } else { false } })
        let scroll = rig.scroll()
        #expect(scroll.contains { if case .rejected = $0 { true } else { false } }, "the scroll is refused")
        #expect(Self.backs(rig.events).isEmpty)
    }

    @Test("back-input-mode fullscreen takes the swipe from the middle too")
    func fullscreenBackInput() {
        var rig = Rig()
        rig.engine.settings.backInputMode = .fullscreen
        #expect(Self.backs(rig.swipe(from: 0.5)) == ["input alt+left -"])
    }

    @Test("A swipe released after 2 mm of the decision is cancelled: input-cancelled, nothing sent")
    func shortSwipeCancels() {
        var rig = Rig()
        rig.script.down(at: 0.01, 0.5)
        rig.script.move(byMillimetres: 6, 0, over: .milliseconds(300))
        rig.script.rest(.milliseconds(200))
        rig.script.up()
        let events = rig.feed()
        #expect(events.first?.kind == "input-began")
        #expect(events.contains { if case .inputCancelled(_, _, .released, _) = $0 { true } else { false } })
        #expect(Self.backs(events).isEmpty)
    }

    @Test("Without a back input (no device, or none configured) the swipe is refused as no-navigator")
    func noBackInput() {
        var rig = Rig(backInput: .none)
        let events = rig.swipe()
        #expect(Self.backs(events).isEmpty)
        #expect(events.contains { if case .rejected(.noNavigator, _, _) = $0 { true } else { false } })
    }

    // MARK: - Focus reported by the clients

    @Test("A navigator in front gets the back; after its client loses focus the back input does")
    func clientLosesFocus() throws {
        var rig = Rig()
        try rig.navigator("files-main", of: Self.files)
        #expect(Self.backs(rig.swipe()) == ["navigator files-main"])
        try rig.engine.perform(.settle(navigator: "files-main"), from: Self.files, at: rig.script.time)
        try rig.engine.perform(.push(navigator: "files-main", page: Page(id: "detail"), animated: false),
                               from: Self.files, at: rig.script.time)
        rig.engine.reportFocus(false, by: Self.files, at: rig.script.time)
        #expect(Self.backs(rig.swipe()) == ["input alt+left -"])
        #expect(rig.engine.navigation.navigators["files-main"]?.depth == 2, "the unfocused app's page stays")
    }

    @Test("Of two apps, the one that last gained focus gets the back, whichever navigator was created last")
    func lastFocusedWins() throws {
        var rig = Rig()
        try rig.navigator("files-main", of: Self.files)
        try rig.navigator("maps-main", of: Self.maps)
        rig.engine.reportFocus(false, by: Self.maps, at: rig.script.time)
        rig.engine.reportFocus(true, by: Self.files, at: rig.script.time)
        #expect(rig.engine.navigation.front(on: .seat0)?.id == "files-main")
        rig.engine.reportFocus(true, by: Self.maps, at: rig.script.time)
        #expect(rig.engine.navigation.front(on: .seat0)?.id == "maps-main", "gaining focus raises its navigators")
        #expect(Self.backs(rig.swipe()) == ["navigator maps-main"])
    }

    // MARK: - Focus reported by a shell

    @Test("With a shell, only the app of the focused window gets backs, matched by app id or by pid")
    func shellDecides() throws {
        var rig = Rig()
        try rig.navigator("files-main", of: Self.files, app: "org.gnome.Nautilus", pid: 100)
        try rig.navigator("maps-main", of: Self.maps, app: "org.gnome.Maps", pid: 200)
        rig.engine.identify(Self.shell, app: nil, pid: 300, isShell: true)
        #expect(rig.engine.navigation.front(on: .seat0) == nil, "a shell that said nothing yet: no window has focus")

        try rig.engine.shellReports(.init(app: "org.gnome.Nautilus", pid: nil), by: Self.shell, at: rig.script.time)
        #expect(rig.engine.navigation.front(on: .seat0)?.id == "files-main")
        #expect(Self.backs(rig.swipe()) == ["navigator files-main"])

        try rig.engine.shellReports(.init(app: "firefox", pid: 400), by: Self.shell, at: rig.script.time)
        #expect(Self.backs(rig.swipe()) == ["input alt+left firefox"])

        try rig.engine.shellReports(.init(app: nil, pid: 200), by: Self.shell, at: rig.script.time)
        #expect(rig.engine.navigation.front(on: .seat0)?.id == "maps-main", "matched by pid")
    }

    @Test("Two processes of one app: the window's own process gets the back, not its sibling")
    func sameAppTwoProcesses() throws {
        var rig = Rig()
        try rig.navigator("term-a", of: Self.files, app: "foot", pid: 100)
        try rig.navigator("term-b", of: Self.maps, app: "foot", pid: 200)
        rig.engine.identify(Self.shell, app: nil, pid: 300, isShell: true)
        try rig.engine.shellReports(.init(app: "foot", pid: 100), by: Self.shell, at: rig.script.time)
        #expect(rig.engine.navigation.front(on: .seat0)?.id == "term-a", "term-b was created later but is not the window")
    }

    @Test("An app id matches only clients of the shell's user: another user cannot claim firefox's backs")
    func appIDNeedsTheShellsUser() throws {
        var rig = Rig()
        rig.engine.identify(Self.files, app: "firefox", pid: 100, uid: 1001, isShell: false)
        try rig.engine.perform(
            .create(navigator: "fake", pages: [Page(id: "root"), Page(id: "detail")], layout: nil, barFollowsTopPage: false),
            from: Self.files, at: rig.script.time)
        rig.engine.identify(Self.shell, app: nil, pid: 300, uid: 1000, isShell: true)
        try rig.engine.shellReports(.init(app: "firefox", pid: 555), by: Self.shell, at: rig.script.time)
        #expect(rig.engine.navigation.front(on: .seat0) == nil)
        #expect(Self.backs(rig.swipe()) == ["input alt+left firefox"])
    }

    @Test("A shell saying no window has focus: the swipe goes nowhere")
    func noWindow() throws {
        var rig = Rig()
        rig.engine.identify(Self.shell, app: nil, pid: 300, isShell: true)
        try rig.engine.shellReports(.init(app: nil, pid: nil), by: Self.shell, at: rig.script.time)
        let events = rig.swipe()
        #expect(Self.backs(events).isEmpty)
        #expect(events.contains { if case .rejected(.noNavigator, _, _) = $0 { true } else { false } })
    }

    @Test("The shell's word beats a client's own report, and when the shell leaves the reports decide again")
    func shellBeatsReports() throws {
        var rig = Rig()
        try rig.navigator("files-main", of: Self.files, app: "org.gnome.Nautilus")
        rig.engine.reportFocus(true, by: Self.files, at: rig.script.time)
        rig.engine.identify(Self.shell, app: nil, pid: nil, isShell: true)
        try rig.engine.shellReports(.init(app: "firefox", pid: nil), by: Self.shell, at: rig.script.time)
        #expect(rig.engine.navigation.front(on: .seat0) == nil)
        #expect(rig.engine.navigation.focus.focusedApp(on: .seat0) == "firefox")
        rig.engine.clientDisconnected(Self.shell, at: rig.script.time)
        #expect(rig.engine.navigation.focus.source(on: .seat0) == .clients)
        #expect(rig.engine.navigation.front(on: .seat0)?.id == "files-main")
    }

    @Test("Only the shell may report the focused window: not-shell, and nothing changes")
    func onlyTheShell() throws {
        var rig = Rig()
        try rig.navigator("files-main", of: Self.files)
        #expect(throws: NavigationError(.notShell, "only the shell (hello with \"role\":\"shell\") reports the focused window")) {
            try rig.engine.shellReports(.init(app: "x", pid: nil), by: Self.files, at: rig.script.time)
        }
        #expect(rig.engine.navigation.front(on: .seat0)?.id == "files-main")
    }

    @Test("The per-app table: the focused app's own input, or none, which refuses the swipe")
    func perAppTable() throws {
        var rig = Rig(backInput: BackInputMap(
            standard: Self.altLeft, apps: ["org.gnome.Maps": Self.mouseBack, "foot": BackInput?.none]))
        rig.engine.identify(Self.shell, app: nil, pid: nil, isShell: true)
        try rig.engine.shellReports(.init(app: "org.gnome.Maps", pid: nil), by: Self.shell, at: rig.script.time)
        #expect(Self.backs(rig.swipe()) == ["input side org.gnome.Maps"])
        try rig.engine.shellReports(.init(app: "foot", pid: nil), by: Self.shell, at: rig.script.time)
        let refused = rig.swipe()
        #expect(Self.backs(refused).isEmpty)
        #expect(refused.contains { if case .rejected(.noNavigator, _, _) = $0 { true } else { false } })
    }

    @Test("An app with its own swipe-back: the edge swipe is refused as own-swipe, no key, and the touch is never held")
    func ownSwipeApp() throws {
        var rig = Rig(backInput: BackInputMap(standard: Self.altLeft, ownSwipe: ["org.gnome.Settings"]))
        rig.engine.identify(Self.shell, app: nil, pid: nil, isShell: true)
        // The same edge landing, first in an app that gets the key: held while deciding.
        try rig.engine.shellReports(.init(app: "org.gnome.Maps", pid: nil), by: Self.shell, at: rig.script.time)
        rig.script.down(at: 0.01, 0.5)
        rig.feed()
        #expect(rig.engine.touchVerdict(of: rig.screen) == .deciding(holdable: true))
        rig.script.up()
        rig.feed()

        try rig.engine.shellReports(.init(app: "org.gnome.Settings", pid: nil), by: Self.shell, at: rig.script.time)
        rig.events = []
        var verdicts: [TouchRouter.Verdict] = []
        rig.script.down(at: 0.01, 0.5)
        rig.feed()
        verdicts.append(rig.engine.touchVerdict(of: rig.screen))
        for _ in 0..<8 {
            rig.script.move(byMillimetres: 5, 0, over: .milliseconds(12))
            rig.feed()
            verdicts.append(rig.engine.touchVerdict(of: rig.screen))
        }
        rig.script.up()
        rig.feed()
        #expect(verdicts.first == .deciding(holdable: false), "deciding, but not holdable: the app needs the touch")
        #expect(verdicts.allSatisfy { $0 == .deciding(holdable: false) || $0 == .none })
        #expect(Self.backs(rig.events).isEmpty)
        #expect(rig.events.contains { if case .rejected(.ownSwipe, _, _) = $0 { true } else { false } })
        #expect(!rig.events.contains { $0.kind == "input-began" })
    }

    @Test("Focus changing under the finger keeps the swipe's target: the finger already chose it")
    func focusChangeMidSwipe() throws {
        var rig = Rig()
        try rig.navigator("files-main", of: Self.files)
        rig.script.down(at: 0.01, 0.5)
        rig.script.move(byMillimetres: 20, 0, over: .milliseconds(50))
        #expect(rig.feed().first?.kind == "pop-began")
        rig.engine.reportFocus(false, by: Self.files, at: rig.script.time)
        rig.script.move(byMillimetres: 20, 0, over: .milliseconds(50))
        rig.script.up()
        #expect(Self.backs(rig.feed()) == ["navigator files-main"])
    }
}
