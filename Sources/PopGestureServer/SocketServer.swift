#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import PopGestureCore
import PopGestureEventLoop
import PopGestureInput
import PopGestureProtocol
import PopGestureSystem
import SystemPackage

/// The client socket of popgestured, served on the daemon's own sd-event loop
/// (``SDEventLoop``) beside the devices and the engine: no event loop of its own, no hop
/// between threads (issue 12 measured the hop to an NIO event loop; BENCHMARKS.md).
///
/// It owns the two state machines, `ServerState` (clients, routing, limits) and
/// `EngineHost` (the engine and its devices), and only carries their actions out,
/// synchronously: a request for the engine is performed at once, and what it produced
/// goes back into the state before the next action. Its sources on the loop: the
/// listener and one per client at ``SDEventLoop/Priority/clients``, the last there is; the
/// state's next deadline; the clients whose buffers hold lines a turn left; and
/// ``flush()`` at the end of every dispatch (``SDEventLoop/afterEachDispatch(_:)``), so
/// that the frames read together are written together: each client's output of a
/// dispatch is one `send(2)`, and what the kernel does not take waits in one buffer per
/// client for `EPOLLOUT`.
///
/// Touch first: sd-event looks at the devices again before every dispatch, so a frame
/// waits for at most one client's turn. A turn is bounded
/// (``ServerLimits/linesPerClientPerRound``, ``ServerLimits/bytesPerClientPerRound``,
/// ``ServerLimits/clientTimePerRound``), and each client's source is rate-limited
/// (``ServerLimits/turnsPerClientPerSecond``); what is left waits, in the client's buffer
/// or its socket, for its next turn. A turn's time is read from the clock itself: the
/// loop's time stands still during a dispatch. A client's requests are read only while its unsent
/// output leaves room for a reply (``ServerState/mayReceive(from:)``), and every line
/// queued is counted against the output limits at once, so no turn builds more than
/// they allow.
///
/// Confined to the thread that runs its loop (the daemon's input thread, or a
/// `ServerThread`); `@unchecked Sendable` only so that it can be created on another
/// thread first.
public final class SocketServer: @unchecked Sendable {
    /// A connection's I/O state: a class, so that a look-up reads and changes it in place
    /// (a struct in the table was copied at each read, its buffers retained and released).
    final class Client {
        let id: ClientID
        let fd: CInt
        /// Its descriptor on the loop; cancelled before `fd` is closed.
        var source: EventSource?
        /// Bytes read and not yet framed into lines.
        var input = ByteBuffer()
        var framer: LineFramer
        /// Bytes the kernel has not taken yet; the first line of a round is shared, not copied.
        var output: ByteBuffer?
        var dirty = false
        /// `input` may hold lines that a turn's budget left for the next.
        var hasUnhandledInput = false
        /// What the state last heard of its unsent bytes (``ServerState/outputBacklog(of:unsentBytes:at:)``).
        var reportedUnsentBytes = 0
        /// Out of the table (dropped or closed); its descriptor is closed.
        var isClosed = false

        init(id: ClientID, fd: CInt, framer: LineFramer) {
            self.id = id
            self.fd = fd
            self.framer = framer
        }

        /// Whether its requests may be read now (``ServerState/mayReceive(unsentBytes:limits:)``
        /// on the bytes it has not taken, which the state's count follows).
        func mayReceive(_ limits: ServerLimits) -> Bool {
            ServerState.mayReceive(unsentBytes: output?.readableBytes ?? 0, limits: limits)
        }

        /// Appends `bytes` to what waits for the kernel; returns how much waits now.
        func queue(_ bytes: ByteBuffer) -> Int {
            if output == nil {
                output = bytes
            } else {
                output!.writeImmutableBuffer(bytes)
            }
            return output!.readableBytes
        }

        /// Marks it for the round's flush; false when it already was.
        func markDirty() -> Bool {
            guard !dirty else { return false }
            dirty = true
            return true
        }
    }

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
    /// Pending connections the kernel queues before `accept`. Default 64.
    public static let listenBacklog: CInt = 64
    /// After `accept` fails (`EMFILE`, `ENFILE`: out of file descriptors), the listener
    /// is off this long, rather than spinning on a ready socket it cannot
    /// accept. 1 s: clients retry; the daemon's own descriptors free meanwhile.
    public static let acceptBackoff: Duration = .seconds(1)
    /// One `read(2)` takes at most 64 KiB of a client's input (and at most what is left
    /// of its ``ServerLimits/bytesPerClientPerRound``).
    static let readSize = 64 << 10

