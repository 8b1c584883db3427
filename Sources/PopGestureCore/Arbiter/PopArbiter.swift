import Logging

/// Identifies a device within one engine.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "device \(rawValue)" }
}

/// The pop a gesture is driving: which navigator, whose, and which page is leaving.
public struct PopTarget: Sendable, Hashable {
    public var navigator: String
    public var owner: ClientID
    public var page: String
}

/// Where an interactive back goes: the pop of a navigator, or the back input for the
/// focused app, which sees no progress (it knows nothing of the swipe).
public enum GestureTarget: Sendable, Hashable {
    case navigator(PopTarget)
    case input(BackInput, app: String?)

    /// Nil for an app that goes back by its own swipe: no back of the daemon's reaches it.
    init?(_ destination: BackDestination) {
        switch destination {
        case .navigator(let nav): self = .navigator(PopTarget(navigator: nav.id, owner: nav.owner, page: nav.top.id))
        case .input(let input, let app): self = .input(input, app: app)
        case .ownSwipe: return nil
        }
    }
}

/// Why a release committed the pop.
public enum CommitReason: String, Sendable, Hashable {
    /// Progress passed `commitProgress`.
    case progress
    /// The release was a fling toward the trailing side.
    case fling
}

/// Why an interactive pop was cancelled.
public enum PopCancelReason: String, Sendable, Hashable {
    /// Released short of `commitProgress` and not flung.
    case released
    /// Released while flung back toward the leading side.
    case flungBack = "flung-back"
    case extraFinger = "extra-finger"
    case palm
    case eventsDropped = "events-dropped"
    case deviceRemoved = "device-removed"
    /// The client changed its stack (or went away) under the finger.
    case stackChanged = "stack-changed"
    /// The screen turned under the finger.
    case rotated

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

/// What the device's pans mean on screen, for the arbiter.
public struct PanSurface: Sendable, Hashable {
    /// Width of the screen, or of the touchpad, in millimetres: the distance of a full pop.
    public var widthMillimetres: Double
    /// False for touchpads: their positions are not screen positions.
    public var isOnScreen: Bool
    /// The device's seat: a pan goes back on that seat's front navigator or back input only.
    public var seat: Seat

    public init(widthMillimetres: Double, isOnScreen: Bool, seat: Seat = .seat0) {
        self.widthMillimetres = widthMillimetres
        self.isOnScreen = isOnScreen
        self.seat = seat
    }
}

/// Decides which pans are back gestures and drives the interactive pop.
///
/// ```
///  idle ──began──▶ deciding ──moved past decision distance──▶ interactive ──ended──▶ idle
///                     │  predicate rejects / pan cancelled          │ cancelled
///                     ▼                                             ▼
///                  rejected ─────────────ended/cancelled─────────▶ idle
/// ```
/// One pan at a time across all devices: a pan on another device while one is
/// being decided or tracked is rejected as `busy`. A pan that failed before it began
/// (`PanEvent.failed`) is rejected with its reason, in any state.
public struct PopArbiter: Sendable {
    public enum Action: Sendable, Hashable {
        case none
        case rejected(RejectionReason)
        /// The pop began; `progress` is where the finger already is.
        case began(GestureTarget, progress: Double)
        /// The finger moved: the navigator's page follows it; for the back input only
        /// observers see it (an indicator).
        case progress(GestureTarget, Double)
        /// Released past the threshold or flung: pop the page, or send the back input.
        case commit(GestureTarget, CommitReason)
        case cancelled(GestureTarget, PopCancelReason)
        /// The pan rejected for this reason went on like a back (``RefusalWatch``): once
        /// per pan, for an indicator's "no". Observers only.
        case refused(RejectionReason)
    }

    /// A rejected pan that may still turn out to have started like a back, so that a
    /// person can tell a refused back from a swipe not seen: it came from the edge zone
    /// toward the back, or, where the mode is fullscreen, went half the commit distance
    /// that way; never steeper than a back may start. Only for the reasons that refuse a
    /// back the person meant (``mayRefuse(_:)``).
    struct RefusalWatch: Sendable, Hashable {
        var device: DeviceID
        var origin: PanSample
        var landing: ScreenPoint
        var surface: PanSurface
        var direction: Double
        var mode: GestureMode
        var reason: RejectionReason
    }

