import Logging
import PopGestureCore
import PopGestureInput
import PopGestureProtocol

/// The engine side of the daemon as a plain state machine: the engine (with its
/// navigators) and the devices, fed by the thread that reads them.
///
/// Device frames go into it right after they are read; the socket side's requests
/// (``EngineRequest``) come in between. Each input appends what crosses back to the
/// socket side (``EngineOutput``) to an `output` the caller owns, replies before the
/// events they caused. Time is always a parameter. Not thread-safe: one thread owns it
/// (the daemon's input thread); tests drive it directly, wired to a ``ServerState``.
///
/// A frame appends only the engine's events to `output`, so a caller that keeps
/// `output`'s capacity allocates nothing per frame here.
public struct EngineHost {
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
        /// The seat it belongs to (udev's `ID_SEAT`): its swipes act there only.
        public let seat: Seat
    }

    /// A pan the engine rejected, as `status` lists it.
    public struct Rejection: Sendable, Hashable {
        public let reason: RejectionReason
        public let device: DeviceID
        public let time: Timestamp
        /// The device's seat: `status` shows a rejection to that seat's people only.
        public var seat: Seat = .seat0
    }

    /// `status` lists the last 8 rejected pans: enough to see why the last few swipes did
    /// nothing, few enough that the list costs nothing to keep.
    public static let recentRejectionLimit = 8

    /// The disconnect log names at most 3 of the navigators it removed ...
    static let loggedNavigatorIDs = 3
    /// ... each cut to 64 characters (`…` marks a cut), so one log line stays short
    /// however long the ids are.
    static let loggedIDCharacters = 64

    /// The engine, with the mtdev converters of protocol A devices.
    public private(set) var feed: EngineFeed
    /// By the daemon's device key.
    public private(set) var devices: [Int: Device] = [:]
    /// Where the last committed back went, for `status`.
    public private(set) var lastBack: ServerReply.Status.LastBack?
    /// The same, for each seat that had one.
    public private(set) var lastBacks: [Seat: ServerReply.Status.LastBack] = [:]
    /// How many pans were rejected since the start, for `status`.
    public private(set) var rejectedCount: Int64 = 0
    /// The same, for each seat.
    public private(set) var rejectedCounts: [Seat: Int64] = [:]
    /// Users whose `status` shows every seat (root and the daemon's user, as
    /// ``ServerState/unlimitedUsers``); anyone else's shows their own seat's devices,
    /// navigators, last back and rejections only. The socket server sets it.
    public var unlimitedUsers: Set<UInt32> = [0]
    /// The last ``recentRejectionLimit`` rejections, a ring: slot `rejectedCount % limit`
    /// is the next to be overwritten once it is full. Its capacity is reserved at `init`.
    private var rejectionRing: ContiguousArray<Rejection> = []
    /// What `status` says beside the engine's state; nil says nothing more (tests).
    private let supplement: (any StatusSupplement)?
    /// Makes `user-settings` into a seat's settings; nil: this daemon takes none (tests, the demo).
    private let userSettingsMaker: (any UserSettingsMaker)?
    private let logger: Logger

    /// - Parameter supplement: asked for the daemon's part of each `status` reply.
    public init(
        settings: GestureSettings = GestureSettings(), transitionTimeout: Duration = .seconds(1),
        defaultLayout: LayoutDirection = .leftToRight, supplement: (any StatusSupplement)? = nil,
        userSettings: (any UserSettingsMaker)? = nil, logger: Logger = Logger(label: "popgestured.engine")
    ) {
        var engine = GestureEngine(settings: settings, logger: logger)
        engine.transitionTimeout = transitionTimeout
        engine.defaultLayout = defaultLayout
        feed = EngineFeed(engine: engine)
        self.supplement = supplement
        userSettingsMaker = userSettings
        self.logger = logger
        rejectionRing.reserveCapacity(Self.recentRejectionLimit)
    }

    /// The last rejected pans, oldest first: at most ``recentRejectionLimit``.
    public var recentRejections: [Rejection] {
        let start = rejectionRing.count < Self.recentRejectionLimit ? 0 : Int(rejectedCount % Int64(Self.recentRejectionLimit))
        return Array(rejectionRing[start...] + rejectionRing[..<start])
    }

    public var engine: GestureEngine { feed.engine }

    // MARK: - Devices

    /// A device appeared. `key` is the daemon's; `path` and `name` are for `status`, and
    /// so are `configuration.kind` and `configuration.seat`, which the engine uses too. `state` is what the kernel
    /// held at open (see ``EngineFeed/addDevice(_:configuration:atOpen:)``).
    /// Adding a key that is already present replaces that device.
    /// Throws when a protocol A device's converter cannot be set up.
    public mutating func deviceAdded(
        key: Int, path: String, name: String, description: DeviceDescription,
        configuration: DeviceConfiguration = .init(), atOpen state: DeviceStateAtOpen? = nil, at time: Timestamp,
        output: inout [EngineOutput]
    ) throws(InputError) -> DeviceID {
        if devices[key] != nil {
            logger.error("bug: device key \(key) added twice; replacing it")
            deviceRemoved(key: key, at: time, output: &output)
        }
        let id: DeviceID
        do {
            id = try feed.addDevice(description, configuration: configuration, atOpen: state)
        } catch {
            logger.error("device key \(key) (\(path)) not added: \(error)")
            throw error
        }
        devices[key] = Device(
            key: key, id: id, path: path, name: name, kind: configuration.kind, seat: configuration.seat)
        logger.debug("device key \(key) is \(id): \(path), \(name), \(configuration.kind.rawValue), \(configuration.seat)")
        return id
    }

    /// A device went away (unplug, `ENODEV`); a pan it was driving is cancelled.
    public mutating func deviceRemoved(key: Int, at time: Timestamp, output: inout [EngineOutput]) {
        guard let device = devices.removeValue(forKey: key) else {
            logger.debug("device key \(key) removed, but it was not added")
            return
        }
        feed.removeDevice(device.id, at: time)
        logger.debug("device key \(key) (\(device.id), \(device.path)) removed")
        drainEngineEvents(into: &output, from: device.seat)
    }

    /// Events from one device, as it sent them (protocol A is converted here).
    public mutating func handle(events: [InputEvent], fromDevice key: Int, output: inout [EngineOutput]) {
        guard let device = devices[key] else {
            // A frame read just before its device was removed; harmless.
            logger.debug("\(events.count) events from device key \(key), which is not added; dropped")
            return
        }
        for event in events { feed.handle(event, from: device.id) }
        drainEngineEvents(into: &output, from: device.seat)
    }

    /// iio-sensor-proxy's orientation changed, or the sensor came or went: `orientation`
    /// nil when there is none, and `state`, what `status` shows of it (the orientation, or
    /// why there is none). A pan in progress on a touchscreen that turns is cancelled.
    public mutating func sensorChanged(
        _ orientation: SensorOrientation?, state: String, at time: Timestamp, output: inout [EngineOutput]
    ) {
        sensorState = state
        feed.engine.reportSensor(orientation, at: time)
        drainEngineEvents(into: &output)
    }

    /// What `status` shows of the sensor (``ServerReply/Status/Screen/sensor``); nil while
    /// the daemon follows none.
    public private(set) var sensorState: String?

    /// A configuration reload. Takes effect from the next pan; one in flight keeps its thresholds
    /// where the arbiter already decided.
    public mutating func updateSettings(
        _ settings: GestureSettings, transitionTimeout: Duration, defaultLayout: LayoutDirection
    ) {
        feed.engine.settings = settings
        feed.engine.transitionTimeout = transitionTimeout
        feed.engine.defaultLayout = defaultLayout
        logger.debug("settings updated: \(settings), transition timeout \(transitionTimeout), layout \(defaultLayout.rawValue)")
        // Each seat's user's settings, made again over the new system's: a key the
        // administrator locked now, or an entry no longer possible, drops them.
        for seat in feed.engine.seatsWithUserSettings {
            guard let held = feed.engine.userSettings(on: seat), let maker = userSettingsMaker else { continue }
            switch seatSettings(from: held.text, uid: held.uid, by: maker) {
            case .success(let settings):
                feed.engine.setUserSettings(settings, on: seat)
            case .failure(let error):
                logger.warning("\(seat): the user's settings no longer apply over the reloaded system file (\(error.message)); the system's are in force")
                feed.engine.setUserSettings(nil, on: seat)
            }
        }
    }

    // MARK: - Requests

    /// One request from the socket side: for a client's request its reply, then the
    /// events it caused.
    public mutating func perform(_ request: EngineRequest, output: inout [EngineOutput]) {
        switch request.kind {
        case .request(let clientRequest, let id):
            let reply = answer(clientRequest, from: request.client, at: request.time)
            output.append(.reply(request.client, reply, id: id))
        case .identified(let app, let pid, let uid, let seat, let isShell):
            feed.engine.identify(
                request.client, app: app, pid: pid, uid: uid, seat: seat, isShell: isShell, at: request.time)
        case .paused:
            feed.engine.clientPaused(request.client, at: request.time)
        case .resumed(let asShell):
            feed.engine.clientResumed(request.client, asShell: asShell, at: request.time)
        case .clientGone:
            let client = request.client
            let removed = feed.engine.navigation.navigators.values.filter { $0.owner == client }.map(\.id).sorted()
            feed.engine.clientDisconnected(client, at: request.time)
            if !removed.isEmpty { logger.info("\(client) gone\(Self.summary(removedNavigators: removed))") }
        }
        drainEngineEvents(into: &output)
    }

    private mutating func answer(_ request: ClientRequest, from client: ClientID, at time: Timestamp) -> ServerReply {
        func refuse(_ code: ProtocolError.Code, _ message: String) -> ServerReply {
            logger.debug("\(client): \(request.type) refused, \(code): \(message)")
            return .error(ProtocolError(code, message, request: request.type))
        }
        func ok() -> ServerReply {
            logger.debug("\(client): \(request.type) ok")
            return .ok(request: request.type)
        }
        switch request {
        case .hello, .subscribe, .unsubscribe:
            logger.error("bug: \(request.type) reached the engine side")
            return refuse(.invalidValue, "\(request.type) is not the engine's to answer")
        case .focus(let focused):
            feed.engine.reportFocus(focused, by: client, at: time)
            return ok()
        case .userSettings(let text):
            guard let maker = userSettingsMaker else { return refuse(.notPermitted, "this daemon takes no user settings") }
            let seat = seat(of: client)
            let uid = feed.engine.navigation.focus.clients[client]?.uid
            if text.allSatisfy(\.isWhitespace) {
                if feed.engine.userSettings(on: seat) != nil { feed.engine.setUserSettings(nil, on: seat) }
                return ok()
            }
            switch seatSettings(from: text, uid: uid, by: maker) {
            case .success(let settings):
                feed.engine.setUserSettings(settings, on: seat)
                return ok()
            case .failure(var error):
                error.request = request.type
                logger.debug("\(client): user-settings refused, \(error.code): \(error.message)")
                return .error(error)
            }
        case .focusedWindow(let app, let pid):
            do {
                // The codec keeps `pid` within 1…Int32.max.
                try feed.engine.shellReports(.init(app: app, pid: pid.map { Int32($0) }), by: client, at: time)
                return ok()
            } catch {
                return refuse(error.code, error.message)
            }
        case .rotation(let degrees, let output):
            // The codec keeps `degrees` to 0, 90, 180 or 270.
            guard let rotation = Rotation(degrees: Int(degrees)) else {
                return refuse(.invalidField, "\"rotation\" must be 0, 90, 180 or 270, got \(degrees)")
            }
            do {
                try feed.engine.reportRotation(rotation, output: output, by: client, at: time)
                return ok()
            } catch {
                return refuse(error.code, error.message)
            }
        case .outputs(let outputs):
            var reports: [OutputReport] = []
            for (index, output) in outputs.enumerated() {
                // The codec keeps each rotation to 0, 90, 180 or 270.
                guard let report = OutputReport(output) else {
                    return refuse(.invalidField, "\"outputs[\(index)].rotation\" must be 0, 90, 180 or 270, got \(output.rotation)")
                }
                reports.append(report)
            }
            // The codec's limit; the engine's is the same, checked for a request built in code.
            guard reports.count <= OutputReport.maximumOutputs,
                  reports.allSatisfy({ $0.inputs.count <= OutputReport.maximumInputs })
            else {
                return refuse(.tooMany, "at most \(OutputReport.maximumOutputs) outputs of \(OutputReport.maximumInputs) inputs each")
            }
            do {
                try feed.engine.reportOutputs(reports, by: client, at: time)
                return ok()
            } catch {
                return refuse(error.code, error.message)
            }
        case .textDirection(let direction):
            do {
                try feed.engine.reportTextDirection(LayoutDirection(direction), by: client, at: time)
                return ok()
            } catch {
                return refuse(error.code, error.message)
            }
        case .touchpadScrolling(let natural, let bridge):
            do {
                try feed.engine.reportTouchpadScrolling(natural: natural, bridge: bridge, by: client, at: time)
                return ok()
            } catch {
                return refuse(error.code, error.message)
            }
        case .create, .push, .pop, .replace, .update, .settle, .front, .remove:
            do {
                try feed.engine.perform(request.navigation!, from: client, at: time)  // non-nil for these cases
                return ok()
            } catch {
                return refuse(error.code, error.message)
            }
        case .configure(let navigator, let layout, let bar):
            // Keys left out keep the navigator's current values.
            let current = feed.engine.navigation.navigators[navigator]
            let resolved = NavigationRequest.configure(
                navigator: navigator, layout: layout.map(LayoutDirection.init) ?? current?.layout,
                barFollowsTopPage: bar ?? current?.barFollowsTopPage ?? true)
            do {
                try feed.engine.perform(resolved, from: client, at: time)
                return ok()
            } catch {
                return refuse(error.code, error.message)
            }
        case .stack(let navigator):
            guard let nav = feed.engine.navigation.navigators[navigator] else {
                return refuse(.unknownNavigator, "no navigator \"\(navigator)\"")
            }
            return .stack(ServerReply.Stack(
                navigator: nav.id, owner: Int64(nav.owner.rawValue), pages: nav.pages.map(\.id),
                front: feed.engine.navigation.front(on: seat(of: nav.owner))?.id == nav.id,
                transitioning: nav.isTransitioning(at: time)))
        case .status:
            return .status(status(for: client))
        }
    }

    /// The client's seat, as its `hello` said; seat0 for one that said none.
    private func seat(of client: ClientID) -> Seat {
        feed.engine.navigation.focus.clients[client]?.seat ?? .seat0
    }

    /// The engine side's half of `status`: devices and navigators, capped (see
    /// ``ServerState/maximumStatusEntries``), the focus of the asker's seat, the last
    /// back and the last rejections, and the ``supplement``'s part; the socket side adds
    /// the clients.
    private func status(for asker: ClientID) -> ServerReply.Status {
        let askerSeat = seat(of: asker)
        // A swipe on one seat, its apps and its backs are nobody else's business.
        let everySeat = feed.engine.navigation.focus.clients[asker]?.uid.map(unlimitedUsers.contains) ?? false
        let sees = { (seat: Seat) in everySeat || seat == askerSeat }
        let devices = self.devices.values.filter { sees($0.seat) }.sorted { $0.id.rawValue < $1.id.rawValue }.map { device in
            var entry = ServerReply.Status.Device(
                device: Int64(device.id.rawValue), name: device.name, path: device.path, kind: device.kind.rawValue,
                seat: device.seat.rawValue)
            if let transform = feed.engine.screenTransform(of: device.id) {
                entry.widthMillimetres = transform.screenSize.width
                entry.heightMillimetres = transform.screenSize.height
                entry.sizeAssumed = transform.sizeIsAssumed
                entry.sizeSource = transform.sizeSource.rawValue
                entry.rotation = Int64(transform.rotation.rawValue)
            }
            if device.kind == .touchscreen, let rotation = feed.engine.rotation(of: device.id) {
                entry.rotationSource = rotation.source.rawValue
                entry.output = rotation.output
            }
            supplement?.supplement(&entry, ofDevice: device.key)
            return entry
        }
        let navigation = feed.engine.navigation
        let navigators = navigation.navigators.values.filter { sees(seat(of: $0.owner)) }.sorted { $0.id < $1.id }.map { nav in
            ServerReply.Status.Navigator(
                navigator: nav.id, owner: Int64(nav.owner.rawValue), pages: Int64(nav.depth),
                front: navigation.front(on: seat(of: nav.owner))?.id == nav.id)
        }
        let focus = navigation.focus
        return ServerReply.Status(
            version: ServerState.protocolVersion,
            devices: ServerState.listed(devices, encode: MessageCodec.encodeStatusEntry),
            deviceCount: Int64(devices.count),
            navigators: ServerState.listed(navigators, encode: MessageCodec.encodeStatusEntry),
            navigatorCount: Int64(navigators.count),
            clients: [], clientCount: 0,
            focus: ServerReply.Status.Focus(
                seat: askerSeat.rawValue, source: focus.source(on: askerSeat).rawValue,
                app: focus.focusedApp(on: askerSeat), pid: focus.window(on: askerSeat)?.pid.map(Int64.init),
                shell: focus.shell(on: askerSeat).map { Int64($0.rawValue) },
                touchpadScrolling: focus.touchpadBridgeDeclined(on: askerSeat)
                    ? "off" : focus.touchpadScrolling(on: askerSeat).map { $0 ? "natural" : "traditional" }),
            lastBack: everySeat ? lastBack : lastBacks[askerSeat], daemon: supplement?.daemon,
            backInput: supplement?.backInput,
            rejected: recentRejections.filter { sees($0.seat) }.map { rejection in
                ServerReply.Status.Rejection(
                    reason: .init(rejection.reason), device: Int64(rejection.device.rawValue),
                    timeMicroseconds: rejection.time.microseconds)
            },
            rejectedCount: everySeat ? rejectedCount : rejectedCounts[askerSeat] ?? 0, screen: screen,
            settings: settingsStatus(on: askerSeat))
    }

    /// A seat's settings from its user's `text` over the system's, as `maker` makes them.
    private func seatSettings(
        from text: String, uid: UInt32?, by maker: any UserSettingsMaker
    ) -> Result<SeatSettings, ProtocolError> {
        maker.settings(from: text, over: feed.engine.settings).map { made in
            SeatSettings(settings: made.settings, keys: made.keys, text: text, uid: uid)
        }
    }

    /// `status`'s `settings`: what a user may set, as in force on `seat`.
    private func settingsStatus(on seat: Seat) -> ServerReply.Status.Settings {
        let settings = feed.engine.settings(on: seat)
        return ServerReply.Status.Settings(
            seat: seat.rawValue, mode: settings.mode.rawValue, backInputMode: settings.backInputMode.rawValue,
            edgeWidthMillimetres: settings.edgeWidthMillimetres, commitProgress: settings.commitProgress,
            flingVelocity: settings.flingVelocityMillimetresPerSecond,
            edgeFlingVelocity: settings.edgeFlingVelocityMillimetresPerSecond,
            user: feed.engine.userSettings(on: seat)?.keys ?? [], locked: userSettingsMaker?.lockedKeys ?? [])
    }

    private var screen: ServerReply.Status.Screen {
        guard case .screenChanged(var screen) = ServerEvent(.screenChanged(feed.engine.screenSummary)) else {
            preconditionFailure("a screen summary encodes as screen-changed")
        }
        screen.sensor = sensorState
        return screen
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

    // MARK: - Output

    /// Hands the engine's events over, each with the seat it is about: the focus's, the
    /// back input's, the navigator owner's, else `origin`'s (the device whose frame
    /// caused it; seat0 for a request's).
    private mutating func drainEngineEvents(into output: inout [EngineOutput], from origin: Seat = .seat0) {
        guard feed.engine.hasEvents else { return }
        var last: (back: ServerReply.Status.LastBack, seat: Seat)?
        // Out of `self` while the engine drains (it holds `self.feed`), and back after:
        // a swap, so that recording a rejection copies and allocates nothing.
        var ring: ContiguousArray<Rejection> = []
        swap(&ring, &rejectionRing)
        var rejected = rejectedCount
        // Read before the drain, which holds the engine: a copy that shares its storage.
        let focus = feed.engine.navigation.focus
        feed.engine.drainEvents { event in
            switch event {
            case .back(let navigator, let owner, _, _, _):
                last = (.navigator(navigator: navigator, owner: Int64(owner.rawValue)), focus.clients[owner]?.seat ?? .seat0)
            case .backInput(let input, let app, let seat, _, _):
                last = (.input(app: app, input: input.spelling), seat)
            case .rejected(let reason, let device, let time):
                let rejection = Rejection(reason: reason, device: device, time: time, seat: origin)
                if ring.count < Self.recentRejectionLimit {
                    ring.append(rejection)
                } else {
                    ring[Int(rejected % Int64(Self.recentRejectionLimit))] = rejection
                }
                rejected += 1
            default:
                break
            }
            let seat: Seat = switch event {
            case .focusChanged(let summary): summary.seat
            case .backInput(_, _, let seat, _, _): seat
            default: event.owner.map { focus.clients[$0]?.seat ?? .seat0 } ?? origin
            }
            output.append(.event(event, seat: seat))
        }
        swap(&ring, &rejectionRing)
        if rejected != rejectedCount { rejectedCounts[origin, default: 0] += rejected - rejectedCount }
        rejectedCount = rejected
        if let last {
            lastBack = last.back
            lastBacks[last.seat] = last.back
            // Debug, not info: a swipe allocates nothing on this thread unless asked to log.
            logger.debug("back: \(last)")
        }
    }

}

