import Glibc
import Logging
import PopGestureCore
import PopGestureInput
import PopGestureServer
import PopGestureSystem
import SystemPackage

/// popgestured itself: the devices, the engine beside their reads, the client socket
/// (``SocketServer``), signals and watchdog, all served by the calling thread's
/// ``MainLoop``: one `poll(2)`, no other thread but the log writer's.
///
/// It stays out of Swift concurrency on purpose: libdispatch's worker pool on Linux
/// arms a one-second timer once used, and an idle tablet daemon should not wake at all.
///
/// Start-up order matters: signals are blocked before any thread starts (so they reach
/// the signalfd), and the socket and the devices are ready before `READY=1`.
public struct Daemon: Sendable {
    /// The file and flags the configuration came from, kept for SIGHUP.
    public var configurationPath: String?
    public var overrides: ConfigurationOverrides
    public var configuration: Configuration
    public var logger: Logger
    /// Called after a successful reload, e.g. to change the log level at once.
    public var onReload: @Sendable (Configuration) -> Void
    /// `--event-pipe`: a FIFO read as one more touchscreen (``EventPipe``). Default nil.
    public var eventPipe: String?

    /// - Parameter configuration: loaded by the caller, so that a bad file stops the
    ///   daemon before anything starts.
    public init(
        configuration: Configuration, configurationPath: String?, overrides: ConfigurationOverrides, logger: Logger,
        onReload: @escaping @Sendable (Configuration) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.configurationPath = configurationPath
        self.overrides = overrides
        self.logger = logger
        self.onReload = onReload
    }

    /// Runs until SIGTERM or SIGINT; then stops cleanly and returns.
    public func run() throws {
        MainLoop.blockSignals([SIGTERM, SIGINT, SIGHUP])
        // Before the socket: a wrong --event-pipe stops the daemon before any client can connect.
        let pipe = try eventPipe.map { path throws(InputError) in try EventPipe(path: path) }
        // Before the socket and the devices are opened; the shell's 1024 is too few at worst.
        FileDescriptorLimit.raise(logger: logger)
        let notifier = SystemdNotifier()
        let listening = try listening(notifier: notifier)
        let admission = ClientAdmission(mode: configuration.clients)
        logger.notice("\(admission.summary())")

        var limits = ServerLimits()
        limits.maximumClients = configuration.maximumClients
        var backInput = BackInputSetup(configuration, keepingTable: eventPipe != nil)
        log(backInput)
        let socketFromSystemd = if case .inheritedDescriptor = listening { true } else { false }
        let status = DaemonStatus(
            daemon: DaemonStatus.current(socketFromSystemd: socketFromSystemd, grab: configuration.grab),
            backInput: backInput.status)
        let userSettings = UserSettingsFile(locked: configuration.userLocked)
        let host = EngineHost(
            settings: configuration.gestureSettings(with: backInput), transitionTimeout: configuration.transitionTimeout,
            defaultLayout: configuration.defaultLayout, supplement: status, userSettings: userSettings, logger: logger)
        let server: SocketServer
        do {
            server = try SocketServer(
                listening: listening, host: host, limits: limits, admission: admission.policy,
                shells: admission.shellPolicy, seatOf: admission.seatOf, logger: logger)
        } catch {
            throw DaemonError("cannot listen on \(listening): \(error)")
        }
        let seatBackInputs = SeatBackInputs(logger: logger)
        let touchpad = TouchpadOutput(logger: logger)
        touchpad.follow(backInput.map)
        server.seatInUse = { seat in
            seatBackInputs.prepare(seat, for: backInput)
            touchpad.prepare(seat)
        }
        server.sendBackInput = sender(for: backInput, seats: seatBackInputs)
        server.followBackInput = { event in touchpad.handle(event) }

        // Trust follows logind: a seat's new user takes over at once, the old one's clients go.
        let loginMonitor: LoginMonitor?
        switch LoginMonitor.make() {
        case .success(let monitor): loginMonitor = monitor
        case .failure(let error):
            logger.info("seat changes are not watched (\(error)): clients are admitted at connect only")
            loginMonitor = nil
        }
        // The screen turns with iio-sensor-proxy's accelerometer while no shell says a rotation.
        let sensor: SensorProxy?
        switch SensorProxy.make(logger: logger) {
        case .success(let proxy): sensor = proxy
        case .failure(let error):
            logger.info("iio-sensor-proxy is not followed (\(error)): the rotation comes from the shell or the configuration")
            sensor = nil
            server.sensorChanged(nil, state: SensorFollower.Absence.unavailable.rawValue)
        }
        let mainLoop: MainLoop
        do {
            mainLoop = try MainLoop(
                configuration: configuration, sink: server,
                signals: [SIGTERM, SIGINT, SIGHUP], watchdogInterval: notifier.watchdogInterval, eventPipe: pipe,
                loginMonitor: loginMonitor, sensor: sensor, timers: [touchpad], logger: logger)
        } catch {
            server.shutdown()
            throw error
        }
        status.mainLoop = mainLoop

        let socket = if case .path(let path) = listening { path } else { "from systemd" }
        let summary = "\(mainLoop.openDeviceCount) device(s) in use, socket \(socket)"
        notifier.ready(status: summary)
        logger.notice("ready: \(summary)")

        var current = configuration
        var failure: String?
        mainLoop.run { event in
            switch event {
            case .signal(SIGHUP):
                reload(
                    &current, server: server, backInput: &backInput, seatBackInputs: seatBackInputs, touchpad: touchpad,
                    userSettings: userSettings,
                    mainLoop: mainLoop, admission: admission, notifier: notifier)
                status.backInput = backInput.status
                status.daemon?.grab = current.grab.rawValue
            case .signal(let signal):
                logger.notice("stopping (signal \(signal))")
                notifier.stopping()
                mainLoop.stop()
            case .seatsChanged:
                logger.notice("logind changed a seat; clients asked again: \(admission.summary())")
            case .watchdog:
                // One loop serves the devices and the socket: it answers when it runs this.
                notifier.watchdog()
            case .failed(let reason):
                logger.critical("stopping: \(reason)")
                notifier.stopping()
                failure = reason
            }
        }
        server.shutdown()
        if let failure { throw DaemonError(failure) }
    }

