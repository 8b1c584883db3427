/// The touchpad bridge: for an app whose back input is `touchpad`, the daemon plays the
/// back swipe as a two-finger horizontal scroll on its virtual touchpad, from the
/// swipe's start to its end or cancel, so that the app's own swipe navigation (Firefox,
/// libadwaita's swipe tracker, Chromium's overscroll history navigation) moves the page
/// with the finger.
///
/// A plain state machine fed with the engine's events for the back input and the time
/// they are played at; it returns what the touchpad must do, and the daemon's I/O layer
/// writes it (one evdev frame per action, and sleeps for a pause). Positions are
/// millimetres from the touchpad's top-left corner.
///
///     idle ──input-progress (touchpad)──▶ scrolling ──input-progress──▶ scrolling (one move)
///       ▲                                    │
///       └── back-input: run on ``completionMillimetres``, lift; input-cancelled: run back, lift
///
/// libinput drops a touchpad frame as a "touch jump" when a finger moved more than 20 mm,
/// or sped up by more than 7 mm, per 12 ms (`tp_detect_jumps`), measured between the
/// frames' kernel times. So while the finger is down the fingers never move faster than
/// ``maximumSpeedMillimetresPerMillisecond`` from the last frame's time: they may lag,
/// and catch up at the next event; the runs at the end are frames of
/// ``finishStepMillimetres`` with a sleep of ``finishFrameMicroseconds`` before each.
///
/// The app decides from what it sees: on a commit the fingers run on, fast, before they
/// lift, so the app commits by distance and velocity; on a cancel they run back to where
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
        /// Wait this long before the next frame, so that its kernel time is this much later.
        case pause(microseconds: Int64)
    }

    /// What to do, on the touchpad of `seat`.
    public struct Output: Sendable, Hashable {
        public var seat: Seat
        public var actions: [Action]
    }

    public enum State: Sendable, Hashable {
        case idle
        /// `travel`: millimetres moved so far toward the back; `written`: the last frame's time.
        case scrolling(seat: Seat, scroll: TouchpadScroll, travelMillimetres: Double, written: Timestamp)
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
    /// While the finger is down: 0.25 mm/ms (250 mm/s on the touchpad, 3 mm per 12 ms),
    /// from when the last frame was written (``played(at:)``): the kernel stamps a frame
    /// between the clock read before its write and the one after, so that time is a
    /// lower bound of libinput's interval, and 3 mm leaves room below its 7 mm.
    public static let maximumSpeedMillimetresPerMillisecond = 0.25
    /// No move within 2 ms of the last frame: the next event catches up. A move over a
    /// shorter interval is all rounding (one device unit, 0.025 mm, in 50 µs is 6 mm per
    /// 12 ms to libinput), as when the daemon handles a batch of touchscreen frames.
    public static let minimumFrameMicroseconds: Int64 = 2000
    /// The runs at the end: a frame every 4 ms (a sleep, so at least that between the
    /// kernel times), ``finishStepMillimetres`` each.
    public static let finishFrameMicroseconds: Int64 = 4000
    /// 2 mm a frame at the end: 6 mm per 12 ms.
    public static let finishStepMillimetres = 2.0
    /// On a commit the fingers move 20 mm further before they lift (less at the touchpad's
    /// far side): with the daemon's commit at 18 mm or more (progress 0.3 at the default
    /// scale), 38 mm in all, a whole libadwaita page, at 500 mm/s; 40 ms of frames.
    public static let completionMillimetres = 20.0

    public private(set) var state: State = .idle

    public init() {}

    /// Feeds one engine event, played at `now` (the I/O layer's monotonic clock, which the
    /// kernel stamps the frames with); nil when the touchpad has nothing to do.
    public mutating func handle(_ event: EngineEvent, at now: Timestamp) -> Output? {
        switch event {
        case .inputProgress(let input, _, let seat, let progress, _, _):
            guard let scroll = input.touchpad else { return nil }
            return follow(scroll, on: seat, progress: progress, at: now)
        case .backInput:
            return finish(committed: true)
        case .inputCancelled:
            return finish(committed: false)
        default:
            return nil
        }
    }

    /// The I/O layer wrote the last output's frames by `time` (its clock after the last
    /// write): the next move counts its interval from then.
    public mutating func played(at time: Timestamp) {
        guard case .scrolling(let seat, let scroll, let travel, _) = state else { return }
        state = .scrolling(seat: seat, scroll: scroll, travelMillimetres: travel, written: time)
    }

    /// Lifts the fingers where they are, with no move: the touchpad is going away.
    public mutating func abandon() -> Output? {
        guard case .scrolling(let seat, _, _, _) = state else { return nil }
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

    private mutating func follow(_ scroll: TouchpadScroll, on seat: Seat, progress: Double, at now: Timestamp) -> Output? {
        switch state {
        case .idle:
            // Down only: a move in the same instant would be a jump to libinput.
            state = .scrolling(seat: seat, scroll: scroll, travelMillimetres: 0, written: now)
            return Output(seat: seat, actions: [.down(Self.fingers(travelMillimetres: 0, natural: scroll.natural))])
        case .scrolling(let active, let activeScroll, let travel, let written):
            // One swipe at a time: the arbiter tracks one; the first one's seat and scale hold.
            let goal = Self.travel(progress: progress, scroll: activeScroll)
            let interval = now.microseconds - written.microseconds
            guard interval >= Self.minimumFrameMicroseconds else { return nil }
            let elapsed = Double(interval) / 1000
            let allowed = Self.maximumSpeedMillimetresPerMillisecond * elapsed
            let next = travel + min(allowed, max(-allowed, goal - travel))
            guard next != travel else { return nil }
            state = .scrolling(seat: active, scroll: activeScroll, travelMillimetres: next, written: now)
            return Output(seat: active, actions: [.move(Self.fingers(travelMillimetres: next, natural: activeScroll.natural))])
        }
    }

    private mutating func finish(committed: Bool) -> Output? {
        guard case .scrolling(let seat, let scroll, let travel, _) = state else { return nil }
        state = .idle
        let end = committed ? min(Self.maximumTravelMillimetres, travel + Self.completionMillimetres) : 0
        return Output(seat: seat, actions: Self.run(from: travel, to: end, natural: scroll.natural) + [.lift])
    }

    /// Paced frames from `start` to `end`: a pause, then a move of at most the finishing
    /// step, each; none when they are the same.
    static func run(from start: Double, to end: Double, natural: Bool) -> [Action] {
        let distance = end - start
        let step = finishStepMillimetres
        guard distance != 0 else { return [] }
        let steps = Int((abs(distance) / step).rounded(.up))
        return (1...steps).flatMap { index -> [Action] in
            let travel = index == steps ? end : start + distance * Double(index) / Double(steps)
            return [.pause(microseconds: finishFrameMicroseconds), .move(fingers(travelMillimetres: travel, natural: natural))]
        }
    }
}
