import Logging
import PopGestureCore
import PopGestureInput
import PopGestureProtocol

/// What the I/O layer must do after the server state took an input.
public enum ServerAction: Sendable, Hashable {
    /// Write one line to the client (shared with the others it goes to, newline included).
    case send(ClientID, line: OutgoingLine)
    /// Close the client's connection; `reason` has been logged already.
    case close(ClientID, reason: String)
    /// Hand the request to the engine side (``EngineHost``) at once, before the next
    /// input to the state: its reply and the events it caused come back as
    /// ``EngineOutput``s for ``ServerState/received(fromEngine:at:)``, in order.
    case toEngine(EngineRequest)
}

/// The socket side of the server as a plain state machine: the clients, their
/// requests and replies, and the routing of the engine's events. No engine: requests
/// that need it go to the engine side (``EngineHost``) as ``ServerAction/toEngine(_:)``,
/// and what it produced comes back through ``received(fromEngine:at:)``.
///
/// Every input (a line from a client, the engine side's output, a connect or disconnect)
/// returns the actions to carry out, in order; the I/O layer (`SocketServer`) only
/// switches over them, and carries a ``ServerAction/toEngine(_:)`` out before it gives
/// the state anything else. Time is always a parameter. Not thread-safe: one loop owns
/// it. Tests drive it directly, wired to an ``EngineHost``.
///
/// Routing: an event goes to the owner of its navigator, and every event, `rejected`
/// included, to each observer; a client that is both gets each line once.
///
/// Order: the engine side answers at once, so replies go out in the order of the
/// requests, and a reply comes before the events its request caused.
///
/// Places: connections before `hello` and clients after it are counted apart, each
/// with a share per user, and all of a process's with a share per process (root and the
/// daemon's user excepted), so that no process or user can take the places another needs
/// (``ServerLimits``; docs/PROTOCOL.md, "Limits").
public struct ServerState {
    /// The protocol versions this server speaks, lowest first; `hello` agrees on one
    /// (`ProtocolVersion.negotiate`). Default: every version the protocol module has.
    public static let supportedVersions = ProtocolVersion.supported
    /// The version `status` reports: the newest this server speaks.
    public static var protocolVersion: Int64 { supportedVersions.last! }
    /// The `"server"` of the `hello` reply.
    public static let serverName = "popgestured"
    /// A `status` reply lists at most 64 devices, 64 navigators and 64 clients; the
    /// counts say how many there are, and `"truncated":true` that some were left out.
    public static let maximumStatusEntries = 64
    /// Each of a `status` reply's three lists stops before it passes 64 KiB, whatever the
    /// length and escaping of the ids and names in it. With the fixed keys and the echoed
    /// id, a reply stays under ``ServerLimits/maximumReplyBytes`` (200 KiB).
    public static let maximumStatusListBytes = 64 << 10

    /// One connection.
    public struct Client: Sendable, Hashable {
        public let id: ClientID
        /// From `hello`; nil until then, or when it gave none.
        public internal(set) var name: String?
        /// The app id from `hello`; nil until then, or when it gave none.
        public internal(set) var app: String?
        /// `hello` made it the shell.
        public internal(set) var isShell = false
        /// The protocol version `hello` agreed on; nil until then.
        public internal(set) var version: Int64?
        /// Nil when the transport has none (tests).
        public let credentials: PeerCredentials?
        /// The seat it works at (its session's): it sees that seat's events only, and may
        /// be that seat's shell only.
        public let seat: Seat
        /// Whether `hello` was accepted; nothing else is before it.
        public internal(set) var greeted = false
        /// Subscribed: receives every event, `rejected` included.
        public internal(set) var observer = false
        /// Its user is not a seat's active user now (a user switch): it gets no events and
        /// `seat-inactive` for the requests that read or steer the seat, until resumed.
        /// Its connection, navigators and subscription stay.
        public internal(set) var paused = false
        /// When the connection was accepted: `hello` is due within ``ServerLimits/helloTimeout``.
        public let connectedAt: Timestamp
        /// When the input last stopped inside a line (bytes without their `\n`); nil
        /// when it ends at a line's end. The line must end within ``ServerLimits/lineTimeout``.
        public internal(set) var unfinishedLineSince: Timestamp?
        /// What the I/O layer last said this client has not taken yet: its queued lines
        /// as soon as they are queued, less what the kernel took.
        public internal(set) var unsentBytes = 0

