/// What the engine tells the outside world. The server routes each event to the
/// navigator's owner and to observers; `rejected` goes to observers only.
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

    /// The client that owns the navigator this event is about; nil for observer-only events.
    public var owner: ClientID? {
        switch self {
        case .popBegan(let t, _, _), .popProgress(let t, _, _), .popFinished(let t, _, _), .popCancelled(let t, _, _):
            t.owner
        case .back(_, let owner, _, _, _), .bar(_, let owner, _, _):
            owner
        case .rejected:
            nil
        }
    }
}
