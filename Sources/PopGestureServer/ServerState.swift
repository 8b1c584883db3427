import Logging
import PopGestureCore
import PopGestureInput

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
    /// The protocol version this server speaks (`hello`).
    public static let protocolVersion: Int64 = 1
    /// The `"server"` of the `hello` reply.
    public static let serverName = "popgestured"
    /// A client whose unsent output grows past this is disconnected: it stopped reading,
    /// and the daemon will not buffer for it without bound. Default 1 MiB, about ten
    /// thousand events, far more than a swipe sends.
    public static let maximumUnsentBytes = 1 << 20

    /// One connection.
    public struct Client: Sendable, Hashable {
        public let id: ClientID
        /// From `hello`; nil until then, or when it gave none.
        public internal(set) var name: String?
        /// Nil when the transport has none (tests).
        public let credentials: PeerCredentials?
        /// Whether `hello` was accepted; nothing else is before it.
        public internal(set) var greeted = false
        /// Subscribed: receives every event, `rejected` included.
        public internal(set) var observer = false

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
        public let kind: DeviceKind
    }

    /// The engine, with the mtdev converters of protocol A devices.
    public private(set) var feed: EngineFeed
    public private(set) var clients: [ClientID: Client] = [:]
    /// By the daemon's device key.
    public private(set) var devices: [Int: Device] = [:]
    /// Subscribed clients, ascending, so lines go out in a stable order.
    private var observers: [ClientID] = []
    private var nextClient: UInt64 = 1
    private let logger: Logger

    public init(
        settings: GestureSettings = GestureSettings(), transitionTimeout: Duration = .seconds(1),
        defaultLayout: LayoutDirection = .leftToRight, logger: Logger = Logger(label: "popgestured.server")
    ) {
        var engine = GestureEngine(settings: settings, logger: logger)
        engine.transitionTimeout = transitionTimeout
        engine.defaultLayout = defaultLayout
        feed = EngineFeed(engine: engine)
        self.logger = logger
    }

    public var engine: GestureEngine { feed.engine }

    // MARK: - Clients

    /// A connection was accepted. Returns the number that names it from now on.
    public mutating func clientConnected(credentials: PeerCredentials?) -> ClientID {
        let id = ClientID(nextClient)
        nextClient += 1
        clients[id] = Client(id: id, name: nil, credentials: credentials)
        logger.info("\(id) connected (\(credentials.map(\.description) ?? "no peer credentials"))")
        return id
    }

    /// One line from a client, without its newline.
    public mutating func received(
        line: some Collection<UInt8>, from client: ClientID, at time: Timestamp
    ) -> [ServerAction] {
        guard clients[client] != nil else {
            logger.error("bug: a line from \(client), which is not connected")
            return []
        }
        if line.allSatisfy(Self.isWhitespace) { return [] }  // a stray Enter in socat
        let request: IdentifiedRequest
        do {
            request = try RequestParser.parse(line)
        } catch {
            logger.debug("\(client): \(error.request ?? "request") refused, \(error)")
            return [.send(client, line: Reply.error(error))]
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
        return [.send(client, line: Reply.error(error))]
    }

    /// How much the client has not taken yet; too much and it is disconnected.
    public mutating func outputBacklog(of client: ClientID, unsentBytes: Int) -> [ServerAction] {
        guard unsentBytes > Self.maximumUnsentBytes, let entry = clients[client] else { return [] }
        let reason = "not reading, \(Self.maximumUnsentBytes >> 20) MiB unsent (\(unsentBytes) bytes)"
        logger.warning("\(entry.logName) disconnected: \(reason)")
        return [.close(client, reason: reason)]
    }

    /// The connection is gone, whoever closed it. Its navigators go with it.
    public mutating func clientDisconnected(_ client: ClientID, at time: Timestamp) -> [ServerAction] {
        guard let entry = clients.removeValue(forKey: client) else { return [] }
        observers.removeAll { $0 == client }
        let owned = feed.engine.navigation.navigators.values.filter { $0.owner == client }.map(\.id).sorted()
        feed.engine.clientDisconnected(client, at: time)
        logger.info("\(entry.logName) connection ended\(owned.isEmpty ? "" : ", removed \(owned.joined(separator: ", "))")")
        var actions: [ServerAction] = []
        routeEngineEvents(into: &actions)
        return actions
    }

    /// The daemon is stopping: close every connection.
    public mutating func shutdown() -> [ServerAction] {
        logger.debug("shutting down, closing \(clients.count) clients")
        return clients.keys.sorted().map { .close($0, reason: "daemon shutting down") }
    }

    // MARK: - Devices

    /// A device appeared. `key` is the daemon's; `path`, `name` and `kind` are for `status`.
    /// Adding a key that is already present replaces that device.
    /// Throws when a protocol A device's converter cannot be set up.
    public mutating func deviceAdded(
        key: Int, path: String, name: String, kind: DeviceKind, description: DeviceDescription,
        configuration: DeviceConfiguration = .init(), at time: Timestamp
    ) throws(InputError) -> (device: DeviceID, actions: [ServerAction]) {
        var actions: [ServerAction] = []
        if devices[key] != nil {
            logger.error("bug: device key \(key) added twice; replacing it")
            actions = deviceRemoved(key: key, at: time)
        }
        let id = try feed.addDevice(description, configuration: configuration)
        devices[key] = Device(key: key, id: id, path: path, name: name, kind: kind)
        logger.debug("device key \(key) is \(id): \(path), \(name), \(kind.rawValue)")
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
        func reply(_ line: String) { actions.append(.send(client, line: line)) }
        func refuse(_ code: String, _ message: String) {
            logger.debug("\(client): \(request.type) refused, \(code): \(message)")
            reply(Reply.error(code: code, message: message, request: request.type, id: id))
        }
        func ok() {
            logger.debug("\(client): \(request.type) ok")
            reply(Reply.ok(request.type, id: id))
        }

        if case .hello(let version, let name) = request {
            guard version == Self.protocolVersion else {
                refuse(ProtocolError.Code.unsupportedVersion.rawValue,
                       "protocol version \(version) is not supported; supported: \(Self.protocolVersion)")
                return
            }
            clients[client]?.greeted = true
            clients[client]?.name = name
            logger.debug("\(client): hello, \(name.map { "\"\($0)\"" } ?? "no name")")
            reply(Reply.hello(version: Self.protocolVersion, server: Self.serverName, client: client, id: id))
            return
        }
        guard clients[client]?.greeted == true else {
            refuse(ProtocolError.Code.helloRequired.rawValue,
                   "the first request must be {\"type\":\"hello\",\"version\":\(Self.protocolVersion)}")
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
        case .navigation(let navigation):
            do {
                try feed.engine.perform(navigation, from: client, at: time)
                ok()
            } catch {
                refuse(error.code.rawValue, error.message)
            }
        case .configure(let navigator, let layout, let bar):
            // Keys left out keep the navigator's current values.
            let current = feed.engine.navigation.navigators[navigator]
            let resolved = NavigationRequest.configure(
                navigator: navigator, layout: layout ?? current?.layout,
                barFollowsTopPage: bar ?? current?.barFollowsTopPage ?? true)
            do {
                try feed.engine.perform(resolved, from: client, at: time)
                ok()
            } catch {
                refuse(error.code.rawValue, error.message)
            }
        case .stack(let navigator):
            guard let nav = feed.engine.navigation.navigators[navigator] else {
                refuse(NavigationError.Code.unknownNavigator.rawValue, "no navigator \"\(navigator)\"")
                return
            }
            reply(Reply.stack(
                nav, front: feed.engine.navigation.front?.id == nav.id,
                transitioning: nav.isTransitioning(at: time), id: id))
        case .status:
            reply(statusReply(id: id))
        }
    }

    private func statusReply(id: RequestID?) -> String {
        let devices = self.devices.values.sorted { $0.id.rawValue < $1.id.rawValue }.map { device in
            var out = JSONObjectWriter()
            out.integer("device", Int64(device.id.rawValue))
            out.string("name", device.name)
            out.string("path", device.path)
            out.string("kind", device.kind.rawValue)
            return out.finish()
        }
        let navigation = feed.engine.navigation
        let navigators = navigation.navigators.values.sorted { $0.id < $1.id }.map { nav in
            var out = JSONObjectWriter()
            out.string("navigator", nav.id)
            out.integer("owner", Int64(nav.owner.rawValue))
            out.integer("pages", Int64(nav.depth))
            out.bool("front", navigation.front?.id == nav.id)
            return out.finish()
        }
        let clients = self.clients.values.sorted { $0.id < $1.id }.map { client in
            var out = JSONObjectWriter()
            out.integer("client", Int64(client.id.rawValue))
            if let name = client.name { out.string("name", name) }
            if let credentials = client.credentials {
                out.integer("pid", Int64(credentials.pid))
                out.integer("uid", Int64(credentials.uid))
                out.integer("gid", Int64(credentials.gid))
            }
            out.bool("observer", client.observer)
            return out.finish()
        }
        return Reply.status(
            version: Self.protocolVersion, devices: devices, navigators: navigators, clients: clients, id: id)
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
