import Logging

/// How one device takes part: its kind, orientation, calibration and pan source.
public struct DeviceConfiguration: Sendable, Hashable {
    /// What the device is, decided once where it enters and never re-derived from its
    /// bits: udev's `ID_INPUT_TOUCHPAD` / `ID_INPUT_TOUCHSCREEN` for a live device,
    /// ``DeviceDescription/inferredKind`` only where there is no udev (a recording).
    /// It decides the pan source, whether `rotation` applies and whether the pan's
    /// positions are on the screen (edge, distance and exclusion rules). Default
    /// `.touchscreen`.
    public var kind: DeviceKind
    /// Used for touchscreens only; a touchpad's pans are not screen positions. The
    /// administrator's fixed rotation (`rotation` in the file); nil: none fixed, so the
    /// accelerometer may turn it while no shell reports the screen. The shell's report
    /// of the device's output wins over it
    /// (``SessionOrientation/rotation(for:configured:)``).
    public var rotation: Rotation?
    /// What is known of the output the touchscreen drives, to find it among the shell's.
    public var output: OutputHints
    public var calibration: CalibrationMatrix
    /// Nil uses ``PanSettings/defaults(for:)`` for ``kind``.
    public var pan: PanSettings?
    /// udev's `ID_SEAT`: the device's swipes act on this seat only. Default seat0.
    public var seat: Seat
    /// The physical size the EDID of the display the touchscreen drives gives, in the
    /// panel's native orientation: used when neither the axes nor udev give a size
    /// (``ScreenTransform``). Default nil.
    public var displaySize: PhysicalSize?

    public init(
        kind: DeviceKind = .touchscreen, rotation: Rotation? = nil, calibration: CalibrationMatrix = .identity,
        pan: PanSettings? = nil, seat: Seat = .seat0, output: OutputHints = OutputHints(),
        displaySize: PhysicalSize? = nil
    ) {
        self.kind = kind
        self.rotation = rotation
        self.output = output
        self.calibration = calibration
        self.pan = pan
        self.seat = seat
        self.displaySize = displaySize
    }

    /// The configuration of a device that has no udev, a recording's: its kind from
    /// ``DeviceDescription/inferredKind`` (a touchscreen when that says neither), the
    /// rest at the defaults. The one place a kind is taken from a device's bits.
    public init(recorded description: DeviceDescription) {
        self.init(kind: description.inferredKind ?? .touchscreen)
    }
}

/// A navigation request from a client, as the socket protocol carries it.
public enum NavigationRequest: Sendable, Hashable {
    case create(navigator: String, pages: [Page], layout: LayoutDirection?, barFollowsTopPage: Bool)
    case push(navigator: String, page: Page, animated: Bool)
    case pop(navigator: String, animated: Bool)
    case replace(navigator: String, pages: [Page], animated: Bool)
    case update(navigator: String, page: Page)
    case configure(navigator: String, layout: LayoutDirection?, barFollowsTopPage: Bool)
    case settle(navigator: String)
    case front(navigator: String)
    case remove(navigator: String)

    public var navigator: String {
        switch self {
        case .create(let n, _, _, _), .push(let n, _, _), .pop(let n, _), .replace(let n, _, _), .update(let n, _),
             .configure(let n, _, _), .settle(let n), .front(let n), .remove(let n):
            n
        }
    }
}

/// The whole gesture engine: evdev events in, what clients receive out.
///
/// Pure: time comes from the events and requests, never from a clock, so the same
/// input always gives the same output. Not thread-safe; one owner drives it.
/// After each call, read what it produced with ``drainEvents(_:)``.
public struct GestureEngine: Sendable {
    struct Device: Sendable {
        let description: DeviceDescription
        let configuration: DeviceConfiguration
        var touches: TouchState
        var pans: PanRecognizer
        /// Replaced with the transform when the screen turns.
        var surface: PanSurface
        /// Frames dropped for being too long (``GestureEngine/maximumFrameEvents``).
        var framesDropped = 0
        /// Its seat's arbiter, in ``GestureEngine/arbiters``: found once, at add.
        let arbiter: Int

        /// Turns the completed frame into a pan event and readies the next frame.
        mutating func endFrame(resynced: Bool, at time: Timestamp) -> PanEvent? {
            let pan = pans.process(touches, resynced: resynced, at: time)
            touches.endFrame()
            return pan
        }
    }