        /// Notes when its input first stopped inside a line; false when it already had.
        mutating func markLineUnfinished(at time: Timestamp) -> Bool {
            guard unfinishedLineSince == nil else { return false }
            unfinishedLineSince = time
            return true
        }

        /// Its line ended; false when none was unfinished.
        mutating func markLineEnded() -> Bool {
            guard unfinishedLineSince != nil else { return false }
            unfinishedLineSince = nil
            return true
        }

        /// How the log names this client: `client 3 (pid 123)`.
        var logName: String { credentials.map { "\(id) (pid \($0.pid))" } ?? "\(id)" }
    }

    public private(set) var clients: [ClientID: Client] = [:]
    public let limits: ServerLimits
    /// Who may connect; asked at each connection, and of every client again at
    /// ``reviewAdmission(at:)`` (a seat's active user changed).
    public let admission: ConnectionPolicy
    /// Who may be the shell (`hello` with `"role":"shell"`), whatever ``admission`` lets in.
    public let shells: ConnectionPolicy
    /// The seat a peer works at, asked once at its connection.
    public let seatOf: @Sendable (PeerCredentials?) -> Seat
    /// The connected shell of each seat: at most one per seat.
    public private(set) var seatShells: [Seat: ClientID] = [:]
    /// The sum of every client's ``Client/unsentBytes``.
    public private(set) var totalUnsentBytes = 0
    /// Users whose connections no share per user or per process limits: root and the
    /// daemon's own user, whom the others cannot be protected from anyway (the limits in
    /// all still apply to them).
    public let unlimitedUsers: Set<UInt32>
    /// Clients that said `hello` (the rest of ``clients`` have not yet).
    public private(set) var greetedCount = 0
    /// Changes whenever ``nextDeadline`` may have: a client came or went, said `hello`, or
    /// began or ended an unfinished line. The I/O layer asks for the deadline only then,
    /// not after every frame (it walks every client).
    public private(set) var deadlineRevision: UInt64 = 0
    /// Subscribed clients, ascending, so lines go out in a stable order.
    private var observers: [ClientID] = []
    private var nextClient: UInt64 = 1
    /// Connections refused for want of a place since the last place freed: the first is
    /// logged as a warning, the rest are summed up when a place frees, so a flood does not
    /// flood the log.
    private var refusedWhileFull = 0
    /// Reused for each event's line, so that encoding one allocates only the line's buffer.
    private var lineWriter = JSONWriter()
    private let logger: Logger

    /// - Parameters:
    ///   - unlimitedUsers: users no share per user or per process applies to, and who
    ///     see every seat's events and credentials; default root. The daemon adds its
    ///     own user.
    ///   - seatOf: default: every peer works at seat0 (tests; the daemon asks logind).
    public init(
        limits: ServerLimits = ServerLimits(), admission: ConnectionPolicy = .anyone, shells: ConnectionPolicy = .anyone,
        seatOf: @escaping @Sendable (PeerCredentials?) -> Seat = { _ in .seat0 },
        unlimitedUsers: Set<UInt32> = [0], logger: Logger = Logger(label: "popgestured.server")
    ) {
        self.limits = limits
        self.admission = admission
        self.shells = shells
        self.seatOf = seatOf
        self.unlimitedUsers = unlimitedUsers
        self.logger = logger
    }

    // MARK: - Clients

    /// A connection was accepted. Returns the number that names it from now on, and
    /// what to do: nothing, or, for a peer the admission policy refuses or one past its
    /// share of the places before `hello` (``ServerLimits/maximumUngreetedConnections``,
    /// ``ServerLimits/maximumUngreetedPerUser``,
    /// ``ServerLimits/maximumConnectionsPerProcess``), one error line and a close. A
    /// refused connection never becomes a client: it owns nothing, observes nothing and
    /// counts for nothing.
    public mutating func clientConnected(
        credentials: PeerCredentials?, at time: Timestamp
    ) -> (client: ClientID, actions: [ServerAction]) {
        let id = ClientID(nextClient)
        nextClient += 1
        let who = credentials.map(\.description) ?? "no peer credentials"
        let waiting = admission.decide(credentials)
        if let reason = waiting, !admission.mayWait(credentials) {
            logger.warning("connection refused (\(who)): \(reason)")
            return (id, refusal(id, .notPermitted, "this daemon does not serve you: \(reason)"))
        }
        if let full = placeRefusal(before: true, credentials: credentials) {
            refusedForWantOfPlace(full, who: who)
            return (id, refusal(id, .tooManyClients, "\(full); try again later"))
        }
        let seat = seatOf(credentials)
        clients[id] = Client(id: id, name: nil, credentials: credentials, seat: seat, connectedAt: time)
        deadlineRevision &+= 1
        clients[id]?.paused = waiting != nil
        logger.info("\(id) connected (\(who), \(seat))\(waiting.map { ", paused: \($0)" } ?? "")")
        return (id, [])
    }

