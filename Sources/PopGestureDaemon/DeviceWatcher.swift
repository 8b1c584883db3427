import CLinux
import Glibc
import Logging
import PopGestureCore
import PopGestureInput
import Synchronization

/// Where the input thread delivers what it reads. The socket server implements it by
/// hopping onto its event loop, so calls may come from any thread.
public protocol InputSink: Sendable {
    func deviceAdded(
        key: Int, path: String, name: String, kind: DeviceKind, description: DeviceDescription,
        configuration: DeviceConfiguration)
    func deviceRemoved(key: Int)
    /// Every event one read returned, in order; usually one frame ending in `SYN_REPORT`.
    func received(_ events: [InputEvent], fromDevice key: Int)
}

/// The daemon's main loop: finds touch devices through udev, reads each with libevdev,
/// and hands what it reads to an ``InputSink``. Signals and the watchdog arrive here
/// too, as file descriptors, so one `poll(2)` with no timeout is all an idle tablet
/// costs: no polling, and no timer unless systemd asked for a watchdog.
///
/// Other threads talk to it only through ``reconfigure(_:)`` and ``stop()``, which
/// queue a command and write a byte into a wake pipe.
public final class DeviceWatcher: Sendable {
    /// Something other than input that ``run(_:)`` reports to its caller.
    public enum Event: Sendable, Equatable {
        /// One of the signals given to `init` (SIGTERM, SIGHUP…).
        case signal(CInt)
        /// The watchdog interval passed.
        case watchdog
    }

    private enum Command: Sendable {
        case reconfigure(Configuration)
        case stop
    }

    private let commands = Mutex<[Command]>([])
    /// A self-pipe: ``send(_:)`` writes a byte, `poll` wakes on the read end.
    private let wake: (read: CInt, write: CInt)
    private let loop: InputLoop