    public private(set) var navigation = NavigationState()
    /// One arbiter per seat that has had a device, in the order seats first came; a
    /// seat's swipes are decided there alone, so two seats swipe at once and a finger on
    /// one is never `busy` for another's. Seats are few: never removed.
    private var arbiters: [PopArbiter] = []
    private var arbiterSeats: [Seat] = []
    private var arbiterSettings: GestureSettings
    /// Each seat's own settings, its active user's; a seat without uses `settings`.
    private var seatSettings: [Seat: SeatSettings] = [:]
    /// Indexed by `DeviceID.rawValue`; a removed device leaves nil until a new device
    /// takes its slot (``addDevice(_:configuration:atOpen:)`` reuses the lowest free one), and
    /// trailing nils are dropped, so the array never outgrows the most devices present
    /// at once. Mutated in place, so that a frame never copies a device's buffers.
    private var devices: ContiguousArray<Device?> = []
    private var outbox: [EngineEvent] = []
    private let logger: Logger
    /// The rotation and text direction the shell and the sensor report.
    public private(set) var session = SessionOrientation()
    /// The configuration's `layout`; the shell's direction takes its place while it says one.
    private var configuredLayout: LayoutDirection = .leftToRight
    private var rotationLog = ChangeLogLimit()
    private var directionLog = ChangeLogLimit()

    public init(settings: GestureSettings = GestureSettings(), logger: Logger = Logger(label: "popgestured.engine")) {
        self.logger = logger
        arbiterSettings = settings
        outbox.reserveCapacity(16)
    }

    /// The system's settings: every seat's, but where its active user set their own.
    public var settings: GestureSettings {
        get { arbiterSettings }
        set {
            arbiterSettings = newValue
            for index in arbiters.indices { arbiters[index].settings = settings(on: arbiterSeats[index]) }
        }
    }

    /// The settings in force on `seat`: its user's, else the system's.
    public func settings(on seat: Seat) -> GestureSettings { seatSettings[seat]?.settings ?? arbiterSettings }

    /// The settings `seat`'s active user set; nil when none are in force there.
    public func userSettings(on seat: Seat) -> SeatSettings? { seatSettings[seat] }

    /// The seats where a user's settings are in force, in order.
    public var seatsWithUserSettings: [Seat] { seatSettings.keys.sorted() }

    /// Puts `seat`'s user's settings in force (nil: back to the system's), from the next
    /// pan on; a pan being decided or tracked keeps what it started with only as far as
    /// the arbiter already decided.
    public mutating func setUserSettings(_ settings: SeatSettings?, on seat: Seat) {
        seatSettings[seat] = settings
        if let index = arbiterSeats.firstIndex(of: seat) { arbiters[index].settings = self.settings(on: seat) }
        if let settings {
            logger.info("\(seat): the user's settings are in force: \(settings.keys.isEmpty ? "none of their own" : settings.keys.joined(separator: ", "))")
        } else {
            logger.info("\(seat): the system's settings are in force")
        }
    }

    /// The user's settings go when their user is active on the seat no more: `client`
    /// was paused (a user switch), or went away and no other client of that user is left
    /// on the seat.
    private mutating func forgetUserSettings(after client: ClientID, paused: Bool) {
        guard let who = navigation.focus.clients[client], let held = seatSettings[who.seat], held.uid == who.uid else { return }
        let stays = !paused && navigation.focus.clients.contains { id, other in
            id != client && other.seat == who.seat && other.uid == who.uid && !navigation.focus.isPaused(id)
        }
        if !stays { setUserSettings(nil, on: who.seat) }
    }

    /// The index of `seat`'s arbiter, made on the seat's first device.
    private mutating func arbiterIndex(for seat: Seat) -> Int {
        if let index = arbiterSeats.firstIndex(of: seat) { return index }
        var seatLogger = logger
        seatLogger[metadataKey: "seat"] = "\(seat)"
        arbiters.append(PopArbiter(settings: settings(on: seat), logger: seatLogger))
        arbiterSeats.append(seat)
        return arbiters.count - 1
    }

    /// The navigators' animation timeout and default layout.
    public var transitionTimeout: Duration {
        get { navigation.transitionTimeout }
        set { navigation.transitionTimeout = newValue }
    }

    /// The configuration's `layout`. The layout in force for navigators that choose none
    /// is the shell's text direction when it said one (``directionInForce``).
    public var defaultLayout: LayoutDirection {
        get { configuredLayout }
        set {
            configuredLayout = newValue
            navigation.defaultLayout = session.direction(configured: newValue).direction
        }
    }

    /// The state of `seat`'s arbiter; idle for a seat that has had no device.
    public func arbiterState(on seat: Seat) -> PopArbiter.State {
        arbiterSeats.firstIndex(of: seat).map { arbiters[$0].state } ?? .idle
    }

    /// Idle when every seat's arbiter is; else the state of the first one that is not.
    public var arbiterState: PopArbiter.State { arbiters.lazy.map(\.state).first { $0 != .idle } ?? .idle }

    // MARK: - Devices

