#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import PopGestureCore
import PopGestureInput
import PopGestureProtocol
import PopGestureSystem
import SystemPackage

/// The client socket of popgestured, served from the input thread's own `poll(2)` loop
/// beside the devices and the engine: no event loop of its own, no hop between threads
/// (issue 12 measured the hop to an NIO event loop; BENCHMARKS.md).
///
/// It owns the two state machines, `ServerState` (clients, routing, limits) and
/// `EngineHost` (the engine and its devices), and only carries their actions out,
/// synchronously: a request for the engine is performed at once, and what it produced
/// goes back into the state before the next action. The loop that polls it calls
/// ``appendDescriptors(to:)`` before `poll`; after it, the device frames first
/// (``received(_:fromDevice:)``), then ``handle(_:)`` for the clients, and ``flush()``
/// at the end of the round: each client's output of a round is one `send(2)`, and what
/// the kernel does not take waits in one buffer per client for `POLLOUT`.
///
/// Touch first: the clients of one round get a budget (``ServerLimits/linesPerRound``
/// in all, ``ServerLimits/linesPerClientPerRound`` and
/// ``ServerLimits/bytesPerClientPerRound`` each, taken in turns from a different client
/// each round); what is left waits, in the client's buffer or its socket, for the next
/// round, after the devices. A client's requests are read only while its unsent output
/// leaves room for a reply (``ServerState/mayReceive(from:)``), and every line queued is
/// counted against the output limits at once, so no round builds more than they allow.
///
/// Confined to one thread at a time (the daemon's input thread, or a ``ServerThread``);
/// `@unchecked Sendable` only so that it can be created on another thread first.
public final class SocketServer: @unchecked Sendable {
    struct Client {
        let fd: CInt
        /// Bytes read and not yet framed into lines.
        var input = ByteBuffer()
        var framer: LineFramer
        /// Bytes the kernel has not taken yet; the first line of a round is shared, not copied.
        var output: ByteBuffer?
        var dirty = false
        /// `input` may hold lines that a round's budget left for the next.
        var hasUnhandledInput = false

        /// Whether its requests may be read now (``ServerState/mayReceive(unsentBytes:limits:)``
        /// on the bytes it has not taken, which the state's count follows).
        func mayReceive(_ limits: ServerLimits) -> Bool {
            ServerState.mayReceive(unsentBytes: output?.readableBytes ?? 0, limits: limits)
        }

        /// Appends `bytes` to what waits for the kernel; returns how much waits now.
        mutating func queue(_ bytes: ByteBuffer) -> Int {
            if output == nil {
                output = bytes
            } else {
                output!.writeImmutableBuffer(bytes)
            }
            return output!.readableBytes
        }