    /// Why a connection (`beforeHello`) or a `hello` has no place, or nil. Connections
    /// before `hello` and clients after it have places of their own, and a user has a
    /// share of each; a process's share counts both. The one asking is not in ``clients`` as what it
    /// asks to become: a new connection is not there at all, a `hello` not yet greeted.
    private func placeRefusal(before beforeHello: Bool, credentials: PeerCredentials?) -> String? {
        let ungreeted = clients.count - greetedCount
        if beforeHello, ungreeted >= limits.maximumUngreetedConnections {
            return "\(ungreeted) connections have not said hello yet, the most served at once"
        }
        if !beforeHello, greetedCount >= limits.maximumClients {
            return "the daemon serves at most \(limits.maximumClients) clients at once"
        }
        // No process or user to count (tests), or one the shares do not limit.
        guard let credentials, !unlimitedUsers.contains(credentials.uid) else { return nil }
        var ofProcess = 0, ofUser = 0, ofUserUngreeted = 0
        for client in clients.values {
            guard let peer = client.credentials else { continue }
            if peer.pid == credentials.pid { ofProcess += 1 }
            if peer.uid == credentials.uid {
                if client.greeted { ofUser += 1 } else { ofUserUngreeted += 1 }
            }
        }
        if beforeHello, ofProcess >= limits.maximumConnectionsPerProcess {
            return "pid \(credentials.pid) holds \(ofProcess) connections, the most one process may"
        }
        if beforeHello, ofUserUngreeted >= limits.maximumUngreetedPerUser {
            return "uid \(credentials.uid) holds \(ofUserUngreeted) connections that have not said hello, the most one user may"
        }
        if !beforeHello, ofUser >= limits.maximumClientsPerUser {
            return "uid \(credentials.uid) holds \(ofUser) of the \(limits.maximumClients) places, its share"
        }
        return nil
    }

    /// Logs a connection refused for want of a place: the first as a warning, the rest
    /// counted until a place frees.
    private mutating func refusedForWantOfPlace(_ reason: String, who: String) {
        if refusedWhileFull == 0 {
            logger.warning("refusing connections: \(reason) (\(who))")
        } else {
            logger.debug("connection refused: \(reason) (\(who))")
        }
        refusedWhileFull += 1
    }

    private func refusal(_ client: ClientID, _ code: ProtocolError.Code, _ message: String) -> [ServerAction] {
        [.send(client, line: OutgoingLine.encoding(ProtocolError(code, message))), .close(client, reason: message)]
    }

    /// One line from a client, without its newline.
    public mutating func received(
        line: some Collection<UInt8>, from client: ClientID, at time: Timestamp
    ) -> [ServerAction] {
        guard clients[client] != nil else {
            // Lines already read when the server decided to close the connection.
            logger.debug("a line from \(client), which is closed; dropped")
            return []
        }
        lineEnded(from: client)
        if line.allSatisfy(Self.isWhitespace) { return [] }  // a stray Enter in socat
        var actions: [ServerAction] = []
        do {
            submit(try RequestCodec.decode(line), from: client, at: time, into: &actions)
        } catch {
            logger.debug("\(client): \(error.request ?? "request") refused, \(error)")
            actions.append(.send(client, line: OutgoingLine.encoding(error)))
        }
        return actions
    }

    /// What the engine side produced, in its order: a reply, or an event to route.
    public mutating func received(fromEngine output: EngineOutput, at time: Timestamp) -> [ServerAction] {
        var actions: [ServerAction] = []
        switch output {
        case .event(let event, let seat):
            actions.reserveCapacity(1 + observers.count)  // one allocation, not one per growth
            route(event, seat: seat, into: &actions)
        case .reply(let client, let reply, let id):
            guard clients[client] != nil else {
                logger.debug("a reply for \(client), which is gone; dropped")
                return []
            }
            actions.append(.send(client, line: OutgoingLine.encoding(completed(reply, for: client), id: id)))
        }
        return actions
    }

