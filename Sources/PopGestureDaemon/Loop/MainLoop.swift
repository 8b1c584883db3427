import CLinux
import Glibc
import Logging
import PopGestureCore
import PopGestureEventLoop
import PopGestureInput
import PopGestureProtocol
import PopGestureServer

/// What the input thread hands what it reads to, and serves beside the devices: the
/// engine and the client socket (``SocketServer`` in the daemon). Every call comes from
/// the thread running ``MainLoop/run(_:)``.
public protocol InputSink: AnyObject {
    /// A device to use; the events that follow are changes to `stateAtOpen`. Throws
    /// when the sink cannot use it (mtdev could not be set up); the loop then closes it.
    func deviceAdded(
        key: Int, path: String, name: String, description: DeviceDescription,
        configuration: DeviceConfiguration, stateAtOpen: DeviceStateAtOpen) throws(InputError)
    func deviceRemoved(key: Int)
    /// Every event one read returned, in order; usually one frame ending in `SYN_REPORT`.
    /// For a grabbed device, exactly one frame.
    func received(_ events: [InputEvent], fromDevice key: Int)
    /// What the engine made of the device's pan after the last frame it received:
    /// grab mode's verdict (``GestureEngine/touchVerdict(of:)``).
    func touchVerdict(ofDevice key: Int) -> TouchRouter.Verdict
    /// Who may connect may have changed (a seat's active session did): ask every
    /// connected client's admission again. Called before the round's clients are served.
    func admissionMayHaveChanged()
    /// iio-sensor-proxy's orientation changed, or the sensor came or went (``SensorProxy``):
    /// `orientation` nil when there is none, `state` what `status` shows of it.
    func sensorChanged(_ orientation: SensorOrientation?, state: String)
    /// Whether the engine needs the accelerometer (``GestureEngine/needsSensor``): the
    /// loop claims it only while this holds.
    var needsSensor: Bool { get }
    /// The loop the sink's own sources are on (the listener, the clients, its flush after
    /// every dispatch, ``SocketServer``): the devices' sources join them there.
    var loop: SDEventLoop { get }
}

extension SocketServer: InputSink {
    public func deviceAdded(
        key: Int, path: String, name: String, description: DeviceDescription,
        configuration: DeviceConfiguration, stateAtOpen: DeviceStateAtOpen
    ) throws(InputError) {
        try deviceAdded(
            key: key, path: path, name: name, description: description, configuration: configuration,
            atOpen: stateAtOpen)
    }

    public var needsSensor: Bool { host.engine.needsSensor }

    public func admissionMayHaveChanged() { reviewAdmission() }
}

/// A deadline kept beside the loop (the touchpad bridge's next frame, ``TouchpadOutput``):
/// its descriptor is watched at ``SDEventLoop/Priority/deadlines``, after the devices.
/// Called only on the thread running ``MainLoop/run(_:)``.
public protocol LoopTimer: AnyObject {
    /// A timerfd, or nil while there is none; asked after every dispatch until it exists.
    var timerDescriptor: CInt? { get }
    /// The descriptor was readable: read it and do what was due.
    func timerFired()
}