/// What `status` tells beside the engine's state, from whoever runs the ``EngineHost``
/// (the daemon): how it was started, its back input device, each device's grab mode.
/// Asked on the host's thread each time a `status` is answered, so it may read that
/// thread's state; it should cost little.
/// Makes a seat's settings from its user's text (`user-settings`) over the system's: the
/// daemon's part, which knows the file's format, the keys a user may set and the ones the
/// administrator locked.
public protocol UserSettingsMaker: AnyObject {
    /// The seat's settings and the keys the user set, in the text's order; or the error
    /// the reply carries (`invalid-value` naming the line and the key, `not-permitted`
    /// for a key the administrator locked or no user may set).
    func settings(from text: String, over system: GestureSettings) -> Result<(settings: GestureSettings, keys: [String]), ProtocolError>
    /// The keys the administrator locked (`user-locked`), for `status`.
    var lockedKeys: [String] { get }
}

public protocol StatusSupplement: AnyObject {
    /// How the daemon runs.
    var daemon: ServerReply.Status.Daemon? { get }
    /// The back input device.
    var backInput: ServerReply.Status.BackInput? { get }
    /// Adds what it knows of the device of `key` (the daemon's key) to its entry: its grab.
    func supplement(_ entry: inout ServerReply.Status.Device, ofDevice key: Int)
}