    private var state: ServerState
    public private(set) var host: EngineHost
    private var clients: [ClientID: Client] = [:]
    /// The clients written to since the last flush, held so that the flush looks none up.
    private var dirty: [Client] = []
    /// Clients whose buffer holds lines a turn left, and that may be read: no descriptor
    /// reports them, so the ``leftovers`` source serves them.
    private var waiting: [ClientID] = []
    /// The loop it is served on; the daemon's devices are on it too.
    public let loop: SDEventLoop
    private var listenerSource: EventSource?
    /// ``flush()`` after every dispatch.
    private var flushHook: DispatchHook?
    /// The state's next deadline (a `hello` or a line falling due).
    private var deadlineSource: EventSource?
    /// The ``ServerState/deadlineRevision`` `deadlineSource` was armed for; nil when off.
    private var armedDeadline: UInt64?
    /// The end of an accept pause.
    private var acceptPauseSource: EventSource?
    /// Serves ``waiting``; on only while it holds a client.
    private var leftovers: EventSource?
    /// Bytes queued for clients since the state last heard every count (``syncBacklogs()``):
    /// with the state's total, a bound on what is unsent now, checked at every line queued.
    private var queuedSinceSync = 0
    private let limits: ServerLimits
    private let listener: CInt
    private let socketPath: String?
    private let maximumLineLength: Int
    private let clock: () -> Timestamp
    /// The clock a turn's time budget is read from: the given clock, else the clock
    /// itself, not the loop's (``SDEventLoop/now()`` stands still for a whole dispatch, so
    /// no budget would ever end).
    private let turnClock: () -> Timestamp
    private let logger: Logger
    private var engineOutput: [EngineOutput] = []
    /// ``routeEngineOutput()``'s second buffer; nil while it is in use.
    private var spareEngineOutput: [EngineOutput]? = []
    private let acceptFailures: AcceptFailureLog
    /// Sends a committed back input through the daemon's virtual device of the seat;
    /// nil when it has none (then the engine's ``GestureSettings/backInput`` should be
    /// ``BackInputMap/none``).
    public var sendBackInput: ((BackInput, Seat) -> Void)?
    /// Told of every engine event before it is routed, for the daemon's touchpad bridge,
    /// which follows the back input's swipe (`input-progress` to its end or cancel).
    public var followBackInput: ((EngineEvent) -> Void)?
    /// Told of each device's seat as the device is added, before any of its frames: the
    /// daemon makes that seat's back input device then, so that the compositor of that
    /// seat has it before the first swipe.
    public var seatInUse: ((Seat) -> Void)?
    private var readBuffer = [UInt8](repeating: 0, count: SocketServer.readSize)
    private var isShutDown = false
    /// Stands in for a client's input while it is framed.
    private let noInput = ByteBuffer()