/// The daemon's main loop: finds touch devices through udev, reads each with libevdev,
/// and hands each read, on this thread, to an ``InputSink``: the engine and the client
/// socket, whose sources share the loop (``InputSink/loop``, sd-event). Every descriptor
/// is a source registered once with its priority (docs/ARCHITECTURE.md, "One loop"):
/// 1. the devices and the event pipe (``SDEventLoop/Priority/devices``): every frame goes
///    through the engine, and its events are queued for the clients, then written at the
///    end of the same dispatch (the sink's flush, ``SDEventLoop/afterEachDispatch(_:)``);
/// 2. udev's hotplug news, grab mode's deadlines and the clone readers, the timers beside
///    the loop (the touchpad bridge's frames) (``SDEventLoop/Priority/deadlines``);
/// 3. logind's seat changes (the clients' admission asked again), iio-sensor-proxy's
///    bus (attached with `sd_bus_attach_event`: one message a dispatch; a turn cancels a
///    pan in progress), the wake pipe, signals and the watchdog (``SDEventLoop/Priority/session``);
/// 4. the clients, one turn each within its budget (``SDEventLoop/Priority/clients``).
///
/// sd-event dispatches one source at a time and looks at every descriptor again before
/// the next, so a frame waits for at most one lower source's dispatch. An idle tablet
/// costs one `epoll_wait` with no timeout: no timer unless systemd asked for a watchdog
/// or a client owes a `hello` or the end of a line.
///
/// Other threads talk to it only through ``reconfigure(_:)`` and ``stop()``, which
/// queue a command and write a byte into a wake pipe (``LoopMailbox``).
public final class MainLoop: Sendable {
    /// Something other than input that ``run(_:)`` reports to its caller.
    public enum Event: Sendable, Equatable {
        /// One of the signals given to `init` (SIGTERM, SIGHUP…).
        case signal(CInt)
        /// The watchdog interval passed.
        case watchdog
        /// logind changed a seat (its active session, usually); the sink has already
        /// asked its clients' admission again (``InputSink/admissionMayHaveChanged()``).
        case seatsChanged
        /// The loop cannot go on (`poll(2)` kept failing); ``run(_:)`` closes the
        /// devices and returns right after reporting it.
        case failed(String)
    }

    private let mailbox: LoopMailbox
    private let loop: InputLoop

    /// Blocks these signals in the calling thread and in every thread it starts later,
    /// so that they reach ``run(_:)`` through its signalfd. Call it first thing.
    public static func blockSignals(_ signals: [CInt]) {
        var set = LoopDescriptors.signalSet(signals)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Creates the udev monitor and opens the devices present now. Throws when udev,
    /// the signalfd or the watchdog timer cannot be used at all (a failed signalfd
    /// unblocks `signals` first); a device that fails to open is only logged.
    ///
    /// - Parameters:
    ///   - signals: reported by ``run(_:)`` as ``Event/signal(_:)``; block them first
    ///     with ``blockSignals(_:)``, or they keep their default action.
    ///   - watchdogInterval: reported as ``Event/watchdog``; nil arms no timer.
    ///   - eventPipe: a FIFO whose raw `input_event` records are read as one more
    ///     touchscreen (``EventPipe``): benchmarks and tests on machines without uinput.
    ///   - loginMonitor: logind's seats; each change is served before the clients of
    ///     its round (``InputSink/admissionMayHaveChanged()``) and reported as
    ///     ``Event/seatsChanged``. Nil: no seat changes are watched.
    ///   - sensor: iio-sensor-proxy's accelerometer; its changes go to the sink with
    ///     logind's, before the clients. Nil: no sensor is followed.
    ///   - timers: deadlines kept beside the loop, fired after the devices' frames.
    ///   - displayRoot: where the display connectors are, for a touchscreen with no size
    ///     of its own (``DisplaySize``): `/sys/class/drm`.
    public init(
        configuration: Configuration, sink: some InputSink, signals: [CInt] = [], watchdogInterval: Duration? = nil,
        eventPipe pipe: EventPipe? = nil, loginMonitor: LoginMonitor? = nil, sensor: SensorProxy? = nil,
        timers: [any LoopTimer] = [], displayRoot: String = DisplayConnectors.defaultRoot, logger: Logger
    ) throws(InputError) {
        let monitor = try UdevInputMonitor()
        let mailbox = try LoopMailbox()
        let timerFD = try LoopDescriptors.timerDescriptor(watchdogInterval)
        let signalFD: CInt?
        do {
            signalFD = try LoopDescriptors.signalDescriptor(signals)
        } catch {
            if let timerFD { close(timerFD) }
            throw error
        }
        self.mailbox = mailbox
        self.loop = InputLoop(
            monitor: monitor, configuration: configuration, sink: sink, mailbox: mailbox,
            signalFD: signalFD, timerFD: timerFD, eventPipe: pipe, loginMonitor: loginMonitor, sensor: sensor,
            timers: timers, displayRoot: displayRoot, logger: logger)
        do throws(SDEventLoopError) {
            try loop.attach()
        } catch {
            throw InputError(.loopSetup, "\(error)")
        }
        loop.openPresentDevices()
    }

    /// How many devices are open. Meant for the ready message before ``run(_:)`` starts.
    public var openDeviceCount: Int { loop.deviceCount }

    /// Grab mode's stage for the device of `key`, and its clone's node, for `status`
    /// (docs/PROTOCOL.md). Only on the thread running ``run(_:)``, as `status` is answered.
    public func grabStage(ofDevice key: Int) -> (stage: String, clone: String?) { loop.grabStage(ofDevice: key) }

    /// Runs the loop on the calling thread until ``stop()`` (or ``Event/failed(_:)``),
    /// closing every device before it returns. `handle` runs on this thread for each
    /// signal, watchdog tick and failure.
    public func run(_ handle: (Event) -> Void = { _ in }) {
        withoutActuallyEscaping(handle) { handle in
            loop.report = handle
            defer { loop.report = nil }
            while !loop.isStopped { loop.runOnce() }
        }
        loop.closeAll()
    }

    /// Re-opens every device under a new configuration (a reload that changed the
    /// rotation or the touchpad mode). Safe from any thread, ``run(_:)``'s handler included.
    public func reconfigure(_ configuration: Configuration) { send(.reconfigure(configuration)) }

    /// Makes ``run(_:)`` close the devices and return. Safe from any thread.
    public func stop() { send(.stop) }

    private func send(_ command: LoopMailbox.Command) { mailbox.send(command) }
}

/// The main loop's own state. Touched only by the thread running
/// ``MainLoop/run(_:)`` (and by `init` before that).
private final class InputLoop: @unchecked Sendable {
    private struct OpenDevice {
        let key: Int
        var info: InputDeviceInfo
        let device: EvdevDevice
        /// Grab mode's clone and grab, when `grab = on` and the device is a protocol B touchscreen.
        var grab: TouchGrab?
        /// Its descriptor on the loop, at ``SDEventLoop/Priority/devices``.
        var source: EventSource?
    }