    /// The framing dropped a line longer than the limit.
    public mutating func receivedOverlongLine(
        from client: ClientID, maximumLength: Int, at time: Timestamp
    ) -> [ServerAction] {
        guard clients[client] != nil else { return [] }
        logger.debug("\(client): a line over \(maximumLength) bytes, discarded")
        let error = ProtocolError(
            .lineTooLong, "a line is limited to \(maximumLength) bytes; the rest of this one was discarded")
        return [.send(client, line: OutgoingLine.encoding(error))]
    }

    /// The input stopped inside a line: its `\n` is due within ``ServerLimits/lineTimeout``
    /// of the first time this was said for the line. A complete line, or the end of a
    /// discarded over-long one (``lineEnded(from:)``), clears it.
    public mutating func lineUnfinished(from client: ClientID, at time: Timestamp) {
        // In place (optional chaining modifies the entry; reading it would copy it).
        if clients[client]?.markLineUnfinished(at: time) == true { deadlineRevision &+= 1 }
    }

    /// A line ended without being handed over: the `\n` of a discarded over-long line.
    public mutating func lineEnded(from client: ClientID) {
        if clients[client]?.markLineEnded() == true { deadlineRevision &+= 1 }
    }

    /// How much the client has not taken yet, as the I/O layer counts it: said each time
    /// a line is queued for it and each time the kernel took some, so no round can queue
    /// past a limit. A client past ``ServerLimits/maximumUnsentBytesPerClient`` is
    /// disconnected; while the sum over all clients is past
    /// ``ServerLimits/maximumUnsentBytesTotal``, the client with the largest backlog is
    /// (the lowest number among equals). `time` is read only for a disconnect.
    public mutating func outputBacklog(
        of client: ClientID, unsentBytes: Int, at time: @autoclosure () -> Timestamp
    ) -> [ServerAction] {
        guard let entry = clients[client] else { return [] }
        totalUnsentBytes += unsentBytes - entry.unsentBytes
        clients[client]!.unsentBytes = unsentBytes
        guard unsentBytes > limits.maximumUnsentBytesPerClient || totalUnsentBytes > limits.maximumUnsentBytesTotal
        else { return [] }
        let time = time()
        var actions: [ServerAction] = []
        if unsentBytes > limits.maximumUnsentBytesPerClient {
            disconnect(
                client, reason: "not reading, \(unsentBytes) bytes unsent, over the \(limits.maximumUnsentBytesPerClient >> 10) KiB per client",
                at: time, into: &actions)
        }
        while totalUnsentBytes > limits.maximumUnsentBytesTotal,
              let largest = clients.values.max(by: { ($0.unsentBytes, $1.id) < ($1.unsentBytes, $0.id) })
        {
            disconnect(
                largest.id,
                reason: "the largest backlog (\(largest.unsentBytes) bytes) when unsent output to all clients passed \(limits.maximumUnsentBytesTotal >> 20) MiB",
                at: time, into: &actions)
        }
        return actions
    }

    /// Whether the client's next request may be read now: only while its unsent output
    /// leaves room for the largest reply (``ServerLimits/maximumReplyBytes``), so that
    /// no answer can take a reading client past its limit. A client that asks faster
    /// than it reads waits, alone, until it has read; its requests stay in its socket.
    public func mayReceive(from client: ClientID) -> Bool {
        guard let entry = clients[client] else { return false }
        return Self.mayReceive(unsentBytes: entry.unsentBytes, limits: limits)
    }

    /// The rule of ``mayReceive(from:)`` on a count the caller holds (the I/O layer's
    /// own buffer, which the state's count follows), so that the poll loop asks it of
    /// every client each round without a look-up.
    public static func mayReceive(unsentBytes: Int, limits: ServerLimits) -> Bool {
        unsentBytes <= limits.readingThreshold
    }

    /// The earliest time ``tick(at:)`` has something to do: a `hello` or the end of an
    /// unfinished line falling due. Nil when no client is waiting for either, so an
    /// idle daemon sets no timer.
    public var nextDeadline: Timestamp? {
        // A plain loop: `compactMap(deadline(of:))` captured a copy of the whole state,
        // twice a round (issue 30's profile: 4 % of a swipe, and its retains).
        var next: Timestamp?
        for client in clients.values {
            guard let due = deadline(of: client) else { continue }
            next = min(next ?? due, due)
        }
        return next
    }

