#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import PopGestureCore
import PopGestureInput

/// The client socket of popgestured: accepts connections, frames their lines and
/// carries out what `ServerState` decides.
///
/// All its state lives on one event loop, chosen from the group at start. The engine
/// does not: it runs on the thread that reads the devices, as an ``EngineSide`` on
/// this server's ``engine`` channel, which carries requests there and events back.
/// Every method is safe to call from any thread.
///
/// ```swift
/// let server = try await SocketServer.start(listening: .path("/run/popgestured/popgestured.sock"),
///                                           group: MultiThreadedEventLoopGroup.singleton)
/// let engine = EngineSide(channel: server.engine)   // on the device reader's thread:
/// try engine.deviceAdded(key: 5, path: "/dev/input/event5", name: "ELAN", description: description)
/// engine.received(frame, fromDevice: 5)
/// await server.shutdown()
/// ```
public final class SocketServer: Sendable {
    /// Where the socket comes from.
    public enum Listening: Sendable, Hashable {
        /// Bind a new socket at this path, replacing a stale socket file, and make it
        /// `0666`: every local user can reach it, and the `admission` policy decides
        /// from the peer's credentials who may use it. The directory must exist.
        case path(String)
        /// Adopt a socket that is already bound and listening, from systemd socket
        /// activation (`sd_listen_fds`, usually fd 3). Its unit sets path and mode.
        case inheritedDescriptor(CInt)
    }

    /// A request line may be this long, its newline not counted. Default 64 KiB: a
    /// `create` with hundreds of pages fits many times over.
    public static let defaultMaximumLineLength = 64 * 1024