    /// Reads of one device a second at most: 4,000, four times a 1 kHz touchscreen's
    /// frames (each read takes every frame waiting, up to
    /// ``EvdevDevice/maximumEventsPerRead`` events). The devices come before everything
    /// else, so a device that writes without pause would otherwise starve the rest, the
    /// watchdog included; past it, sd-event turns its source off until the second ends.
    static let deviceReadsPerSecond = 4_000

    private let monitor: UdevInputMonitor
    private var configuration: Configuration
    private let sink: any InputSink
    private let mailbox: LoopMailbox
    private var pollFailures = PollFailures()
    /// Set when the loop is to end: ``MainLoop/stop()`` or given up (``PollFailures``).
    private(set) var isStopped = false
    /// ``MainLoop/run(_:)``'s handler while it runs.
    var report: ((MainLoop.Event) -> Void)?
    private let events: SDEventLoop
    /// Sources of the loop's own descriptors, kept while it lives.
    private var sources: [EventSource] = []
    private var afterDispatch: DispatchHook?
    private var grabTimerSource: EventSource?
    private var readerWatchSource: EventSource?
    private var eventPipeSource: EventSource?
    /// The timers beside the loop whose descriptor has its source, by index in ``timers``.
    private var timerSources: [EventSource?]
    private let logger: Logger
    private var devices: [OpenDevice] = []
    private var nextKey = 0
    private var batch: [InputEvent] = []
    private let signalFD: CInt?
    private let timerFD: CInt?
    /// `--event-pipe`: read as one more touchscreen, under `eventPipeKey` while the sink has it.
    private let eventPipe: EventPipe?
    private var eventPipeKey: Int?
    /// Grab mode's deadlines (held touches, clones udev has not announced); made with
    /// the first clone.
    private var grabTimer: DeadlineTimer?
    /// Who opens grab mode's clones (``CloneReaderWatch``); made with the first clone.
    /// Nil before, or when inotify failed (`readerWatchFailed`: the grab then follows
    /// udev's announcement without waiting for a reader).
    private var readerWatch: CloneReaderWatch?
    private var readerWatchFailed = false
    private let loginMonitor: LoginMonitor?
    private let sensor: SensorProxy?
    private let timers: [any LoopTimer]
    /// Where the display connectors are read (``DisplaySize``).
    private let displayRoot: String

