/// Who may use the socket: decided once per connection, from the peer's credentials
/// (`SO_PEERCRED`), before the client can send anything.
///
/// A refused peer gets one `{"type":"error","code":"not-permitted",…}` line and is
/// closed; it never becomes a client, so it can neither own navigators nor observe.
/// The daemon builds its policy from the configuration and the seat's active
/// session (see `docs/PROTOCOL.md`, "Who may connect"); tests pass their own.
public struct ConnectionPolicy: Sendable {
    /// Returns nil to admit the peer, or the reason it is refused (for the log and the
    /// error message). `nil` credentials mean the kernel would not say who it is.
    public let decide: @Sendable (PeerCredentials?) -> String?
    /// Whether a peer ``decide`` refuses may wait instead, connected and paused, until it
    /// is admitted: a user with a session on a seat that is not the active one (a user
    /// switched away), whose apps and bridge come back when the user does. Asked only
    /// of refused peers. Default: nobody waits.
    public let mayWait: @Sendable (PeerCredentials?) -> Bool

    public init(
        _ decide: @escaping @Sendable (PeerCredentials?) -> String?,
        mayWait: @escaping @Sendable (PeerCredentials?) -> Bool = { _ in false }
    ) {
        self.decide = decide
        self.mayWait = mayWait
    }

    /// Everyone who can reach the socket file. For tests and for `clients = any`.
    public static let anyone = ConnectionPolicy { _ in nil }
}
