import PopGestureProtocol

/// A client's side of its connection to popgestured, as a state machine without I/O or
/// clock: the driver (`PopGestureClient`, or an app's own) reports what happened on the
/// socket and when, and carries out the actions each input returns, in order.
///
///     idle ──start──▶ connecting ──connected──▶ greeting ──hello reply──▶ ready
///                      ▲      │ failed           │ closed, timeout,      │ closed, a line
///                      │      ▼                  │ busy daemon           │ over 1 MiB
///                      └─ disconnected(retryAt) ◀┴───────────────────────┘
///     greeting ──hello refused for good──▶ gaveUp          any ──close()──▶ closed
///
/// It says `hello` with the app id and name, offering every version in `versions`;
/// keeps the record of the navigators it owns (`navigators`: pages and properties,
/// changed only by what the daemon confirmed), and after each reconnect says hello
/// again, re-creates them in order (the one in front last) and re-sends its `focus`
/// and `subscribe`. Requests are numbered (`id`), and their replies matched to them.
///
/// Bounded: a line from the daemon over `limits.maximumIncomingLineBytes` drops the
/// connection; unsent requests over `limits.maximumOutgoingBytes` are refused at once;
/// at most `limits.maximumRequestsInFlight` are out unanswered, the rest wait.
public struct ClientConnectionState: Sendable {
    public enum State: Sendable, Hashable {
        /// Before `start()`.
        case idle
        /// The driver is connecting (`.connect`); `connected` or `connectFailed` comes next.
        case connecting
        /// No connection; `deadline(now:)` at `retryAt` connects again.
        case disconnected(retryAt: ContinuousClock.Instant)
        /// Connected and `hello` sent; its reply is awaited until `deadline`.
        case greeting(deadline: ContinuousClock.Instant)
        /// `hello` answered: requests go out.
        case ready(version: Int64, client: Int64)
        /// Refused for good; nothing more happens.
        case gaveUp(reason: String)
        /// The app closed the client.
        case closed
    }

    /// What the driver does, in order.
    public enum Action: Sendable, Hashable {
        /// Open a Unix socket and connect it; report `connected(now:)` or `connectFailed(_:now:)`.
        case connect
        /// Write these lines, each followed by a newline, after what is already unwritten,
        /// and report what was written with `wrote(_:)`.
        case send([String])
        /// Hand this to the app.
        case deliver(ClientEvent)
        /// Close the socket and drop what is unwritten (the state already says disconnected).
        case closeConnection
        /// Call `deadline(now:)` at this time, to connect again (also `nextDeadline`).
        case reconnect(at: ContinuousClock.Instant)
        /// Stop for good: close the socket, tell the app (`ClientEvent.gaveUp`).
        case giveUp(reason: String)
    }

    /// What a line out on the socket is for: its reply goes to the app, or to the client itself.
    private enum Purpose: Sendable, Hashable {
        case app
        case hello
        /// Re-creating the record after a reconnect: `create`, `focus`, `subscribe`.
        case restore
    }

    private struct Outgoing: Sendable {
        var id: Int64
        var request: ClientRequest
        var purpose: Purpose
        /// The line's bytes, its newline included.
        var bytes: Int
    }

    public let app: String?
    public let name: String?
    /// The protocol versions offered in `hello`; default every version of the protocol
    /// module (`ProtocolVersion.supported`).
    public let versions: [Int64]
    public let limits: ClientLimits

    public private(set) var state = State.idle
    /// The daemon said `paused` on this connection (its user is not at a seat now: a user
    /// switch) and not yet `resumed`: no events come, and `status`, `stack` and a shell's
    /// reports get `seat-inactive`; the connection and the record stay. False again on
    /// a new connection.
    public private(set) var isPaused = false
    /// The navigators this client owns, as the daemon confirmed them, in the order they
    /// are re-created: the one brought to the front last (created or `front`) is last.
    public private(set) var navigators: [OwnedNavigator] = []
    /// What the last `focus` the daemon accepted said; nil before any.
    public private(set) var focused: Bool?
    /// Whether the client is an observer (`subscribe` accepted, no `unsubscribe` since).
    public private(set) var subscribed = false
    /// The wait before the next reconnect.
    public private(set) var reconnectDelay: Duration
    /// Bytes handed out in `.send` and not yet reported written.
    public private(set) var unwrittenBytes = 0