    /// Connections open now, before and after `hello`.
    public var connectionCount: Int { clients.count }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: the engine and its settings; the server owns it from now on.
    ///   - limits: clients, unsent bytes and timeouts; default the documented ones.
    ///   - admission: who may connect, decided from the peer's credentials; a refused
    ///     peer gets `not-permitted` and is closed. Default ``ConnectionPolicy/anyone``.
    ///   - shells: who may say `hello` as the shell; others get `shell-refused`.
    ///   - seatOf: the seat a peer works at, asked once at its connection; default seat0.
    ///   - unlimitedUsers: users no share per user or per process limits; default root
    ///     and the user running the server.
    ///   - maximumLineLength: longer request lines get `line-too-long`. Default 64 KiB.
    ///   - clock: the time of requests and device changes, in the clock of the evdev
    ///     events. Default the loop's (``SDEventLoop/now()``): read once an iteration.
    ///     A clock given here times the turns' budgets too (tests).
    ///   - loop: where it is served; default a loop of its own, for a `ServerThread`.
    /// - Throws: the `Errno` of `socket`, `bind`, `listen` or sd-event.
    public init(
        listening: Listening, host: EngineHost, limits: ServerLimits = ServerLimits(),
        admission: ConnectionPolicy = .anyone, shells: ConnectionPolicy = .anyone,
        seatOf: @escaping @Sendable (PeerCredentials?) -> Seat = { _ in .seat0 },
        unlimitedUsers: Set<UInt32> = [0, getuid()],
        maximumLineLength: Int = SocketServer.defaultMaximumLineLength,
        clock: (() -> Timestamp)? = nil, loop: SDEventLoop? = nil, logger: Logger
    ) throws(Errno) {
        if let loop {
            self.loop = loop
        } else {
            do throws(SDEventLoopError) {
                self.loop = try SDEventLoop()
            } catch {
                throw Errno(rawValue: error.errno)
            }
        }
        state = ServerState(
            limits: limits, admission: admission, shells: shells, seatOf: seatOf, unlimitedUsers: unlimitedUsers,
            logger: logger)
        self.limits = limits
        acceptFailures = AcceptFailureLog(logger: logger)
        self.host = host
        self.host.unlimitedUsers = unlimitedUsers
        self.maximumLineLength = maximumLineLength
        self.clock = clock ?? { [loop = self.loop] in loop.now() }
        turnClock = clock ?? MonotonicClock.now
        self.logger = logger
        switch listening {
        case .path(let path):
            let socket = try FileDescriptor.unixStreamSocket()
            let fd = socket.rawValue
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var info = stat()
            if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
            guard let address = try? UnixSocketAddress(path: path) else {
                close(fd)
                throw Errno.fileNameTooLong
            }
            do {
                try socket.bind(to: address)
            } catch {
                close(fd)
                throw error
            }
            // bind(2) applies the umask; apps of every user must be able to connect.
            if chmod(path, 0o666) != 0 {
                logger.warning("chmod 0666 \(path) failed (errno \(errno)); only its owner can connect")
            }
            guard listen(fd, Self.listenBacklog) == 0 else {
                let error = Errno(rawValue: errno)
                close(fd)
                throw error
            }
            listener = fd
            socketPath = path
            logger.info("listening on \(path)")
        case .inheritedDescriptor(let fd):
            // Non-blocking, so that a connection gone before `accept` cannot block the loop.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            listener = fd
            socketPath = nil
            logger.info("listening on inherited fd \(fd)")
        }
        engineOutput.reserveCapacity(64)
        spareEngineOutput?.reserveCapacity(64)
        do throws(SDEventLoopError) {
            try attach()
        } catch {
            close(listener)
            if let socketPath { unlink(socketPath) }
            throw Errno(rawValue: error.errno)
        }
    }

    deinit { cancelSources() }

    /// The sources it is served by; removed at ``shutdown()``.
    private func attach() throws(SDEventLoopError) {
        listenerSource = try loop.watch(listener, priority: .clients) { [unowned self] _ in
            let start = turnClock()
            acceptAll(until: start + limits.clientTimePerRound / 2)
        }
        flushHook = loop.afterEachDispatch { [unowned self] in flush() }
        deadlineSource = try loop.timer(priority: .clients) { [unowned self] in
            armedDeadline = nil  // fired, so off: the flush arms it again
            run(state.tick(at: clock()))
        }
        acceptPauseSource = try loop.timer(priority: .clients) { [unowned self] in listenerSource?.enable(true) }
        leftovers = try loop.whileOn(priority: .clients) { [unowned self] in serveWaiting() }
    }

    private func cancelSources() {
        flushHook?.cancel()
        for source in [listenerSource, deadlineSource, acceptPauseSource, leftovers] { source?.cancel() }
        for client in clients.values { client.source?.cancel() }
    }

    // MARK: - Turns

    /// A client's descriptor is ready: `EPOLLOUT` marks it for the flush; input or a
    /// hang-up gives it a turn.
    private func clientReady(_ id: ClientID, events: IOEvents) {
        if events.contains(.writable) { markDirty(id) }
        guard !events.isDisjoint(with: [.readable, .hangUp, .error]) else { return }
        serve(id, lines: limits.linesPerClientPerRound, until: turnClock() + limits.clientTimePerRound)
        updateInterest(id)
    }

