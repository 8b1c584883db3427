/// One event the daemon sends (docs/PROTOCOL.md, "Events"): to the owner of the
/// navigator it is about and to observers; `rejected`, `refused` and the back input's events
/// (`input-began`, `input-progress`, `input-cancelled`, `back-input`) to observers only.
///
/// Times are the evdev events' own, in microseconds of `CLOCK_MONOTONIC`. Progress runs
/// 0…1 across the screen width and travels rounded to thousandths.
public enum ServerEvent: Sendable, Hashable {
    /// An interactive pop began: the owner can start moving the page with the finger.
    case popBegan(navigator: String, page: String, progress: Double, timeMicroseconds: Int64)
    /// The finger moved.
    case popProgress(navigator: String, page: String, progress: Double, timeMicroseconds: Int64)
    /// The release committed the pop; a `back` follows.
    case popFinished(navigator: String, page: String, reason: FinishReason, timeMicroseconds: Int64)
    /// The pop will not happen: put the page back.
    case popCancelled(navigator: String, page: String, reason: CancelReason, timeMicroseconds: Int64)
    /// The back gesture committed: the daemon popped `popped`, and `top` is now on top.
    case back(navigator: String, popped: String, top: String, timeMicroseconds: Int64)
    /// Whether the owner's navigation bar should be hidden, for the page now on top.
    case bar(navigator: String, page: String, hidden: Bool)
    /// A pan that did not become a back gesture, and why; `device` is `status`'s number.
    case rejected(reason: RejectionReason, device: Int64, timeMicroseconds: Int64)
    /// That rejected pan went on like a back (from the edge zone toward the back, or half
    /// the commit distance in fullscreen mode) and `reason` refused it: at most once a
    /// pan, after its `rejected`, for an indicator's brief "no". Observers only.
    case refused(reason: RejectionReason, device: Int64, timeMicroseconds: Int64)
    /// A swipe began that goes to the daemon's back input: the focused app (`app`, when
    /// a shell named it) has no navigator. `input-progress` follows.
    case inputBegan(app: String?, timeMicroseconds: Int64)
    /// That swipe's finger moved: `progress` as `pop-progress`'s, `commit` the commit
    /// progress in force (`commit-progress`), so an indicator can grow until it.
    case inputProgress(app: String?, progress: Double, commit: Double, timeMicroseconds: Int64)
    /// That swipe will not go back.
    case inputCancelled(app: String?, reason: CancelReason, timeMicroseconds: Int64)
    /// That swipe committed: the daemon's virtual device sent `input` (`alt+left`).
    case backInput(app: String?, input: String, reason: FinishReason, timeMicroseconds: Int64)
    /// Who has focus changed (`source`: `shell` or `clients`; the shell's window's `app`
    /// and `pid`), or which navigator a back would reach now (nil: the back input or none).
    case focusChanged(source: String, app: String?, pid: Int64?, navigator: String?)
    /// The rotation of the touchscreens or the text direction in force changed, and who
    /// says it: as `status`'s `screen` (without the sensor's state). Observers only.
    case screenChanged(ServerReply.Status.Screen)
    /// The client's user is no longer the active user of a seat (another user switched
    /// in): no events come, and requests that read or steer the seat get `seat-inactive`,
    /// until `resumed`. The connection and the client's navigators stay. To the client
    /// alone, from the socket side.
    case paused(reason: String)
    /// The client's user is active again: events come again, and every request is
    /// answered as before. A client that was the shell is the shell again.
    case resumed

