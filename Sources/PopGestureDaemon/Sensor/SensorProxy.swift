import CSystemd
import Glibc
import Logging
import PopGestureBus
import PopGestureCore
import PopGestureEventLoop
import PopGestureInput

/// iio-sensor-proxy's accelerometer on the system bus, through libsystemd's sd-bus,
/// attached to the main loop: its `AccelerometerOrientation` becomes the rotation of the
/// touchscreens while no shell reports one (``GestureEngine/reportSensor(_:at:)``).
/// The decisions are ``SensorFollower``'s; this class only talks D-Bus.
///
/// Nothing blocks: the calls are asynchronous (`sd_bus_call_async`), and the connection
/// is on the loop (`sd_bus_attach_event`, ``attach(to:priority:)``): sd-event waits for
/// what sd-bus asks and for its timeouts, and each dispatch processes one message, with
/// the devices looked at before every one. The calls never start the proxy (auto-start
/// off): udev starts it where there is a sensor, as GNOME expects.
///
/// Bounds, for what comes from the bus: strings are read up to ``maximumStringBytes``
/// (an orientation longer than that is unknown, so undefined); a property dictionary is
/// read up to ``maximumProperties`` entries; an error name is logged cut to
/// ``maximumStringBytes``. sd-bus bounds its own queues and message sizes.
public final class SensorProxy {
    static let service = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"
    static let interface = "net.hadess.SensorProxy"

