import RealModule

/// Why a pan did not become a back gesture. Logged at debug level and sent to observers.
public enum RejectionReason: String, Sendable, Hashable, CaseIterable {
    case noNavigator = "no-navigator"
    case stackTooShallow = "stack-too-shallow"
    case popDisabled = "pop-disabled"
    case tooFarFromEdge = "too-far-from-edge"
    case transitioning
    case wrongDirection = "wrong-direction"
    case outsideEdgeZone = "outside-edge-zone"
    case tooSteep = "too-steep"
    /// The finger rested before it moved: a long press, the app's (text selection).
    case longPress = "long-press"
    case excluded
    case extraFinger = "extra-finger"
    case palm
    case eventsDropped = "events-dropped"
    case deviceRemoved = "device-removed"
    /// Another device's pan is already being decided or tracked.
    case busy
    /// The client changed its stack, or left, under an interactive pop: the rest of
    /// that pan is ignored.
    case stackChanged = "stack-changed"
    /// The screen turned while the pan was being decided.
    case rotated
    /// The focused app runs its own swipe-back (`own-swipe` in the `[back-input]`
    /// table): the daemon leaves the swipe to it, so it goes back once, not twice.
    case ownSwipe = "own-swipe"

    init(_ reason: PanCancelReason) {
        switch reason {
        case .extraFinger: self = .extraFinger
        case .palm: self = .palm
        case .eventsDropped: self = .eventsDropped
        case .deviceRemoved: self = .deviceRemoved
        case .rotated: self = .rotated
        }
    }
}

/// What the predicate sees of a pan once it has moved far enough to decide.
public struct PanStart: Sendable, Hashable {
    /// Where the panel first reported the finger.
    public var origin: ScreenPoint
    /// Where the finger landed, up to one scan interval before that first report
    /// (``PopArbiter``'s landing): what the edge zone is judged by. Default: `origin`.
    public var landing: ScreenPoint
    /// Movement since then, in millimetres on the screen.
    public var translationX: Double
    public var translationY: Double
    /// The screen's width in millimetres.
    public var screenWidthMillimetres: Double
    /// Touchpad pans have no screen position: the positional guards do not apply.
    public var isOnScreen: Bool
    /// Microseconds from landing until the finger first left the long-press slop
    /// (``GestureSettings/longPressSlopMillimetres``): how long it pressed.
    public var heldMicroseconds: Int64

    public init(
        origin: ScreenPoint, landing: ScreenPoint? = nil, translationX: Double, translationY: Double,
        screenWidthMillimetres: Double, isOnScreen: Bool = true, heldMicroseconds: Int64 = 0
    ) {
        self.origin = origin
        self.landing = landing ?? origin
        self.translationX = translationX
        self.translationY = translationY
        self.screenWidthMillimetres = screenWidthMillimetres
        self.isOnScreen = isOnScreen
        self.heldMicroseconds = heldMicroseconds
    }
}

/// Where a back gesture goes: a client's navigator, or, for an app that has none,
/// the daemon's back input.
public enum BackDestination: Sendable, Hashable {
    /// The navigator in front: the daemon pops it and tells its owner.
    case navigator(Navigator)
    /// The focused app has no navigator: the daemon's virtual device sends `input`.
    /// `app` is the focused app's id when a shell said it.
    case input(BackInput, app: String?)
    /// The focused app `app` goes back by its own swipe (``BackInputMap/ownSwipe``):
    /// the daemon does nothing, not even hold the touch.
    case ownSwipe(app: String)
}

/// FDFullscreenPopGesture's `gestureRecognizerShouldBegin:`, guard for guard, then
/// the guards the Linux and Android peers added. Returns nil when a pop may begin,
/// else the first reason it may not.
public func popRejection(
    for pan: PanStart, to destination: BackDestination?, layout: LayoutDirection,
    settings: GestureSettings, at time: Timestamp
) -> RejectionReason? {
    // No navigator is in front, and the focused app gets no back input.
    guard let destination else { return .noNavigator }

    // The app runs its own swipe-back from the same touches: a key too would go back twice.
    if case .ownSwipe = destination { return .ownSwipe }

    // Where the finger landed decides the edge, not where it is now (InputActions #168),
    // nor where a late first scan found it.
    let fromLeadingEdge = GestureSettings.distanceFromLeadingEdge(
        pan.origin, width: pan.screenWidthMillimetres, backDirection: layout.backDirection)
    let landedFromLeadingEdge = GestureSettings.distanceFromLeadingEdge(
        pan.landing, width: pan.screenWidthMillimetres, backDirection: layout.backDirection)
    let inEdgeZone = pan.isOnScreen && settings.isInEdgeZone(distanceFromLeadingEdge: landedFromLeadingEdge)
    var mode = settings.mode
    var top: Page?
    switch destination {
    case .navigator(let navigator):
        // Ignore when no page is pushed onto the stack: the root cannot be popped.
        if navigator.depth <= 1 { return .stackTooShallow }

        // Ignore when the top page has turned the gesture off.
        top = navigator.top
        if navigator.top.popDisabled { return .popDisabled }

        // Ignore when the start is farther from the leading edge than the top page allows.
        let limit = navigator.top.maxStartDistanceMillimetres
        if pan.isOnScreen && limit > 0 && fromLeadingEdge > limit { return .tooFarFromEdge }

        // Ignore while a push or pop is still animating.
        if navigator.isTransitioning(at: time) { return .transitioning }
    case .input, .ownSwipe:
        // The app knows nothing of the swipe and gets its touches too: like Android's
        // system back, only the edge starts one by default (`backInputMode`).
        mode = settings.backInputMode
    }

    // Ignore a pan that starts toward the leading side; the sign flips in RTL layouts.
    if pan.translationX * layout.backDirection <= 0 { return .wrongDirection }

    // Edge mode: the pan must start in the leading edge zone.
    if pan.isOnScreen && mode == .edge && !inEdgeZone { return .outsideEdgeZone }

    // Too steep is a scroll, not a back: at the edge as Android decides (|dx| ≥ |dy|),
    // elsewhere stricter, since there the app's own scrolling starts everywhere.
    let limit = inEdgeZone ? settings.edgeMaxAngleDegrees : settings.maxAngleDegrees
    if isSteeper(dx: pan.translationX, dy: pan.translationY, than: limit) { return .tooSteep }

    // A finger that rested before it moved made a long press: the app's text selection.
    // Only on a touchscreen: a touchpad has no press to select with, and fingers rest on
    // it before a swipe.
    if pan.isOnScreen, let press = settings.longPressDuration, pan.heldMicroseconds >= press.microsecondsRounded {
        return .longPress
    }

    // The top page keeps this area for its own horizontal gestures (sliders, carousels).
    if pan.isOnScreen, let top, top.exclusionZones.contains(where: { $0.contains(x: pan.origin.x, y: pan.origin.y) }) {
        return .excluded
    }

    return nil
}

/// Whether a move of (`dx`, `dy`) is more than `degrees` from horizontal. Exactly at the
/// limit is not steeper, even where `tan` rounds (tan 45° is 0.999… in binary).
func isSteeper(dx: Double, dy: Double, than degrees: Double) -> Bool {
    let slope = Double.tan(degrees * .pi / 180)
    return abs(dy) > abs(dx) * slope * (1 + 1e-9)
}