        /// Marks it for the round's flush; false when it already was.
        mutating func markDirty() -> Bool {
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
    /// leaves the poll set this long, rather than spinning on a ready socket it cannot
    /// accept. 1 s: clients retry; the daemon's own descriptors free meanwhile.
    public static let acceptBackoff: Duration = .seconds(1)
    /// One `read(2)` takes at most 64 KiB of a client's input (and at most what is left
    /// of its ``ServerLimits/bytesPerClientPerRound``).
    static let readSize = 64 << 10

    private var state: ServerState
    public private(set) var host: EngineHost
    private var clients: [ClientID: Client] = [:]
    /// In the order they were polled this round.
    private var polled: [ClientID] = []
    private var dirty: [ClientID] = []
    /// Clients to serve this round (ready, or with unhandled input), in turn order.
    private var turns: [ClientID] = []
    /// Each round's turns start at the first client from this number on.
    private var firstTurn = ClientID(0)
    /// Some client's buffer holds input a round left, and it may be read: poll must not sleep.
    private var hasWorkLeft = false
    /// Bytes queued for clients since the state last heard every count (``syncBacklogs()``):
    /// with the state's total, a bound on what is unsent now, checked at every line queued.
    private var queuedSinceSync = 0
    private let limits: ServerLimits
    private let listener: CInt
    private let socketPath: String?
    private let maximumLineLength: Int
    private let clock: () -> Timestamp
    private let logger: Logger
    private var engineOutput: [EngineOutput] = []
    /// ``routeEngineOutput()``'s second buffer; nil while it is in use.
    private var spareEngineOutput: [EngineOutput]? = []
    /// Accepting is paused until then after `EMFILE` and its kin.
    private var acceptPausedUntil: Timestamp?
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
    ///     events: ``MonotonicClock/now()`` for live devices.
    /// - Throws: the `Errno` of `socket`, `bind` or `listen`.
    public init(
        listening: Listening, host: EngineHost, limits: ServerLimits = ServerLimits(),
        admission: ConnectionPolicy = .anyone, shells: ConnectionPolicy = .anyone,
        seatOf: @escaping @Sendable (PeerCredentials?) -> Seat = { _ in .seat0 },
        unlimitedUsers: Set<UInt32> = [0, getuid()],
        maximumLineLength: Int = SocketServer.defaultMaximumLineLength,
        clock: @escaping () -> Timestamp = MonotonicClock.now, logger: Logger
    ) throws(Errno) {
        state = ServerState(
            limits: limits, admission: admission, shells: shells, seatOf: seatOf, unlimitedUsers: unlimitedUsers,
            logger: logger)
        self.limits = limits
        acceptFailures = AcceptFailureLog(logger: logger)
        self.host = host
        self.host.unlimitedUsers = unlimitedUsers
        self.maximumLineLength = maximumLineLength
        self.clock = clock
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
    }

    // MARK: - Poll loop

    /// Appends the listener (-1 while accepting is paused) and every client, in an order
    /// ``handle(_:)`` expects back: `POLLIN` for a client whose requests may be read and
    /// whose buffer holds none left over, `POLLOUT` for one whose output waits (`poll`
    /// reports a hang-up either way).
    public func appendDescriptors(to set: inout [pollfd]) {
        // The clock is read only while accepting is paused: an idle round costs no clock read.
        let accepting = acceptPausedUntil.map { clock() >= $0 } ?? true
        if accepting { acceptPausedUntil = nil }
        set.append(pollfd(fd: accepting ? listener : -1, events: Int16(POLLIN), revents: 0))
        polled.removeAll(keepingCapacity: true)
        turns.removeAll(keepingCapacity: true)
        hasWorkLeft = false
        for (id, client) in clients {
            polled.append(id)
            let mayReceive = client.mayReceive(limits)
            if client.hasUnhandledInput && mayReceive {
                // Its turn is certain, whatever poll says: taken here, so that ``handle(_:)``
                // looks up only the clients poll reports.
                turns.append(id)
                hasWorkLeft = true
            }
            let reading = !client.hasUnhandledInput && mayReceive
            let events = (reading ? POLLIN : 0) | (client.output == nil ? 0 : POLLOUT)
            set.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
        }
    }

    /// The milliseconds `poll` may sleep; ask it after ``appendDescriptors(to:)``. None
    /// while a client's input left over from a round may be handled; else until the state's next deadline (a `hello` or a line
    /// falling due) or the end of an accept pause; -1, for ever, without one, so an idle
    /// daemon never wakes (nor reads the clock).
    public func pollTimeout() -> CInt {
        if hasWorkLeft { return 0 }
        var next = nextStateDeadline()
        if let pause = acceptPausedUntil { next = min(next ?? pause, pause) }
        guard let next else { return -1 }
        return CInt(clamping: max(0, (next - clock() + 999) / 1000))
    }

    /// What `poll` said about the descriptors ``appendDescriptors(to:)`` appended
    /// (call it after a timeout too, and after the round's device frames): accepts, then
    /// serves the clients in turn within the round's budget (reading, framing and
    /// carrying out their requests), then the deadlines that fell due.
    public func handle(_ results: ArraySlice<pollfd>) {
        var index = results.startIndex
        // Accepts (each with its sd-login look-ups) and requests share the round's time:
        // accepts take at most half of it, so that a flood of connections can neither
        // delay the next frame nor keep the connected clients from their turns.
        var deadline: Timestamp?
        if results[index].revents != 0 {
            let start = clock()
            deadline = start + limits.clientTimePerRound
            acceptAll(until: start + limits.clientTimePerRound / 2)
        }
        index += 1
        for id in polled {
            defer { index += 1 }
            let revents = Int32(results[index].revents)
            guard revents != 0, let hasUnhandledInput = clients[id]?.hasUnhandledInput else { continue }
            if revents & POLLOUT != 0 { markDirty(id) }
            // One with input left over is in `turns` already (appendDescriptors(to:)).
            if !hasUnhandledInput && revents & (POLLIN | POLLHUP | POLLERR) != 0 { turns.append(id) }
        }
        if !turns.isEmpty { serveInTurn(until: deadline ?? clock() + limits.clientTimePerRound) }
        if let due = nextStateDeadline(), due <= clock() { run(state.tick(at: clock())) }
    }

    /// Serves ``turns`` within the round's budget (lines and time), starting at
    /// ``firstTurn``; the next round starts after the last client served, so that every
    /// client gets its turn.
    private func serveInTurn(until deadline: Timestamp) {
        turns.sort()
        let start = turns.firstIndex { $0 >= firstTurn } ?? 0
        var linesLeft = limits.linesPerRound
        for offset in turns.indices {
            let id = turns[(start + offset) % turns.count]
            guard linesLeft > 0, clock() < deadline else {
                // Out of budget: this client goes first next round.
                firstTurn = id
                return
            }
            linesLeft -= serve(id, lines: min(linesLeft, limits.linesPerClientPerRound), until: deadline)
            firstTurn = ClientID(id.rawValue + 1)
        }
    }

    /// ``ServerState/nextDeadline``, read in place: a getter called on the stored state
    /// copied all of it (its dictionaries retained and released) twice a round.
    private func nextStateDeadline() -> Timestamp? { Self.nextDeadline(of: &state) }
    private static func nextDeadline(of state: inout ServerState) -> Timestamp? { state.nextDeadline }

    /// Writes what this round produced: one `send(2)` per client. What the kernel does not
    /// take stays for `POLLOUT`, and the state hears how much is left.
    public func flush() {
        for id in dirty {
            guard let index = clients.index(forKey: id), clients.values[index].dirty else { continue }
            clients.values[index].dirty = false
            // Taken out, so that the buffer is its storage's only reference while it shrinks.
            if var output = clients.values[index].output.take() {
                guard Self.send(&output, to: clients.values[index].fd) else {
                    drop(id)
                    continue
                }
                if output.readableBytes != 0 {
                    // The sent bytes leave the buffer: what it holds is what is unsent, so
                    // the limit on unsent bytes bounds its memory too.
                    output.discardReadBytes()
                    clients.values[index].output = output
                }
            }
        }
        syncBacklogs()
        dirty.removeAll(keepingCapacity: true)
    }

    /// Tells the state what each client written to this round has not taken yet, so that
    /// its counts are exact again; it disconnects whoever is past a limit.
    private func syncBacklogs() {
        queuedSinceSync = 0
        for id in dirty {
            guard let index = clients.index(forKey: id) else { continue }
            let unsent = clients.values[index].output?.readableBytes ?? 0
            if state.clients[id]?.unsentBytes != unsent {
                run(state.outputBacklog(of: id, unsentBytes: unsent, at: clock()))
            }
        }
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
    /// `deadline` but the first: the kernel keeps the rest for the next round.
    private func acceptAll(until deadline: Timestamp) {
        for accepted in 0..<limits.acceptsPerRound {
            if accepted > 0, clock() >= deadline { return }
            // accept4 is hidden behind _GNU_SOURCE from Swift: two fcntls instead.
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                let error = errno
                if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error) {
                    acceptFailures.failed(Errno(rawValue: error), at: clock())
                    acceptPausedUntil = clock() + Self.acceptBackoff
                }
                return
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let credentials = PeerCredentials.read(fd)
            if credentials == nil { logger.warning("SO_PEERCRED failed (errno \(errno)); the client is served without credentials") }
            let (id, actions) = state.clientConnected(credentials: credentials, at: clock())
            clients[id] = Client(fd: fd, framer: LineFramer(maximumLineLength: maximumLineLength))
            run(actions)
        }
    }

    /// Handles up to `budget` lines of the client's, until `deadline`: those left in its
    /// buffer first, then what one or more reads bring, up to
    /// ``ServerLimits/bytesPerClientPerRound``. Returns how many lines it handled; what
    /// is left waits for the next round.
    private func serve(_ id: ClientID, lines budget: Int, until deadline: Timestamp) -> Int {
        var handled = 0, bytesRead = 0
        clients[id]?.hasUnhandledInput = false
        while clients[id] != nil {
            guard handled < budget, handled == 0 || clock() < deadline, clients[id]!.mayReceive(limits) else {
                clients[id]!.hasUnhandledInput = clients[id]!.input.readableBytes > 0
                return handled
            }
            // Taken out, so that it is the storage's only reference while framed.
            var input = noInput
            swap(&input, &clients[id]!.input)
            let frame = clients[id]!.framer.next(&input)
            if frame == nil {
                // The framed bytes leave the buffer: a client that keeps sending holds at
                // most one unfinished line (the limit) and what one round's reads brought.
                if input.readableBytes == 0 { input.clear() } else if input.readerIndex > 0 { input.discardReadBytes() }
            }
            swap(&input, &clients[id]!.input)
            switch frame {
            case .none:
                let room = limits.bytesPerClientPerRound - bytesRead
                guard room > 0 else { return handled }  // the socket still holds the rest: POLLIN next round
                guard let got = read(from: id, atMost: room) else { return handled }
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
    private func read(from id: ClientID, atMost limit: Int) -> Int? {
        guard let fd = clients[id]?.fd else { return nil }
        let got = readBuffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, limit)) }
        if got < 0 && (errno == EAGAIN || errno == EINTR) { return nil }
        guard got > 0 else {
            drop(id)
            return nil
        }
        clients[id]!.input.writeBytes(readBuffer[0..<got])
        return got
    }

    /// The connection is gone (end of file, an error): forget it, tell the state.
    private func drop(_ id: ClientID) {
        guard let client = clients.removeValue(forKey: id) else { return }
        close(client.fd)
        run(state.clientDisconnected(id, at: clock()))
    }

    private func markDirty(_ id: ClientID) {
        guard let index = clients.index(forKey: id), clients.values[index].markDirty() else { return }
        dirty.append(id)
    }

    // MARK: - Carrying out actions

    private func run(_ actions: [ServerAction]) {
        for action in actions {
            switch action {
            case .send(let id, let line):
                // One look-up: every line of every frame comes through here.
                guard let index = clients.index(forKey: id) else { continue }
                let unsent = clients.values[index].queue(line.bytes)
                if clients.values[index].markDirty() { dirty.append(id) }
                // Counted as it is queued: a limit passed closes the client now, not at the flush.
                queuedSinceSync += line.count
                if unsent > limits.maximumUnsentBytesPerClient
                    || state.totalUnsentBytes + queuedSinceSync > limits.maximumUnsentBytesTotal
                {
                    syncBacklogs()
                }
            case .close(let id, _):
                guard let client = clients.removeValue(forKey: id) else { continue }
                // What was decided before the close (the error line that says why), if the kernel takes it.
                if var output = client.output { _ = Self.send(&output, to: client.fd) }
                close(client.fd)
                run(state.clientDisconnected(id, at: clock()))
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
        close(listener)
        if let socketPath { unlink(socketPath) }
        logger.info("socket server stopped")
    }
}