    /// Gives the clients with lines left in their buffer their next turns, in the order
    /// they were left, within one turn's time (``ServerLimits/clientTimePerRound``) and
    /// ``ServerLimits/linesPerRound`` lines in all; the rest keep their place for the
    /// next dispatch, after the devices.
    private func serveWaiting() {
        let deadline = turnClock() + limits.clientTimePerRound
        var linesLeft = limits.linesPerRound
        var served = 0
        while served < waiting.count, linesLeft > 0, served == 0 || turnClock() < deadline {
            let id = waiting[served]
            served += 1
            linesLeft -= serve(id, lines: min(linesLeft, limits.linesPerClientPerRound), until: deadline)
        }
        let turns = waiting[..<served]
        waiting.removeFirst(served)
        // Back at the end of the queue if lines are still left.
        for id in turns { updateInterest(id) }
        leftovers?.enable(!waiting.isEmpty)
    }

    /// What the client's descriptor waits for now: `EPOLLIN` when its requests may be
    /// read and its buffer holds none left over, `EPOLLOUT` while its output waits; off
    /// when neither, so that a hang-up cannot spin the loop while its output is held.
    private func updateInterest(_ id: ClientID) {
        guard let client = clients[id] else { return }
        updateInterest(of: client)
    }

    private func updateInterest(of client: Client) {
        guard let source = client.source else { return }
        let id = client.id
        let mayReceive = client.mayReceive(limits)
        if client.hasUnhandledInput && mayReceive && !waiting.contains(id) {
            waiting.append(id)
            leftovers?.enable(true)
        }
        var events: IOEvents = !client.hasUnhandledInput && mayReceive ? .readable : []
        if client.output != nil { events.insert(.writable) }
        // Unchanged, these cost no system call: sd-event and EventSource compare first.
        if !events.isEmpty { source.setEvents(events) }
        source.enable(!events.isEmpty)
    }

    /// ``ServerState/nextDeadline``, read in place: a getter called on the stored state
    /// copied all of it (its dictionaries retained and released) twice a round.
    private func nextStateDeadline() -> Timestamp? { Self.nextDeadline(of: &state) }
    private static func nextDeadline(of state: inout ServerState) -> Timestamp? { state.nextDeadline }

    /// Writes what was queued since the last flush: one `send(2)` per client. What the
    /// kernel does not take stays for `EPOLLOUT`, and the state hears how much is left.
    /// Runs after every dispatch of the loop by itself; call it only where nothing
    /// dispatched (a job run on a `ServerThread`).
    public func flush() {
        for client in dirty where !client.isClosed && client.dirty {
            client.dirty = false
            // Taken out, so that the buffer is its storage's only reference while it shrinks.
            if var output = client.output.take() {
                guard Self.send(&output, to: client.fd) else {
                    drop(client.id)
                    continue
                }
                if output.readableBytes != 0 {
                    // The sent bytes leave the buffer: what it holds is what is unsent, so
                    // the limit on unsent bytes bounds its memory too.
                    output.discardReadBytes()
                    client.output = output
                }
            }
        }
        syncBacklogs()
        for client in dirty where !client.isClosed { updateInterest(of: client) }
        dirty.removeAll(keepingCapacity: true)
        if armedDeadline != state.deadlineRevision {
            armedDeadline = state.deadlineRevision
            deadlineSource?.arm(at: nextStateDeadline())
        }
    }

    /// Tells the state what each client written to this round has not taken yet, so that
    /// its counts are exact again; it disconnects whoever is past a limit.
    private func syncBacklogs() {
        queuedSinceSync = 0
        for client in dirty where !client.isClosed { reportBacklog(client) }
    }

    /// Tells the state the client's unsent bytes when they changed since it last heard.
    private func reportBacklog(_ client: Client) {
        let unsent = client.output?.readableBytes ?? 0
        guard unsent != client.reportedUnsentBytes else { return }
        client.reportedUnsentBytes = unsent
        run(state.outputBacklog(of: client.id, unsentBytes: unsent, at: clock()))
    }