    /// App requests not yet out: before `hello` is answered, while disconnected, or past
    /// `maximumRequestsInFlight`.
    private var waiting: [Outgoing] = []
    private var waitingBytes = 0
    /// Out on the socket, awaiting replies, oldest first (replies come in request order).
    private var inFlight: [Outgoing] = []
    private var nextID: Int64 = 1
    /// The bytes after the last newline.
    private var partialLine: [UInt8] = []

    public init(
        app: String?, name: String?, versions: [Int64] = ProtocolVersion.supported,
        limits: ClientLimits = ClientLimits()
    ) {
        self.app = app
        self.name = name
        self.versions = versions
        self.limits = limits
        reconnectDelay = limits.initialReconnectDelay
    }

    /// When the driver must call `deadline(now:)`: the next connect, or the end of the
    /// wait for `hello`; nil when nothing is timed (connected and greeted: an idle client
    /// never wakes).
    public var nextDeadline: ContinuousClock.Instant? {
        switch state {
        case .disconnected(let retryAt): retryAt
        case .greeting(let deadline): deadline
        case .idle, .connecting, .ready, .gaveUp, .closed: nil
        }
    }

    /// Bytes of requests not yet written: waiting, and handed out in `.send` but not
    /// reported written. At most `limits.maximumOutgoingBytes` (less what the client's
    /// own lines add, which are never refused).
    public var queuedBytes: Int { waitingBytes + unwrittenBytes }

    /// Requests accepted and not yet answered: waiting and out.
    public var pendingRequests: Int { waiting.count + inFlight.count }

    // MARK: - Inputs

