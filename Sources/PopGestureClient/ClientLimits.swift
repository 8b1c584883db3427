/// The bounds and times of a client; each default is what `PopGestureClient` uses.
public struct ClientLimits: Sendable, Hashable {
    /// A line from the daemon longer than this is a broken peer: the client drops the
    /// connection and connects again. Default 1 MiB; the daemon's longest line, a
    /// `status` reply, stays under 200 KiB (docs/PROTOCOL.md, "Replies").
    public var maximumIncomingLineBytes = 1 << 20

    /// Requests not yet written to the socket, together, at most this many bytes; a
    /// request past it fails at once with `output-full`. Default 256 KiB, the daemon's own
    /// bound on what it holds for a client that does not read.
    public var maximumOutgoingBytes = 256 << 10

    /// Requests out on the socket and not yet answered, at most this many; the rest wait in
    /// the outgoing buffer. Default 32: the daemon disconnects a client with 64 requests
    /// awaiting replies (docs/PROTOCOL.md, "Limits").
    public var maximumRequestsInFlight = 32

    /// The wait before the first reconnect; it doubles at each failure in a row, up to
    /// `maximumReconnectDelay`, and an answered `hello` resets it. Default 100 ms.
    public var initialReconnectDelay: Duration = .milliseconds(100)

    /// The longest wait between two connects. Default 5 s: a daemon that comes back
    /// gets its navigators again within 5 s.
    public var maximumReconnectDelay: Duration = .seconds(5)

    /// A `hello` unanswered this long after connecting: the connection is dropped and
    /// made again. Default 10 s, the daemon's own `hello` timeout.
    public var helloTimeout: Duration = .seconds(10)

    public init() {}
}