    /// The socket systemd passed, else `--socket` or the file's path (creating its
    /// folder). Refuses a path where another daemon is already answering.
    private func listening(notifier: SystemdNotifier) throws -> SocketServer.Listening {
        if let first = Self.keepingFirst(of: notifier.listenFileDescriptors(), logger: logger) {
            return .inheritedDescriptor(first)
        }
        let path = configuration.socketPath
        if SocketProbe.isAnswering(path) {
            throw DaemonError("another popgestured is already listening on \(path)")
        }
        let folder = FilePath(path).removingLastComponent()
        do {
            try Self.makeFolders(folder)
        } catch {
            throw DaemonError("cannot create the socket's folder \(folder): \(error)")
        }
        return .path(path)
    }

    /// `mkdir -p` with mode 0755: each missing folder of `folder`, outermost first.
    static func makeFolders(_ folder: FilePath) throws(Errno) {
        var prefix = FilePath(root: folder.root)
        for component in folder.components {
            prefix.append(component)
            guard mkdir(prefix.string, 0o755) == 0 || errno == EEXIST else { throw Errno(rawValue: errno) }
        }
    }

    /// The first socket systemd passed; the others are closed (and logged), since the
    /// daemon listens on one and an open socket nobody accepts on hangs its clients.
    static func keepingFirst(of inherited: [CInt], logger: Logger) -> CInt? {
        guard let first = inherited.first else { return nil }
        let extra = inherited.dropFirst()
        if !extra.isEmpty {
            for fd in extra { close(fd) }
            let list = extra.map(String.init).joined(separator: ", ")
            logger.warning("systemd passed \(inherited.count) sockets; using the first, fd \(first), closing fd \(list)")
        }
        return first
    }