    /// Connect for the first time.
    public mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        state = .connecting
        return [.connect]
    }

    /// The time from `nextDeadline` came: connect again, or give up waiting for `hello`.
    public mutating func deadline(now: ContinuousClock.Instant) -> [Action] {
        switch state {
        case .disconnected(let retryAt) where now >= retryAt:
            state = .connecting
            return [.connect]
        case .greeting(let deadline) where now >= deadline:
            return drop("popgestured did not answer hello within \(limits.helloTimeout)", now: now)
        default:
            return []
        }
    }

    /// The socket is connected: say hello.
    public mutating func connected(now: ContinuousClock.Instant) -> [Action] {
        guard state == .connecting else { return [] }
        state = .greeting(deadline: now + limits.helloTimeout)
        partialLine = []
        unwrittenBytes = 0
        let hello = ClientRequest.hello(versions: versions, name: name, app: app)
        return [.send([emit(hello, purpose: .hello)])]
    }

    /// The connect failed; `reason` is the message (`ConnectError`'s description).
    public mutating func connectFailed(_ reason: String, now: ContinuousClock.Instant) -> [Action] {
        guard state == .connecting else { return [] }
        return scheduleReconnect(reason, now: now)
    }

    /// The daemon closed the connection, or reading or writing it failed (`reason` says which).
    public mutating func closed(_ reason: String, now: ContinuousClock.Instant) -> [Action] {
        switch state {
        case .greeting, .ready: return drop(reason, now: now)
        default: return []
        }
    }

    /// Bytes read from the socket, split into lines here. A line over
    /// `limits.maximumIncomingLineBytes` drops the connection, and the rest is not read.
    public mutating func received(_ bytes: some Collection<UInt8>, now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        var rest = bytes[...]
        while isConnected, let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            let piece = rest[..<newline]
            rest = rest[rest.index(after: newline)...]
            if partialLine.count + piece.count > limits.maximumIncomingLineBytes {
                return actions + dropForLongLine(now: now)
            }
            if partialLine.isEmpty {
                actions += lineReceived(piece, now: now)
            } else {
                partialLine += piece
                let line = partialLine
                partialLine = []
                actions += lineReceived(line, now: now)
            }
        }
        guard isConnected else { return actions }
        if partialLine.count + rest.count > limits.maximumIncomingLineBytes {
            return actions + dropForLongLine(now: now)
        }
        partialLine += rest
        return actions
    }

    /// One line from the daemon, without its newline (`received(_:now:)` splits them;
    /// this does not check the line's length).
    public mutating func lineReceived(_ line: some Collection<UInt8>, now: ContinuousClock.Instant) -> [Action] {
        guard isConnected else { return [] }
        let message: ServerMessage
        do {
            message = try MessageCodec.decode(line)
        } catch {
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) {
                return []
            }
            return [.deliver(.unreadable(line: String(decoding: line, as: UTF8.self), error: error))]
        }
        switch message {
        case .event(let event):
            if case .paused = event { isPaused = true }
            if case .resumed = event { isPaused = false }
            if case .back(let navigator, let popped, _, _) = event,
               let index = navigators.firstIndex(where: { $0.id == navigator }),
               navigators[index].pages.count > 1, navigators[index].pages.last?.id == popped
            {
                navigators[index].pages.removeLast()
            }
            return [.deliver(.event(event))]
        case .reply(let reply, let id):
            // Replies come in request order; one without an id answers a line the daemon
            // could not read: the oldest out.
            let index = id.flatMap { id in inFlight.firstIndex { RequestID.integer($0.id) == id } }
                ?? (id == nil && !inFlight.isEmpty ? 0 : nil)
            guard let index else { return [] }  // answers nothing of ours: ignored
            let request = inFlight.remove(at: index)
            // Lines first, then what the app is told: a request the app makes while told
            // goes out after those already released, in the order it made them.
            switch request.purpose {
            case .hello: return helloAnswered(reply, now: now)
            case .restore:
                let told = restoreAnswered(request, reply)
                return releaseWaiting() + told
            case .app:
                let told = appAnswered(request, reply)
                return releaseWaiting() + told
            }
        }
    }

    /// The driver wrote this many bytes of what `.send` handed out.
    public mutating func wrote(_ byteCount: Int) {
        unwrittenBytes = max(0, unwrittenBytes - byteCount)
    }

    /// A request of the app: numbered, and sent now or as soon as the connection is
    /// greeted. Its reply comes as `ClientEvent.reply` with the returned id. Throws at once
    /// when it cannot be queued: `output-full` past `limits.maximumOutgoingBytes`,
    /// `gave-up` or `closed` after the end, `invalid-request` for `hello`.
    public mutating func request(_ request: ClientRequest) throws(ClientError) -> (id: Int64, actions: [Action]) {
        switch state {
        case .gaveUp(let reason): throw ClientError(.gaveUp, "the client gave up: \(reason)")
        case .closed: throw ClientError(.closed, "the client is closed")
        default: break
        }
        if case .hello = request {
            throw ClientError(.invalidRequest, "hello is the client's own: give the app id and name when creating it")
        }
        let line = RequestCodec.encode(IdentifiedRequest(request, id: .integer(nextID)))
        let bytes = line.utf8.count + 1
        let queued = queuedBytes
        guard queued + bytes <= limits.maximumOutgoingBytes else {
            throw ClientError(
                .outputFull,
                "\(request.type): \(queued) bytes of requests are not written yet, and \(bytes) more would pass the "
                    + "\(limits.maximumOutgoingBytes >> 10) KiB limit; popgestured is not reading")
        }
        let id = takeID()
        waiting.append(Outgoing(id: id, request: request, purpose: .app, bytes: bytes))
        waitingBytes += bytes
        return (id, releaseWaiting())
    }

    /// The app is done: every request not answered fails with `closed`, and the socket closes.
    public mutating func close() -> [Action] {
        switch state {
        case .closed, .gaveUp: return []
        default: break
        }
        let wasConnected = isConnected
        state = .closed
        let failures = failAll(ClientError(.closed, "the client was closed before the reply"))
        return (wasConnected ? [.closeConnection] : []) + failures
    }

    // MARK: - Replies

    private mutating func helloAnswered(_ reply: ServerReply, now: ContinuousClock.Instant) -> [Action] {
        switch reply {
        case .hello(let version, _, let client):
            guard versions.contains(version) else {
                let offered = versions.map(String.init).joined(separator: ", ")
                return giveUp("popgestured chose protocol version \(version), which this client did not offer (\(offered))")
            }
            state = .ready(version: version, client: client)
            isPaused = false
            reconnectDelay = limits.initialReconnectDelay
            var lines = navigators.map { emit($0.createRequest, purpose: .restore) }
            if let focused { lines.append(emit(.focus(focused: focused), purpose: .restore)) }
            if subscribed { lines.append(emit(.subscribe, purpose: .restore)) }
            let restore: [Action] = lines.isEmpty ? [] : [.send(lines)]
            // Told after the re-creations are out, so what the app sends then comes after them.
            return restore + releaseWaiting() + [.deliver(.connected(version: version, client: client))]
        case .error(let error) where error.code == .tooManyClients:
            // Sent on connecting, then the daemon closes: it may have room later.
            return drop("popgestured is busy: \(error)", now: now)
        case .error(let error) where error.code == .unsupportedVersion:
            let theirs = (error.supportedVersions ?? []).map(String.init).joined(separator: ", ")
            let ours = versions.map(String.init).joined(separator: ", ")
            return giveUp("popgestured speaks protocol versions \(theirs.isEmpty ? "unknown" : theirs); this client speaks \(ours)")
        case .error(let error):
            return giveUp("popgestured refused hello: \(error)")
        default:
            return drop("popgestured answered hello with \(reply.kind.rawValue)", now: now)
        }
    }

    private mutating func restoreAnswered(_ request: Outgoing, _ reply: ServerReply) -> [Action] {
        guard case .error(let error) = reply else { return [] }
        switch request.request {
        case .create(let navigator, _, _, _):
            navigators.removeAll { $0.id == navigator }
            return [.deliver(.recreationFailed(navigator: navigator, error: error))]
        case .focus:
            focused = nil
        case .subscribe:
            subscribed = false
        default:
            break
        }
        return []
    }

    private mutating func appAnswered(_ request: Outgoing, _ reply: ServerReply) -> [Action] {
        if case .error(let error) = reply {
            return [.deliver(.reply(id: request.id, request: request.request, result: .failure(.refused(error))))]
        }
        if case .ok = reply { record(request.request) }
        return [.deliver(.reply(id: request.id, request: request.request, result: .success(reply)))]
    }

    /// The daemon carried out `request`: the record follows.
    private mutating func record(_ request: ClientRequest) {
        func change(_ id: String, _ body: (inout OwnedNavigator) -> Void) {
            guard let index = navigators.firstIndex(where: { $0.id == id }) else { return }
            body(&navigators[index])
        }
        switch request {
        case .create(let navigator, let pages, let layout, let bar):
            navigators.removeAll { $0.id == navigator }
            navigators.append(OwnedNavigator(id: navigator, pages: pages, layout: layout, barFollowsTopPage: bar))
        case .push(let navigator, let page, _):
            change(navigator) { $0.pages.append(page) }
        case .pop(let navigator, _):
            change(navigator) { if $0.pages.count > 1 { $0.pages.removeLast() } }
        case .replace(let navigator, let pages, _):
            change(navigator) { $0.pages = pages }
        case .update(let navigator, let page):
            change(navigator) { navigator in
                if let index = navigator.pages.firstIndex(where: { $0.id == page.id }) { navigator.pages[index] = page }
            }
        case .configure(let navigator, let layout, let bar):
            change(navigator) { navigator in
                if let layout { navigator.layout = layout }
                if let bar { navigator.barFollowsTopPage = bar }
            }
        case .front(let navigator):
            if let index = navigators.firstIndex(where: { $0.id == navigator }) {
                navigators.append(navigators.remove(at: index))
            }
        case .remove(let navigator):
            navigators.removeAll { $0.id == navigator }
        case .focus(let value):
            focused = value
        case .subscribe:
            subscribed = true
        case .unsubscribe:
            subscribed = false
        case .hello, .settle, .stack, .status, .focusedWindow, .rotation, .outputs, .textDirection, .touchpadScrolling,
             .userSettings:
            break
        }
    }

    // MARK: - Helpers

    private var isConnected: Bool {
        switch state {
        case .greeting, .ready: true
        default: false
        }
    }

    /// Sends waiting app requests while greeted and fewer than the limit are out.
    private mutating func releaseWaiting() -> [Action] {
        guard case .ready = state else { return [] }
        var lines: [String] = []
        while !waiting.isEmpty, inFlight.count < limits.maximumRequestsInFlight {
            let next = waiting.removeFirst()
            waitingBytes -= next.bytes
            lines.append(emit(next))
        }
        return lines.isEmpty ? [] : [.send(lines)]
    }

    /// A new request of the client's own, numbered and out.
    private mutating func emit(_ request: ClientRequest, purpose: Purpose) -> String {
        let id = takeID()
        let line = RequestCodec.encode(IdentifiedRequest(request, id: .integer(id)))
        return emit(Outgoing(id: id, request: request, purpose: purpose, bytes: line.utf8.count + 1), line: line)
    }

    private mutating func emit(_ outgoing: Outgoing, line: String? = nil) -> String {
        let line = line ?? RequestCodec.encode(IdentifiedRequest(outgoing.request, id: .integer(outgoing.id)))
        inFlight.append(outgoing)
        unwrittenBytes += outgoing.bytes
        return line
    }

    private mutating func takeID() -> Int64 {
        defer { nextID += 1 }
        return nextID
    }

    private mutating func dropForLongLine(now: ContinuousClock.Instant) -> [Action] {
        drop("popgestured sent a line longer than \(limits.maximumIncomingLineBytes >> 10) KiB", now: now)
    }

    /// Ends the connection: what is out fails (`connection-lost`), what waits stays.
    private mutating func drop(_ reason: String, now: ContinuousClock.Instant) -> [Action] {
        partialLine = []
        unwrittenBytes = 0
        var failures: [Action] = []
        for request in inFlight where request.purpose == .app {
            let error = ClientError(
                .connectionLost, "the connection to popgestured ended before the reply (\(reason)); the request may or may not have been carried out")
            failures.append(.deliver(.reply(id: request.id, request: request.request, result: .failure(error))))
        }
        inFlight = []
        return [.closeConnection] + failures + scheduleReconnect(reason, now: now)
    }

    private mutating func scheduleReconnect(_ reason: String, now: ContinuousClock.Instant) -> [Action] {
        let retryAt = now + reconnectDelay
        reconnectDelay = min(reconnectDelay * 2, limits.maximumReconnectDelay)
        state = .disconnected(retryAt: retryAt)
        return [.deliver(.disconnected(reason: reason, retryAt: retryAt)), .reconnect(at: retryAt)]
    }

    private mutating func giveUp(_ reason: String) -> [Action] {
        state = .gaveUp(reason: reason)
        let failures = failAll(ClientError(.gaveUp, "the client gave up: \(reason)"))
        return [.closeConnection] + failures + [.giveUp(reason: reason)]
    }

    /// Fails every app request waiting or out with `error`; forgets the client's own.
    private mutating func failAll(_ error: ClientError) -> [Action] {
        let requests = (inFlight + waiting).filter { $0.purpose == .app }
        inFlight = []
        waiting = []
        waitingBytes = 0
        unwrittenBytes = 0
        partialLine = []
        return requests.map { .deliver(.reply(id: $0.id, request: $0.request, result: .failure(error))) }
    }
}