    /// One non-blocking `send(2)` of `output`, whose reader index moves past what the
    /// kernel took. False when the connection failed (not for a full socket).
    private static func send(_ output: inout ByteBuffer, to fd: CInt) -> Bool {
        let sent = output.withUnsafeReadableBytes {
            Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        guard sent >= 0 else { return errno == EAGAIN || errno == EINTR }
        output.moveReaderIndex(forwardBy: sent)
        return true
    }

    // MARK: - Engine input (the device side)

    /// See ``EngineHost/deviceAdded(key:path:name:description:configuration:atOpen:at:output:)``.
    @discardableResult
    public func deviceAdded(
        key: Int, path: String, name: String, description: DeviceDescription,
        configuration: DeviceConfiguration = .init(), atOpen state: DeviceStateAtOpen? = nil
    ) throws(InputError) -> PopGestureCore.DeviceID {
        defer { routeEngineOutput() }
        seatInUse?(configuration.seat)
        return try host.deviceAdded(
            key: key, path: path, name: name, description: description, configuration: configuration,
            atOpen: state, at: clock(), output: &engineOutput)
    }

    public func deviceRemoved(key: Int) {
        host.deviceRemoved(key: key, at: clock(), output: &engineOutput)
        routeEngineOutput()
    }

    public func received(_ events: [InputEvent], fromDevice key: Int) {
        host.handle(events: events, fromDevice: key, output: &engineOutput)
        routeEngineOutput()
    }

    public func touchVerdict(ofDevice key: Int) -> TouchRouter.Verdict {
        guard let device = host.devices[key] else { return .none }
        return host.engine.touchVerdict(of: device.id)
    }

    /// See ``EngineHost/sensorChanged(_:state:at:output:)``.
    public func sensorChanged(_ orientation: SensorOrientation?, state: String) {
        host.sensorChanged(orientation, state: state, at: clock(), output: &engineOutput)
        routeEngineOutput()
    }

    public func apply(settings: GestureSettings, transitionTimeout: Duration, defaultLayout: LayoutDirection) {
        host.updateSettings(settings, transitionTimeout: transitionTimeout, defaultLayout: defaultLayout)
    }

    private func routeEngineOutput() {
        guard !engineOutput.isEmpty else { return }
        // Two buffers take turns, so that a frame allocates none: the engine may append to
        // `engineOutput` again while these are routed (a request carried out on the way).
        var outputs = spareEngineOutput.take() ?? []
        swap(&outputs, &engineOutput)
        if let followBackInput {
            for case .event(let event, _) in outputs { followBackInput(event) }
        }
        if let sendBackInput {
            for case .event(.backInput(let input, _, let seat, _, _), _) in outputs { sendBackInput(input, seat) }
        }
        let now = clock()
        for output in outputs { run(state.received(fromEngine: output, at: now)) }
        outputs.removeAll(keepingCapacity: true)
        spareEngineOutput = outputs
    }

    // MARK: - Clients

    /// Accepts up to ``ServerLimits/acceptsPerRound`` connections, and none after
    /// `deadline` but the first: the kernel keeps the rest for the listener's next turn.
    private func acceptAll(until deadline: Timestamp) {
        for accepted in 0..<limits.acceptsPerRound {
            if accepted > 0, turnClock() >= deadline { return }
            // accept4 is hidden behind _GNU_SOURCE from Swift: two fcntls instead.
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                let error = errno
                if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error) {
                    acceptFailures.failed(Errno(rawValue: error), at: clock())
                    listenerSource?.enable(false)
                    acceptPauseSource?.arm(at: clock() + Self.acceptBackoff)
                }
                return
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let credentials = PeerCredentials.read(fd)
            if credentials == nil { logger.warning("SO_PEERCRED failed (errno \(errno)); the client is served without credentials") }
            let (id, actions) = state.clientConnected(credentials: credentials, at: clock())
            let client = Client(id: id, fd: fd, framer: LineFramer(maximumLineLength: maximumLineLength))
            do throws(SDEventLoopError) {
                client.source = try loop.watch(fd, priority: .clients) { [unowned self] events in
                    clientReady(id, events: events)
                }
                client.source!.limitRate(interval: .seconds(1), burst: limits.turnsPerClientPerSecond)
            } catch {
                logger.error("a client cannot be served: \(error)")
            }
            clients[id] = client
            run(actions)
            if client.source == nil { drop(id) }
        }
    }