    init(
        monitor: UdevInputMonitor, configuration: Configuration, sink: any InputSink, mailbox: LoopMailbox,
        signalFD: CInt?, timerFD: CInt?, eventPipe: EventPipe?, loginMonitor: LoginMonitor?, sensor: SensorProxy?,
        timers: [any LoopTimer], displayRoot: String, logger: Logger
    ) {
        self.timers = timers
        self.displayRoot = displayRoot
        self.eventPipe = eventPipe
        self.loginMonitor = loginMonitor
        self.sensor = sensor
        self.monitor = monitor
        self.mailbox = mailbox
        self.configuration = configuration
        self.signalFD = signalFD
        self.timerFD = timerFD
        self.sink = sink
        self.logger = logger
        self.events = sink.loop
        timerSources = Array(repeating: nil, count: timers.count)
        batch.reserveCapacity(256)
    }

    deinit {
        // Off the loop before their descriptors close.
        afterDispatch?.cancel()
        for source in sources { source.cancel() }
        if let signalFD { close(signalFD) }
        if let timerFD { close(timerFD) }
    }

    var deviceCount: Int { devices.count + (eventPipeKey == nil ? 0 : 1) }

    /// See ``MainLoop/grabStage(ofDevice:)``: `off` when grab mode is, `unsupported` for
    /// what it never takes (touchpads, protocol A, the event pipe), `failed` when its
    /// clone or grab failed, else the ``TouchGrab/Stage``.
    func grabStage(ofDevice key: Int) -> (stage: String, clone: String?) {
        guard configuration.grab == .on else { return ("off", nil) }
        guard let open = devices.first(where: { $0.key == key }) else { return ("unsupported", nil) }
        guard let grab = open.grab else {
            let takes = open.info.kind == .touchscreen && TouchGrab.supports(open.device.description)
            return (takes ? "failed" : "unsupported", nil)
        }
        return (grab.stage.name, grab.clone.devnode)
    }

    func openPresentDevices() {
        for info in monitor.enumerate() { open(info) }
        addEventPipe()
    }

    /// The event pipe, as a touchscreen with nothing down (it has no state at open).
    private func addEventPipe() {
        guard let eventPipe, eventPipeKey == nil else { return }
        let key = nextKey
        nextKey += 1
        let deviceConfiguration = DeviceConfiguration(
            kind: .touchscreen, rotation: configuration.rotation, calibration: .identity)
        do {
            try sink.deviceAdded(
                key: key, path: eventPipe.path, name: EventPipe.description.name, description: EventPipe.description,
                configuration: deviceConfiguration, stateAtOpen: DeviceStateAtOpen())
            eventPipeKey = key
            eventPipeSource = try? events.watch(eventPipe.fileDescriptor, priority: .devices) { [unowned self] _ in
                readEventPipe()
            }
            eventPipeSource?.limitRate(interval: .seconds(1), burst: Self.deviceReadsPerSecond)
            logger.info("\(eventPipe.path): reading input_event records as a touchscreen (device \(key))")
        } catch {
            logger.error("\(eventPipe.path): not used: \(error.message)")
        }
    }