    /// The rejections that refuse a swipe the person meant as a back: nothing in front
    /// takes it, or the page said no. Not the swipe's own shape (direction, zone, angle,
    /// a long press, an excluded area), not another finger or device, and not an app that
    /// runs the swipe itself.
    static func mayRefuse(_ reason: RejectionReason) -> Bool {
        switch reason {
        case .noNavigator, .stackTooShallow, .popDisabled, .tooFarFromEdge, .transitioning: true
        default: false
        }
    }

    public enum State: Sendable, Hashable, CustomStringConvertible {
        case idle
        case deciding(device: DeviceID, origin: PanSample, surface: PanSurface)
        case interactive(device: DeviceID, origin: PanSample, surface: PanSurface, target: GestureTarget,
                         direction: Double, progress: Double)
        case rejected(device: DeviceID, RejectionReason)

        public var description: String {
            switch self {
            case .idle: "idle"
            case .deciding(let d, _, _): "deciding(\(d))"
            case .interactive(let d, _, _, .navigator(let t), _, let p): "interactive(\(d), \(t.navigator)/\(t.page), \(p))"
            case .interactive(let d, _, _, .input(let i, _), _, let p): "interactive(\(d), input \(i), \(p))"
            case .rejected(let d, let r): "rejected(\(d), \(r.rawValue))"
            }
        }
    }

    public private(set) var state: State = .idle
    /// While deciding: when the finger first left the long-press slop; nil until then.
    private var pressEnded: Timestamp?
    /// The earliest the pan's finger can have landed (``landing(first:next:)``), once a
    /// second report told; nil until then.
    private var landing: PanSample?
    /// While rejected: the pan watched for a refusal; nil once it said so, or when the
    /// reason is not one (``mayRefuse(_:)``).
    private var refusalWatch: RefusalWatch?
    public var settings: GestureSettings
    private var logger: Logger

