@testable import PopGestureCore
import Testing

/// The predicate alone: each guard with the reason it gives, and their order.
@Suite struct PopPredicateTests {
    /// A 200 mm wide screen; positions given in millimetres from the top-left.
    static func pan(fromX x: Double, y: Double = 60, dx: Double, dy: Double = 0) -> PanStart {
        PanStart(
            origin: ScreenPoint(x: x / 200, y: y / 120, xMillimetres: x, yMillimetres: y),
            translationX: dx, translationY: dy, screenWidthMillimetres: 200)
    }

    static func navigator(_ pages: [Page], transitioningUntil: Timestamp? = nil) -> Navigator {
        Navigator(id: "main", owner: ClientID(1), pages: pages, layout: nil, barFollowsTopPage: true,
                  transitioningUntil: transitioningUntil)
    }

    static let twoPages = navigator([Page(id: "root"), Page(id: "detail")])
    static let now = Timestamp(microseconds: 5_000_000)

    func rejection(
        _ pan: PanStart, _ navigator: Navigator? = twoPages, layout: LayoutDirection = .leftToRight,
        settings: GestureSettings = GestureSettings()
    ) -> RejectionReason? {
        popRejection(for: pan, to: navigator.map { .navigator($0) }, layout: layout, settings: settings, at: Self.now)
    }

    static let altLeft = BackInput(codes: [56, 105], spelling: "alt+left")!

    /// The predicate for an app without a navigator, which gets the back input.
    func inputRejection(_ pan: PanStart, settings: GestureSettings = GestureSettings()) -> RejectionReason? {
        popRejection(for: pan, to: .input(Self.altLeft, app: nil), layout: .leftToRight, settings: settings, at: Self.now)
    }

    @Test func theBackInputTakesOnlyEdgeSwipesByDefault() {
        // A finger down 2 mm from the left edge, 5 mm to the right: a back.
        #expect(inputRejection(Self.pan(fromX: 2, dx: 5)) == nil)
        // The same swipe from the middle of the screen pans the app, not a back,
        // although the navigators' mode is fullscreen.
        #expect(GestureSettings().mode == .fullscreen)
        #expect(inputRejection(Self.pan(fromX: 100, dx: 5)) == .outsideEdgeZone)
    }

    @Test func theBackInputModeCanBeFullscreen() {
        var settings = GestureSettings()
        settings.backInputMode = .fullscreen
        #expect(inputRejection(Self.pan(fromX: 100, dx: 5), settings: settings) == nil)
    }

    @Test func theBackInputKeepsTheDirectionAndAngleGuards() {
        #expect(inputRejection(Self.pan(fromX: 2, dx: -5)) == .wrongDirection)
        #expect(inputRejection(Self.pan(fromX: 2, dx: 5, dy: 10)) == .tooSteep)
    }

    @Test func aRightwardSwipeOnTwoPagesMayBegin() {
        #expect(rejection(Self.pan(fromX: 100, dx: 5)) == nil)
    }

    @Test func noNavigator() {
        #expect(rejection(Self.pan(fromX: 100, dx: 5), nil) == .noNavigator)
    }

    @Test func onlyTheRoot() {
        #expect(rejection(Self.pan(fromX: 100, dx: 5), Self.navigator([Page(id: "root")])) == .stackTooShallow)
    }

    @Test func disabledTopPage() {
        let nav = Self.navigator([Page(id: "root"), Page(id: "form", popDisabled: true)])
        #expect(rejection(Self.pan(fromX: 100, dx: 5), nav) == .popDisabled)
        // Only the top page counts.
        let lower = Self.navigator([Page(id: "root", popDisabled: true), Page(id: "detail")])
        #expect(rejection(Self.pan(fromX: 100, dx: 5), lower) == nil)
    }

    @Test func maxStartDistanceFromTheLeadingEdge() {
        let nav = Self.navigator([Page(id: "root"), Page(id: "map", maxStartDistanceMillimetres: 30)])
        #expect(rejection(Self.pan(fromX: 29, dx: 5), nav) == nil)
        #expect(rejection(Self.pan(fromX: 31, dx: 5), nav) == .tooFarFromEdge)
        // Right to left: measured from the right edge.
        #expect(rejection(Self.pan(fromX: 175, dx: -5), nav, layout: .rightToLeft) == nil)
        #expect(rejection(Self.pan(fromX: 29, dx: -5), nav, layout: .rightToLeft) == .tooFarFromEdge)
    }

    @Test func transitioningUntilTheDeadline() {
        let animating = Self.navigator([Page(id: "root"), Page(id: "detail")],
                                       transitioningUntil: Timestamp(microseconds: Self.now.microseconds + 1))
        #expect(rejection(Self.pan(fromX: 100, dx: 5), animating) == .transitioning)
        let settled = Self.navigator([Page(id: "root"), Page(id: "detail")], transitioningUntil: Self.now)
        #expect(rejection(Self.pan(fromX: 100, dx: 5), settled) == nil)
    }

    @Test func directionFlipsWithTheLayout() {
        #expect(rejection(Self.pan(fromX: 100, dx: -5)) == .wrongDirection)
        #expect(rejection(Self.pan(fromX: 100, dx: 0, dy: 5)) == .wrongDirection, "FD rejects translation.x <= 0")
        #expect(rejection(Self.pan(fromX: 100, dx: -5), layout: .rightToLeft) == nil)
        #expect(rejection(Self.pan(fromX: 100, dx: 5), layout: .rightToLeft) == .wrongDirection)
    }