    /// Blocks these signals in the calling thread and in every thread it starts later,
    /// so that they reach ``run(_:)`` through its signalfd. Call it first thing.
    public static func blockSignals(_ signals: [CInt]) {
        var set = signalSet(signals)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Creates the udev monitor and opens the devices present now. Throws when udev
    /// cannot be used at all; a device that fails to open is only logged.
    ///
    /// - Parameters:
    ///   - signals: reported by ``run(_:)`` as ``Event/signal(_:)``; block them first
    ///     with ``blockSignals(_:)``, or they keep their default action.
    ///   - watchdogInterval: reported as ``Event/watchdog``; nil arms no timer.
    public init(
        configuration: Configuration, sink: some InputSink, signals: [CInt] = [], watchdogInterval: Duration? = nil,
        logger: Logger
    ) throws(InputError) {
        let monitor = try UdevInputMonitor()
        var ends: [CInt] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw InputError(.udev, "cannot create the wake pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        self.wake = (ends[0], ends[1])
        self.loop = InputLoop(
            monitor: monitor, configuration: configuration, sink: sink,
            signalFD: Self.signalDescriptor(signals), timerFD: Self.timerDescriptor(watchdogInterval), logger: logger)
        loop.openPresentDevices()
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// How many devices are open. Meant for the ready message before ``run(_:)`` starts.
    public var openDeviceCount: Int { loop.deviceCount }

    /// Runs the loop on the calling thread until ``stop()``, closing every device before
    /// it returns. `handle` runs on this thread for each signal and watchdog tick.
    public func run(_ handle: (Event) -> Void = { _ in }) {
        while true {
            for event in loop.waitAndDispatch(wake: wake.read) { handle(event) }
            var pending: [Command] = []
            commands.withLock { swap(&pending, &$0) }
            for command in pending {
                switch command {
                case .reconfigure(let configuration):
                    loop.reopenAll(configuration: configuration)
                case .stop:
                    loop.closeAll()
                    return
                }
            }
        }
    }

    /// Re-opens every device under a new configuration (a reload that changed the
    /// rotation or the touchpad mode). Safe from any thread, ``run(_:)``'s handler included.
    public func reconfigure(_ configuration: Configuration) { send(.reconfigure(configuration)) }

    /// Makes ``run(_:)`` close the devices and return. Safe from any thread.
    public func stop() { send(.stop) }

    private func send(_ command: Command) {
        commands.withLock { $0.append(command) }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private static func signalSet(_ signals: [CInt]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }

    private static func signalDescriptor(_ signals: [CInt]) -> CInt? {
        guard !signals.isEmpty else { return nil }
        var set = signalSet(signals)
        let fd = signalfd(-1, &set, CInt(SFD_NONBLOCK | SFD_CLOEXEC))
        return fd >= 0 ? fd : nil
    }

    private static func timerDescriptor(_ interval: Duration?) -> CInt? {
        guard let interval else { return nil }
        let fd = timerfd_create(CLOCK_MONOTONIC, CInt(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { return nil }
        let (seconds, attoseconds) = interval.components
        let period = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var spec = itimerspec(it_interval: period, it_value: period)
        timerfd_settime(fd, 0, &spec, nil)
        return fd
    }
}

/// The main loop's own state. Touched only by the thread running
/// ``DeviceWatcher/run(_:)`` (and by `init` before that).
private final class InputLoop: @unchecked Sendable {
    private struct OpenDevice {
        let key: Int
        let info: InputDeviceInfo
        let device: EvdevDevice
    }

    private let monitor: UdevInputMonitor
    private var configuration: Configuration
    private let sink: any InputSink
    private let logger: Logger
    private var devices: [OpenDevice] = []
    private var nextKey = 0
    private var batch: [InputEvent] = []
    private var pollSet: [pollfd] = []
    private let signalFD: CInt?
    private let timerFD: CInt?

    init(
        monitor: UdevInputMonitor, configuration: Configuration, sink: any InputSink, signalFD: CInt?,
        timerFD: CInt?, logger: Logger
    ) {
        self.monitor = monitor
        self.configuration = configuration
        self.signalFD = signalFD
        self.timerFD = timerFD
        self.sink = sink
        self.logger = logger
        batch.reserveCapacity(256)
    }

    deinit {
        if let signalFD { close(signalFD) }
        if let timerFD { close(timerFD) }
    }

    var deviceCount: Int { devices.count }

    func openPresentDevices() {
        for info in monitor.enumerate() { open(info) }
    }

    /// Blocks until something is readable, reads it, and returns the signals and
    /// watchdog ticks that arrived.
    func waitAndDispatch(wake: CInt) -> [DeviceWatcher.Event] {
        pollSet.removeAll(keepingCapacity: true)
        pollSet.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
        pollSet.append(pollfd(fd: monitor.fileDescriptor, events: Int16(POLLIN), revents: 0))
        for fd in [signalFD, timerFD] {
            pollSet.append(pollfd(fd: fd ?? -1, events: Int16(POLLIN), revents: 0))  // poll skips -1
        }
        let firstDevice = pollSet.count
        for open in devices {
            pollSet.append(pollfd(fd: open.device.fileDescriptor, events: Int16(POLLIN), revents: 0))
        }
        // No timeout: the watchdog, when armed, is the timerfd above.
        let ready = poll(&pollSet, nfds_t(pollSet.count), -1)
        guard ready > 0 else {
            if ready < 0 && errno != EINTR {
                logger.error("poll failed: \(String(cString: strerror(errno)))")
            }
            return []
        }
        // Devices first: their fds are in `devices` order, and udev changes below may reorder it.
        let readyKeys = pollSet[firstDevice...].indices.compactMap { index in
            pollSet[index].revents != 0 ? devices[index - firstDevice].key : nil
        }
        for key in readyKeys { read(key) }
        if pollSet[1].revents != 0 { applyUdevChanges() }
        if pollSet[0].revents != 0 {
            var drain = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            while Glibc.read(wake, &drain, MemoryLayout.size(ofValue: drain)) > 0 {}
        }
        var events: [DeviceWatcher.Event] = []
        if let signalFD, pollSet[2].revents != 0 {
            var info = signalfd_siginfo()
            let size = MemoryLayout<signalfd_siginfo>.size
            while Glibc.read(signalFD, &info, size) == size {
                events.append(.signal(CInt(info.ssi_signo)))
            }
        }
        if let timerFD, pollSet[3].revents != 0 {
            var expirations: UInt64 = 0
            if Glibc.read(timerFD, &expirations, MemoryLayout<UInt64>.size) > 0 { events.append(.watchdog) }
        }
        return events
    }

    func reopenAll(configuration: Configuration) {
        self.configuration = configuration
        closeAll()
        openPresentDevices()
        logger.info("devices re-opened under the new configuration: \(devices.count) in use")
    }

    func closeAll() {
        for open in devices { sink.deviceRemoved(key: open.key) }
        devices.removeAll()  // deinit closes each fd
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
        if !batch.isEmpty { sink.received(batch, fromDevice: key) }
        if let gone {
            remove(at: index, reason: gone.message)
        }
    }

    private func applyUdevChanges() {
        for change in monitor.receive() {
            switch change {
            case .added(let info):
                if !devices.contains(where: { $0.info.devnode == info.devnode }) { open(info) }
            case .changed(let info):
                // Properties such as the calibration matrix may have changed: start afresh.
                if let index = devices.firstIndex(where: { $0.info.devnode == info.devnode }) {
                    remove(at: index, reason: "udev reported a change")
                }
                open(info)
            case .removed(let devnode):
                if let index = devices.firstIndex(where: { $0.info.devnode == devnode }) {
                    remove(at: index, reason: "unplugged")
                }
            }
        }
    }

    private func open(_ info: InputDeviceInfo) {
        var calibration = CalibrationMatrix.identity
        if let text = info.calibration {
            if let matrix = CalibrationMatrix(udevProperty: text) {
                calibration = matrix
            } else {
                logger.warning("\(info.devnode): ignoring LIBINPUT_CALIBRATION_MATRIX \"\(text)\": expected six numbers")
            }
        }
        guard let deviceConfiguration = configuration.deviceConfiguration(for: info.kind, calibration: calibration) else {
            logger.info("\(info.devnode) \"\(info.name)\": \(info.kind.rawValue) left alone (touchpads = off)")
            return
        }
        let device: EvdevDevice
        do {
            device = try EvdevDevice(path: info.devnode)
        } catch {
            logger.warning("\(info.devnode) \"\(info.name)\": cannot use it: \(error.message)")
            return
        }
        var description = device.description
        if description.reportedSize == nil { description.reportedSize = info.size }
        do {
            try description.validate()  // EngineFeed checks too; refusing here also closes the fd
        } catch {
            logger.warning("\(info.devnode) \"\(info.name)\": refused: \(error.message)")
            return
        }
        let key = nextKey
        nextKey += 1
        devices.append(OpenDevice(key: key, info: info, device: device))
        logger.info("\(info.devnode) \"\(description.name)\": using it as a \(info.kind.rawValue) (device \(key))")
        sink.deviceAdded(
            key: key, path: info.devnode, name: description.name, kind: info.kind, description: description,
            configuration: deviceConfiguration)
    }

    private func remove(at index: Int, reason: String) {
        let open = devices.remove(at: index)
        logger.info("\(open.info.devnode) \"\(open.info.name)\": dropped (\(reason))")
        sink.deviceRemoved(key: open.key)
    }
}
