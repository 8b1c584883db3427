import Logging
import NIOCore
import PopGestureCore
import PopGestureInput

/// The engine side's thin I/O layer: an ``EngineHost`` driven by the one thread that
/// reads the devices, wired to the socket side through an ``EngineChannel``.
///
/// A frame goes into the engine right after its `read()`, and only the engine's
/// events leave (through ``EngineChannel/send(_:)``); ``serveRequests()`` answers what
/// the socket side asked since the last call. It decides nothing itself.
///
/// Confined to one thread at a time (the daemon's input thread, or an ``EngineThread``);
/// `@unchecked Sendable` only so that it can be created on another thread first.
public final class EngineSide: @unchecked Sendable {
    public private(set) var host: EngineHost
    public let channel: EngineChannel
    /// The time of a device's arrival and removal and of a reload, in the clock of
    /// the evdev events (requests carry the time the socket side received them).
    private let clock: @Sendable () -> Timestamp
    /// Reused: a frame appends to it and hands its contents over, so it keeps its storage.
    private var output: [EngineOutput] = []
    private var requests = CircularBuffer<EngineRequest>(initialCapacity: EngineChannel.maximumQueuedRequests)
    /// Sends a committed back input through the daemon's virtual device; nil when it
    /// has none (then the engine's ``GestureSettings/backInput`` should be
    /// ``BackInputMap/none``, so that no swipe waits for it).
    public var sendBackInput: ((BackInput) -> Void)?

    public init(
        channel: EngineChannel, settings: GestureSettings = GestureSettings(), transitionTimeout: Duration = .seconds(1),
        defaultLayout: LayoutDirection = .leftToRight,
        clock: @escaping @Sendable () -> Timestamp = SocketServer.monotonicNow,
        logger: Logger = Logger(label: "popgestured.engine")
    ) {
        self.channel = channel
        self.clock = clock
        host = EngineHost(
            settings: settings, transitionTimeout: transitionTimeout, defaultLayout: defaultLayout, logger: logger)
        output.reserveCapacity(64)
    }

    /// See ``EngineHost/deviceAdded(key:path:name:description:configuration:atOpen:at:output:)``.
    @discardableResult
    public func deviceAdded(
        key: Int, path: String, name: String, description: DeviceDescription,
        configuration: DeviceConfiguration = .init(), atOpen state: DeviceStateAtOpen? = nil
    ) throws(InputError) -> DeviceID {
        defer { flush() }
        return try host.deviceAdded(
            key: key, path: path, name: name, description: description, configuration: configuration,
            atOpen: state, at: clock(), output: &output)
    }

    public func deviceRemoved(key: Int) {
        host.deviceRemoved(key: key, at: clock(), output: &output)
        flush()
    }

    /// Every event one read returned, in order; usually one frame ending in `SYN_REPORT`.
    public func received(_ events: [InputEvent], fromDevice key: Int) {
        host.handle(events: events, fromDevice: key, output: &output)
        flush()
    }

    /// What the engine made of device `key`'s pan after the last frame, for grab
    /// mode's ``TouchRouter``; `.none` for a device it does not have.
    public func touchVerdict(ofDevice key: Int) -> TouchRouter.Verdict {
        guard let device = host.devices[key] else { return .none }
        return host.engine.touchVerdict(of: device.id)
    }

    /// Answers every request queued since the last call, in order. Call it when
    /// ``EngineChannel/wakeDescriptor`` is readable.
    public func serveRequests() {
        channel.drainWakes()
        channel.takeRequests(into: &requests)
        while let request = requests.popFirst() {
            host.perform(request, output: &output)
        }
        flush()
    }

    /// A configuration reload; see ``EngineHost/updateSettings(_:transitionTimeout:defaultLayout:)``.
    public func apply(settings: GestureSettings, transitionTimeout: Duration, defaultLayout: LayoutDirection) {
        host.updateSettings(settings, transitionTimeout: transitionTimeout, defaultLayout: defaultLayout)
    }

    /// Carries out the back inputs among the output, then hands it all to the socket side.
    private func flush() {
        if let sendBackInput {
            for case .event(.backInput(let input, _, _, _)) in output { sendBackInput(input) }
        }
        channel.send(&output)
    }

    /// Whether to read the devices now: not while the socket side is behind
    /// (``EngineChannel/mayReadDevices()``).
    public func mayReadDevices() -> Bool { channel.mayReadDevices() }
}