    /// The event types, as `"type"` names them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case popBegan = "pop-began"
        case popProgress = "pop-progress"
        case popFinished = "pop-finished"
        case popCancelled = "pop-cancelled"
        case back, bar, rejected, refused
        case inputBegan = "input-began"
        case inputProgress = "input-progress"
        case inputCancelled = "input-cancelled"
        case backInput = "back-input"
        case focusChanged = "focus-changed"
        case screenChanged = "screen-changed"
        case paused, resumed
    }

    public var kind: Kind {
        switch self {
        case .popBegan: .popBegan
        case .popProgress: .popProgress
        case .popFinished: .popFinished
        case .popCancelled: .popCancelled
        case .back: .back
        case .bar: .bar
        case .rejected: .rejected
        case .refused: .refused
        case .inputBegan: .inputBegan
        case .inputProgress: .inputProgress
        case .inputCancelled: .inputCancelled
        case .backInput: .backInput
        case .focusChanged: .focusChanged
        case .screenChanged: .screenChanged
        case .paused: .paused
        case .resumed: .resumed
        }
    }

    /// The navigator the event is about; nil for `rejected` and the back input's events.
    public var navigator: String? {
        switch self {
        case .popBegan(let n, _, _, _), .popProgress(let n, _, _, _), .popFinished(let n, _, _, _),
             .popCancelled(let n, _, _, _), .back(let n, _, _, _), .bar(let n, _, _):
            n
        case .rejected, .refused, .inputBegan, .inputProgress, .inputCancelled, .backInput, .focusChanged,
             .screenChanged, .paused, .resumed:
            nil
        }
    }

    /// The event's time; nil for `bar`, which has none.
    public var timeMicroseconds: Int64? {
        switch self {
        case .popBegan(_, _, _, let t), .popProgress(_, _, _, let t), .popFinished(_, _, _, let t),
             .popCancelled(_, _, _, let t), .back(_, _, _, let t), .rejected(_, _, let t), .refused(_, _, let t), .inputBegan(_, let t),
             .inputProgress(_, _, _, let t), .inputCancelled(_, _, let t), .backInput(_, _, _, let t):
            t
        case .bar, .focusChanged, .screenChanged, .paused, .resumed: nil
        }
    }

    // The reasons are open sets: a client reads a reason a newer daemon added. The
    // daemon's own reasons map onto these in one place, `ServerEvent.init(_:)` in
    // Sources/PopGestureCore/Wire/WireEncoding.swift.

    /// Why a release committed the pop (`pop-finished`).
    public struct FinishReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Progress passed the commit threshold.
        public static let progress = Self(rawValue: "progress")
        /// A fling toward the trailing side.
        public static let fling = Self(rawValue: "fling")
    }

    /// Why an interactive pop was cancelled (`pop-cancelled`).
    public struct CancelReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let released = Self(rawValue: "released")
        public static let flungBack = Self(rawValue: "flung-back")
        public static let extraFinger = Self(rawValue: "extra-finger")
        public static let palm = Self(rawValue: "palm")
        public static let eventsDropped = Self(rawValue: "events-dropped")
        public static let deviceRemoved = Self(rawValue: "device-removed")
        public static let stackChanged = Self(rawValue: "stack-changed")
        /// The screen turned under the finger (the shell or the sensor said so).
        public static let rotated = Self(rawValue: "rotated")
    }

    /// Why a pan did not become a back gesture (`rejected`).
    public struct RejectionReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let noNavigator = Self(rawValue: "no-navigator")
        public static let stackTooShallow = Self(rawValue: "stack-too-shallow")
        public static let popDisabled = Self(rawValue: "pop-disabled")
        public static let tooFarFromEdge = Self(rawValue: "too-far-from-edge")
        public static let transitioning = Self(rawValue: "transitioning")
        public static let wrongDirection = Self(rawValue: "wrong-direction")
        public static let outsideEdgeZone = Self(rawValue: "outside-edge-zone")
        public static let tooSteep = Self(rawValue: "too-steep")
        public static let longPress = Self(rawValue: "long-press")
        public static let excluded = Self(rawValue: "excluded")
        public static let extraFinger = Self(rawValue: "extra-finger")
        public static let palm = Self(rawValue: "palm")
        public static let eventsDropped = Self(rawValue: "events-dropped")
        public static let deviceRemoved = Self(rawValue: "device-removed")
        public static let busy = Self(rawValue: "busy")
        /// The arbiter's state after the client changed the stack under the finger; the
        /// wire says so as `pop-cancelled` `stack-changed`, never as a `rejected` event.
        public static let stackChanged = Self(rawValue: "stack-changed")
        /// The screen turned under the finger (the shell or the sensor said so).
        public static let rotated = Self(rawValue: "rotated")
        /// The focused app runs its own swipe-back; the daemon left the swipe to it.
        public static let ownSwipe = Self(rawValue: "own-swipe")
    }
}
