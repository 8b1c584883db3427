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

/// PROTOTYPE (issue 12, "one loop"): the client socket served from the input thread's
/// own `poll(2)` loop, beside the devices and the engine, with plain `send(2)`s: no
/// event loop of its own, no hop between threads.
///
/// The state machines are the daemon's (`ServerState`, `EngineHost`); this class only
/// carries their actions out, synchronously: a request the engine answers is performed
/// at once, and what it produced goes back into the state before the next action.
/// Output of one round (one `poll` wake-up) is written once per client at its end
/// (``flush()``); what the kernel does not take waits for `POLLOUT`.
public final class PollServer: @unchecked Sendable {
    struct Client {
        let fd: CInt
        /// Bytes read and not yet framed into lines.
        var input = ByteBuffer()
        var framer: LineSplitter
        /// Bytes the kernel has not taken yet; the first line of a round is shared, not copied.
        var output: ByteBuffer?
        var dirty = false
    }

    public enum Listening: Sendable, Hashable {
        case path(String)
        case inheritedDescriptor(CInt)
    }

    private var state: ServerState
    public private(set) var host: EngineHost
    private var clients: [ClientID: Client] = [:]
    /// In the order they were polled this round.
    private var polled: [ClientID] = []
    private var dirty: [ClientID] = []
    private let listener: CInt
    private let socketPath: String?
    private let maximumLineLength: Int
    private let clock: () -> Timestamp
    private let logger: Logger
    private var engineOutput: [EngineOutput] = []
    /// Accepting is paused until then after `EMFILE` and its kin.
    private var acceptPausedUntil: Timestamp?
    /// Sends a committed back input through the daemon's virtual device.
    public var sendBackInput: ((BackInput) -> Void)?
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    private var isShutDown = false