    /// Handles up to `budget` lines of the client's, until `deadline`: those left in its
    /// buffer first, then what one or more reads bring, up to
    /// ``ServerLimits/bytesPerClientPerRound``. Returns how many lines it handled; what
    /// is left waits for the next round.
    @discardableResult
    private func serve(_ id: ClientID, lines budget: Int, until deadline: Timestamp) -> Int {
        guard let client = clients[id] else { return 0 }
        var handled = 0, bytesRead = 0
        client.hasUnhandledInput = false
        // A request may close the connection: `isClosed` says so, without a look-up.
        while !client.isClosed {
            guard handled < budget, handled == 0 || turnClock() < deadline, client.mayReceive(limits) else {
                client.hasUnhandledInput = client.input.readableBytes > 0
                return handled
            }
            // Taken out, so that it is the storage's only reference while framed.
            var input = noInput
            swap(&input, &client.input)
            let frame = client.framer.next(&input)
            if frame == nil {
                // The framed bytes leave the buffer: a client that keeps sending holds at
                // most one unfinished line (the limit) and what one round's reads brought.
                if input.readableBytes == 0 { input.clear() } else if input.readerIndex > 0 { input.discardReadBytes() }
            }
            swap(&input, &client.input)
            switch frame {
            case .none:
                let room = limits.bytesPerClientPerRound - bytesRead
                guard room > 0 else { return handled }  // the socket still holds the rest: EPOLLIN, next turn
                guard let got = read(into: client, atMost: room) else { return handled }
                bytesRead += got
            case .line(let line):
                handled += 1
                run(state.received(line: line.readableBytesView, from: id, at: clock()))
            case .tooLong:
                handled += 1
                run(state.receivedOverlongLine(from: id, maximumLength: maximumLineLength, at: clock()))
            case .unfinished: state.lineUnfinished(from: id, at: clock())
            case .discardedLineEnded: state.lineEnded(from: id)
            }
        }
        return handled
    }

    /// One `read(2)` of at most `limit` bytes into the client's input. Nil when nothing
    /// came: the socket is drained (`EAGAIN`), or the connection ended and is dropped.
    private func read(into client: Client, atMost limit: Int) -> Int? {
        let got = readBuffer.withUnsafeMutableBytes { Glibc.read(client.fd, $0.baseAddress, min($0.count, limit)) }
        if got < 0 && (errno == EAGAIN || errno == EINTR) { return nil }
        guard got > 0 else {
            drop(client.id)
            return nil
        }
        client.input.writeBytes(readBuffer[0..<got])
        return got
    }

    /// The connection is gone (end of file, an error), or the state closes it: forget it,
    /// tell the state. `sendingWhatWaits`: what was decided before a close (the error line
    /// that says why) is sent first, if the kernel takes it.
    private func drop(_ id: ClientID, sendingWhatWaits: Bool = false) {
        guard let client = clients.removeValue(forKey: id) else { return }
        client.isClosed = true
        if sendingWhatWaits, var output = client.output { _ = Self.send(&output, to: client.fd) }
        client.source?.cancel()
        close(client.fd)
        run(state.clientDisconnected(id, at: clock()))
    }

    private func markDirty(_ id: ClientID) {
        guard let client = clients[id], client.markDirty() else { return }
        dirty.append(client)
    }

    // MARK: - Carrying out actions

    private func run(_ actions: [ServerAction]) {
        for action in actions {
            switch action {
            case .send(let id, let line):
                // One look-up: every line of every frame comes through here.
                guard let client = clients[id] else { continue }
                let unsent = client.queue(line.bytes)
                if client.markDirty() { dirty.append(client) }
                // Counted as it is queued: a limit passed closes the client now, not at the flush.
                queuedSinceSync += line.count
                if unsent > limits.maximumUnsentBytesPerClient
                    || state.totalUnsentBytes + queuedSinceSync > limits.maximumUnsentBytesTotal
                {
                    syncBacklogs()
                }
            case .close(let id, _):
                drop(id, sendingWhatWaits: true)
            case .toEngine(let request):
                host.perform(request, output: &engineOutput)
                routeEngineOutput()
            }
        }
    }

    /// Asks every client's admission again (a seat's active user changed): those refused
    /// now are told why and closed (``ServerState/reviewAdmission(at:)``).
    public func reviewAdmission() {
        run(state.reviewAdmission(at: clock()))
    }

    /// Closes every client and the listener; removes the socket file it made. Once.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        run(state.shutdown())
        cancelSources()
        close(listener)
        if let socketPath { unlink(socketPath) }
        logger.info("socket server stopped")
    }
}
