import CLinux
import CSystemd
import Glibc
import PopGestureCore

/// A failed sd-event call: what was being set up, and the `errno` it returned.
public struct SDEventLoopError: Error, Sendable, CustomStringConvertible {
    public let what: String
    public let errno: CInt
    public var description: String { "\(what): \(String(cString: strerror(errno)))" }
}

/// The loop logind, udevd and networkd run on: libsystemd's sd-event, with the few
/// sources popgestured needs. One source per descriptor or deadline, each registered
/// once with its ``Priority``; sd-event then dispatches one source per iteration, the
/// most urgent pending first, and looks at every descriptor again (`epoll_wait` with no
/// wait) before the next. A finger's frame therefore waits for at most one dispatch of a
/// lower source, never for a whole round of them.
///
/// The C types stay in this file: callers see ``EventSource`` objects and Swift closures.
/// Confined to the thread that runs it (sd-event's own rule); `@unchecked Sendable` only
/// so that it can be created on one thread and handed to the one that runs it.
public final class SDEventLoop: @unchecked Sendable {
    /// The order sources are dispatched in when several are pending: lower first.
    public struct Priority: Sendable, Hashable {
        public let rawValue: Int64
        public init(_ rawValue: Int64) { self.rawValue = rawValue }
        /// Touch devices and the event pipe: always first.
        public static let devices = Priority(-100)
        /// udev's hotplug news, grab mode's and the touchpad bridge's deadlines.
        public static let deadlines = Priority(-50)
        /// logind's seats, the sensor's bus, signals and the watchdog.
        public static let session = Priority(-20)
        /// The clients: last, each source rate-limited (``EventSource/limitRate(interval:burst:)``).
        public static let clients = Priority(100)
    }

    let event: OpaquePointer
    private var hooks: [DispatchHook] = []

    public init() throws(SDEventLoopError) {
        var event: OpaquePointer?
        let result = sd_event_new(&event)
        guard result >= 0, let event else { throw SDEventLoopError(what: "cannot create the event loop", errno: -result) }
        self.event = event
    }

    deinit { sd_event_unref(event) }

    /// The time the current iteration woke up, on `CLOCK_MONOTONIC` (the evdev events'
    /// clock): read once an iteration by sd-event, not once a call. Before the first
    /// iteration, sd-event reads the clock itself.
    public func now() -> Timestamp {
        var microseconds: UInt64 = 0
        // Fails only for a clock sd-event does not know; CLOCK_MONOTONIC it always does.
        _ = sd_event_now(event, CLOCK_MONOTONIC, &microseconds)
        return Timestamp(microseconds: Int64(clamping: microseconds))
    }

    /// Calls `handler` with what `fd` is ready for whenever it is ready for `events`.
    /// The loop does not own `fd`: cancel the source before closing it.
    public func watch(
        _ fd: CInt, events: IOEvents = .readable, priority: Priority,
        _ handler: @escaping (IOEvents) -> Void
    ) throws(SDEventLoopError) -> EventSource {
        let source = EventSource(.io(handler))
        var raw: OpaquePointer?
        let result = sd_event_add_io(
            event, &raw, fd, events.rawValue,
            { _, _, revents, userdata in
                EventSource.from(userdata).fire(revents: revents)
                return 0
            }, source.userdata)
        return try source.adopt(raw, result, priority: priority, what: "cannot watch fd \(fd)")
    }

    /// A one-shot deadline on `CLOCK_MONOTONIC`, disarmed until ``EventSource/arm(at:)``.
    public func timer(priority: Priority, _ handler: @escaping () -> Void) throws(SDEventLoopError) -> EventSource {
        let source = EventSource(.plain(handler))
        var raw: OpaquePointer?
        let result = sd_event_add_time(
            event, &raw, CLOCK_MONOTONIC, UInt64.max, 1,  // accuracy 1 µs: 0 would let sd-event fire up to 250 ms late
            { _, _, userdata in
                EventSource.from(userdata).fire(revents: 0)
                return 0
            }, source.userdata)
        let adopted = try source.adopt(raw, result, priority: priority, what: "cannot create a timer")
        adopted.disable()
        return adopted
    }

    /// Runs `handler` right after every dispatch, inside the same iteration: the flush of
    /// what a frame or a client's turn produced, before the loop looks at the descriptors
    /// again. Not an sd-event post source: that would cost an iteration of its own
    /// (`epoll_wait`, the clocks) after every dispatch. In the order they were added.
    public func afterEachDispatch(_ handler: @escaping () -> Void) -> DispatchHook {
        let hook = DispatchHook(handler)
        hooks.append(hook)
        hook.loop = self
        return hook
    }

    func remove(_ hook: DispatchHook) { hooks.removeAll { $0 === hook } }

