/// The bounds the server keeps its clients within, so that nothing a local user sends
/// can exhaust the daemon, delay a touch, or cost another client (docs/PROTOCOL.md,
/// "Limits"; docs/RELIABILITY.md, "Touch first").
///
/// The defaults are the documented limits; tests shrink the timeouts.
public struct ServerLimits: Sendable, Hashable {
    // MARK: Places

    /// Clients that said `hello`, served at once. Default 128: a tablet runs a handful of
    /// apps. The next `hello` gets `too-many-clients` and the connection is closed; the
    /// others notice nothing. Connections still before `hello` do not count here
    /// (``maximumUngreetedConnections``).
    public var maximumClients = 128
    /// Places after `hello` one user may hold, unless it is root or the daemon's own user
    /// (`ServerState.unlimitedUsers`, as for every share). Default 64, half of
    /// ``maximumClients``: no single user can take every place.
    public var maximumClientsPerUser = 64
    /// Connections one process may hold, before and after `hello`. Default 32: an app
    /// needs one, a shell a few. A process that opens more (a leak, a flood) is refused
    /// `too-many-clients` and cannot crowd out the other processes of its own user, which
    /// the per-user share cannot protect.
    public var maximumConnectionsPerProcess = 32
    /// Connections that have not said `hello` yet, served at once beside the clients.
    /// Default 32: a client says `hello` in its first round trip, so only a stalled or
    /// hostile peer stays here for long (``helloTimeout``).
    public var maximumUngreetedConnections = 32
    /// Connections before `hello` one user may hold, whatever process holds them now.
    /// Default 8, a quarter of ``maximumUngreetedConnections``: a user whose programs
    /// trickle hellos can never take the places another user's clients need to say
    /// theirs. Counted per uid, not per pid: the peer's pid is the one that connected, and
    /// a process can connect from short-lived children and take the sockets back
    /// (`SCM_RIGHTS`), a new pid for each.
    public var maximumUngreetedPerUser = 8

    // MARK: Output

    /// A client whose unsent output passes this stopped reading and is disconnected, at
    /// the moment a line is queued for it. Default 256 KiB: a thousand events, far more
    /// than a swipe sends, and more than the largest reply (``maximumReplyBytes``).
    public var maximumUnsentBytesPerClient = 256 << 10
    /// When the unsent output of all clients together passes this, the client with the
    /// largest backlog is disconnected, at the moment a line is queued. Default 8 MiB:
    /// 32 clients at their own limit.
    public var maximumUnsentBytesTotal = 8 << 20
    /// The largest line the daemon writes: a `status` reply with every list full (the
    /// measured worst case is 196,292 bytes, `ServerStateTests`). A client's requests are
    /// read only while its unsent output leaves room for one more such reply under
    /// ``maximumUnsentBytesPerClient``, so a client that reads is never disconnected for
    /// what it asked, however fast it asks: it waits for its own output instead.
    public static let maximumReplyBytes = 200 << 10

    // MARK: Per turn

    // A client's turn is one dispatch of its source on the loop; the devices are looked
    // at again before every one (docs/RELIABILITY.md, "Touch first").

    /// Request lines handled for one client per turn. Default 8: a client waiting for
    /// its replies sends one or two; one that pipelines waits for its next turn, after
    /// the devices have been read again.
    public var linesPerClientPerRound = 8
    /// Request lines handled in one dispatch of the clients whose buffers hold lines a
    /// turn left (no descriptor reports those), in all, taken in the order they were
    /// left. Default 64, and at most ``clientTimePerRound``.
    public var linesPerRound = 64
    /// Turns one client gets per second at most (sd-event's rate limit on its source):
    /// past it, its source is off until the second ends. Default 2,000: far more than an
    /// app asks (a few lines a swipe), and with ``linesPerClientPerRound`` a bound on
    /// the share of the loop a client that floods it can take.
    public var turnsPerClientPerSecond = 2_000
    /// Time spent on one client's requests per turn at most, whatever they cost: once
    /// it has passed, the rest waits for its next turn. Default 1 ms. This bounds how
    /// long a finger's frame can wait for the clients however expensive their requests
    /// are (a `status` with 32 clients listed costs far more than an error reply), on
    /// any machine and build (docs/RELIABILITY.md).
    public var clientTimePerRound: Duration = .milliseconds(1)
    /// Bytes read from one client per turn at most. Default 16 KiB: a few hundred
    /// ordinary requests; a 64 KiB line arrives over four turns.
    public var bytesPerClientPerRound = 16 << 10
    /// Connections accepted per turn of the listener at most. Default 32, and none past
    /// half of ``clientTimePerRound`` but the first, so that a flood of them cannot starve
    /// the devices or the connected clients; the kernel queues the rest
    /// (``SocketServer/listenBacklog``).
    public var acceptsPerRound = 32

    // MARK: Time

    /// A line whose `\n` has not come this long after the input stopped inside it gets
    /// `line-timeout`, and the connection is closed. Default 10 s: a client writes a
    /// line at once; only a stalled or hostile one holds a half line (and its buffer).
    public var lineTimeout: Duration = .seconds(10)
    /// A connection that has not completed `hello` this long after it was accepted gets
    /// `hello-required` and is closed. Default 10 s, for the same reason.
    public var helloTimeout: Duration = .seconds(10)

    public init() {}

    /// The unsent output under which a client's requests are read (see ``maximumReplyBytes``).
    var readingThreshold: Int { max(0, maximumUnsentBytesPerClient - Self.maximumReplyBytes) }
}