    /// Adds a device that sends protocol B or single-touch events (convert protocol A with mtdev first).
    ///
    /// Check the description with ``DeviceDescription/validate()`` first, where it enters
    /// (`EngineFeed` does): the engine does not trap on a description that fails it, but
    /// cannot make sense of its positions either. At most
    /// ``DeviceDescription/maximumTrackedSlots`` slots are tracked; events for the others
    /// are ignored, and logged once.
    ///
    /// The id is the lowest one no present device has, so a removed device's id is
    /// reused; the new device starts with state of its own (touches, pan, frame count).
    /// Its kind is `configuration.kind`, whatever the description's bits look like.
    /// Its touches start from `state`, what the kernel held at open (nil: nothing down);
    /// contacts down then never start a pan.
    public mutating func addDevice(
        _ description: DeviceDescription, configuration: DeviceConfiguration = .init(),
        atOpen state: DeviceStateAtOpen? = nil
    ) -> DeviceID {
        let index = devices.firstIndex(where: { $0 == nil }) ?? devices.endIndex
        let id = DeviceID(index)
        let kind = configuration.kind
        let transform = transform(of: description, configuration)
        let pan = configuration.pan ?? .defaults(for: kind)
        let surface = PanSurface(
            widthMillimetres: transform.screenSize.width, isOnScreen: kind == .touchscreen, seat: configuration.seat)
        var deviceLogger = logger
        deviceLogger[metadataKey: "device"] = "\(id.rawValue)"
        let device = Device(
            description: description, configuration: configuration,
            touches: TouchState(device: description, atOpen: state),
            pans: PanRecognizer(device: description, settings: pan, transform: transform, logger: deviceLogger),
            surface: surface, arbiter: arbiterIndex(for: configuration.seat))
        if index == devices.endIndex { devices.append(device) } else { devices[index] = device }
        if description.declaredSlotCount > Int64(description.slotCount) {
            logger.warning("\(id) \(description.name): declares \(description.declaredSlotCount) slots, tracking the first \(description.slotCount)")
        }
        logger.debug("added \(id): \(description.name), \(kind.rawValue), \(configuration.seat), \(pan.source.rawValue), \(transform.screenSize.width)×\(transform.screenSize.height) mm\(transform.sizeIsAssumed ? " (assumed)" : "")")
        return id
    }

    /// The device's transform under the rotation in force: touchpads never turn.
    /// Seat0's touchscreens turn with the session (its shell's outputs, the built-in
    /// panel's sensor); another seat's keep their configured rotation.
    /// A touchscreen without a size of its own takes the size the shell reports for its
    /// output, else its display's EDID size (``ScreenTransform``).
    private func transform(of description: DeviceDescription, _ configuration: DeviceConfiguration) -> ScreenTransform {
        let outputSize = configuration.kind == .touchscreen && configuration.seat == .seat0
            ? session.outputSize(for: configuration.output) : nil
        return ScreenTransform(
            device: description, rotation: rotation(of: configuration).rotation, calibration: configuration.calibration,
            outputSize: outputSize, displaySize: configuration.displaySize)
    }

    /// The rotation a device turns by, and who says it.
    private func rotation(of configuration: DeviceConfiguration) -> DeviceRotation {
        switch (configuration.kind, configuration.seat) {
        case (.touchscreen, .seat0): session.rotation(for: configuration.output, configured: configuration.rotation)
        case (.touchscreen, _): DeviceRotation(configuration.rotation ?? .none, source: .configuration)
        case (.touchpad, _): DeviceRotation(.none, source: .configuration)
        }
    }

    /// The rotation of device `id` in force and who says it; nil for no such device.
    public func rotation(of id: DeviceID) -> DeviceRotation? {
        guard devices.indices.contains(id.rawValue), let device = devices[id.rawValue] else { return nil }
        return rotation(of: device.configuration)
    }

    /// Whether some seat0 touchscreen turns by the accelerometer now, or would once it
    /// speaks: the daemon claims the sensor only while this holds.
    public var needsSensor: Bool {
        seat0Touchscreens.contains { session.needsSensor(configured: $0.rotation) }
    }

    /// The configurations of seat0's touchscreens, the ones the session turns.
    private var seat0Touchscreens: some Collection<DeviceConfiguration> {
        devices.lazy.compactMap { $0?.configuration }.filter { $0.kind == .touchscreen && $0.seat == .seat0 }
    }

    /// Removes a device, cancelling its pan (unplug, `ENODEV`).
    public mutating func removeDevice(_ id: DeviceID, at time: Timestamp) {
        guard devices.indices.contains(id.rawValue), var device = devices[id.rawValue] else { return }
        // Its pan's end first, while the device and its seat are still known.
        if let event = device.pans.deviceRemoved(at: time) {
            let action = arbiters[device.arbiter].handle(event, from: id, surface: device.surface, navigation: navigation)
            apply(action, device: id, time: time)
        }
        devices[id.rawValue] = nil
        while let last = devices.last, last == nil { devices.removeLast() }
    }

    /// How many device slots the engine holds, present devices and the free slots
    /// below the highest present id. For tests: it stays at the devices present at once.
    var deviceSlotCount: Int { devices.count }

    /// The device's touches as the engine last saw them, after the last complete frame.
    public func touches(of id: DeviceID) -> TouchState? {
        devices.indices.contains(id.rawValue) ? devices[id.rawValue]?.touches : nil
    }