    public init(settings: GestureSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// Feeds one pan event from `device`.
    public mutating func handle(
        _ event: PanEvent, from device: DeviceID, surface: PanSurface, navigation: NavigationState
    ) -> Action {
        // Fingers that never became a pan take no part in the pan being tracked.
        if case .failed(let reason, _) = event { return .rejected(RejectionReason(reason)) }
        switch state {
        case .idle:
            guard case .began(let sample) = event else { return .none }
            transition(to: .deciding(device: device, origin: sample, surface: surface), "pan began")
            pressEnded = nil
            landing = nil
            refusalWatch = nil
            return .none

        case .deciding(let owner, let origin, let surface):
            guard owner == device else { return busy(event) }
            switch event {
            case .began, .failed:
                return .none  // Cannot happen: a device's pan ends before it begins again.
            case .changed(let sample):
                // The second report tells how the finger moved when it landed.
                if landing == nil { landing = Self.landing(first: origin, next: sample) }
                if pressEnded == nil && distance(origin.position, sample) > settings.longPressSlopMillimetres {
                    pressEnded = sample.time
                }
                return decide(device: device, origin: origin, sample: sample, surface: surface, navigation: navigation)
            case .ended:
                transition(to: .idle, "released before deciding")
                return .none
            case .cancelled(let reason, _):
                transition(to: .idle, "pan cancelled: \(reason.rawValue)")
                return .rejected(RejectionReason(reason))
            }

        case .interactive(let owner, let origin, let surface, let target, let direction, let progress):
            guard owner == device else { return busy(event) }
            switch event {
            case .began, .failed:
                return .none
            case .changed(let sample):
                let now = Self.progress(origin: origin, sample: sample, surface: surface, direction: direction)
                // Report in thousandths: finer steps are invisible and flood the socket.
                guard (now * 1000).rounded() != (progress * 1000).rounded() else { return .none }
                state = .interactive(device: owner, origin: origin, surface: surface, target: target,
                                     direction: direction, progress: now)
                return .progress(target, now)
            case .ended(let sample):
                let velocity = sample.velocityX * direction
                // From the expected landing: the start of a flick that a late first scan missed counts.
                let travel = (sample.position.xMillimetres - expectedLanding(origin).xMillimetres) * direction
                let landing = landing ?? origin
                // A flick or a thumb's arc off the bezel is short, and slower across the
                // screen than a straight swipe: at the edge, a shorter and slower one flings.
                let fromEdge = surface.isOnScreen && settings.isInEdgeZone(
                    distanceFromLeadingEdge: GestureSettings.distanceFromLeadingEdge(
                        landing.position, width: surface.widthMillimetres, backDirection: direction))
                let fling = fromEdge
                    ? settings.edgeFlingVelocityMillimetresPerSecond : settings.flingVelocityMillimetresPerSecond
                let minimumTravel = fromEdge
                    ? settings.edgeFlingMinimumDistanceMillimetres : settings.flingMinimumDistanceMillimetres
                let minimumTime = fromEdge ? settings.edgeFlingMinimumDuration : settings.flingMinimumDuration
                // A flick too short or too brief is no fling: its velocity spans a frame or two.
                // Timed from the landing to the report that found the finger gone: at N
                // scans, N + 1 intervals at most, as long at 60 Hz as at 240.
                let longEnough = sample.time - landing.time >= minimumTime.microsecondsRounded
                transition(to: .idle, "released at \(progress), \(velocity) mm/s, \(travel) mm")
                if longEnough && velocity >= fling && travel >= minimumTravel {
                    return .commit(target, .fling)
                }
                if longEnough && velocity <= -fling { return .cancelled(target, .flungBack) }
                if progress >= settings.commitProgress { return .commit(target, .progress) }
                return .cancelled(target, .released)
            case .cancelled(let reason, _):
                transition(to: .idle, "pan cancelled: \(reason.rawValue)")
                return .cancelled(target, PopCancelReason(reason))
            }

        case .rejected(let owner, _):
            guard owner == device else { return busy(event) }
            switch event {
            case .changed(let sample):
                return refusal(at: sample)
            case .ended(let sample):
                transition(to: .idle, "pan over")
                defer { refusalWatch = nil }
                return refusal(at: sample)
            case .cancelled:
                transition(to: .idle, "pan over")
                refusalWatch = nil
            case .began, .failed:
                break
            }
            return .none
        }
    }

    /// Drops the interactive pop of `navigator` because its stack changed under the finger.
    /// The rest of that pan is ignored.
    public mutating func abandon(navigator: String, keepingTop top: String?) -> Action {
        guard case .interactive(let device, _, _, .navigator(let target), _, _) = state,
              target.navigator == navigator, target.page != top else { return .none }
        transition(to: .rejected(device: device, .stackChanged), "stack changed under the finger")
        return .cancelled(.navigator(target), .stackChanged)
    }

    // MARK: - Deciding

    private mutating func decide(
        device: DeviceID, origin: PanSample, sample: PanSample, surface: PanSurface, navigation: NavigationState
    ) -> Action {
        let dx = sample.position.xMillimetres - origin.position.xMillimetres
        let dy = sample.position.yMillimetres - origin.position.yMillimetres
        // From the expected landing: a short flick that a late first scan saw half of still decides.
        guard distance(expectedLanding(origin), sample) >= settings.decisionDistanceMillimetres else { return .none }
        let destination = navigation.destination(backInput: settings.backInput, on: surface.seat)
        let layout = if case .navigator(let front) = destination {
            navigation.layout(of: front)
        } else {
            navigation.defaultLayout
        }
        let start = PanStart(
            origin: origin.position, landing: (landing ?? origin).position, translationX: dx, translationY: dy,
            screenWidthMillimetres: surface.widthMillimetres, isOnScreen: surface.isOnScreen,
            heldMicroseconds: (pressEnded ?? sample.time) - origin.time)
        let rejection = popRejection(for: start, to: destination, layout: layout, settings: settings, at: sample.time)
        guard rejection == nil, let target = destination.flatMap(GestureTarget.init) else {
            let reason = rejection ?? .noNavigator
            transition(to: .rejected(device: device, reason), "dx=\(dx) dy=\(dy)")
            // A navigator's mode, else the back input's: an app with neither would have got one.
            let mode = if case .navigator = destination { settings.mode } else { settings.backInputMode }
            refusalWatch = surface.isOnScreen && Self.mayRefuse(reason)
                ? RefusalWatch(device: device, origin: origin, landing: start.landing, surface: surface,
                               direction: layout.backDirection, mode: mode, reason: reason)
                : nil
            return .rejected(reason)
        }
        let direction = layout.backDirection
        let progress = Self.progress(origin: origin, sample: sample, surface: surface, direction: direction)
        transition(
            to: .interactive(device: device, origin: origin, surface: surface, target: target,
                             direction: direction, progress: progress),
            "dx=\(dx) dy=\(dy)")
        return .began(target, progress: progress)
    }

    /// The earliest the finger can have landed, from its first two reports. The panel's first
    /// scan after a finger lands comes up to one scan interval later, and a flick has
    /// moved by then: 20 mm in 30 ms moves 11 mm in a 60 Hz interval, out of the edge
    /// zone before the panel sees it. So the landing is taken one interval before the
    /// first report and, when the finger moved by the next scan, back along that first
    /// velocity, never off the screen; a finger that rested first (no report at the
    /// next scan) landed where it was first seen. An unknown interval (0) changes nothing.
    static func landing(first: PanSample, next: PanSample) -> PanSample {
        let interval = next.scanInterval
        let elapsed = next.time - first.time
        guard interval > 0, elapsed > 0 else { return first }
        var landing = first
        landing.time = Timestamp(microseconds: first.time.microseconds.saturatingSubtracting(interval))
        guard elapsed <= interval.saturatingMultiplied(by: 3) / 2 else { return landing }
        let (from, to) = (first.position, next.position)
        // The share of the first move to take back: one interval's, shortened at the screen's
        // edge, and never more than the move itself: a second report only a moment after the
        // first (a scan split into two frames) carries jitter, not a velocity to extrapolate.
        var share = min(1, Double(interval) / Double(elapsed))
        for (at, step) in [(from.x, to.x - from.x), (from.y, to.y - from.y)] where step != 0 {
            let room = step > 0 ? at : 1 - at  // Going back runs toward 0 when the step is positive.
            share = min(share, max(0, room / abs(step)))
        }
        landing.position = ScreenPoint(
            x: from.x - (to.x - from.x) * share, y: from.y - (to.y - from.y) * share,
            xMillimetres: from.xMillimetres - (to.xMillimetres - from.xMillimetres) * share,
            yMillimetres: from.yMillimetres - (to.yMillimetres - from.yMillimetres) * share)
        return landing
    }

    /// Where distances count from: half-way between the earliest landing and the first
    /// report, where the finger was on average when it landed, since the first scan comes
    /// at any moment of its interval. The edge zone and the durations take the earliest
    /// landing, so that a flick off the bezel is never judged by where a late scan found
    /// it; distances take this one, so that a tap that slides 2 mm within one scan stays
    /// under the 4 mm decision distance.
    private func expectedLanding(_ origin: PanSample) -> ScreenPoint {
        guard let earliest = landing?.position else { return origin.position }
        let first = origin.position
        return ScreenPoint(
            x: (earliest.x + first.x) / 2, y: (earliest.y + first.y) / 2,
            xMillimetres: (earliest.xMillimetres + first.xMillimetres) / 2,
            yMillimetres: (earliest.yMillimetres + first.yMillimetres) / 2)
    }

    private func distance(_ origin: ScreenPoint, _ sample: PanSample) -> Double {
        let dx = sample.position.xMillimetres - origin.xMillimetres
        let dy = sample.position.yMillimetres - origin.yMillimetres
        return (dx * dx + dy * dy).squareRoot()
    }

    private static func progress(origin: PanSample, sample: PanSample, surface: PanSurface, direction: Double) -> Double {
        let travelled = (sample.position.xMillimetres - origin.position.xMillimetres) * direction
        return min(1, max(0, travelled / max(surface.widthMillimetres, 1)))
    }

    /// The watched pan now at `sample`: `refused` once it looks like a back.
    private mutating func refusal(at sample: PanSample) -> Action {
        guard let watch = refusalWatch else { return .none }
        let dx = sample.position.xMillimetres - watch.origin.position.xMillimetres
        let dy = sample.position.yMillimetres - watch.origin.position.yMillimetres
        guard dx * watch.direction > 0 else { return .none }
        let fromEdge = settings.isInEdgeZone(distanceFromLeadingEdge: GestureSettings.distanceFromLeadingEdge(
            watch.landing, width: watch.surface.widthMillimetres, backDirection: watch.direction))
        // Steeper than a back may start is a scroll, refused by nobody.
        guard !isSteeper(dx: dx, dy: dy, than: fromEdge ? settings.edgeMaxAngleDegrees : settings.maxAngleDegrees)
        else { return .none }
        let progress = Self.progress(origin: watch.origin, sample: sample, surface: watch.surface, direction: watch.direction)
        guard fromEdge || (watch.mode == .fullscreen && progress >= settings.commitProgress / 2) else { return .none }
        refusalWatch = nil
        logger.debug("arbiter: \(watch.device) refused like a back: \(watch.reason.rawValue), progress \(progress)")
        return .refused(watch.reason)
    }

    private func busy(_ event: PanEvent) -> Action {
        if case .began = event { return .rejected(.busy) }
        return .none
    }

    private mutating func transition(to new: State, _ why: @autoclosure () -> String) {
        logger.debug("arbiter \(state) → \(new): \(why())")
        state = new
    }
}