    @Test func edgeModeNeedsTheEdgeZone() {
        var edge = GestureSettings()
        edge.mode = .edge
        #expect(rejection(Self.pan(fromX: 4, dx: 5), settings: edge) == nil)
        #expect(rejection(Self.pan(fromX: 6, dx: 5), settings: edge) == .outsideEdgeZone)
        #expect(rejection(Self.pan(fromX: 196, dx: -5), layout: .rightToLeft, settings: edge) == nil)
        #expect(rejection(Self.pan(fromX: 6, dx: 5)) == nil, "fullscreen mode takes any start")
    }

    @Test func angleLimit() {
        // tan 30° ≈ 0.577.
        #expect(rejection(Self.pan(fromX: 100, dx: 10, dy: 5.7)) == nil)
        #expect(rejection(Self.pan(fromX: 100, dx: 10, dy: -5.8)) == .tooSteep)
    }

    @Test func aStartInTheEdgeZoneIsHorizontalUpTo45DegreesInEitherMode() {
        var edge = GestureSettings()
        edge.mode = .edge
        for settings in [GestureSettings(), edge] {
            #expect(rejection(Self.pan(fromX: 3, dx: 10, dy: 10), settings: settings) == nil, "|dx| = |dy| at the edge")
            #expect(rejection(Self.pan(fromX: 3, dx: 10, dy: -10.1), settings: settings) == .tooSteep)
            #expect(rejection(Self.pan(fromX: 197, dx: -10, dy: 9), layout: .rightToLeft, settings: settings) == nil)
        }
        // Mid-screen, fullscreen mode keeps its 30°: a 40° drag there is the app's scroll.
        #expect(rejection(Self.pan(fromX: 100, dx: 10, dy: 8.4)) == .tooSteep)
        #expect(rejection(Self.pan(fromX: 100, dx: 10, dy: 8.4), settings: .before22) == .tooSteep)
        #expect(rejection(Self.pan(fromX: 3, dx: 10, dy: 8.4), settings: .before22) == .tooSteep, "before issue 22: 30° everywhere")
    }

    @Test func aFingerThatPressedBeforeMovingIsTheApps() {
        var pressed = Self.pan(fromX: 100, dx: 6)
        pressed.heldMicroseconds = 500_000
        #expect(rejection(pressed) == .longPress)
        pressed.heldMicroseconds = 499_999
        #expect(rejection(pressed) == nil)
        pressed.heldMicroseconds = 2_000_000
        #expect(rejection(pressed, settings: .before22) == nil, "before issue 22: no long-press guard")
        // A steep long press is a scroll first: the angle speaks before the press.
        var steep = Self.pan(fromX: 100, dx: 2, dy: 6)
        steep.heldMicroseconds = 900_000
        #expect(rejection(steep) == .tooSteep)
    }

    @Test func exclusionZones() {
        let zone = NormalizedRect(x: 0, y: 0.75, width: 1, height: 0.25)
        let nav = Self.navigator([Page(id: "root"), Page(id: "player", exclusionZones: [zone])])
        #expect(rejection(Self.pan(fromX: 100, y: 100, dx: 5), nav) == .excluded)
        #expect(rejection(Self.pan(fromX: 100, y: 60, dx: 5), nav) == nil)
    }

    @Test func touchpadPansSkipThePositionalGuards() {
        var edge = GestureSettings()
        edge.mode = .edge
        let nav = Self.navigator([
            Page(id: "root"),
            Page(id: "p", maxStartDistanceMillimetres: 1, exclusionZones: [NormalizedRect(x: 0, y: 0, width: 1, height: 1)]),
        ])
        var pan = Self.pan(fromX: 100, dx: 5)
        pan.isOnScreen = false
        #expect(rejection(pan, nav, settings: edge) == nil)
    }

    @Test func guardsRunInTheIOSOrder() {
        // Everything wrong at once: the first guard in FD's order speaks.
        let everythingWrong = Self.navigator(
            [Page(id: "root", popDisabled: true)], transitioningUntil: Timestamp(microseconds: .max))
        #expect(rejection(Self.pan(fromX: 150, dx: -5, dy: 50), everythingWrong) == .stackTooShallow)
        let disabledAndFar = Self.navigator(
            [Page(id: "root"), Page(id: "p", popDisabled: true, maxStartDistanceMillimetres: 1)],
            transitioningUntil: Timestamp(microseconds: .max))
        #expect(rejection(Self.pan(fromX: 150, dx: -5), disabledAndFar) == .popDisabled)
        let farAndAnimating = Self.navigator(
            [Page(id: "root"), Page(id: "p", maxStartDistanceMillimetres: 1)], transitioningUntil: Timestamp(microseconds: .max))
        #expect(rejection(Self.pan(fromX: 150, dx: -5), farAndAnimating) == .tooFarFromEdge)
        let animating = Self.navigator([Page(id: "root"), Page(id: "p")], transitioningUntil: Timestamp(microseconds: .max))
        #expect(rejection(Self.pan(fromX: 150, dx: -5), animating) == .transitioning)
        var edge = GestureSettings()
        edge.mode = .edge
        #expect(rejection(Self.pan(fromX: 150, dx: -5, dy: 50), settings: edge) == .wrongDirection)
        #expect(rejection(Self.pan(fromX: 150, dx: 5, dy: 50), settings: edge) == .outsideEdgeZone)
    }
}