    public func screenTransform(of id: DeviceID) -> ScreenTransform? {
        devices.indices.contains(id.rawValue) ? devices[id.rawValue]?.pans.transform : nil
    }

    /// What the device's last frame made of its touches, for grab mode's
    /// ``TouchRouter``. Read-only: asking changes nothing.
    ///
    /// - `.back(slots)` while the arbiter tracks an interactive back driven by this
    ///   device's pan, on the pan's slots;
    /// - `.deciding(holdable:)` while it decides this device's pan; `holdable` when the
    ///   landing would pass every guard that does not depend on the movement
    ///   (``popRejection(for:to:layout:settings:at:)`` with a level move toward the
    ///   back), with the destination's mode edge: only then may the touch be held;
    /// - `.none` otherwise (no pan, rejected, another device's pan).
    public func touchVerdict(of id: DeviceID) -> TouchRouter.Verdict {
        guard devices.indices.contains(id.rawValue), let device = devices[id.rawValue] else { return .none }
        let slots = device.pans.panSlots
        guard !slots.isEmpty else { return .none }
        switch arbiters[device.arbiter].state {
        case .interactive(let owner, _, _, _, _, _) where owner == id:
            return .back(slots)
        case .deciding(let owner, let origin, let surface) where owner == id:
            return .deciding(holdable: landingMayBeHeld(origin, surface: surface))
        default:
            return .none
        }
    }

    private func landingMayBeHeld(_ origin: PanSample, surface: PanSurface) -> Bool {
        let settings = settings(on: surface.seat)
        guard surface.isOnScreen, let destination = navigation.destination(backInput: settings.backInput, on: surface.seat)
        else {
            return false
        }
        let mode: GestureMode, layout: LayoutDirection
        switch destination {
        case .navigator(let navigator): (mode, layout) = (settings.mode, navigation.layout(of: navigator))
        case .input: (mode, layout) = (settings.backInputMode, navigation.defaultLayout)
        // The app's own swipe needs the touches: never held (popRejection says own-swipe).
        case .ownSwipe: return false
        }
        // Fullscreen mode never delays: a touch anywhere may become a back.
        guard mode == .edge else { return false }
        let start = PanStart(
            origin: origin.position, translationX: layout.backDirection, translationY: 0,
            screenWidthMillimetres: surface.widthMillimetres, isOnScreen: true)
        return popRejection(for: start, to: destination, layout: layout, settings: settings, at: origin.time) == nil
    }

    // MARK: - Events

    /// Feeds one event from a device. Work happens at `SYN_REPORT`.
    public mutating func handle(_ event: InputEvent, from id: DeviceID) {
        let index = id.rawValue
        guard devices.indices.contains(index), devices[index] != nil else { return }
        let ignoredBefore = devices[index]!.touches.ignoredSlotEvents
        let result = devices[index]!.touches.handle(event)
        if ignoredBefore == 0 && devices[index]!.touches.ignoredSlotEvents > 0 {
            logger.warning("\(id): events for slots beyond the \(devices[index]!.touches.contacts.count) tracked are ignored")
        }
        guard case .frame(let resynced) = result,
              let pan = devices[index]!.endFrame(resynced: resynced, at: event.time)
        else { return }
        let action = arbiters[devices[index]!.arbiter].handle(
            pan, from: id, surface: devices[index]!.surface, navigation: navigation)
        apply(action, device: id, time: event.time, at: pan.position)
    }

    /// Treats the device's current frame as lost, like `SYN_DROPPED`: the input layer
    /// calls it when a frame grows past ``maximumFrameEvents`` and drops the rest of it.
    /// The frame's `SYN_REPORT` then ends a resync frame, which cancels the device's pan.
    /// Logged as a warning the first time per device, at debug level after that.
    public mutating func dropFrame(from id: DeviceID, at time: Timestamp) {
        let index = id.rawValue
        guard devices.indices.contains(index), devices[index] != nil else { return }
        if devices[index]!.framesDropped == 0 {
            logger.warning("\(id): a frame longer than \(Self.maximumFrameEvents) events, dropped as if SYN_DROPPED (logged once)")
        } else {
            logger.debug("\(id): a frame longer than \(Self.maximumFrameEvents) events, dropped")
        }
        devices[index]!.framesDropped &+= 1
        _ = devices[index]!.touches.handle(InputEvent(time: time, type: EV.syn, code: SYN.dropped, value: 0))
    }

    /// The most events one evdev frame may carry before its `SYN_REPORT`: 1024. A frame
    /// for 64 slots with every axis reported is about 64 × 8 + a few keys, so 1024 is
    /// twice what any real device sends; past it the frame is dropped
    /// (``dropFrame(from:at:)``), so that a hostile device cannot make a reader buffer
    /// without end.
    public static let maximumFrameEvents = 1024

    // MARK: - Requests

