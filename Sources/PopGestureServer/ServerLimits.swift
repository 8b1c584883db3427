/// The bounds the server keeps its clients within, so that nothing a local user sends
/// can exhaust the daemon or cost another client (docs/PROTOCOL.md, "Limits").
///
/// The defaults are the documented limits; tests shrink the timeouts.
public struct ServerLimits: Sendable, Hashable {
    /// Connections served at once. Default 128: a tablet runs a handful of apps. The
    /// next one gets `too-many-clients` and is closed; the others notice nothing.
    public var maximumClients = 128
    /// A client whose unsent output passes this stopped reading and is disconnected.
    /// Default 256 KiB: a thousand events, far more than a swipe sends, and more than
    /// the largest `status` reply (`ServerState.maximumStatusListBytes`).
    public var maximumUnsentBytesPerClient = 256 << 10
    /// While the unsent output of all clients together passes this, the client with
    /// the largest backlog is disconnected. Default 8 MiB: 32 clients at their own limit.
    public var maximumUnsentBytesTotal = 8 << 20
    /// A line whose `\n` has not come this long after the input stopped inside it gets
    /// `line-timeout`, and the connection is closed. Default 10 s: a client writes a
    /// line at once; only a stalled or hostile one holds a half line (and its buffer).
    public var lineTimeout: Duration = .seconds(10)
    /// A connection that has not completed `hello` this long after it was accepted gets
    /// `hello-required` and is closed. Default 10 s, for the same reason.
    public var helloTimeout: Duration = .seconds(10)
    /// Requests of one client whose replies are not out yet: those the engine side has
    /// not answered, and those behind them (replies go out in the order of the requests).
    /// Default 64: a client that waits for its replies has one or two; one that writes
    /// 64 ahead while the engine is stalled is disconnected, so what it queues stays bounded.
    public var maximumRequestsAwaitingReply = 64

    public init() {}
}