    /// Time passed: closes each client whose `hello` (`hello-required`) or unfinished
    /// line (`line-timeout`) is overdue at `time`, after one error line saying so.
    public mutating func tick(at time: Timestamp) -> [ServerAction] {
        var actions: [ServerAction] = []
        for id in clients.keys.sorted() {
            guard let client = clients[id], let due = deadline(of: client), due <= time else { continue }
            if !client.greeted && client.connectedAt + limits.helloTimeout <= time {
                let message = "no hello within \(limits.helloTimeout); closing"
                actions.append(.send(id, line: OutgoingLine.encoding(ProtocolError(.helloRequired, message))))
                disconnect(id, reason: message, at: time, into: &actions)
            } else {
                let message = "a line was not finished within \(limits.lineTimeout); closing"
                actions.append(.send(id, line: OutgoingLine.encoding(ProtocolError(.lineTimeout, message))))
                disconnect(id, reason: message, at: time, into: &actions)
            }
        }
        return actions
    }

    private func deadline(of client: Client) -> Timestamp? {
        let hello = client.greeted ? nil : client.connectedAt + limits.helloTimeout
        let line = client.unfinishedLineSince.map { $0 + limits.lineTimeout }
        switch (hello, line) {
        case let (hello?, line?): return min(hello, line)
        case (let one?, nil), (nil, let one?): return one
        case (nil, nil): return nil
        }
    }

    /// The connection is gone, whoever closed it. Its navigators go with it.
    public mutating func clientDisconnected(_ client: ClientID, at time: Timestamp) -> [ServerAction] {
        var actions: [ServerAction] = []
        remove(client, logging: "connection ended", at: time, into: &actions)
        return actions
    }

    /// The server's own decision to close a client: logged with the reason, forgotten
    /// at once (so it counts for nothing from here), then closed.
    private mutating func disconnect(
        _ client: ClientID, reason: String, at time: Timestamp, into actions: inout [ServerAction]
    ) {
        guard clients[client] != nil else { return }
        actions.append(.close(client, reason: reason))
        remove(client, logging: "disconnected: \(reason)", at: time, into: &actions)
    }

    private mutating func remove(
        _ client: ClientID, logging what: String, at time: Timestamp, into actions: inout [ServerAction]
    ) {
        guard let entry = clients.removeValue(forKey: client) else { return }
        deadlineRevision &+= 1
        totalUnsentBytes -= entry.unsentBytes
        if entry.greeted { greetedCount -= 1 }
        observers.removeAll { $0 == client }
        if entry.isShell, seatShells[entry.seat] == client { seatShells[entry.seat] = nil }
        logger.log(level: what == "connection ended" ? .info : .warning, "\(entry.logName) \(what)")
        if refusedWhileFull > 0 {
            logger.info("a place is free again; \(refusedWhileFull) connections were refused for want of one")
            refusedWhileFull = 0
        }
        // Its navigators go on the engine side.
        actions.append(.toEngine(EngineRequest(client: client, kind: .clientGone, time: time)))
    }

    /// Who may connect, or be the shell, may have changed (logind says a seat's active
    /// session changed): every client is asked again, as at its connection. A client the
    /// admission policy now refuses, or a shell whose user may no longer be its seat's
    /// shell, is paused, never closed: it gets `paused`, then no events, and
    /// `seat-inactive` for the requests that read or steer the seat; a shell gives its
    /// seat's role up, so that the new user's bridge can take it at once. A paused client
    /// admitted again gets `resumed`, and a shell its role back when its seat has no
    /// other (else `shell-taken`, and it is closed). Pauses come first, so that a role
    /// freed by one user's pause goes to the other's resume in the same review.
    public mutating func reviewAdmission(at time: Timestamp) -> [ServerAction] {
        var actions: [ServerAction] = []
        var resuming: [ClientID] = []
        for id in clients.keys.sorted() {
            guard let client = clients[id] else { continue }
            let refusal = admission.decide(client.credentials)
                ?? (client.isShell ? shells.decide(client.credentials) : nil)
            if let refusal, !client.paused {
                pause(id, because: refusal, at: time, into: &actions)
            } else if refusal == nil, client.paused {
                resuming.append(id)
            }
        }
        for id in resuming { resume(id, at: time, into: &actions) }
        return actions
    }