    /// Registers the loop's own sources (the devices' come as they open).
    func attach() throws(SDEventLoopError) {
        sources.append(try events.watch(mailbox.readEnd, priority: .session) { [unowned self] _ in takeMail() })
        sources.append(try events.watch(monitor.fileDescriptor, priority: .deadlines) { [unowned self] _ in
            applyUdevChanges()
            grabWaitingDevices(now: MonotonicClock.now(), udevNews: true)
            armGrabTimer()
        })
        if let signalFD {
            sources.append(try events.watch(signalFD, priority: .session) { [unowned self] _ in readSignals() })
        }
        if let timerFD {
            sources.append(try events.watch(timerFD, priority: .session) { [unowned self] _ in
                var expirations: UInt64 = 0
                if Glibc.read(timerFD, &expirations, MemoryLayout<UInt64>.size) > 0 { report?(.watchdog) }
            })
        }
        if let loginMonitor {
            sources.append(try events.watch(
                loginMonitor.fileDescriptor, events: IOEvents(rawValue: UInt32(UInt16(bitPattern: loginMonitor.events))), priority: .session
            ) { [unowned self] _ in
                loginMonitor.acknowledge()
                sink.admissionMayHaveChanged()
                report?(.seatsChanged)
            })
        }
        do throws(SDEventLoopError) {
            try sensor?.attach(to: events, priority: .session)
        } catch {
            logger.warning("iio-sensor-proxy is not followed (\(error)): the rotation comes from the shell or the configuration")
            sink.sensorChanged(nil, state: SensorFollower.Absence.unavailable.rawValue)
        }
        // After every dispatch: what the last one changed about the sensor and the timers.
        afterDispatch = events.afterEachDispatch { [unowned self] in
            if let sensor {
                sensor.setNeeded(sink.needsSensor)
                if sensor.hasReports {
                    for (orientation, state) in sensor.takeReports() { sink.sensorChanged(orientation, state: state) }
                }
            }
            watchTimers()
        }
    }

    /// One iteration of the loop: waits, then dispatches the most urgent source.
    func runOnce() {
        do throws(SDEventLoopError) {
            try events.runOnce()
            pollFailures.succeeded()
        } catch {
            loopFailed(error)
        }
    }

    /// The wake pipe: the commands other threads sent.
    private func takeMail() {
        mailbox.drainWakes()
        for command in mailbox.takeCommands() {
            switch command {
            case .reconfigure(let configuration):
                reopenAll(configuration: configuration)
            case .stop:
                isStopped = true
                return
            }
        }
    }

    private func readSignals() {
        guard let signalFD else { return }
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while Glibc.read(signalFD, &info, size) == size { report?(.signal(CInt(info.ssi_signo))) }
    }

    /// The timers beside the loop whose descriptor has appeared since.
    private func watchTimers() {
        for (index, timer) in timers.enumerated() where timerSources[index] == nil {
            guard let fd = timer.timerDescriptor else { continue }
            do throws(SDEventLoopError) {
                timerSources[index] = try events.watch(fd, priority: .deadlines) { _ in timer.timerFired() }
            } catch {
                logger.error("\(error)")
            }
        }
    }

    /// sd-event failed (it does only when the kernel refuses it memory or descriptors):
    /// logged, then waited out or given up on.
    private func loopFailed(_ error: SDEventLoopError) {
        let reason = "\(error)"
        switch pollFailures.failed() {
        case .retry(let backoff):
            if pollFailures.consecutive == 1 { logger.error("\(reason); retrying every \(backoff)") }
            let (seconds, attoseconds) = backoff.components
            var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            nanosleep(&pause, nil)
        case .stop:
            isStopped = true
            report?(.failed("\(reason), \(pollFailures.consecutive) times in a row"))
        }
    }

    func reopenAll(configuration: Configuration) {
        self.configuration = configuration
        closeAll()
        openPresentDevices()
        logger.info("devices re-opened under the new configuration: \(devices.count) in use")
    }

    private func readEventPipe() {
        guard let eventPipe, let key = eventPipeKey else { return }
        batch.removeAll(keepingCapacity: true)
        var failure: InputError?
        do {
            try eventPipe.read { batch.append($0) }
        } catch {
            failure = error
        }
        if !batch.isEmpty { sink.received(batch, fromDevice: key) }
        if let failure {
            logger.error("\(failure.message); the event pipe is no longer read")
            sink.deviceRemoved(key: key)
            eventPipeKey = nil
            eventPipeSource?.cancel()
            eventPipeSource = nil
        }
    }

