/// The touchpad bridge: for an app whose back input is `touchpad`, the daemon plays the
/// back swipe as a two-finger horizontal scroll on its virtual touchpad, from the
/// swipe's start to its end or cancel, so that the app's own swipe navigation (Firefox,
/// libadwaita's swipe tracker, Chromium's overscroll history navigation) moves the page
/// with the finger.
///
/// A plain state machine fed with the engine's events for the back input; it returns
/// what the touchpad must do, and the daemon's I/O layer writes it (one evdev frame per
/// action). Positions are millimetres from the touchpad's top-left corner.
///
///     idle ──input-progress (touchpad)──▶ scrolling ──input-progress──▶ scrolling
///       ▲                                    │
///       └── back-input: on to the full travel, lift; input-cancelled: back to the start, lift
///
/// The app decides from what it sees: on a commit the fingers run on to the travel of
/// progress 1 (at least ``completionMillimetres`` past where they are) before they lift,
/// fast, so the app commits by distance and velocity; on a cancel they run back to where
/// they landed and lift, so the app returns with no back.
public struct TouchpadBridge: Sendable {
    /// Two fingers side by side, one above the other: both at `xMillimetres`.
    public struct Fingers: Sendable, Hashable, CustomStringConvertible {
        public var xMillimetres: Double
        public var yMillimetres: [Double]
        public var description: String {
            "x \(xMillimetres) mm, y " + yMillimetres.map { "\($0)" }.joined(separator: "/") + " mm"
        }
    }

    public enum Action: Sendable, Hashable {
        /// Both fingers down (`BTN_TOUCH`, `BTN_TOOL_DOUBLETAP`), in one frame.
        case down(Fingers)
        /// Both fingers to here, in one frame.
        case move(Fingers)
        /// Both fingers up, in one frame: libinput ends the scroll with a scroll stop.
        case lift
    }

    /// What to do, on the touchpad of `seat`.
    public struct Output: Sendable, Hashable {
        public var seat: Seat
        public var actions: [Action]
    }

    public enum State: Sendable, Hashable {
        case idle
        /// `travel`: millimetres moved so far toward the back.
        case scrolling(seat: Seat, scroll: TouchpadScroll, travelMillimetres: Double)
    }

    // The virtual touchpad's size and where the fingers go; VirtualTouchpad makes it so.

    /// 100 mm wide: a laptop touchpad's size, so libinput's thresholds in millimetres
    /// (scroll start, palm edges, which it turns off below 70 mm) work as on a real one.
    public static let widthMillimetres = 100.0
    /// 60 mm high.
    public static let heightMillimetres = 60.0
    /// The fingers land 15 mm in from the side they move away from: clear of libinput's
    /// edge palm zone (the outer 8 % of the width).
    public static let marginMillimetres = 15.0
    /// How far the fingers can travel: the width less a margin at each side, 70 mm.
    public static var maximumTravelMillimetres: Double { widthMillimetres - 2 * marginMillimetres }
    /// The two fingers' rows: 16 mm apart, about two fingertips, in the upper middle
    /// (libinput takes a finger in the lowest part of a touchpad for a thumb).
    public static let rowsMillimetres = [22.0, 38.0]
    /// A move is split into frames of at most 2 mm, so that libinput never mistakes it
    /// for a jump (a kernel glitch, which it drops) even when frames come back to back.
    public static let maximumStepMillimetres = 2.0
    /// On a commit the fingers move at least 20 mm further before they lift: enough for
    /// every app's commit by velocity, short of the touchpad's far side when possible.
    public static let completionMillimetres = 20.0

    public private(set) var state: State = .idle

    public init() {}

    /// Feeds one engine event; nil when the touchpad has nothing to do.
    public mutating func handle(_ event: EngineEvent) -> Output? {
        switch event {
        case .inputProgress(let input, _, let seat, let progress, _):
            guard let scroll = input.touchpad else { return nil }
            return follow(scroll, on: seat, progress: progress)
        case .backInput:
            return finish(committed: true)
        case .inputCancelled:
            return finish(committed: false)
        default:
            return nil
        }
    }

    /// Lifts the fingers where they are, with no move: the touchpad is going away.
    public mutating func abandon() -> Output? {
        guard case .scrolling(let seat, _, _) = state else { return nil }
        state = .idle
        return Output(seat: seat, actions: [.lift])
    }

    /// Where the fingers are after `travel` toward the back.
    public static func fingers(travelMillimetres travel: Double, natural: Bool) -> Fingers {
        // Natural scrolling off: moving left scrolls left; on: moving right does.
        let x = natural ? marginMillimetres + travel : widthMillimetres - marginMillimetres - travel
        return Fingers(xMillimetres: x, yMillimetres: rowsMillimetres)
    }

    /// The travel for `progress`: progress × the scale, within the touchpad.
    public static func travel(progress: Double, scroll: TouchpadScroll) -> Double {
        min(maximumTravelMillimetres, max(0, progress * scroll.millimetresPerWidth))
    }

    private mutating func follow(_ scroll: TouchpadScroll, on seat: Seat, progress: Double) -> Output {
        let target = Self.travel(progress: progress, scroll: scroll)
        switch state {
        case .idle:
            state = .scrolling(seat: seat, scroll: scroll, travelMillimetres: target)
            let down = Action.down(Self.fingers(travelMillimetres: 0, natural: scroll.natural))
            return Output(seat: seat, actions: [down] + Self.moves(from: 0, to: target, natural: scroll.natural))
        case .scrolling(let active, let activeScroll, let travel):
            // One swipe at a time: the arbiter tracks one; the first one's seat and scale hold.
            let goal = Self.travel(progress: progress, scroll: activeScroll)
            state = .scrolling(seat: active, scroll: activeScroll, travelMillimetres: goal)
            return Output(seat: active, actions: Self.moves(from: travel, to: goal, natural: activeScroll.natural))
        }
    }

    private mutating func finish(committed: Bool) -> Output? {
        guard case .scrolling(let seat, let scroll, let travel) = state else { return nil }
        state = .idle
        let end = committed
            ? min(Self.maximumTravelMillimetres,
                  max(travel + Self.completionMillimetres, Self.travel(progress: 1, scroll: scroll)))
            : 0
        return Output(seat: seat, actions: Self.moves(from: travel, to: end, natural: scroll.natural) + [.lift])
    }

    /// The frames from `start` to `end`, each at most ``maximumStepMillimetres``; none when
    /// they are the same.
    static func moves(from start: Double, to end: Double, natural: Bool) -> [Action] {
        let distance = end - start
        guard distance != 0 else { return [] }
        let steps = Int((abs(distance) / maximumStepMillimetres).rounded(.up))
        return (1...steps).map { step in
            let travel = step == steps ? end : start + distance * Double(step) / Double(steps)
            return .move(fingers(travelMillimetres: travel, natural: natural))
        }
    }
}