    private mutating func pause(_ id: ClientID, because reason: String, at time: Timestamp, into actions: inout [ServerAction]) {
        guard let client = clients[id] else { return }
        clients[id]?.paused = true
        if seatShells[client.seat] == id {
            seatShells[client.seat] = nil
            logger.info("\(client.logName) is no longer the shell of \(client.seat), until its user is back")
        }
        logger.info("\(client.logName) paused until its user is back at a seat (\(reason))")
        // Before hello there is no one to tell: its hello reply says so.
        guard client.greeted else { return }
        actions.append(.send(id, line: Self.pausedLine(client)))
        actions.append(.toEngine(EngineRequest(client: id, kind: .paused, time: time)))
    }

    private mutating func resume(_ id: ClientID, at time: Timestamp, into actions: inout [ServerAction]) {
        guard let client = clients[id] else { return }
        if client.isShell, let shell = seatShells[client.seat] {
            let message = "\(shell) is the shell of \(client.seat) now; there is one at a time"
            actions.append(.send(id, line: OutgoingLine.encoding(ProtocolError(.shellTaken, message))))
            disconnect(id, reason: "back from a pause, but \(message)", at: time, into: &actions)
            return
        }
        clients[id]?.paused = false
        if client.isShell {
            seatShells[client.seat] = id
            logger.info("\(client.logName) is the shell of \(client.seat) again")
        }
        logger.info("\(client.logName) resumed")
        guard client.greeted else { return }
        actions.append(.toEngine(EngineRequest(client: id, kind: .resumed(asShell: client.isShell), time: time)))
        actions.append(.send(id, line: Self.resumedLine))
    }

    /// The daemon is stopping: close every connection.
    public mutating func shutdown() -> [ServerAction] {
        logger.debug("shutting down, closing \(clients.count) clients")
        return clients.keys.sorted().map { .close($0, reason: "daemon shutting down") }
    }

    // MARK: - Requests

    /// A decoded request: to the engine side when it needs the engine, else carried out here.
    private mutating func submit(
        _ identified: IdentifiedRequest, from client: ClientID, at time: Timestamp, into actions: inout [ServerAction]
    ) {
        guard let entry = clients[client] else { return }
        if entry.paused, entry.greeted, Self.waitsForTheSeat(identified.request) {
            let error = ProtocolError(
                .seatInactive, "uid \(entry.credentials.map { String($0.uid) } ?? "unknown") is not the active user of a seat "
                    + "now: \(identified.request.type) waits until resumed",
                request: identified.request.type)
            actions.append(.send(client, line: OutgoingLine.encoding(.error(error), id: identified.id)))
            return
        }
        // A seat's settings are the person's at that screen, as its shell is: never another
        // local user that `clients = any` lets in, nor the user of another seat.
        if entry.greeted, case .userSettings = identified.request, let reason = shells.decide(entry.credentials) {
            let error = ProtocolError(
                .notPermitted, "only root, the daemon's user and the seat's active user may set its settings: \(reason)",
                request: identified.request.type)
            actions.append(.send(client, line: OutgoingLine.encoding(.error(error), id: identified.id)))
            return
        }
        guard entry.greeted, EngineRequest.isEngines(identified.request) else {
            // hello-required too: a client not greeted has nothing with the engine side.
            perform(identified, from: client, at: time, into: &actions)
            return
        }
        actions.append(.toEngine(EngineRequest(
            client: client, kind: .request(identified.request, id: identified.id), time: time)))
    }

    /// The requests a paused client gets `seat-inactive` for: those that read what happens
    /// at the seat (`status`, `stack`, which shows any navigator) or steer it (a shell's
    /// reports). Its own navigators' changes, `focus` and `subscribe` are taken as ever:
    /// they show nothing of the seat, and keep the client's record true for its return.
    static func waitsForTheSeat(_ request: ClientRequest) -> Bool {
        switch request {
        case .status, .stack, .focusedWindow, .rotation, .outputs, .textDirection, .touchpadScrolling, .userSettings: true
        case .hello, .subscribe, .unsubscribe, .create, .push, .pop, .replace, .update, .settle, .front, .remove,
             .configure, .focus:
            false
        }
    }

    /// `{"type":"paused","reason":…}` for `client`.
    private static func pausedLine(_ client: Client) -> OutgoingLine {
        let uid = client.credentials.map { "uid \($0.uid)" } ?? "this client's user"
        var writer = JSONWriter()
        MessageCodec.write(ServerEvent.paused(reason: "\(uid) is not the active user of a seat now"), to: &writer)
        return OutgoingLine(writer)
    }