    /// Runs `handler` once an iteration while it is on (``EventSource/enable(_:)``), in
    /// turn with the descriptors of its priority: input a dispatch left in a buffer, which
    /// no descriptor will report again. Created off.
    ///
    /// An always-readable eventfd, not an sd-event defer source: sd-event keeps a defer
    /// source pending from its creation on, so one that stays on is dispatched before
    /// every other source of its priority, every time, and starves them.
    public func whileOn(priority: Priority, _ handler: @escaping () -> Void) throws(SDEventLoopError) -> EventSource {
        let fd = eventfd(1, CInt(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw SDEventLoopError(what: "cannot create an eventfd", errno: errno) }
        let source: EventSource
        do throws(SDEventLoopError) {
            source = try watch(fd, priority: priority) { _ in handler() }
        } catch {
            close(fd)
            throw error
        }
        source.ownedDescriptor = fd
        source.disable()
        return source
    }

    /// Puts an sd-bus connection on the loop (`sd_bus_attach_event`): sd-event then waits
    /// for what the bus asks (its descriptor, `EPOLLOUT` while it sends, its timeouts), and
    /// each dispatch processes one message. The bus keeps the loop alive while attached;
    /// detach it (`sd_bus_detach_event`) before it goes.
    public func attach(bus: OpaquePointer, priority: Priority) throws(SDEventLoopError) {
        let result = sd_bus_attach_event(bus, event, CInt(clamping: priority.rawValue))
        guard result >= 0 else { throw SDEventLoopError(what: "cannot attach the bus to the loop", errno: -result) }
    }

    /// Waits at most `timeout` (nil: for ever) and dispatches one source. Returns whether
    /// one was dispatched; throws when sd-event fails (the loop is then unusable).
    @discardableResult
    public func runOnce(timeout: Duration? = nil) throws(SDEventLoopError) -> Bool {
        let microseconds = timeout.map { UInt64(clamping: max(0, $0.microsecondsRounded)) } ?? UInt64.max
        let result = sd_event_run(event, microseconds)
        guard result >= 0 else { throw SDEventLoopError(what: "the event loop failed", errno: -result) }
        guard result > 0 else { return false }
        for hook in hooks { hook.body() }
        return true
    }
}

/// What a descriptor is ready for, or waited for (`EPOLLIN`, `EPOLLOUT`…).
public struct IOEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let readable = IOEvents(rawValue: UInt32(EPOLLIN.rawValue))
    public static let writable = IOEvents(rawValue: UInt32(EPOLLOUT.rawValue))
    /// Reported whether asked for or not.
    public static let hangUp = IOEvents(rawValue: UInt32(EPOLLHUP.rawValue))
    /// Reported whether asked for or not.
    public static let error = IOEvents(rawValue: UInt32(EPOLLERR.rawValue))
}

/// One source of an ``SDEventLoop``: a descriptor, a deadline, or a while-on source.
/// It is removed from the loop when the object goes away (or at ``cancel()``).
public final class EventSource {
    enum Handler {
        case io((IOEvents) -> Void)
        case plain(() -> Void)
    }

    private let handler: Handler
    private var raw: OpaquePointer?
    private var enabled = true
    /// A descriptor the source made for itself (``SDEventLoop/whileOn(priority:_:)``), closed with it.
    var ownedDescriptor: CInt?

    init(_ handler: Handler) { self.handler = handler }

    deinit { cancel() }

    /// Passed to C as the source's userdata; the source outlives its C side (``cancel()``).
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> EventSource {
        Unmanaged<EventSource>.fromOpaque(userdata!).takeUnretainedValue()
    }

    func adopt(_ raw: OpaquePointer?, _ result: CInt, priority: SDEventLoop.Priority, what: String) throws(SDEventLoopError) -> EventSource {
        guard result >= 0, let raw else { throw SDEventLoopError(what: what, errno: -result) }
        self.raw = raw
        _ = sd_event_source_set_priority(raw, priority.rawValue)
        return self
    }

    func fire(revents: UInt32) {
        switch handler {
        case .io(let body): body(IOEvents(rawValue: revents))
        case .plain(let body): body()
        }
    }

    /// Removes it from its loop; it never fires again. Also done when it goes away.
    public func cancel() {
        guard let raw else { return }
        sd_event_source_disable_unref(raw)
        self.raw = nil
        if let ownedDescriptor { close(ownedDescriptor) }
        ownedDescriptor = nil
    }

    /// Turns it on or off; a disarmed or finished timer is off. No system call when
    /// nothing changes.
    public func enable(_ on: Bool) {
        guard let raw, on != enabled else { return }
        enabled = on
        _ = sd_event_source_set_enabled(raw, on ? CInt(SD_EVENT_ON) : CInt(SD_EVENT_OFF))
    }

    func disable() { enable(false) }

    /// What an IO source waits for; sd-event skips `epoll_ctl` when it is the same as before.
    public func setEvents(_ events: IOEvents) {
        guard let raw else { return }
        _ = sd_event_source_set_io_events(raw, events.rawValue)
    }

    /// A timer's deadline, or nil to disarm it. A time already past fires at once.
    public func arm(at deadline: Timestamp?) {
        guard let raw else { return }
        guard let deadline else { return enable(false) }
        _ = sd_event_source_set_time(raw, UInt64(clamping: max(1, deadline.microseconds)))
        // A one-shot timer turns itself off when it fires: on again, whatever `enabled` says.
        enabled = true
        _ = sd_event_source_set_enabled(raw, CInt(SD_EVENT_ONESHOT))
    }

    /// At most `burst` dispatches every `interval`; past it sd-event turns the source off
    /// until the interval ends (`sd_event_source_set_ratelimit`).
    public func limitRate(interval: Duration, burst: Int) {
        guard let raw else { return }
        _ = sd_event_source_set_ratelimit(raw, UInt64(clamping: interval.microsecondsRounded), UInt32(clamping: burst))
    }
}

/// A handler run after every dispatch (``SDEventLoop/afterEachDispatch(_:)``); it stops
/// at ``cancel()`` or when the object goes away.
public final class DispatchHook {
    let body: () -> Void
    weak var loop: SDEventLoop?

    init(_ body: @escaping () -> Void) { self.body = body }

    deinit { cancel() }

    public func cancel() {
        loop?.remove(self)
        loop = nil
    }
}
