/// What the engine tells the outside world. The server routes each event to the
/// navigator's owner and to observers; `rejected` and the back input's events go to
/// observers only, and the engine side sends ``backInput(_:app:seat:reason:time:)`` through
/// the daemon's virtual device.
public enum EngineEvent: Sendable, Hashable {
    /// An interactive pop began: the owner can start moving the page with the finger.
    case popBegan(PopTarget, progress: Double, time: Timestamp)
    /// The finger moved: `progress` runs 0…1 across the screen width.
    case popProgress(PopTarget, progress: Double, time: Timestamp)
    /// The release committed the pop; a `back` follows.
    case popFinished(PopTarget, reason: CommitReason, time: Timestamp)
    /// The pop will not happen: put the page back.
    case popCancelled(PopTarget, reason: PopCancelReason, time: Timestamp)
    /// The back gesture committed: the daemon popped `popped`, and `top` is now on top.
    case back(navigator: String, owner: ClientID, popped: String, top: String, time: Timestamp)
    /// Whether the owner's navigation bar should be hidden, for the page now on top.
    case bar(navigator: String, owner: ClientID, page: String, hidden: Bool)
    /// A pan that did not become a back gesture, and why.
    case rejected(RejectionReason, device: DeviceID, time: Timestamp)
    /// That rejected pan went on like a back (from the edge zone toward the back, or half
    /// the commit distance in fullscreen mode), and `reason` refused it: at most once a
    /// pan, for an indicator's brief "no". Observers only.
    case refused(RejectionReason, device: DeviceID, time: Timestamp)
    /// A swipe toward the back input began on `seat`: the focused app (`app`, when
    /// known) has no navigator. Observers only; the app knows nothing of it. `pointer`:
    /// where the finger is, in fractions of the seat's one screen, for the touchpad
    /// bridge to put the pointer under it (its scroll goes to the surface under the
    /// pointer); nil from a touchpad, or when the seat's shell reports more than one
    /// output (where that screen sits among them is not known).
    case inputBegan(app: String?, seat: Seat, pointer: ScreenPoint?, time: Timestamp)
    /// That swipe's finger moved (and once right after ``inputBegan(app:seat:pointer:time:)``):
    /// `progress` as ``popProgress(_:progress:time:)``'s, each time it changes by a
    /// thousandth, `commit` the commit progress in force. Observers only, for an
    /// indicator that follows the finger (Android's arrow); the daemon's touchpad bridge
    /// follows it for a `touchpad` back input on `seat`.
    case inputProgress(BackInput, app: String?, seat: Seat, progress: Double, commit: Double, time: Timestamp)
    /// That swipe will not go back.
    case inputCancelled(app: String?, seat: Seat, reason: PopCancelReason, time: Timestamp)
    /// That swipe committed: the daemon's virtual device of `seat` (the swiped device's)
    /// is to send `input`.
    case backInput(BackInput, app: String?, seat: Seat, reason: CommitReason, time: Timestamp)
    /// Who has focus changed, or which navigator a back would reach: observers only.
    case focusChanged(FocusSummary)
    /// The rotation of the touchscreens or the text direction in force changed: observers only.
    case screenChanged(ScreenSummary)

    /// The client that owns the navigator this event is about; nil for observer-only events.
    public var owner: ClientID? {
        switch self {
        case .popBegan(let t, _, _), .popProgress(let t, _, _), .popFinished(let t, _, _), .popCancelled(let t, _, _):
            t.owner
        case .back(_, let owner, _, _, _), .bar(_, let owner, _, _):
            owner
        case .rejected, .refused, .inputBegan, .inputProgress, .inputCancelled, .backInput, .focusChanged,
             .screenChanged:
            nil
        }
    }
}
