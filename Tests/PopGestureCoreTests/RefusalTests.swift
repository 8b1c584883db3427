@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// `refused`: a rejected pan that went on like a back, so that an indicator can say "no"
/// where the person meant a back, and nothing where the swipe was not one.
@Suite struct RefusalTests {
    static let app = ClientID(1)

    struct Rig {
        var engine: GestureEngine
        var screen: DeviceID
        var script = TouchScript(device: Fixtures.touchscreen)
        private var fed = 0

        /// No back input (the focused app gets none): every pan is rejected as no-navigator.
        init(backInput: BackInputMap = .none, mode: GestureMode = .fullscreen) {
            var settings = GestureSettings()
            settings.backInput = backInput
            settings.mode = mode
            engine = GestureEngine(settings: settings)
            screen = engine.addDevice(Fixtures.touchscreen)
        }

        /// A navigator with only its root page: a back is refused as stack-too-shallow.
        mutating func rootOnlyNavigator() throws {
            engine.identify(RefusalTests.app, app: nil, pid: nil, isShell: false)
            try engine.perform(.create(navigator: "files", pages: [Page(id: "root")], layout: nil, barFollowsTopPage: false),
                               from: RefusalTests.app, at: script.time)
            engine.drainEvents { _ in }
        }

        /// A finger down at `x`, `y` of the screen, moved by `dx`, `dy` mm in 150 ms, then up;
        /// the engine's events.
        mutating func swipe(from x: Double, _ y: Double = 0.5, by dx: Double, _ dy: Double = 0) -> [EngineEvent] {
            script.down(at: x, y)
            script.move(byMillimetres: dx, dy, over: .milliseconds(150))
            script.up()
            for event in script.events.dropFirst(fed) { engine.handle(event, from: screen) }
            fed = script.events.count
            var out: [EngineEvent] = []
            engine.drainEvents { out.append($0) }
            return out
        }
    }

    static func refusals(_ events: [EngineEvent]) -> [RejectionReason] {
        events.compactMap { if case .refused(let reason, _, _) = $0 { reason } else { nil } }
    }

    static func rejections(_ events: [EngineEvent]) -> [RejectionReason] {
        events.compactMap { if case .rejected(let reason, _, _) = $0 { reason } else { nil } }
    }

    @Test("No back input: a finger down at 1 % of the width, 40 mm to the right, is rejected and then refused, once")
    func edgeSwipeWithNothingToGoBackTo() {
        var rig = Rig(mode: .edge)
        let events = rig.swipe(from: 0.01, by: 40)
        #expect(Self.rejections(events) == [.noNavigator])
        #expect(Self.refusals(events) == [.noNavigator], "one refusal for the pan, after its rejection")
        let rejectedAt = events.firstIndex { if case .rejected = $0 { true } else { false } }
        let refusedAt = events.firstIndex { if case .refused = $0 { true } else { false } }
        #expect((rejectedAt ?? .max) < (refusedAt ?? .min), "the refusal after the rejection")
        #expect(rig.engine.arbiterState == .idle)
    }

    @Test("No back input, edge mode: the same swipe from mid-screen was never a back: rejected, not refused")
    func midScreenSwipeInEdgeModeIsNotRefused() {
        var rig = Rig(mode: .edge)
        let events = rig.swipe(from: 0.5, by: 40)
        #expect(Self.rejections(events) == [.noNavigator])
        #expect(Self.refusals(events).isEmpty)
    }

    @Test("A vertical scroll from the edge is a scroll, not a refused back")
    func verticalScrollFromTheEdge() {
        var rig = Rig(mode: .edge)
        let events = rig.swipe(from: 0.01, 0.2, by: 3, 40)
        #expect(!Self.rejections(events).isEmpty)
        #expect(Self.refusals(events).isEmpty)
    }

    @Test("A swipe from the edge toward the front (leftward) is not refused")
    func wrongDirectionIsNotRefused() {
        var rig = Rig(mode: .edge)
        let events = rig.swipe(from: 0.99, by: -40)
        #expect(Self.refusals(events).isEmpty)
    }

    @Test("Fullscreen mode, only the root page: a swipe from mid-screen is refused once it passes half the commit distance")
    func fullscreenRefusedPastHalfTheCommit() throws {
        var rig = Rig()
        try rig.rootOnlyNavigator()
        let width = 256.0  // the fixture's
        let commit = GestureSettings().commitProgress
        // A quarter of the commit: not far enough to look like a back.
        let short = rig.swipe(from: 0.4, by: width * commit / 4)
        #expect(Self.rejections(short) == [.stackTooShallow])
        #expect(Self.refusals(short).isEmpty, "a quarter of the commit distance")
        let long = rig.swipe(from: 0.4, by: width * commit * 0.8)
        #expect(Self.refusals(long) == [.stackTooShallow])
    }

    @Test("An app that runs its own swipe-back is left to it: rejected as own-swipe, never refused")
    func ownSwipeIsNotRefused() throws {
        var rig = Rig(backInput: BackInputMap(standard: nil, ownSwipe: ["chromium"]), mode: .edge)
        rig.engine.identify(ClientID(9), app: nil, pid: nil, isShell: true)
        try rig.engine.shellReports(FocusState.Window(app: "chromium", pid: 42), by: ClientID(9), at: .zero)
        rig.engine.drainEvents { _ in }
        let events = rig.swipe(from: 0.01, by: 40)
        #expect(Self.rejections(events) == [.ownSwipe])
        #expect(Self.refusals(events).isEmpty)
    }
}