    func closeAll() {
        if let key = eventPipeKey {
            sink.deviceRemoved(key: key)
            eventPipeKey = nil
            eventPipeSource?.cancel()
            eventPipeSource = nil
        }
        for open in devices {
            open.source?.cancel()
            open.grab?.release(open.device, at: MonotonicClock.now())
            sink.deviceRemoved(key: open.key)
        }
        devices.removeAll()  // deinit closes each fd, and each clone
        armGrabTimer()
    }

    private func read(_ key: Int) {
        guard let index = devices.firstIndex(where: { $0.key == key }) else { return }
        batch.removeAll(keepingCapacity: true)
        let gone: InputError?
        do {
            try devices[index].device.read { batch.append($0) }
            gone = nil
        } catch {
            gone = error
        }
        if let grab = devices[index].grab {
            readGrabbed(index: index, grab: grab)
        } else if !batch.isEmpty {
            sink.received(batch, fromDevice: key)
        }
        if let gone {
            remove(at: index, reason: gone.message)
        }
        // The frame may have changed a grab's deadline (a touch held, or lifted).
        armGrabTimer()
    }

    /// `batch`, read from a device with grab mode's clone: whole frames through the
    /// engine and the router once grabbed; before that as usual, and the grab's gate
    /// follows the contacts, to grab at the end of a frame with none down (a touch
    /// must end where it began).
    private func readGrabbed(index: Int, grab: TouchGrab) {
        let open = devices[index]
        let sink = sink
        do throws(InputError) {
            if grab.isGrabbed {
                try grab.route(
                    batch, engine: { sink.received($0, fromDevice: open.key) },
                    verdict: { sink.touchVerdict(ofDevice: open.key) })
            } else {
                if !batch.isEmpty { sink.received(batch, fromDevice: open.key) }
                grab.observe(batch)
                try grab.grabIfReady(open.device)
            }
        } catch {
            dropGrab(at: index, error)
        }
    }

    /// Grab mode fails for a device (the clone cannot be written, the grab refused):
    /// the device goes back to being read alongside the compositor.
    private func dropGrab(at index: Int, _ error: InputError) {
        guard let grab = devices[index].grab else { return }
        if error.code == .deviceGone { return }  // the read's own error removes it
        logger.error("\(devices[index].info.devnode): grab mode off for this device: \(error.message)")
        grab.release(devices[index].device, at: MonotonicClock.now())
        devices[index].grab = nil
    }

    /// Clones waiting for udev or for a reader, and devices waiting for their fingers
    /// to lift: udev's messages about a clone make the monitor readable (`udevNews`),
    /// the clone's opens the reader watch. udev is asked first, then the watch is
    /// read: an open and close by udev's own workers while processing the clone are
    /// then read together, and count as no reader.
    private func grabWaitingDevices(now: Timestamp, udevNews: Bool) {
        if udevNews {
            for open in devices where open.grab?.isGrabbed == false { open.grab!.checkUdev(monitor, now: now) }
        }
        readCloneReaders(now: now)
        forEachGrab(where: { !$0.isGrabbed }) { grab, device throws(InputError) in
            try grab.grabIfReady(device)
        }
    }

    /// Drains the reader watch; each waiting clone gets its opens and closes.
    private func readCloneReaders(now: Timestamp) {
        guard let readerWatch else { return }
        let changes = readerWatch.read()
        guard !changes.isEmpty else { return }
        let overflow = changes.contains(.overflow)
        if overflow { logger.warning("\(readerWatch.directory): inotify's queue overflowed; a waiting clone counts as opened") }
        for open in devices {
            guard let grab = open.grab, !grab.isGrabbed, let node = grab.clone.devnode else { continue }
            var opened = overflow ? 1 : 0, closed = 0
            for change in changes {
                switch change {
                case .opened(node): opened += 1
                case .closed(node): closed += 1
                default: break
                }
            }
            if opened > 0 || closed > 0 { grab.readersChanged(opened: opened, closed: closed, at: now) }
        }
    }