    /// Carries out a client's request. Throws, changing nothing, when it cannot be taken.
    public mutating func perform(_ request: NavigationRequest, from client: ClientID, at time: Timestamp) throws(NavigationError) {
        let focusBefore = navigation.focusSummaries
        let effects: [NavigationEffect]
        switch request {
        case .create(let id, let pages, let layout, let bar):
            effects = try navigation.create(id, owner: client, pages: pages, layout: layout, barFollowsTopPage: bar)
        case .push(let id, let page, let animated):
            effects = try navigation.push(page, onto: id, by: client, animated: animated, at: time)
        case .pop(let id, let animated):
            effects = try navigation.pop(id, by: client, animated: animated, at: time).effects
        case .replace(let id, let pages, let animated):
            effects = try navigation.replace(id, with: pages, by: client, animated: animated, at: time)
        case .update(let id, let page):
            effects = try navigation.update(page, on: id, by: client)
        case .configure(let id, let layout, let bar):
            try navigation.configure(id, by: client, layout: layout, barFollowsTopPage: bar)
            effects = []
        case .settle(let id):
            try navigation.settle(id, by: client)
            effects = []
        case .front(let id):
            try navigation.bringToFront(id, by: client)
            effects = []
        case .remove(let id):
            try navigation.remove(id, by: client)
            effects = []
        }
        abandonPopIfStackChanged(request.navigator, time: time)
        emit(effects)
        // `create`, `front` and `remove` change the navigator a back would reach.
        emitFocusChange(since: focusBefore)
    }

    /// A client said who it is in `hello` (see ``NavigationState/identify(_:app:pid:uid:seat:isShell:)``).
    public mutating func identify(
        _ client: ClientID, app: String?, pid: Int32?, uid: UInt32? = nil, seat: Seat = .seat0, isShell: Bool,
        at time: Timestamp = .zero
    ) {
        let before = navigation.focusSummaries
        defer { emitFocusChange(since: before) }
        if isShell, seat == .seat0 { forgetShell(replacedBy: client, at: time) }
        navigation.identify(client, app: app, pid: pid, uid: uid, seat: seat, isShell: isShell)
        logger.debug("\(client): app \(app ?? "unknown"), pid \(pid.map(String.init) ?? "unknown"), \(seat)\(isShell ? ", its shell" : "")")
    }

    // MARK: - The session's rotation and text direction

    /// The shell says the output the touchscreens map to is turned `rotation` clockwise
    /// (`output` is its name, for `status`). From the next touch, every touchscreen's
    /// direction, edge and angle are decided on the turned screen; a pan in progress is
    /// cancelled. Touchpads never turn. Throws `not-shell` for any other client.
    public mutating func reportRotation(
        _ rotation: Rotation, output: String?, by client: ClientID, at time: Timestamp
    ) throws(NavigationError) {
        guard client == navigation.focus.shell(on: .seat0) else {
            throw NavigationError(.notShell, "only seat0's shell (hello with \"role\":\"shell\") reports the rotation")
        }
        changeRotation(at: time) {
            $0.shellRotation = rotation
            $0.shellOutput = output
        }
    }

    /// The shell lists its outputs (``OutputReport``): each touchscreen of seat0 turns
    /// with the output it drives, and a touchscreen without a size of its own takes its
    /// output's. The list replaces the last one. Throws `not-shell` for any other client.
    public mutating func reportOutputs(
        _ outputs: [OutputReport], by client: ClientID, at time: Timestamp
    ) throws(NavigationError) {
        guard client == navigation.focus.shell(on: .seat0) else {
            throw NavigationError(.notShell, "only seat0's shell (hello with \"role\":\"shell\") reports the outputs")
        }
        changeRotation(at: time) { $0.shellOutputs = outputs }
    }

    /// iio-sensor-proxy's `AccelerometerOrientation` changed; nil when there is no sensor
    /// (it went away, has no accelerometer, or was never there). `undefined` keeps the
    /// rotation the sensor last gave (``SensorOrientation``). Used while no shell says a rotation.
    public mutating func reportSensor(_ orientation: SensorOrientation?, at time: Timestamp) {
        if orientation == .undefined { return }
        changeRotation(at: time) { $0.sensorRotation = orientation?.rotation }
    }

    /// The shell says the session's text direction: navigators that chose no layout, and
    /// the back input, follow it (edge and direction mirror). Throws `not-shell` for any
    /// other client.
    public mutating func reportTextDirection(
        _ direction: LayoutDirection, by client: ClientID, at time: Timestamp
    ) throws(NavigationError) {
        guard client == navigation.focus.shell(on: .seat0) else {
            throw NavigationError(.notShell, "only seat0's shell (hello with \"role\":\"shell\") reports the text direction")
        }
        changeDirection(at: time) { $0.shellDirection = direction }
    }