    public init(
        listening: Listening, host: EngineHost, limits: ServerLimits = ServerLimits(),
        admission: ConnectionPolicy = .anyone, shells: ConnectionPolicy = .anyone,
        maximumLineLength: Int = 64 * 1024, clock: @escaping () -> Timestamp, logger: Logger
    ) throws(Errno) {
        state = ServerState(limits: limits, admission: admission, shells: shells, logger: logger)
        self.host = host
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
            if chmod(path, 0o666) != 0 { logger.warning("chmod 0666 \(path) failed (errno \(errno))") }
            guard listen(fd, 64) == 0 else {
                let error = Errno(rawValue: errno)
                close(fd)
                throw error
            }
            listener = fd
            socketPath = path
            logger.info("listening on \(path)")
        case .inheritedDescriptor(let fd):
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            listener = fd
            socketPath = nil
            logger.info("listening on inherited fd \(fd)")
        }
        engineOutput.reserveCapacity(64)
    }

    // MARK: - Poll loop

    /// Appends the listener and every client; returns how many were appended.
    public func appendDescriptors(to set: inout [pollfd], now: Timestamp) {
        let accepting = acceptPausedUntil.map { now >= $0 } ?? true
        if accepting { acceptPausedUntil = nil }
        set.append(pollfd(fd: accepting ? listener : -1, events: Int16(POLLIN), revents: 0))
        polled.removeAll(keepingCapacity: true)
        for (id, client) in clients {
            polled.append(id)
            let events = POLLIN | (client.output == nil ? 0 : POLLOUT)
            set.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
        }
    }

    /// The milliseconds `poll` may sleep: -1 without a deadline.
    public func pollTimeout(now: Timestamp) -> CInt {
        let deadlines = [state.nextDeadline, acceptPausedUntil].compactMap { $0 }
        guard let next = deadlines.min() else { return -1 }
        return CInt(clamping: max(0, (next - now + 999) / 1000))
    }

    /// What `poll` said about the descriptors ``appendDescriptors(to:now:)`` appended.
    public func handle(_ results: ArraySlice<pollfd>) {
        var index = results.startIndex
        if results[index].revents != 0 { acceptAll() }
        index += 1
        for id in polled {
            defer { index += 1 }
            let revents = Int32(results[index].revents)
            guard revents != 0, clients[id] != nil else { continue }
            if revents & POLLOUT != 0 { markDirty(id) }
            if revents & (POLLIN | POLLHUP | POLLERR) != 0 { readAvailable(id) }
        }
        if let due = state.nextDeadline, due <= clock() { run(state.tick(at: clock())) }
    }

    /// Writes what this round produced: once per client.
    public func flush() {
        for id in dirty {
            guard var client = clients[id], client.dirty else { continue }
            client.dirty = false
            var closed = false
            if var output = client.output {
                let sent = output.withUnsafeReadableBytes { bytes in
                    send(client.fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if sent >= 0 {
                    output.moveReaderIndex(forwardBy: sent)
                    client.output = output.readableBytes == 0 ? nil : output
                } else if errno != EAGAIN && errno != EINTR {
                    closed = true
                }
            }
            clients[id] = client
            if closed {
                drop(id)
                continue
            }
            let unsent = client.output?.readableBytes ?? 0
            if unsent != 0 || state.clients[id]?.unsentBytes != 0 {
                run(state.outputBacklog(of: id, unsentBytes: unsent, at: clock()))
            }
        }
        dirty.removeAll(keepingCapacity: true)
    }

    // MARK: - Engine input (the device side)

    /// See ``EngineHost/deviceAdded(key:path:name:description:configuration:atOpen:at:output:)``.
    @discardableResult
    public func deviceAdded(
        key: Int, path: String, name: String, description: DeviceDescription,
        configuration: DeviceConfiguration = .init(), atOpen state: DeviceStateAtOpen? = nil
    ) throws(InputError) -> PopGestureCore.DeviceID {
        defer { routeEngineOutput() }
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

    public func apply(settings: GestureSettings, transitionTimeout: Duration, defaultLayout: LayoutDirection) {
        host.updateSettings(settings, transitionTimeout: transitionTimeout, defaultLayout: defaultLayout)
    }

    private func routeEngineOutput() {
        guard !engineOutput.isEmpty else { return }
        let outputs = engineOutput
        engineOutput.removeAll(keepingCapacity: true)
        if let sendBackInput {
            for case .event(.backInput(let input, _, _, _)) in outputs { sendBackInput(input) }
        }
        let now = clock()
        for output in outputs { run(state.received(fromEngine: output, at: now)) }
    }

    // MARK: - Clients

    private func acceptAll() {
        for _ in 0..<64 {
            // accept4 is hidden behind _GNU_SOURCE from Swift: two fcntls instead.
            let fd = accept(listener, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            guard fd >= 0 else {
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    logger.error("accept failed: \(Errno(rawValue: errno)); accepting again in 1 s (out of file descriptors or memory)")
                    acceptPausedUntil = clock() + .seconds(1)
                }
                return
            }
            var credentials: (pid_t, uid_t, gid_t) = (0, 0, 0)
            var size = socklen_t(MemoryLayout.size(ofValue: credentials))
            let peer: PeerCredentials? =
                getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0
                ? PeerCredentials(pid: credentials.0, uid: credentials.1, gid: credentials.2) : nil
            let (id, actions) = state.clientConnected(credentials: peer, at: clock())
            clients[id] = Client(fd: fd, framer: LineSplitter(maximumLineLength: maximumLineLength))
            run(actions)
        }
    }

    private func readAvailable(_ id: ClientID) {
        guard let fd = clients[id]?.fd else { return }
        let got = readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if got < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard got > 0 else {
            drop(id)
            return
        }
        clients[id]!.input.writeBytes(readBuffer[0..<got])
        while let client = clients[id] {
            var input = client.input, framer = client.framer
            clients[id]!.input = ByteBuffer()  // uniquely referenced while framing
            let frame = framer.next(&input)
            guard clients[id] != nil else { return }
            clients[id]!.input = input
            clients[id]!.framer = framer
            switch frame {
            case .none: return
            case .line(let line): run(state.received(line: line.readableBytesView, from: id, at: clock()))
            case .tooLong: run(state.receivedOverlongLine(from: id, maximumLength: maximumLineLength, at: clock()))
            case .unfinished: state.lineUnfinished(from: id, at: clock())
            case .discardedLineEnded: state.lineEnded(from: id)
            }
        }
    }

    /// The connection is gone (end of file, an error): forget it, tell the state.
    private func drop(_ id: ClientID) {
        guard let client = clients.removeValue(forKey: id) else { return }
        close(client.fd)
        run(state.clientDisconnected(id, at: clock()))
    }

    private func markDirty(_ id: ClientID) {
        guard clients[id] != nil, !clients[id]!.dirty else { return }
        clients[id]!.dirty = true
        dirty.append(id)
    }

    // MARK: - Carrying out actions

    private func run(_ actions: [ServerAction]) {
        for action in actions {
            switch action {
            case .send(let id, let line):
                guard clients[id] != nil else { continue }
                if clients[id]!.output == nil {
                    clients[id]!.output = line.bytes
                } else {
                    clients[id]!.output!.writeImmutableBuffer(line.bytes)
                }
                markDirty(id)
            case .close(let id, _):
                guard var client = clients.removeValue(forKey: id) else { continue }
                if let output = client.output {
                    _ = output.withUnsafeReadableBytes {
                        send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                    client.output = nil
                }
                close(client.fd)
                run(state.clientDisconnected(id, at: clock()))
            case .toEngine(let request):
                host.perform(request, output: &engineOutput)
                routeEngineOutput()
            }
        }
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

/// The line framing of `LineFramer`, without NIO's pipeline: one frame per call.
struct LineSplitter {
    let maximumLineLength: Int
    private var discarding = false
    private var reportedUnfinished = false

    init(maximumLineLength: Int) { self.maximumLineLength = maximumLineLength }

    mutating func next(_ buffer: inout ByteBuffer) -> LineFrame? {
        let view = buffer.readableBytesView
        let newline = view.firstIndex(of: UInt8(ascii: "\n"))
        if discarding {
            guard let newline else {
                buffer.moveReaderIndex(forwardBy: view.count)
                return unfinished()
            }
            buffer.moveReaderIndex(forwardBy: newline - view.startIndex + 1)
            discarding = false
            reportedUnfinished = false
            return .discardedLineEnded
        }
        guard let newline else {
            if view.count > maximumLineLength {
                buffer.moveReaderIndex(forwardBy: view.count)
                discarding = true
                return .tooLong
            }
            return view.isEmpty ? nil : unfinished()
        }
        let length = newline - view.startIndex
        reportedUnfinished = false
        if length > maximumLineLength {
            // Its newline stays: the next call ends the discarded line, as LineFramer does.
            buffer.moveReaderIndex(forwardBy: length)
            discarding = true
            return .tooLong
        }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        return .line(line)
    }

    private mutating func unfinished() -> LineFrame? {
        guard !reportedUnfinished else { return nil }
        reportedUnfinished = true
        return .unfinished
    }
}
