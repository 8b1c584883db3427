import Foundation
import Logging
import NIOCore
import NIOPosix
import PopGestureCore
import PopGestureInput
import PopGestureServer
import ServiceLifecycle
import UnixSignals

/// popgestured as a service: the client socket on one NIO event loop, the devices on
/// one input thread, and systemd told about each step.
///
/// Start-up order matters: the socket and the devices are ready before `READY=1`,
/// and SIGHUP is trapped before it too, because its default action would kill us.
/// SIGTERM and SIGINT reach ``run()`` as a graceful shutdown from the `ServiceGroup`.
public struct Daemon: Service, CustomStringConvertible {
    /// The file and flags the configuration came from, kept for SIGHUP.
    public var configurationPath: String?
    public var overrides: ConfigurationOverrides
    public var configuration: Configuration
    public var logger: Logger

    /// - Parameter configuration: loaded by the caller, so that a bad file stops the
    ///   daemon before anything starts.
    public init(
        configuration: Configuration, configurationPath: String?, overrides: ConfigurationOverrides, logger: Logger
    ) {
        self.configuration = configuration
        self.configurationPath = configurationPath
        self.overrides = overrides
        self.logger = logger
    }

    public var description: String { "popgestured" }

    public func run() async throws {
        let notifier = SystemdNotifier()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await serve(on: group, notifier: notifier)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    private func serve(on group: MultiThreadedEventLoopGroup, notifier: SystemdNotifier) async throws {
        let listening = try listening(notifier: notifier)
        let server = try await SocketServer.start(
            listening: listening, group: group,
            settings: configuration.gesture, transitionTimeout: configuration.transitionTimeout,
            defaultLayout: configuration.defaultLayout, logger: logger)

        let watcher: DeviceWatcher
        do {
            watcher = try DeviceWatcher(
                configuration: configuration, sink: ServerInput(server: server, logger: logger), logger: logger)
        } catch {
            await server.shutdown()
            throw error
        }
        let input = Task { await Self.runOnOwnThread(named: "popgestured-input") { watcher.run() } }

        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let socket = if case .path(let path) = listening { path } else { "from systemd" }
        let summary = "\(watcher.openDeviceCount) device(s) in use, socket \(socket)"
        _ = notifier.ready(status: summary)
        logger.notice("ready: \(summary)")

        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await self.reload(on: hangups, server: server, watcher: watcher, notifier: notifier) }
                if let interval = notifier.watchdogInterval {
                    tasks.addTask { await Self.feedWatchdog(every: interval, server: server, notifier: notifier) }
                }
                // Keeps the group open until cancelled, also when no watchdog runs.
                tasks.addTask { try? await Task.sleep(for: .seconds(Int64.max / 2)) }
            }
        }

        logger.notice("stopping")
        _ = notifier.stopping()
        watcher.stop()
        await input.value
        await server.shutdown()
    }

    /// The socket systemd passed, else `--socket` or the file's path (creating its folder).
    private func listening(notifier: SystemdNotifier) throws -> SocketServer.Listening {
        let inherited = notifier.listenFileDescriptors()
        if let first = inherited.first {
            if inherited.count > 1 {
                logger.warning("systemd passed \(inherited.count) sockets; using the first, fd \(first)")
            }
            return .inheritedDescriptor(first)
        }
        let folder = (configuration.socketPath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        return .path(configuration.socketPath)
    }

    /// SIGHUP: reads the configuration anew. A bad file changes nothing; the error is logged.
    private func reload(
        on hangups: UnixSignalsSequence, server: SocketServer, watcher: DeviceWatcher, notifier: SystemdNotifier
    ) async {
        var current = configuration
        for await _ in hangups {
            _ = notifier.reloading()
            switch current.reload(file: configurationPath, overrides: overrides) {
            case .success(let changed):
                server.apply(
                    settings: current.gesture, transitionTimeout: current.transitionTimeout,
                    defaultLayout: current.defaultLayout)
                if !changed.isDisjoint(with: [.rotation, .touchpads]) {
                    watcher.reconfigure(current)
                }
                let names = changed.map(\.rawValue).sorted().joined(separator: ", ")
                logger.notice("configuration reloaded; changed: \(names.isEmpty ? "nothing" : names)")
                for key in changed.intersection([.socket, .logLevel]) {
                    logger.warning("\(key.rawValue) takes effect at the next start")
                }
            case .failure(let error):
                logger.error("reload failed, keeping the previous configuration: \(error)")
            }
            _ = notifier.ready()
        }
    }

    /// Pets the watchdog only after the event loop answered, so a stuck loop gets us restarted.
    private static func feedWatchdog(every interval: Duration, server: SocketServer, notifier: SystemdNotifier) async {
        while !Task.isCancelled {
            if (try? await server.eventLoop.submit({}).get()) != nil {
                _ = notifier.watchdog()
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Runs blocking work on a thread of its own and returns when it finishes.
    private static func runOnOwnThread(named name: String, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                body()
                finished.resume()
            }
            thread.name = name
            thread.start()
        }
    }
}

/// Hands the input thread's devices and frames to the socket server's event loop.
public struct ServerInput: InputSink {
    public let server: SocketServer
    public let logger: Logger

    public init(server: SocketServer, logger: Logger) {
        self.server = server
        self.logger = logger
    }

    public func deviceAdded(
        key: Int, path: String, name: String, kind: DeviceKind, description: DeviceDescription,
        configuration: DeviceConfiguration
    ) {
        let logger = self.logger
        server.addDevice(
            key: key, path: path, name: name, kind: kind, description: description, configuration: configuration
        ).whenFailure { error in
            logger.debug("\(path) \"\(name)\": not added: \(error)")  // the server logged why
        }
    }

    public func deviceRemoved(key: Int) {
        server.removeDevice(key: key)
    }

    public func received(_ events: [InputEvent], fromDevice key: Int) {
        server.feed(key: key, events: events)
    }
}