    /// The rotation of seat0's touchscreens and where it comes from, as `screen` shows
    /// it: the first seat0 touchscreen's, a built-in one before others. With no
    /// touchscreen, what the shell or the sensor says; nil when nobody says one.
    public var rotationInForce: (rotation: Rotation?, source: RotationSource) {
        let decided = screenRotation
        return (decided?.rotation, decided?.source ?? .configuration)
    }

    /// ``rotationInForce`` with the shell's output.
    private var screenRotation: DeviceRotation? {
        if let first = representativeTouchscreen { return rotation(of: first) }
        let anyScreen = session.rotation(for: OutputHints(isBuiltIn: true), configured: nil)
        return anyScreen.source == .configuration ? nil : anyScreen
    }

    /// Seat0's touchscreen whose rotation `screen` shows: a built-in one first.
    private var representativeTouchscreen: DeviceConfiguration? {
        seat0Touchscreens.first(where: \.output.isBuiltIn) ?? seat0Touchscreens.first
    }

    /// The rotation and direction in force, as observers are told.
    public var screenSummary: ScreenSummary {
        let direction = directionInForce, rotation = screenRotation
        return ScreenSummary(
            rotation: rotation?.rotation, rotationSource: rotation?.source ?? .configuration, output: rotation?.output,
            direction: direction.direction, directionSource: direction.source)
    }

    /// The layout of navigators that choose none, and where it comes from.
    public var directionInForce: (direction: LayoutDirection, source: DirectionSource) {
        session.direction(configured: configuredLayout)
    }

    private mutating func changeRotation(at time: Timestamp, _ change: (inout SessionOrientation) -> Void) {
        let before = screenSummary
        change(&session)
        let now = screenSummary
        if now != before {
            outbox.append(.screenChanged(now))
            let output = now.output.map { ", output \($0.prefix(Self.loggedNameCharacters))" } ?? ""
            logChange(&rotationLog, at: time,
                      "rotation \(now.rotation.map { "\($0.rawValue)°" } ?? "none") from the \(now.rotationSource.rawValue)\(output), was \(before.rotation.map { "\($0.rawValue)°" } ?? "none") from the \(before.rotationSource.rawValue)")
        }
        // Each touchscreen turns with its own output: one may turn while `screen` stays.
        for index in devices.indices {
            guard let device = devices[index], device.configuration.kind == .touchscreen else { continue }
            let transform = transform(of: device.description, device.configuration)
            guard transform != device.pans.transform else { continue }
            let id = DeviceID(index)
            let was = device.pans.transform
            if now == before && transform.rotation != was.rotation {
                logChange(&rotationLog, at: time,
                          "\(id) \(device.description.name.prefix(Self.loggedNameCharacters)): rotation \(transform.rotation.rawValue)°, was \(was.rotation.rawValue)°")
            } else if transform.rotation == was.rotation {
                // Only its size changed (its output's reported size): the same screen, measured anew.
                logger.debug("\(id): \(transform.screenSize.width)×\(transform.screenSize.height) mm from its \(transform.sizeSource.rawValue), was \(was.screenSize.width)×\(was.screenSize.height) mm")
            }
            let cancelled = devices[index]!.pans.turn(to: transform, at: time)
            devices[index]!.surface.widthMillimetres = transform.screenSize.width
            if let cancelled {
                let surface = devices[index]!.surface
                let action = arbiters[device.arbiter].handle(cancelled, from: id, surface: surface, navigation: navigation)
                apply(action, device: id, time: time)
            }
        }
    }

    private mutating func changeDirection(at time: Timestamp, _ change: (inout SessionOrientation) -> Void) {
        let before = directionInForce
        change(&session)
        let now = directionInForce
        navigation.defaultLayout = now.direction
        guard now != before else { return }
        outbox.append(.screenChanged(screenSummary))
        logChange(&directionLog, at: time,
                  "text direction \(now.direction.rawValue) from the \(now.source.rawValue), was \(before.direction.rawValue) from the \(before.source.rawValue)")
    }

    /// The log names at most this many characters of the shell's output name.
    static let loggedNameCharacters = 64

    private func logChange(_ limit: inout ChangeLogLimit, at time: Timestamp, _ message: String) {
        switch limit.change(at: time) {
        case .info(let previous):
            let more = previous.map { " (the previous run of changes had \($0))" } ?? ""
            logger.info("\(message)\(more)")
        case .lastInfo:
            logger.info("\(message); more changes within \(ChangeLogLimit.quietGap) of each other are logged at debug")
        case .debug:
            logger.debug("\(message)")
        }
    }

    /// A client's window gained or lost focus. A pop in flight keeps its target: the
    /// finger already chose it.
    public mutating func reportFocus(_ focused: Bool, by client: ClientID, at time: Timestamp) {
        let before = navigation.focusSummaries
        defer { emitFocusChange(since: before) }
        navigation.reportFocus(focused, by: client)
        logger.debug("\(client) \(focused ? "gained" : "lost") focus; in front: \(frontDescription(of: client))")
    }

