/// The touchpad bridge: for an app whose back input is `touchpad`, the daemon plays the
/// back swipe as a two-finger horizontal scroll on its virtual touchpad, from the
/// swipe's start to its end or cancel, so that the app's own swipe navigation (Firefox,
/// libadwaita's swipe tracker, Chromium's overscroll history navigation) moves the page
/// with the finger.
///
/// A plain state machine fed with the engine's events for the back input, and with
/// its own deadline (``deadline``, ``expire(at:)``), each at the time it is played; it
/// returns what the touchpad must do, and the daemon's I/O layer writes it (one evdev
/// frame per action) and arms a timer for the deadline. It never asks the caller to
/// sleep: the input thread serves the next touch while the fingers run.
///
///     idle ──input-progress (touchpad)──▶ following: the pointer under the finger, down;
///       ▲                                   │ the fingers chase the progress
///       │                                   │ back-input: the goal runs on ``completionMillimetres``
///       │                                   │ input-cancelled: the goal is where they landed
///       └──── lift, once at the goal ◀── ending: a frame per deadline toward the goal
///                                │            │ input-progress: the next swipe waits (``Touch/next``)
///                                └─ landing ◀─┘ lifted with one waiting: it lands a frame later
///
/// libinput drops a touchpad frame as a "touch jump" when a finger moved more than 20 mm,
/// or sped up by more than 7 mm, per 12 ms (`tp_detect_jumps`), measured between the
/// frames' kernel times. So the fingers never move faster than
/// ``followingMillimetresPerMillisecond`` while the finger is down, or
/// ``endingMillimetresPerMillisecond`` after (a step counting at most
/// ``longestStepMicroseconds``), since the last frame's time.
///
/// While the finger is down the fingers move at its events only, and may lag behind it
/// until the next: frames between them (catching up on a timer) left Firefox showing
/// nothing in the VM (99-touchpad-apps, docs/APPS.md), where frames at the events show
/// its swipe arrow. The run at the end is a frame every ``frameMicroseconds``.
///
/// Wayland compositors and X send a scroll to the surface under the pointer, and a touch
/// moves no pointer: first the pointer goes where the finger is (``Action/pointer(x:y:)``),
/// so the swipe scrolls the window it is on, not whatever the pointer last rested on
/// (a Phosh session's Firefox toolbar, in a test run; docs/APPS.md).
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
        /// The seat's pointer to here, in fractions of its screen, right before the
        /// fingers land: the compositor sends the scroll to the surface under the
        /// pointer, which a touch does not move (the daemon's virtual pointer does).
        case pointer(x: Double, y: Double)
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

    /// How a swipe the fingers play ended.
    public enum Ending: String, Sendable, Hashable {
        /// The daemon committed: the fingers run on, then lift.
        case commit
        /// The swipe was cancelled: the fingers run back to where they landed, then lift.
        case cancel
    }

    /// The fingers on the touchpad during one swipe.
    public struct Touch: Sendable, Hashable {
        public var seat: Seat
        public var scroll: TouchpadScroll
        /// Millimetres moved toward the back, as last written.
        public var travelMillimetres: Double
        /// Where the fingers should be: the progress's travel, or the end's.
        public var goalMillimetres: Double
        /// When the last frame was written (``played(at:)``).
        public var written: Timestamp
        /// Nil while the finger is down.
        public var ending: Ending?
        /// A swipe that began while these fingers ran to their end: it plays once they
        /// lifted, so a quick second back is not lost.
        public var next: Waiting?
    }

    /// A swipe waiting for the fingers before it to lift.
    public struct Waiting: Sendable, Hashable {
        public var seat: Seat
        public var scroll: TouchpadScroll
        /// The travel of its last progress.
        public var goalMillimetres: Double
        /// How it ended, if it has; a cancelled one is dropped, as it would end where it began.
        public var ending: Ending?
    }

    public enum State: Sendable, Hashable {
        case idle
        case touching(Touch)
        /// The fingers lifted at `lifted` with a swipe waiting: it lands a frame later, so
        /// that libinput sees a lift and a new touch, not one touch that jumped.
        case landing(Waiting, lifted: Timestamp)
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
    public static let followingMillimetresPerMillisecond = 0.25
    /// After the finger lifted: 0.5 mm/ms (6 mm per 12 ms, still below libinput's 7 mm
    /// rise from standing), so that the app sees the velocity of a flick on a commit.
    public static let endingMillimetresPerMillisecond = 0.5
    /// No move within 2 ms of the last frame: the next event or deadline catches up. A
    /// move over a shorter interval is all rounding (one device unit, 0.025 mm, in 50 µs
    /// is 6 mm per 12 ms to libinput), as when the daemon handles a batch of frames.
    public static let minimumFrameMicroseconds: Int64 = 2000
    /// In the run at the end, the next frame is due 4 ms after the last: 2 mm a frame.
    public static let frameMicroseconds: Int64 = 4000
    /// A move of the run at the end counts at most 12 ms since the last frame (libinput's
    /// reference interval): after the fingers rested (a swipe held, then lifted) the run
    /// starts at its speed, 6 mm at most, not with the whole run in one frame.
    public static let longestStepMicroseconds: Int64 = 12_000
    /// On a commit the fingers move 20 mm further before they lift (less at the touchpad's
    /// far side): with the daemon's commit at 18 mm or more (progress 0.3 at the default
    /// scale), 38 mm in all, a whole libadwaita page, at 500 mm/s; 40 ms of frames.
    public static let completionMillimetres = 20.0

    public private(set) var state: State = .idle
    /// Where the next fingers to land put the pointer first: the last swipe's
    /// ``EngineEvent/inputBegan(app:seat:pointer:time:)`` point, taken by its landing.
    public private(set) var pointer: ScreenPoint?

    public init() {}

    /// When the next frame of the run at the end is due, for the I/O layer's timer; nil
    /// when the fingers are up or the finger is still on the screen (they then move at
    /// its events only). Past it, call ``expire(at:)``.
    public var deadline: Timestamp? {
        switch state {
        case .touching(let touch) where touch.ending != nil:
            Timestamp(microseconds: touch.written.microseconds + Self.frameMicroseconds)
        case .landing(_, let lifted):
            Timestamp(microseconds: lifted.microseconds + Self.frameMicroseconds)
        default:
            nil
        }
    }

    /// Feeds one engine event, played at `now` (the I/O layer's monotonic clock, which the
    /// kernel stamps the frames with); nil when the touchpad has nothing to do now.
    public mutating func handle(_ event: EngineEvent, at now: Timestamp) -> Output? {
        switch event {
        case .inputBegan(_, _, let pointer, _):
            // Every swipe begins so, whatever its back input: this one's point replaces the last's.
            self.pointer = pointer
            return nil
        case .inputProgress(let input, _, let seat, let progress, _, _):
            guard let scroll = input.touchpad else { return nil }
            return follow(scroll, on: seat, progress: progress, at: now)
        case .backInput:
            return end(.commit, at: now)
        case .inputCancelled:
            return end(.cancel, at: now)
        default:
            return nil
        }
    }

    /// The deadline passed: the run's next frame toward the goal, and the lift once it
    /// is there. Nothing while the finger is down, or within 2 ms of the last frame.
    public mutating func expire(at now: Timestamp) -> Output? {
        switch state {
        case .touching(let touch) where touch.ending != nil:
            return step(at: now)
        case .landing(let waiting, let lifted) where now.microseconds - lifted.microseconds >= Self.frameMicroseconds:
            return land(waiting, at: now)
        default:
            return nil
        }
    }

    /// The I/O layer wrote the last output's frames by `time` (its clock after the last
    /// write): the next move counts its interval from then.
    public mutating func played(at time: Timestamp) {
        switch state {
        case .touching(var touch):
            touch.written = time
            state = .touching(touch)
        case .landing(let waiting, _):
            state = .landing(waiting, lifted: time)
        case .idle:
            break
        }
    }

    /// Lifts the fingers where they are, with no move: the touchpad is going away, or
    /// its timer failed.
    public mutating func abandon() -> Output? {
        defer { state = .idle }
        guard case .touching(let touch) = state else { return nil }
        return Output(seat: touch.seat, actions: [.lift])
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
            let goal = Self.travel(progress: progress, scroll: scroll)
            state = .touching(Touch(seat: seat, scroll: scroll, travelMillimetres: 0, goalMillimetres: goal, written: now))
            return Output(seat: seat, actions: landing(natural: scroll.natural))
        case .touching(var touch):
            guard touch.ending == nil else {
                // The last swipe's fingers are still running to their end: this one plays after the lift.
                var next = touch.next ?? Waiting(seat: seat, scroll: scroll, goalMillimetres: 0)
                guard next.ending == nil else { return nil }  // a third: one waits at a time
                next.goalMillimetres = Self.travel(progress: progress, scroll: next.scroll)
                touch.next = next
                state = .touching(touch)
                return nil
            }
            // One swipe at a time: the arbiter tracks one; the first one's seat and scale hold.
            touch.goalMillimetres = Self.travel(progress: progress, scroll: touch.scroll)
            state = .touching(touch)
            return step(at: now)
        case .landing(var waiting, let lifted):
            guard waiting.ending == nil else { return nil }
            waiting.goalMillimetres = Self.travel(progress: progress, scroll: waiting.scroll)
            state = .landing(waiting, lifted: lifted)
            return nil
        }
    }

    /// The waiting swipe's fingers land where every swipe's do; it then plays as one that
    /// began now: at its finger's events, or, if it has ended, on the timer.
    private mutating func land(_ waiting: Waiting, at now: Timestamp) -> Output {
        var touch = Touch(seat: waiting.seat, scroll: waiting.scroll, travelMillimetres: 0,
                          goalMillimetres: waiting.goalMillimetres, written: now)
        if let ending = waiting.ending {
            touch.ending = ending
            touch.goalMillimetres = Self.goal(of: ending, from: waiting.goalMillimetres)
        }
        state = .touching(touch)
        return Output(seat: waiting.seat, actions: landing(natural: waiting.scroll.natural))
    }

    /// The pointer under the finger, when its place is known, then the fingers down.
    private mutating func landing(natural: Bool) -> [Action] {
        let down = Action.down(Self.fingers(travelMillimetres: 0, natural: natural))
        defer { pointer = nil }
        guard let pointer else { return [down] }
        return [.pointer(x: pointer.x, y: pointer.y), down]
    }

    /// Where the fingers end: 20 mm on from a commit, back where they landed on a cancel.
    private static func goal(of ending: Ending, from travel: Double) -> Double {
        switch ending {
        case .commit: min(maximumTravelMillimetres, travel + completionMillimetres)
        case .cancel: 0
        }
    }

    private mutating func end(_ ending: Ending, at now: Timestamp) -> Output? {
        switch state {
        case .idle:
            return nil
        case .touching(var touch) where touch.ending != nil:
            // The waiting swipe's end; a cancelled one would end where it began.
            guard var next = touch.next, next.ending == nil else { return nil }
            next.ending = ending
            touch.next = ending == .cancel ? nil : next
            state = .touching(touch)
            return nil
        case .touching(var touch):
            touch.ending = ending
            touch.goalMillimetres = Self.goal(of: ending, from: touch.goalMillimetres)
            state = .touching(touch)
            return step(at: now)
        case .landing(var waiting, let lifted):
            guard waiting.ending == nil else { return nil }
            if ending == .cancel {
                state = .idle
            } else {
                waiting.ending = ending
                state = .landing(waiting, lifted: lifted)
            }
            return nil
        }
    }

    /// One frame toward the goal, at most the speed allows since the last frame; then
    /// the lift, when an ending swipe is at its goal.
    private mutating func step(at now: Timestamp) -> Output? {
        guard case .touching(var touch) = state else { return nil }
        var actions: [Action] = []
        let interval = now.microseconds - touch.written.microseconds
        if touch.travelMillimetres != touch.goalMillimetres && interval >= Self.minimumFrameMicroseconds {
            let speed = touch.ending == nil ? Self.followingMillimetresPerMillisecond : Self.endingMillimetresPerMillisecond
            let counted = touch.ending == nil ? interval : min(interval, Self.longestStepMicroseconds)
            let allowed = speed * Double(counted) / 1000
            let wanted = touch.goalMillimetres - touch.travelMillimetres
            // Exactly the goal when within reach, so that an ending swipe arrives and lifts.
            touch.travelMillimetres = abs(wanted) <= allowed ? touch.goalMillimetres : touch.travelMillimetres + (wanted < 0 ? -allowed : allowed)
            touch.written = now
            actions.append(.move(Self.fingers(travelMillimetres: touch.travelMillimetres, natural: touch.scroll.natural)))
        }
        if touch.ending != nil && touch.travelMillimetres == touch.goalMillimetres {
            actions.append(.lift)
            state = touch.next.map { .landing($0, lifted: now) } ?? .idle
        } else {
            state = .touching(touch)
        }
        return actions.isEmpty ? nil : Output(seat: touch.seat, actions: actions)
    }
}