    private static var resumedLine: OutgoingLine {
        var writer = JSONWriter()
        MessageCodec.write(ServerEvent.resumed, to: &writer)
        return OutgoingLine(writer)
    }

    /// A request the socket side answers itself.
    private mutating func perform(
        _ identified: IdentifiedRequest, from client: ClientID, at time: Timestamp, into actions: inout [ServerAction]
    ) {
        let request = identified.request, id = identified.id
        func reply(_ reply: ServerReply) { actions.append(.send(client, line: OutgoingLine.encoding(reply, id: id))) }
        func refuse(_ code: ProtocolError.Code, _ message: String, supportedVersions: [Int64]? = nil) {
            logger.debug("\(client): \(request.type) refused, \(code): \(message)")
            reply(.error(ProtocolError(code, message, request: request.type, supportedVersions: supportedVersions)))
        }
        func ok() {
            logger.debug("\(client): \(request.type) ok")
            reply(.ok(request: request.type))
        }

        if case .hello(let versions, let name, let app, let role) = request {
            guard let version = ProtocolVersion.negotiate(offered: versions, supported: Self.supportedVersions) else {
                let list = { (versions: [Int64]) in versions.map(String.init).joined(separator: ", ") }
                let offered = versions.count == 1 ? "version \(versions[0]) is" : "versions \(list(versions)) are"
                refuse(
                    .unsupportedVersion, "protocol \(offered) not supported; supported: \(list(Self.supportedVersions))",
                    supportedVersions: Self.supportedVersions)
                return
            }
            guard let entry = clients[client] else { return }
            if entry.greeted && (app != entry.app || (role == .shell) != entry.isShell) {
                refuse(.invalidValue, "a client says who it is once: a later hello may not change \"app\" or \"role\"")
                return
            }
            if !entry.greeted, let full = placeRefusal(before: false, credentials: entry.credentials) {
                refusedForWantOfPlace(full, who: entry.logName)
                reply(.error(ProtocolError(.tooManyClients, "\(full); try again later", request: request.type)))
                disconnect(client, reason: "no place after hello: \(full)", at: time, into: &actions)
                return
            }
            // A paused shell takes its seat's role when its user is back (``reviewAdmission(at:)``).
            if role == .shell && !entry.isShell && !entry.paused {
                if let reason = shells.decide(entry.credentials) {
                    logger.warning("\(entry.logName) may not be the shell: \(reason)")
                    refuse(
                        .shellRefused,
                        "only root, the daemon's user and the seat's active user may be its shell: \(reason)")
                    return
                }
                if let shell = seatShells[entry.seat] {
                    refuse(.shellTaken, "\(shell) is the shell of \(entry.seat); there is one at a time")
                    return
                }
            }
            clients[client]?.name = name
            clients[client]?.version = version
            if !entry.greeted {
                clients[client]?.greeted = true
                greetedCount += 1
                deadlineRevision &+= 1
                clients[client]?.app = app
                let holdsShell = role == .shell && !entry.paused
                if role == .shell {
                    clients[client]?.isShell = true
                    if holdsShell {
                        seatShells[entry.seat] = client
                        logger.info("\(entry.logName) is the shell of \(entry.seat)")
                    }
                }
                actions.append(.toEngine(EngineRequest(
                    client: client,
                    kind: .identified(
                        app: app, pid: entry.credentials?.pid, uid: entry.credentials?.uid, seat: entry.seat,
                        isShell: holdsShell),
                    time: time)))
                if entry.paused {
                    actions.append(.toEngine(EngineRequest(client: client, kind: .paused, time: time)))
                }
            }
            logger.debug("\(client): hello, protocol \(version), \(name.map { "\"\($0)\"" } ?? "no name")\(app.map { ", app \($0)" } ?? "")")
            reply(.hello(version: version, server: Self.serverName, client: Int64(client.rawValue)))
            if !entry.greeted, entry.paused {
                actions.append(.send(client, line: Self.pausedLine(entry)))
            }
            return
        }
        guard clients[client]?.greeted == true else {
            refuse(.helloRequired, "the first request must be {\"type\":\"hello\",\"version\":\(Self.protocolVersion)}")
            return
        }