    /// The shell says which window has focus. Throws `not-shell` for any other client.
    public mutating func shellReports(
        _ window: FocusState.Window, by client: ClientID, at time: Timestamp
    ) throws(NavigationError) {
        let before = navigation.focusSummaries
        defer { emitFocusChange(since: before) }
        try navigation.shellReports(window, by: client)
        logger.debug("focused window: app \(window.app ?? "unknown"), pid \(window.pid.map(String.init) ?? "unknown"); in front: \(frontDescription(of: client))")
    }

    /// The shell says whether its seat's session scrolls touchpads naturally: the
    /// touchpad bridge's entries that follow the session play that way from the next
    /// swipe on (``BackInputMap/input(forApp:touchpadScrolling:)``). Throws `not-shell`
    /// for any other client.
    /// `bridge` false: the session takes no touchpad bridge (its entries get the standard
    /// back input); `focusChanged` says so, and the daemon removes the seat's touchpad.
    public mutating func reportTouchpadScrolling(
        natural: Bool, bridge: Bool = true, by client: ClientID, at time: Timestamp
    ) throws(NavigationError) {
        let seat = navigation.focus.clients[client]?.seat ?? .seat0
        let (wasDeclined, was) = (navigation.focus.touchpadBridgeDeclined(on: seat), navigation.focus.touchpadScrolling(on: seat))
        let summaries = navigation.focusSummaries
        try navigation.shellReportsTouchpadScrolling(natural: natural, bridge: bridge, by: client)
        emitFocusChange(since: summaries)
        if !bridge {
            guard !wasDeclined else { return }
            logger.info("\(seat): the session takes no touchpad bridge; in front: \(frontDescription(of: client))")
        } else {
            guard wasDeclined || was != natural else { return }
            logger.info("\(seat): the session scrolls touchpads \(natural ? "naturally" : "traditionally"); in front: \(frontDescription(of: client))")
        }
    }

    /// A new shell of seat0 starts from nothing: the one before it may have said another
    /// rotation. Nothing when `client` is that shell already, or there is none.
    private mutating func forgetShell(replacedBy client: ClientID, at time: Timestamp) {
        guard let shell = navigation.focus.shell(on: .seat0), shell != client else { return }
        forgetShell(at: time)
    }

    private mutating func forgetShell(at time: Timestamp) {
        changeRotation(at: time) { $0.forgetShellScreen() }
        changeDirection(at: time) { $0.forgetShell() }
    }

    /// Tells observers when focus, or the navigator a back would reach, changed: one
    /// event for each seat that changed.
    private mutating func emitFocusChange(since before: [Seat: FocusSummary]) {
        let now = navigation.focusSummaries
        guard now != before else { return }
        for (seat, summary) in now.sorted(by: { $0.key < $1.key }) where summary != before[seat] {
            outbox.append(.focusChanged(summary))
        }
    }

    /// What a back on the client's seat would reach now, for the log.
    private func frontDescription(of client: ClientID) -> String {
        let seat = navigation.focus.clients[client]?.seat ?? .seat0
        return switch navigation.destination(backInput: settings(on: seat).backInput, on: seat) {
        case .navigator(let navigator): "navigator \(navigator.id)"
        case .input(let input, let app): "back input \(input) for \(app ?? "an unknown app")"
        case .ownSwipe(let app): "\(app)'s own swipe-back"
        case nil: "nothing"
        }
    }

    /// The client's user is no longer a seat's active user (a user switch): its
    /// navigators keep their pages but get no back, a pop over one is cancelled, and a
    /// shell is its seat's shell no more (seat0's rotation and direction go with it).
    public mutating func clientPaused(_ client: ClientID, at time: Timestamp) {
        if client == navigation.focus.shell(on: .seat0) { forgetShell(at: time) }
        forgetUserSettings(after: client, paused: true)
        let before = navigation.focusSummaries
        navigation.pause(client)
        for navigator in navigation.navigators.values where navigator.owner == client {
            abandonPop(over: navigator.id, time: time)
        }
        emitFocusChange(since: before)
        logger.debug("\(client): paused, its user is not at a seat")
    }

    /// The client's user is active again; `asShell`: it is its seat's shell again, and
    /// reports the focused window anew.
    public mutating func clientResumed(_ client: ClientID, asShell: Bool, at time: Timestamp) {
        if asShell, navigation.focus.clients[client]?.seat == .seat0 { forgetShell(replacedBy: client, at: time) }
        let before = navigation.focusSummaries
        navigation.resume(client, asShell: asShell)
        emitFocusChange(since: before)
        logger.debug("\(client): resumed\(asShell ? ", the shell again" : "")")
    }

    /// Forgets a client that went away, with its navigators.
    public mutating func clientDisconnected(_ client: ClientID, at time: Timestamp) {
        // Seat0's shell's rotation and direction go with it: the sensor's, then the file's, apply.
        if client == navigation.focus.shell(on: .seat0) { forgetShell(at: time) }
        forgetUserSettings(after: client, paused: false)
        let before = navigation.focusSummaries
        for id in navigation.removeAll(ownedBy: client) {
            abandonPopIfStackChanged(id, time: time)
        }
        emitFocusChange(since: before)
    }

