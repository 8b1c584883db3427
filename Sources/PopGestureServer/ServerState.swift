import Logging
import PopGestureCore
import PopGestureInput
import PopGestureProtocol

/// What the I/O layer must do after the server state took an input.
public enum ServerAction: Sendable, Hashable {
    /// Write one line to the client; the I/O layer adds the `\n`.
    case send(ClientID, line: String)
    /// Close the client's connection; `reason` has been logged already.
    case close(ClientID, reason: String)
}

/// The whole server as a plain state machine: the engine, the clients and the devices.
///
/// Every input (a line from a client, a device's events, a connect or disconnect)
/// returns the actions to carry out, in order; the NIO layer (`SocketServer`) only
/// switches over them. Time is always a parameter. Not thread-safe: one event loop
/// owns it. Tests drive it directly.
///
/// Routing: an event goes to the owner of its navigator, and every event, `rejected`
/// included, to each observer; a client that is both gets each line once. A reply
/// comes before the events its request caused.
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
    /// id, a reply stays under 200 KiB, below ``ServerLimits/maximumUnsentBytesPerClient``,
    /// so asking for `status` can never get a reading client disconnected.
    public static let maximumStatusListBytes = 64 << 10
    /// The disconnect log names at most 3 of the navigators it removed ...
    static let loggedNavigatorIDs = 3
    /// ... each cut to 64 characters (`…` marks a cut), so one log line stays short
    /// however long the ids are.
    static let loggedIDCharacters = 64

    /// One connection.
    public struct Client: Sendable, Hashable {
        public let id: ClientID
        /// From `hello`; nil until then, or when it gave none.
        public internal(set) var name: String?
        /// The protocol version `hello` agreed on; nil until then.
        public internal(set) var version: Int64?
        /// Nil when the transport has none (tests).
        public let credentials: PeerCredentials?
        /// Whether `hello` was accepted; nothing else is before it.
        public internal(set) var greeted = false
        /// Subscribed: receives every event, `rejected` included.
        public internal(set) var observer = false
        /// When the connection was accepted: `hello` is due within ``ServerLimits/helloTimeout``.
        public let connectedAt: Timestamp
        /// When the input last stopped inside a line (bytes without their `\n`); nil
        /// when it ends at a line's end. The line must end within ``ServerLimits/lineTimeout``.
        public internal(set) var unfinishedLineSince: Timestamp?
        /// What the I/O layer last said this client has not taken yet.
        public internal(set) var unsentBytes = 0

        /// How the log names this client: `client 3 (pid 123)`.
        var logName: String { credentials.map { "\(id) (pid \($0.pid))" } ?? "\(id)" }
    }

    /// One input device, as `status` lists it.
    public struct Device: Sendable, Hashable {
        /// The daemon's own key for the device (anything unique, e.g. its udev sequence number).
        public let key: Int
        /// The engine's number, which `rejected` events carry as `device`.
        public let id: DeviceID
        public let path: String
        public let name: String
        /// The device's ``DeviceConfiguration/kind``, as the engine uses it.
        public let kind: DeviceKind
    }

    /// The engine, with the mtdev converters of protocol A devices.
    public private(set) var feed: EngineFeed
    public private(set) var clients: [ClientID: Client] = [:]
    /// By the daemon's device key.
    public private(set) var devices: [Int: Device] = [:]
    public let limits: ServerLimits
    /// Who may connect; asked once per connection.
    public let admission: ConnectionPolicy
    /// The sum of every client's ``Client/unsentBytes``.
    public private(set) var totalUnsentBytes = 0
    /// Subscribed clients, ascending, so lines go out in a stable order.
    private var observers: [ClientID] = []
    private var nextClient: UInt64 = 1
    /// Connections refused since the client limit was reached: the first is logged as a
    /// warning, the rest are summed up when a place frees, so a flood does not flood the log.
    private var refusedWhileFull = 0
    private let logger: Logger

    public init(
        settings: GestureSettings = GestureSettings(), transitionTimeout: Duration = .seconds(1),
        defaultLayout: LayoutDirection = .leftToRight, limits: ServerLimits = ServerLimits(),
        admission: ConnectionPolicy = .anyone, logger: Logger = Logger(label: "popgestured.server")
    ) {
        var engine = GestureEngine(settings: settings, logger: logger)
        engine.transitionTimeout = transitionTimeout
        engine.defaultLayout = defaultLayout
        feed = EngineFeed(engine: engine)
        self.limits = limits
        self.admission = admission
        self.logger = logger
    }

    public var engine: GestureEngine { feed.engine }

    // MARK: - Clients

    /// A connection was accepted. Returns the number that names it from now on, and
    /// what to do: nothing, or, for a peer the admission policy refuses or one past
    /// ``ServerLimits/maximumClients``, one error line and a close. A refused connection
    /// never becomes a client: it owns nothing, observes nothing and counts for nothing.
    public mutating func clientConnected(
        credentials: PeerCredentials?, at time: Timestamp
    ) -> (client: ClientID, actions: [ServerAction]) {
        let id = ClientID(nextClient)
        nextClient += 1
        let who = credentials.map(\.description) ?? "no peer credentials"
        if let reason = admission.decide(credentials) {
            logger.warning("connection refused (\(who)): \(reason)")
            return (id, refusal(id, .notPermitted, "this daemon does not serve you: \(reason)"))
        }
        guard clients.count < limits.maximumClients else {
            if refusedWhileFull == 0 {
                logger.warning("\(limits.maximumClients) clients connected, the limit: refusing new connections (\(who))")
            } else {
                logger.debug("connection refused, \(limits.maximumClients) clients connected (\(who))")
            }
            refusedWhileFull += 1
            return (id, refusal(
                id, .tooManyClients, "the daemon serves at most \(limits.maximumClients) clients at once; try again later"))
        }
        clients[id] = Client(id: id, name: nil, credentials: credentials, connectedAt: time)
        logger.info("\(id) connected (\(who))")
        return (id, [])
    }

    private func refusal(_ client: ClientID, _ code: ProtocolError.Code, _ message: String) -> [ServerAction] {
        [.send(client, line: MessageCodec.encode(ProtocolError(code, message))), .close(client, reason: message)]
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
        clients[client]?.unfinishedLineSince = nil
        if line.allSatisfy(Self.isWhitespace) { return [] }  // a stray Enter in socat
        let request: IdentifiedRequest
        do {
            request = try RequestCodec.decode(line)
        } catch {
            logger.debug("\(client): \(error.request ?? "request") refused, \(error)")
            return [.send(client, line: MessageCodec.encode(error))]
        }
        var actions: [ServerAction] = []
        perform(request, from: client, at: time, into: &actions)
        routeEngineEvents(into: &actions)
        return actions
    }

    /// The framing dropped a line longer than the limit.
    public mutating func receivedOverlongLine(from client: ClientID, maximumLength: Int) -> [ServerAction] {
        guard clients[client] != nil else { return [] }
        logger.debug("\(client): a line over \(maximumLength) bytes, discarded")
        let error = ProtocolError(
            .lineTooLong, "a line is limited to \(maximumLength) bytes; the rest of this one was discarded")
        return [.send(client, line: MessageCodec.encode(error))]
    }

    /// The input stopped inside a line: its `\n` is due within ``ServerLimits/lineTimeout``
    /// of the first time this was said for the line. A complete line, or the end of a
    /// discarded over-long one (``lineEnded(from:)``), clears it.
    public mutating func lineUnfinished(from client: ClientID, at time: Timestamp) {
        guard clients[client] != nil, clients[client]?.unfinishedLineSince == nil else { return }
        clients[client]?.unfinishedLineSince = time
    }

    /// A line ended without being handed over: the `\n` of a discarded over-long line.
    public mutating func lineEnded(from client: ClientID) {
        clients[client]?.unfinishedLineSince = nil
    }

    /// How much the client has not taken yet, as the I/O layer counts it. A client past
    /// ``ServerLimits/maximumUnsentBytesPerClient`` is disconnected; while the sum over
    /// all clients is past ``ServerLimits/maximumUnsentBytesTotal``, the client with the
    /// largest backlog is (the lowest number among equals).
    public mutating func outputBacklog(of client: ClientID, unsentBytes: Int, at time: Timestamp) -> [ServerAction] {
        guard let entry = clients[client] else { return [] }
        totalUnsentBytes += unsentBytes - entry.unsentBytes
        clients[client]?.unsentBytes = unsentBytes
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

    /// The earliest time ``tick(at:)`` has something to do: a `hello` or the end of an
    /// unfinished line falling due. Nil when no client is waiting for either, so an
    /// idle daemon sets no timer.
    public var nextDeadline: Timestamp? {
        clients.values.lazy.compactMap(deadline(of:)).min()
    }

    /// Time passed: closes each client whose `hello` (`hello-required`) or unfinished
    /// line (`line-timeout`) is overdue at `time`, after one error line saying so.
    public mutating func tick(at time: Timestamp) -> [ServerAction] {
        var actions: [ServerAction] = []
        for id in clients.keys.sorted() {
            guard let client = clients[id], let due = deadline(of: client), due <= time else { continue }
            if !client.greeted && client.connectedAt + limits.helloTimeout <= time {
                let message = "no hello within \(limits.helloTimeout); closing"
                actions.append(.send(id, line: MessageCodec.encode(ProtocolError(.helloRequired, message))))
                disconnect(id, reason: message, at: time, into: &actions)
            } else {
                let message = "a line was not finished within \(limits.lineTimeout); closing"
                actions.append(.send(id, line: MessageCodec.encode(ProtocolError(.lineTimeout, message))))
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
        totalUnsentBytes -= entry.unsentBytes
        observers.removeAll { $0 == client }
        let removed = feed.engine.navigation.navigators.values.filter { $0.owner == client }.map(\.id).sorted()
        feed.engine.clientDisconnected(client, at: time)
        logger.log(
            level: what == "connection ended" ? .info : .warning,
            "\(entry.logName) \(what)\(Self.summary(removedNavigators: removed))")
        if refusedWhileFull > 0 {
            logger.info("a client place is free again; \(refusedWhileFull) connections were refused at the limit")
            refusedWhileFull = 0
        }
        routeEngineEvents(into: &actions)
    }

    /// `, removed 3 navigators: a, b, c…` with at most ``loggedNavigatorIDs`` ids, each
    /// cut to ``loggedIDCharacters``; empty when there were none.
    static func summary(removedNavigators ids: [String]) -> String {
        guard !ids.isEmpty else { return "" }
        let shown = ids.prefix(loggedNavigatorIDs).map { id in
            id.count > loggedIDCharacters ? id.prefix(loggedIDCharacters) + "…" : id
        }
        let more = ids.count > shown.count ? " and \(ids.count - shown.count) more" : ""
        return ", removed \(ids.count) navigator\(ids.count == 1 ? "" : "s"): \(shown.joined(separator: ", "))\(more)"
    }

    /// The daemon is stopping: close every connection.
    public mutating func shutdown() -> [ServerAction] {
        logger.debug("shutting down, closing \(clients.count) clients")
        return clients.keys.sorted().map { .close($0, reason: "daemon shutting down") }
    }

    // MARK: - Devices

    /// A device appeared. `key` is the daemon's; `path` and `name` are for `status`, and so is
    /// `configuration.kind`, the one kind the engine uses too. `state` is what the kernel held
    /// at open (see ``EngineFeed/addDevice(_:configuration:atOpen:)``).
    /// Adding a key that is already present replaces that device.
    /// Throws when a protocol A device's converter cannot be set up.
    public mutating func deviceAdded(
        key: Int, path: String, name: String, description: DeviceDescription,
        configuration: DeviceConfiguration = .init(), atOpen state: DeviceStateAtOpen? = nil, at time: Timestamp
    ) throws(InputError) -> (device: DeviceID, actions: [ServerAction]) {
        var actions: [ServerAction] = []
        if devices[key] != nil {
            logger.error("bug: device key \(key) added twice; replacing it")
            actions = deviceRemoved(key: key, at: time)
        }
        let id = try feed.addDevice(description, configuration: configuration, atOpen: state)
        devices[key] = Device(key: key, id: id, path: path, name: name, kind: configuration.kind)
        logger.debug("device key \(key) is \(id): \(path), \(name), \(configuration.kind.rawValue)")
        return (id, actions)
    }

    /// A device went away (unplug, `ENODEV`); a pan it was driving is cancelled.
    public mutating func deviceRemoved(key: Int, at time: Timestamp) -> [ServerAction] {
        guard let device = devices.removeValue(forKey: key) else {
            logger.debug("device key \(key) removed, but it was not added")
            return []
        }
        feed.removeDevice(device.id, at: time)
        logger.debug("device key \(key) (\(device.id), \(device.path)) removed")
        var actions: [ServerAction] = []
        routeEngineEvents(into: &actions)
        return actions
    }

    /// Events from one device, as it sent them (protocol A is converted here).
    public mutating func handle(events: some Collection<InputEvent>, fromDevice key: Int) -> [ServerAction] {
        guard let device = devices[key] else {
            // A frame read just before its device was removed; harmless.
            logger.debug("\(events.count) events from device key \(key), which is not added; dropped")
            return []
        }
        for event in events { feed.handle(event, from: device.id) }
        var actions: [ServerAction] = []
        routeEngineEvents(into: &actions)
        return actions
    }

    /// A configuration reload. Takes effect from the next pan; one in flight keeps its thresholds
    /// where the arbiter already decided.
    public mutating func updateSettings(
        _ settings: GestureSettings, transitionTimeout: Duration, defaultLayout: LayoutDirection
    ) {
        feed.engine.settings = settings
        feed.engine.transitionTimeout = transitionTimeout
        feed.engine.defaultLayout = defaultLayout
        logger.debug("settings updated: \(settings), transition timeout \(transitionTimeout), layout \(defaultLayout.rawValue)")
    }

    // MARK: - Requests

    private mutating func perform(
        _ identified: IdentifiedRequest, from client: ClientID, at time: Timestamp, into actions: inout [ServerAction]
    ) {
        let request = identified.request, id = identified.id
        func reply(_ reply: ServerReply) { actions.append(.send(client, line: MessageCodec.encode(reply, id: id))) }
        func refuse(_ code: ProtocolError.Code, _ message: String, supportedVersions: [Int64]? = nil) {
            logger.debug("\(client): \(request.type) refused, \(code): \(message)")
            reply(.error(ProtocolError(code, message, request: request.type, supportedVersions: supportedVersions)))
        }
        func ok() {
            logger.debug("\(client): \(request.type) ok")
            reply(.ok(request: request.type))
        }

        if case .hello(let versions, let name) = request {
            guard let version = ProtocolVersion.negotiate(offered: versions, supported: Self.supportedVersions) else {
                let list = { (versions: [Int64]) in versions.map(String.init).joined(separator: ", ") }
                let offered = versions.count == 1 ? "version \(versions[0]) is" : "versions \(list(versions)) are"
                refuse(
                    .unsupportedVersion, "protocol \(offered) not supported; supported: \(list(Self.supportedVersions))",
                    supportedVersions: Self.supportedVersions)
                return
            }
            clients[client]?.greeted = true
            clients[client]?.name = name
            clients[client]?.version = version
            logger.debug("\(client): hello, protocol \(version), \(name.map { "\"\($0)\"" } ?? "no name")")
            reply(.hello(version: version, server: Self.serverName, client: Int64(client.rawValue)))
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
        case .create, .push, .pop, .replace, .update, .settle, .front, .remove:
            do {
                try feed.engine.perform(request.navigation!, from: client, at: time)  // non-nil for these cases
                ok()
            } catch {
                refuse(error.code, error.message)
            }
        case .configure(let navigator, let layout, let bar):
            // Keys left out keep the navigator's current values.
            let current = feed.engine.navigation.navigators[navigator]
            let resolved = NavigationRequest.configure(
                navigator: navigator, layout: layout.map(LayoutDirection.init) ?? current?.layout,
                barFollowsTopPage: bar ?? current?.barFollowsTopPage ?? true)
            do {
                try feed.engine.perform(resolved, from: client, at: time)
                ok()
            } catch {
                refuse(error.code, error.message)
            }
        case .stack(let navigator):
            guard let nav = feed.engine.navigation.navigators[navigator] else {
                refuse(.unknownNavigator, "no navigator \"\(navigator)\"")
                return
            }
            reply(.stack(ServerReply.Stack(
                navigator: nav.id, owner: Int64(nav.owner.rawValue), pages: nav.pages.map(\.id),
                front: feed.engine.navigation.front?.id == nav.id, transitioning: nav.isTransitioning(at: time))))
        case .status:
            reply(.status(status))
        }
    }

    /// Capped: see ``maximumStatusEntries`` and ``maximumStatusListBytes``.
    private var status: ServerReply.Status {
        let devices = self.devices.values.sorted { $0.id.rawValue < $1.id.rawValue }.map { device in
            ServerReply.Status.Device(
                device: Int64(device.id.rawValue), name: device.name, path: device.path, kind: device.kind.rawValue)
        }
        let navigation = feed.engine.navigation
        let navigators = navigation.navigators.values.sorted { $0.id < $1.id }.map { nav in
            ServerReply.Status.Navigator(
                navigator: nav.id, owner: Int64(nav.owner.rawValue), pages: Int64(nav.depth),
                front: navigation.front?.id == nav.id)
        }
        let clients = self.clients.values.sorted { $0.id < $1.id }.map { client in
            ServerReply.Status.Client(
                client: Int64(client.id.rawValue), name: client.name,
                credentials: client.credentials.map {
                    ServerReply.Status.Credentials(pid: Int64($0.pid), uid: Int64($0.uid), gid: Int64($0.gid))
                },
                observer: client.observer)
        }
        return ServerReply.Status(
            version: Self.protocolVersion,
            devices: Self.listed(devices, encode: MessageCodec.encodeStatusEntry), deviceCount: Int64(devices.count),
            navigators: Self.listed(navigators, encode: MessageCodec.encodeStatusEntry),
            navigatorCount: Int64(navigators.count),
            clients: Self.listed(clients, encode: MessageCodec.encodeStatusEntry), clientCount: Int64(clients.count))
    }

    /// The first entries of a `status` list that fit both caps.
    private static func listed<Entry>(_ entries: [Entry], encode: (Entry) -> JSONValue) -> [Entry] {
        var listed: [Entry] = [], bytes = 0
        for entry in entries.prefix(maximumStatusEntries) {
            bytes += encode(entry).text.utf8.count + 1
            guard bytes <= maximumStatusListBytes else { break }
            listed.append(entry)
        }
        return listed
    }

    // MARK: - Routing

    /// Hands the engine's events to their owners and to every observer, each line once per client.
    private mutating func routeEngineEvents(into actions: inout [ServerAction]) {
        guard feed.engine.hasEvents else { return }
        // Copies for the closure: it cannot read `self` while the engine drains.
        let clients = self.clients, observers = self.observers
        feed.engine.drainEvents { event in
            let owner = event.owner.flatMap { clients[$0] == nil ? nil : $0 }
            guard owner != nil || !observers.isEmpty else { return }
            let line = WireEncoding.encode(event)
            if let owner { actions.append(.send(owner, line: line)) }
            for observer in observers where observer != owner {
                actions.append(.send(observer, line: line))
            }
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }
}