        switch request {
        case .hello:
            break  // Handled above.
        case .subscribe:
            clients[client]?.observer = true
            if !observers.contains(client) {
                observers.append(client)
                observers.sort()
            }
            ok()
        case .unsubscribe:
            clients[client]?.observer = false
            observers.removeAll { $0 == client }
            ok()
        case .create, .push, .pop, .replace, .update, .settle, .front, .remove, .configure, .stack, .status, .focus,
             .focusedWindow, .rotation, .outputs, .textDirection, .touchpadScrolling, .userSettings:
            // Only reached for a client not greeted, refused above; the others go to the engine side.
            logger.error("bug: \(request.type) reached the socket side's own requests")
        }
    }

    /// The engine side's reply as `asker` gets it: a `status` with the clients of the
    /// asker's seat added (every seat's for root and the daemon's user), each client's
    /// credentials only where the asker may see them (``maySee(_:by:)``).
    private func completed(_ reply: ServerReply, for asker: ClientID) -> ServerReply {
        guard case .status(var status) = reply else { return reply }
        let viewer = self.clients[asker]
        let shown = self.clients.values.filter { client in viewer.map { maySee(seat: client.seat, by: $0) } ?? false }
        let clients = shown.sorted { $0.id < $1.id }.map { client in
            ServerReply.Status.Client(
                client: Int64(client.id.rawValue), name: client.name,
                credentials: client.credentials.flatMap { credentials in
                    guard let viewer, maySee(client, by: viewer) else { return nil }
                    return ServerReply.Status.Credentials(
                        pid: Int64(credentials.pid), uid: Int64(credentials.uid), gid: Int64(credentials.gid))
                },
                observer: client.observer)
        }
        status.clients = Self.listed(clients, encode: MessageCodec.encodeStatusEntry)
        status.clientCount = Int64(clients.count)
        return .status(status)
    }

    /// The first entries of a `status` list that fit both caps.
    static func listed<Entry>(_ entries: [Entry], encode: (Entry) -> JSONValue) -> [Entry] {
        var listed: [Entry] = [], bytes = 0
        for entry in entries.prefix(maximumStatusEntries) {
            bytes += encode(entry).text.utf8.count + 1
            guard bytes <= maximumStatusListBytes else { break }
            listed.append(entry)
        }
        return listed
    }

    // MARK: - Routing

    /// Hands an engine event to its owner and to every observer who may see `seat`'s
    /// events (``maySee(seat:by:)``), each line once per client.
    private mutating func route(_ event: EngineEvent, seat: Seat, into actions: inout [ServerAction]) {
        // A paused owner hears only that a pop over its page was cancelled (at its pause),
        // so that its page goes back; nothing else of the seat.
        // Read by index: measured cheaper than a copy of each entry (BENCHMARKS.md, issue 30).
        let owner = event.owner.flatMap { id in
            clients.index(forKey: id).flatMap { !clients.values[$0].paused || Self.putsBack(event) ? id : nil }
        }
        guard owner != nil || !observers.isEmpty else { return }
        lineWriter.removeAll()
        MessageCodec.write(ServerEvent(event), to: &lineWriter)
        let line = OutgoingLine(lineWriter)
        if let owner { actions.append(.send(owner, line: line)) }
        for observer in observers where observer != owner {
            guard let index = clients.index(forKey: observer), !clients.values[index].paused,
                  maySee(seat: seat, by: clients.values[index]) else { continue }
            actions.append(.send(observer, line: line))
        }
    }

    private static func putsBack(_ event: EngineEvent) -> Bool {
        if case .popCancelled = event { true } else { false }
    }

    /// Whether `viewer` sees what happens on `seat` (swipes, focus, backs): when it works
    /// there, or is root or the daemon's user. A swipe on one seat is nobody else's business.
    func maySee(seat: Seat, by viewer: Client) -> Bool {
        viewer.seat == seat || viewer.credentials.map { unlimitedUsers.contains($0.uid) } == true
    }

    /// Whether `viewer` sees `client`'s credentials in `status`: when it is root or the
    /// daemon's user, the same user, or the shell of the client's seat (which matches
    /// windows to pids).
    func maySee(_ client: Client, by viewer: Client) -> Bool {
        guard let uid = viewer.credentials?.uid else { return false }
        if unlimitedUsers.contains(uid) || client.credentials?.uid == uid { return true }
        return seatShells[viewer.seat] == viewer.id && viewer.seat == client.seat
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }
}