    /// The grab timer fired: held touches past their deadline are released, clones
    /// udev never announced are grabbed anyway.
    private func expireGrabs() {
        let now = MonotonicClock.now()
        forEachGrab(where: { $0.deadline.map { $0 <= now } ?? false }) { grab, device throws(InputError) in
            try grab.expire(device, at: now)
        }
    }

    /// `body` for each device's grab that `include` picks; a grab whose `body` fails is dropped.
    private func forEachGrab(
        where include: (TouchGrab) -> Bool, _ body: (TouchGrab, EvdevDevice) throws(InputError) -> Void
    ) {
        for index in devices.indices {
            guard let grab = devices[index].grab, include(grab) else { continue }
            do throws(InputError) {
                try body(grab, devices[index].device)
            } catch {
                dropGrab(at: index, error)
            }
        }
    }

    /// Arms the grab timer at the earliest deadline, or disarms it. Runs every round,
    /// so it scans the devices without building an array.
    private func armGrabTimer() {
        guard let grabTimer else { return }
        var earliest: Timestamp?
        for open in devices {
            guard let deadline = open.grab?.deadline else { continue }
            if earliest == nil || deadline < earliest! { earliest = deadline }
        }
        do throws(InputError) {
            try grabTimer.arm(at: earliest)
        } catch {
            // A held touch then waits for its device's next frame, which releases it past the deadline.
            logger.error("\(error.message)")
        }
    }

    /// Matched by syspath, not devnode (see ``UdevChange/step(open:)``).
    private func applyUdevChanges() {
        for change in monitor.receive() {
            switch change.step(open: devices.map(\.info)) {
            case .ignore:
                break
            case .open(let info):
                open(info)
            case .update(let index, let info):
                devices[index].info = info  // reopening would cancel a swipe for nothing
            case .reopen(let index, let info):
                remove(at: index, reason: "udev reported a change of kind, calibration, size or output")
                open(info)
            case .close(let index):
                remove(at: index, reason: "unplugged")
            }
        }
    }

    private func open(_ info: InputDeviceInfo) {
        var calibration = CalibrationMatrix.identity
        if let text = info.calibration {
            if let matrix = CalibrationMatrix(udevProperty: text) {
                calibration = matrix
            } else {
                logger.warning("\(info.devnode): ignoring LIBINPUT_CALIBRATION_MATRIX \(quoted(text)): expected six numbers")
            }
        }
        guard let seat = info.seat else {
            logger.warning("\(info.devnode) \(quoted(info.name)): left alone: its ID_SEAT names no seat logind would take")
            return
        }
        guard var deviceConfiguration = configuration.deviceConfiguration(
            for: info.kind, calibration: calibration, name: info.name, output: info.output)
        else {
            let why = info.kind == .touchpad
                ? "touchpads = off"
                : "screen = \(configuration.screen.text), and its WL_OUTPUT is \(info.output ?? "unset")"
            logger.info("\(info.devnode) \(quoted(info.name)): \(info.kind.rawValue) left alone (\(why))")
            return
        }
        deviceConfiguration.seat = seat
        let device: EvdevDevice
        do {
            device = try EvdevDevice(path: info.devnode)
        } catch {
            logger.warning("\(info.devnode) \(quoted(info.name)): cannot use it: \(error.message)")
            return
        }
        var description = device.description
        if description.reportedSize == nil { description.reportedSize = info.size }
        deviceConfiguration.output = OutputHints(
            wlOutput: info.output, description: description,
            isBuiltIn: DisplayConnectors.touchscreenIsBuiltIn(
                udevBus: info.bus, bustype: description.bustype, integration: info.integration))
        if DisplaySize.isNeeded(kind: info.kind, description: description) {
            let lookup = DisplaySize.lookUp(
                for: info, bustype: description.bustype, among: DisplayConnectors.read(root: displayRoot))
            deviceConfiguration.displaySize = lookup.size
            logger.info("\(info.devnode) \(quoted(info.name)): \(lookup.message)")
        }
        do {
            try description.validate()  // EngineFeed checks too; refusing here also closes the fd
        } catch {
            logger.warning("\(info.devnode) \(quoted(info.name)): refused: \(error.message)")
            return
        }
        let key = nextKey
        nextKey += 1
        do {
            try sink.deviceAdded(
                key: key, path: info.devnode, name: description.name, description: description,
                configuration: deviceConfiguration, stateAtOpen: device.stateAtOpen)
        } catch {
            // It never reached the engine, so the engine is not told of its removal; deinit closes the fd.
            logger.warning("\(info.devnode) \(quoted(info.name)): not used: \(error.message)")
            return
        }
        let grab = info.kind == .touchscreen && configuration.grab == .on ? makeGrab(device, info: info) : nil
        let source: EventSource
        do throws(SDEventLoopError) {
            source = try events.watch(device.fileDescriptor, priority: .devices) { [unowned self] _ in read(key) }
            source.limitRate(interval: .seconds(1), burst: Self.deviceReadsPerSecond)
        } catch {
            logger.error("\(info.devnode) \(quoted(description.name)): cannot be read: \(error)")
            grab?.release(device, at: MonotonicClock.now())
            sink.deviceRemoved(key: key)
            return
        }
        devices.append(OpenDevice(key: key, info: info, device: device, grab: grab, source: source))
        logger.info("\(info.devnode) \(quoted(description.name)): using it as a \(info.kind.rawValue) on \(seat) (device \(key))")
    }