    /// SIGHUP: reads the configuration anew. A bad file changes nothing; the error is logged.
    /// Runs on the input thread, which owns `server`.
    private func reload(
        _ current: inout Configuration, server: SocketServer, backInput: inout BackInputSetup,
        seatBackInputs: SeatBackInputs, touchpad: TouchpadOutput, userSettings: UserSettingsFile, mainLoop: MainLoop,
        admission: ClientAdmission, notifier: SystemdNotifier
    ) {
        notifier.reloading()
        let previous = current
        switch current.reload(file: configurationPath, overrides: overrides) {
        case .success(let changed):
            // Also after a failed start: the fix (modprobe, the group) needs only a reload.
            if !changed.isDisjoint(with: [.backInput, .backInputMode]) || backInput.warning != nil {
                backInput = BackInputSetup(current, reusing: backInput, keepingTable: eventPipe != nil)
                seatBackInputs.follow(backInput)
                touchpad.follow(backInput.map)
                server.sendBackInput = sender(for: backInput, seats: seatBackInputs)
                let apps = current.changedBackInputApps(since: previous)
                if !apps.isEmpty { logger.notice("back input changed for \(apps.joined(separator: ", "))") }
                log(backInput)
            }
            // Before the settings go to the engine, which makes each seat's user's again over them.
            userSettings.locked = current.userLocked
            server.apply(
                settings: current.gestureSettings(with: backInput), transitionTimeout: current.transitionTimeout,
                defaultLayout: current.defaultLayout)
            if !changed.isDisjoint(with: [.rotation, .touchpads, .screen, .grab]) {
                mainLoop.reconfigure(current)
            }
            if changed.contains(.clients) {
                admission.setMode(current.clients)
                logger.notice("\(admission.summary()); connected clients stay connected")
            }
            onReload(current)
            let names = changed.map(\.rawValue).sorted().joined(separator: ", ")
            logger.notice("configuration reloaded; changed: \(names.isEmpty ? "nothing" : names)")
            for key in [Configuration.Key.socket, .maximumClients] where changed.contains(key) {
                logger.warning("\(key) takes effect at the next start")
            }
        case .failure(let error):
            logger.error("reload failed, keeping the previous configuration: \(error)")
        }
        notifier.ready()
    }
}

extension Daemon {
    /// The back input's state for the log: the warning with its fix when it is off
    /// against the configuration's wish, else the one-line summary.
    private func log(_ backInput: BackInputSetup) {
        if let warning = backInput.warning {
            logger.warning("\(warning)")
        } else {
            logger.notice("\(backInput.summary)")
        }
    }

    /// What the server calls for a committed back input: the device's `send`, a
    /// failure logged (the swipe is over; the next one tries again). Nil without a device.
    /// Sends each back through its seat's device: seat0's is `backInput`'s, the others'
    /// `seats`'. Nil when the back input is off.
    private func sender(for backInput: BackInputSetup, seats: SeatBackInputs) -> ((BackInput, Seat) -> Void)? {
        guard backInput.device != nil else { return nil }
        let logger = logger
        return { input, seat in
            // The touchpad bridge played this one (TouchpadOutput): no key.
            guard input.touchpad == nil else { return }
            guard let device = seats.device(of: seat, in: backInput) else {
                logger.warning("back input \(input) not sent: \(seat) has no back input device")
                return
            }
            do throws(InputError) {
                try device.send(input)
            } catch {
                logger.warning("back input \(input) not sent on \(seat): \(error.message)")
            }
        }
    }
}

extension Configuration {
    /// The engine's settings: the gesture's, with the back input the daemon could set
    /// up (``BackInputSetup/map`` is `.none` without a device, so that no swipe waits
    /// for an input nobody sends).
    public func gestureSettings(with backInput: BackInputSetup) -> GestureSettings {
        var settings = gesture
        settings.backInput = backInput.map
        settings.backInputMode = backInput.mode
        return settings
    }
}

/// Why the daemon cannot start, in words for the log.
public struct DaemonError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Asks whether something already answers on a Unix socket path.
enum SocketProbe {
    static func isAnswering(_ path: String) -> Bool {
        guard let address = try? UnixSocketAddress(path: path),
              let socket = try? FileDescriptor.connectedUnixSocket(to: address)
        else { return false }
        try? socket.close()
        return true
    }
}
