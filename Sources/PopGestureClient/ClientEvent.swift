import PopGestureProtocol

/// What a client tells the app: the daemon's events, the replies to its requests, and
/// what happened to the connection. `PopGestureClient` hands each to its handler, in
/// the order they happened.
public enum ClientEvent: Sendable, Hashable {
    /// The daemon answered `hello`: `version` is the protocol version agreed, `client` the
    /// daemon's number for this connection (the `owner` of its navigators). Comes after
    /// every connect, the first and each reconnect; the navigators of the record are
    /// re-created right after it.
    case connected(version: Int64, client: Int64)
    /// An event of the daemon: `pop-began`, `pop-progress`, `pop-finished`, `back`, … for
    /// the navigators this client owns, and every event once it subscribed. `paused` and
    /// `resumed` bracket a user switch away and back: the connection and the navigators
    /// stay, and nothing needs doing (``ClientConnectionState/isPaused``).
    case event(ServerEvent)
    /// The reply to the request with this id (what the request method returned), when it
    /// was sent without a completion: a `ServerReply` (`ok`, `stack`, `status`), or why it failed.
    case reply(id: Int64, request: ClientRequest, result: Result<ServerReply, ClientError>)
    /// The connection ended, or a connect failed (`reason` says which and why); the
    /// client connects again at `retryAt`. Requests that were out and unanswered failed
    /// with `connection-lost` just before; requests made from now on wait for the new
    /// connection.
    case disconnected(reason: String, retryAt: ContinuousClock.Instant)
    /// A navigator of the record could not be re-created after a reconnect (another
    /// client took its id meanwhile: `navigator-exists`); it left the record.
    case recreationFailed(navigator: String, error: ProtocolError)
    /// A line the protocol module cannot read (a type from a newer daemon, or a broken
    /// line); nothing else is done with it.
    case unreadable(line: String, error: ProtocolError)
    /// The client stopped for good: the daemon refused its `hello` in a way a retry
    /// cannot change (`not-permitted`, `unsupported-version`, an app id that is `too-long`).
    /// Every waiting request failed with `gave-up` just before.
    case gaveUp(reason: String)
}