    /// The longest string read from a message: 64 bytes. The orientations are at most 9,
    /// and D-Bus error names are short dotted names.
    public static let maximumStringBytes = 64
    /// The most entries read from one property dictionary: 64 (the proxy has 12 properties).
    public static let maximumProperties = 64
    private let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var follower = SensorFollower()
    /// What the messages processed since the last ``takeReports()`` have to report.
    private var reports: [(SensorOrientation?, String)] = []
    private var lost = false
    /// The follower's retry of the claim, when it asked for one.
    private var retryTimer: EventSource?
    /// Some reply or signal came: the bus took the connection.
    private var answered = false
    private let logger: Logger
    private var stateLog = ChangeLogLimit()

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket)
    /// and subscribes to the proxy's signals; the follower starts once the connection is
    /// on a loop (``attach(to:priority:)``).
    public static func make(logger: Logger) -> Result<SensorProxy, SensorProxyError> {
        var bus: OpaquePointer?
        let result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else { return .failure(SensorProxyError("sd_bus_open_system", -result)) }
        let proxy = SensorProxy(bus: bus, logger: logger)
        let owner = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service)'"
        let changed = "type='signal',sender='\(service)',path='\(path)',"
            + "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='\(interface)'"
        for match in [owner, changed] {
            var slot: OpaquePointer?
            let added = sd_bus_add_match_async(
                bus, &slot, match, SensorProxy.onSignal, nil, Unmanaged.passUnretained(proxy).toOpaque())
            guard added >= 0, let slot else { return .failure(SensorProxyError("sd_bus_add_match_async", -added)) }
            proxy.slots.append(slot)
        }
        // sd-bus tells of a lost connection only with this local signal, once the loop runs it.
        var filter: OpaquePointer?
        let filtered = sd_bus_add_filter(bus, &filter, SensorProxy.onMessage, Unmanaged.passUnretained(proxy).toOpaque())
        guard filtered >= 0, let filter else { return .failure(SensorProxyError("sd_bus_add_filter", -filtered)) }
        proxy.slots.append(filter)
        return .success(proxy)
    }

    /// Puts the connection on `loop` and starts following the proxy. From then on the
    /// loop runs it; ``takeReports()`` after every dispatch collects what it heard.
    public func attach(to loop: SDEventLoop, priority: SDEventLoop.Priority) throws(SDEventLoopError) {
        try loop.attach(bus: bus, priority: priority)
        retryTimer = try loop.timer(priority: priority) { [unowned self] in handle(.retryDue) }
        handle(.started)
    }

    private init(bus: OpaquePointer, logger: Logger) {
        self.bus = bus
        self.logger = logger
    }

    deinit {
        retryTimer?.cancel()
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_detach_event(bus)
        sd_bus_flush_close_unref(bus)
    }

    /// Claims the accelerometer while `needed`, releases it when not
    /// (``SensorFollower``); the change reaches the engine through ``process()``.
    public func setNeeded(_ needed: Bool) {
        guard !lost, needed != follower.needed else { return }
        handle(.needed(needed))
    }

    /// Whether ``takeReports()`` has something: asked after every dispatch, so cheap.
    public var hasReports: Bool { !reports.isEmpty }

    /// The orientation changes heard since the last call, to give the engine
    /// (orientation, and what `status` shows).
    public func takeReports() -> [(SensorOrientation?, String)] {
        defer { reports.removeAll() }
        return reports
    }

    /// The connection is gone (sd-bus's `Disconnected`, after the pending calls' NoReply).
    private func connectionLost() {
        guard !lost else { return }
        // A bus that drops a connection before answering anything refused it: dbus-daemon
        // does so to a uid it cannot resolve, as a dynamic one (systemd#22737).
        let why = answered ? "" : Self.refusedHint
        logger.warning("the system bus connection is lost\(why); the sensor is no longer followed")
        lost = true
        retryTimer?.arm(at: nil)
        handle(.busLost)
    }

    static let refusedHint = " before the bus answered anything: it refused this process, as dbus-daemon does a uid it"
        + " cannot resolve (a DynamicUser= one: the unit's User=popgestured must exist, `systemd-sysusers` makes it)"

    // MARK: - The follower's actions

    private func handle(_ input: SensorFollower.Input) {
        switch input {
        // sd-bus answers pending calls with NoReply itself when the connection goes.
        case .started, .busLost, .propertiesRead(_, "org.freedesktop.DBus.Error.NoReply"?, _, _),
             .claimed("org.freedesktop.DBus.Error.NoReply"?, _):
            break
        default:
            answered = true
        }
        for action in follower.handle(input) {
            switch action {
            case .readProperties(let generation):
                call("org.freedesktop.DBus.Properties", "GetAll", argument: Self.interface, generation: generation,
                     handler: Self.onProperties)
            case .claim(let generation):
                call(Self.interface, "ClaimAccelerometer", argument: nil, generation: generation, handler: Self.onClaimed)
            case .retry(let delay):
                retryTimer?.arm(at: MonotonicClock.now() + delay)
                logger.info("iio-sensor-proxy: claiming again in \(delay)")
            case .release:
                call(Self.interface, "ReleaseAccelerometer", argument: nil, generation: follower.generation,
                     handler: Self.onReleased)
            case .report(let orientation, let state):
                reports.append((orientation, state))
                let message = "iio-sensor-proxy: \(state)"
                switch stateLog.change(at: MonotonicClock.now()) {
                case .info, .lastInfo: logger.info("\(message)")
                case .debug: logger.debug("\(message)")
                }
            }
        }
    }

    /// A pending call's context: the proxy and the generation it was made for.
    private final class Call {
        unowned let proxy: SensorProxy
        let generation: Int
        init(_ proxy: SensorProxy, _ generation: Int) {
            self.proxy = proxy
            self.generation = generation
        }
    }

    private func call(
        _ interface: String, _ member: String, argument: String?, generation: Int,
        handler: sd_bus_message_handler_t
    ) {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, Self.service, Self.path, interface, member)
        guard result >= 0, let message else { return failed(member, result) }
        defer { sd_bus_message_unref(message) }
        sd_bus_message_set_auto_start(message, 0)
        if let argument { result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), argument) }
        guard result >= 0 else { return failed(member, result) }
        // The call's context lives until its reply (or timeout) releases it in the handler.
        let context = Unmanaged.passRetained(Call(self, generation)).toOpaque()
        result = sd_bus_call_async(bus, nil, message, handler, context, 0)
        if result < 0 {
            Unmanaged<Call>.fromOpaque(context).release()
            failed(member, result)
        }
    }

    private func failed(_ member: String, _ result: CInt) {
        logger.warning("iio-sensor-proxy: cannot call \(member): \(String(cString: strerror(-result)))")
        handle(.busLost)
    }

    // MARK: - Callbacks (C function pointers: no captures, the context comes as userdata)

    private static let onProperties: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let call = Unmanaged<Call>.fromOpaque(userdata).takeRetainedValue()
        let error = errorName(message)
        if let error { call.proxy.logger.debug("iio-sensor-proxy: GetAll failed: \(error)") }
        var reader = BusMessageReader(message, maximumValueBytes: maximumStringBytes)
        let properties = error == nil ? readProperties(&reader) : SensorFollower.Properties()
        call.proxy.handle(.propertiesRead(
            properties, error: error, generation: call.generation, sender: sender(of: message)))
        return 0
    }

    private static let onClaimed: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let call = Unmanaged<Call>.fromOpaque(userdata).takeRetainedValue()
        let error = errorName(message)
        if let error { call.proxy.logger.warning("iio-sensor-proxy: ClaimAccelerometer failed: \(error)") }
        call.proxy.handle(.claimed(error: error, generation: call.generation))
        return 0
    }

    private static let onReleased: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let call = Unmanaged<Call>.fromOpaque(userdata).takeRetainedValue()
        if let error = errorName(message) { call.proxy.logger.debug("iio-sensor-proxy: ReleaseAccelerometer failed: \(error)") }
        return 0
    }

    private static let onMessage: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata,
              sd_bus_message_is_signal(message, "org.freedesktop.DBus.Local", "Disconnected") > 0 else { return 0 }
        Unmanaged<SensorProxy>.fromOpaque(userdata).takeUnretainedValue().connectionLost()
        return 0
    }

    private static let onSignal: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let proxy = Unmanaged<SensorProxy>.fromOpaque(userdata).takeUnretainedValue()
        let sender = sender(of: message)
        if sd_bus_message_is_signal(message, "org.freedesktop.DBus", "NameOwnerChanged") > 0 {
            // Only the bus says who owns a name: sd-bus does not check a match rule's
            // `sender=`, and anyone may send a signal of that name (unicast to us).
            guard sender == busDriver else {
                proxy.logger.debug("iio-sensor-proxy: a NameOwnerChanged from \(sender ?? "nobody"), not the bus: ignored")
                return 0
            }
            // name, old owner, new owner
            var reader = BusMessageReader(message, maximumValueBytes: maximumStringBytes)
            guard reader.next() == .string(service) else { return 0 }
            _ = reader.next()
            guard case .string(let owner)? = reader.next() else { return 0 }
            proxy.handle(.ownerChanged(owner: owner.isEmpty ? nil : owner))
        } else if sd_bus_message_is_signal(message, "org.freedesktop.DBus.Properties", "PropertiesChanged") > 0 {
            var reader = BusMessageReader(message, maximumValueBytes: maximumStringBytes)
            guard reader.next() == .string(interface) else { return 0 }
            proxy.handle(.propertiesChanged(readProperties(&reader), sender: sender))
        }
        return 0
    }

    // MARK: - Reading messages

    /// The bus driver's name, the sender of the bus's own signals.
    static let busDriver = "org.freedesktop.DBus"

    /// The message's sender (a unique name, or the bus driver's), as the bus stamped it.
    private static func sender(of message: OpaquePointer) -> String? {
        sd_bus_message_get_sender(message).flatMap(bounded)
    }

    /// The error's name, cut to ``maximumStringBytes``; nil when the reply is no error.
    private static func errorName(_ message: OpaquePointer) -> String? {
        guard sd_bus_message_is_method_error(message, nil) > 0 else { return nil }
        guard let name = sd_bus_message_get_error(message)?.pointee.name else { return "an unnamed error" }
        return bounded(name) ?? "an error with a long name"
    }

    private static func bounded(_ pointer: UnsafePointer<CChar>) -> String? {
        BusMessageReader.bounded(pointer, maximumStringBytes)
    }

    /// `HasAccelerometer` and `AccelerometerOrientation` from the next argument, an
    /// `a{sv}` (up to ``maximumProperties`` entries); a value of another type is skipped,
    /// as are the other properties.
    private static func readProperties(_ reader: inout BusMessageReader) -> SensorFollower.Properties {
        var properties = SensorFollower.Properties()
        for (name, value) in reader.properties(maximumEntries: maximumProperties) ?? [] {
            switch (name, value) {
            case (.string("HasAccelerometer"), .bool(let has)):
                properties.hasAccelerometer = has
            case (.string("AccelerometerOrientation"), .string(let orientation)):
                properties.orientation = orientation
            case (.string("AccelerometerOrientation"), .tooLong):
                // Too long to be an orientation: an unknown one, so undefined.
                properties.orientation = SensorOrientation.undefined.rawValue
            default:
                break
            }
        }
        return properties
    }
}

/// Why there is no ``SensorProxy`` (no system bus here: a container, a test machine).
public struct SensorProxyError: Error, CustomStringConvertible {
    public let call: String
    public let errno: CInt

    init(_ call: String, _ errno: CInt) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}