    // MARK: - Output

    /// Hands over, in order, everything produced since the last call.
    public mutating func drainEvents(_ body: (EngineEvent) throws -> Void) rethrows {
        defer { outbox.removeAll(keepingCapacity: true) }
        for event in outbox { try body(event) }
    }

    public var hasEvents: Bool { !outbox.isEmpty }

    // MARK: - Carrying out the arbiter's actions

    /// `position`: where the pan that led to `action` is now, when it came from a frame.
    private mutating func apply(
        _ action: PopArbiter.Action, device: DeviceID, time: Timestamp, at position: ScreenPoint? = nil
    ) {
        switch action {
        case .none:
            return
        case .rejected(let reason):
            logger.debug("\(device): pan rejected, \(reason.rawValue)")
            outbox.append(.rejected(reason, device: device, time: time))
        case .refused(let reason):
            outbox.append(.refused(reason, device: device, time: time))
        case .began(.navigator(let target), let progress):
            outbox.append(.popBegan(target, progress: progress, time: time))
        case .began(.input(let input, let app), let progress):
            outbox.append(.inputBegan(app: app, seat: seat(of: device), pointer: pointerPlace(position, device), time: time))
            outbox.append(.inputProgress(
                input, app: app, seat: seat(of: device), progress: progress,
                commit: settings(on: seat(of: device)).commitProgress, time: time))
        case .progress(.navigator(let target), let progress):
            outbox.append(.popProgress(target, progress: progress, time: time))
        case .progress(.input(let input, let app), let progress):
            outbox.append(.inputProgress(
                input, app: app, seat: seat(of: device), progress: progress,
                commit: settings(on: seat(of: device)).commitProgress, time: time))
        case .commit(.navigator(let target), let reason):
            guard let done = navigation.commitBack(target.navigator, expectedTop: target.page, at: time) else {
                // The stack changed in a way the arbiter did not see: never pop the wrong page.
                outbox.append(.popCancelled(target, reason: .stackChanged, time: time))
                return
            }
            outbox.append(.popFinished(target, reason: reason, time: time))
            outbox.append(.back(navigator: target.navigator, owner: target.owner,
                                popped: done.popped.id, top: done.top.id, time: time))
            emit(navigation.barVisibility(target.navigator))
        case .commit(.input(let input, let app), let reason):
            outbox.append(.backInput(input, app: app, seat: seat(of: device), reason: reason, time: time))
        case .cancelled(.navigator(let target), let reason):
            outbox.append(.popCancelled(target, reason: reason, time: time))
            emit(navigation.barVisibility(target.navigator))
        case .cancelled(.input(_, let app), let reason):
            outbox.append(.inputCancelled(app: app, seat: seat(of: device), reason: reason, time: time))
        }
    }

    /// Where the touchpad bridge may put the pointer for a swipe now at `position`: on a
    /// touchscreen, whose fractions are the layout's only while its seat shows one
    /// screen. Seat0's shell may report several outputs; another seat has no shell, and
    /// one screen.
    private func pointerPlace(_ position: ScreenPoint?, _ device: DeviceID) -> ScreenPoint? {
        guard let position, devices.indices.contains(device.rawValue), let surface = devices[device.rawValue]?.surface,
              surface.isOnScreen
        else { return nil }
        if surface.seat == .seat0, let outputs = session.shellOutputs, outputs.count > 1 { return nil }
        return position
    }

    private func seat(of device: DeviceID) -> Seat {
        devices.indices.contains(device.rawValue) ? devices[device.rawValue]?.surface.seat ?? .seat0 : .seat0
    }

    private mutating func abandonPopIfStackChanged(_ navigator: String, time: Timestamp) {
        abandonPop(over: navigator, keepingTop: navigation.navigators[navigator]?.top.id, time: time)
    }

    /// Cancels a pop over `navigator`, unless `keepingTop` is still the page it pops.
    private mutating func abandonPop(over navigator: String, keepingTop top: String? = nil, time: Timestamp) {
        // The seat whose pop it is, if any: at most one arbiter follows a navigator.
        for index in arbiters.indices {
            let action = arbiters[index].abandon(navigator: navigator, keepingTop: top)
            if case .cancelled(.navigator(let target), let reason) = action {
                outbox.append(.popCancelled(target, reason: reason, time: time))
                emit(navigation.barVisibility(target.navigator))
            }
        }
    }

    private mutating func emit(_ effects: [NavigationEffect]) {
        for effect in effects { emit(effect) }
    }

    private mutating func emit(_ effect: NavigationEffect?) {
        switch effect {
        case .barVisibility(let navigator, let owner, let page, let hidden):
            outbox.append(.bar(navigator: navigator, owner: owner, page: page, hidden: hidden))
        case nil:
            break
        }
    }
}