    /// NIO's write buffer per client: past 32 KiB queued a channel is not writable, and
    /// further output is held in one buffer (see `ServerLoop`); below 16 KiB it is
    /// writable again. Small, because each queued write costs NIO more than its bytes.
    public static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 16 << 10, high: 32 << 10)
    /// Pending connections the kernel queues before `accept`. Default 64.
    public static let listenBacklog: Int32 = 64
    /// After `accept` fails (`EMFILE`, `ENFILE`: out of file descriptors), the listener
    /// waits this long before accepting again, rather than spinning on a ready socket
    /// it cannot accept. 1 s: clients retry; the daemon's own descriptors free meanwhile.
    public static let acceptBackoff = TimeAmount.seconds(1)

    /// The loop that owns every client.
    public let eventLoop: any EventLoop
    /// The queues to and from the engine side (see ``EngineSide``).
    public let engine: EngineChannel
    private let listener: any Channel
    private let loop: NIOLoopBoundBox<ServerLoop>
    /// Set when this server created the socket file, which it then removes at shutdown.
    private let socketPath: String?
    private let logger: Logger

    private init(
        eventLoop: any EventLoop, listener: any Channel, loop: NIOLoopBoundBox<ServerLoop>, socketPath: String?,
        logger: Logger
    ) {
        self.eventLoop = eventLoop
        self.engine = loop.value.engine
        self.listener = listener
        self.loop = loop
        self.socketPath = socketPath
        self.logger = logger
    }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - clock: the time of requests, in the clock of the evdev
    ///     events. Default ``monotonicNow()``: `CLOCK_MONOTONIC`, which live devices use.
    ///   - maximumLineLength: longer request lines get `line-too-long`. Default 64 KiB.
    ///   - limits: clients, unsent bytes and timeouts; default the documented ones.
    ///   - admission: who may connect, decided from the peer's credentials; a refused
    ///     peer gets `not-permitted` and is closed. Default ``ConnectionPolicy/anyone``.
    ///   - shells: who may say `hello` as the shell; others get `shell-refused`. Default
    ///     ``ConnectionPolicy/anyone``.
    /// - Throws: NIO's error when the socket cannot be bound or adopted.
    public static func start(
        listening: Listening, group: any EventLoopGroup,
        clock: @escaping @Sendable () -> Timestamp = SocketServer.monotonicNow,
        maximumLineLength: Int = SocketServer.defaultMaximumLineLength,
        limits: ServerLimits = ServerLimits(), admission: ConnectionPolicy = .anyone, shells: ConnectionPolicy = .anyone,
        logger: Logger = Logger(label: "popgestured.server")
    ) async throws -> SocketServer {
        try await makeServer(
            listening: listening, group: group, clock: clock, maximumLineLength: maximumLineLength, limits: limits,
            admission: admission, shells: shells, logger: logger
        ).get()
    }

    /// ``start(listening:group:clock:maximumLineLength:limits:admission:shells:logger:)``
    /// as a future, for a caller that stays out of Swift concurrency: the daemon does,
    /// because libdispatch's worker pool would wake an idle process every second.
    public static func makeServer(
        listening: Listening, group: any EventLoopGroup,
        clock: @escaping @Sendable () -> Timestamp = SocketServer.monotonicNow,
        maximumLineLength: Int = SocketServer.defaultMaximumLineLength,
        limits: ServerLimits = ServerLimits(), admission: ConnectionPolicy = .anyone, shells: ConnectionPolicy = .anyone,
        logger: Logger = Logger(label: "popgestured.server")
    ) -> EventLoopFuture<SocketServer> {
        let eventLoop = group.next()
        return eventLoop.submit {
            let state = ServerState(limits: limits, admission: admission, shells: shells, logger: logger)
            let loop = NIOLoopBoundBox(
                ServerLoop(
                    state: state, eventLoop: eventLoop, clock: clock, maximumLineLength: maximumLineLength,
                    logger: logger),
                eventLoop: eventLoop)
            // One task per batch of engine output, not per event.
            loop.value.engine = try EngineChannel { eventLoop.execute { loop.value.drainEngineOutput() } }
            return loop
        }.flatMap { loop in
            // Children on the listener's loop too: the one loop that owns the state.
            let bootstrap = ServerBootstrap(group: eventLoop, childGroup: eventLoop)
                .serverChannelOption(ChannelOptions.backlog, value: listenBacklog)
                .serverChannelInitializer { channel in
                    // The non-async bootstrap adds no backoff: without it, EMFILE spins at 100 % CPU.
                    // AcceptPause makes the loop really sleep meanwhile (see there).
                    let failures = AcceptFailureLog(logger: logger)
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers(
                            AcceptBackoffHandler(shouldForwardIOErrorCaught: true) { failures.backoff(after: $0) },
                            AcceptPause())
                    }
                }
                .childChannelOption(ChannelOptions.writeBufferWaterMark, value: writeBufferWaterMark)
                .childChannelInitializer { channel in
                    Self.readCredentials(of: channel, logger: logger).flatMapThrowing { credentials in
                        try channel.pipeline.syncOperations.addHandlers(
                            ByteToMessageHandler(LineFramer(maximumLineLength: maximumLineLength)),
                            ClientHandler(server: loop.value, credentials: credentials))
                    }
                }
            switch listening {
            case .path(let path):
                return bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).map { listener in
                    // bind(2) applies the umask; apps of every user must be able to connect.
                    if chmod(path, 0o666) != 0 {
                        logger.warning("chmod 0666 \(path) failed (errno \(errno)); only its owner can connect")
                    }
                    logger.info("listening on \(path)")
                    return SocketServer(
                        eventLoop: eventLoop, listener: listener, loop: loop, socketPath: path, logger: logger)
                }
            case .inheritedDescriptor(let descriptor):
                return bootstrap.withBoundSocket(descriptor).map { listener in
                    logger.info("listening on inherited fd \(descriptor)\(listener.localAddress.map { " (\($0))" } ?? "")")
                    return SocketServer(
                        eventLoop: eventLoop, listener: listener, loop: loop, socketPath: nil, logger: logger)
                }
            }
        }
    }

    // MARK: - Shutdown

    /// Stops accepting, closes every client and removes the socket file this server
    /// created. Returns when all are closed; calling it again does nothing more.
    public func shutdown() async {
        try? await close().get()
    }

    /// ``shutdown()`` as a future, for callers outside Swift concurrency.
    public func close() -> EventLoopFuture<Void> {
        let loop = self.loop, eventLoop = self.eventLoop, logger = self.logger, socketPath = self.socketPath
        return listener.close().flatMapError { error in
            if case ChannelError.alreadyClosed = error { return eventLoop.makeFailedFuture(error) }
            logger.debug("closing the listener: \(error)")
            return eventLoop.makeSucceededVoidFuture()
        }.flatMap {
            eventLoop.flatSubmit { loop.value.shutdown(on: eventLoop) }
        }.map {
            if let socketPath {
                unlink(socketPath)
            }
            logger.info("socket server stopped")
        }.recover { _ in }
    }

    // MARK: - Clock

    /// `CLOCK_MONOTONIC` now, in microseconds: the clock of live evdev events.
    @Sendable
    public static func monotonicNow() -> Timestamp {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Timestamp(seconds: Int64(now.tv_sec), microseconds: Int64(now.tv_nsec) / 1000)
    }

    /// The peer's credentials, or nil (logged) when the kernel would not say.
    private static func readCredentials(of channel: any Channel, logger: Logger) -> EventLoopFuture<PeerCredentials?> {
        PeerCredentials.read(from: channel).flatMapErrorThrowing { error in
            logger.warning("SO_PEERCRED failed: \(error); the client is served without credentials")
            return nil
        }
    }
}