    /// Grab mode's clone of a touchscreen just opened; nil, logged, when grab mode
    /// cannot take it. The grab itself waits for udev to announce the clone, for
    /// something to open it (``CloneReaderWatch``, made before the first clone so that
    /// no open is missed) and for the lift.
    private func makeGrab(_ device: EvdevDevice, info: InputDeviceInfo) -> TouchGrab? {
        guard TouchGrab.supports(device.description) else {
            logger.warning("\(info.devnode) \(quoted(info.name)): grab mode takes protocol B touchscreens only; read without a grab")
            return nil
        }
        do throws(InputError) {
            if grabTimer == nil {
                let timer = try DeadlineTimer()
                grabTimer = timer
                grabTimerSource = try? events.watch(timer.fileDescriptor, priority: .deadlines) { [unowned self] _ in
                    timer.acknowledge()
                    expireGrabs()
                    armGrabTimer()
                }
            }
            if readerWatch == nil && !readerWatchFailed {
                do throws(InputError) {
                    let watch = try CloneReaderWatch()
                    readerWatch = watch
                    readerWatchSource = try? events.watch(watch.fileDescriptor, priority: .deadlines) { [unowned self] _ in
                        grabWaitingDevices(now: MonotonicClock.now(), udevNews: false)
                        armGrabTimer()
                    }
                } catch {
                    readerWatchFailed = true
                    logger.warning("\(error.message): who opens the clones cannot be known, so each grab follows udev's announcement, whether or not anything reads the clone")
                }
            }
            let grab = try TouchGrab(
                device: device, now: MonotonicClock.now(), watchesReaders: readerWatch != nil, logger: logger)
            defer { armGrabTimer() }  // for its wait for udev, should udev never say
            logger.info("\(info.devnode) \(quoted(info.name)): cloned as \(grab.clone.devnode ?? grab.clone.name) for grab mode")
            return grab
        } catch {
            logger.error("\(info.devnode) \(quoted(info.name)): no grab mode: \(error.message)")
            return nil
        }
    }

    private func remove(at index: Int, reason: String) {
        let open = devices.remove(at: index)
        open.source?.cancel()
        open.grab?.release(open.device, at: MonotonicClock.now())
        logger.info("\(open.info.devnode) \(quoted(open.info.name)): dropped (\(reason))")
        sink.deviceRemoved(key: open.key)
    }
}
