import Glibc
import PopGestureProtocol
import PopGestureSystem
import SystemPackage

/// A client of popgestured for apps: carries out `ClientConnectionState`'s actions on a
/// non-blocking Unix socket, inside the app's own event loop (it has no thread of its own
/// and never blocks, except in `poll(timeout:)`, which is for tools).
///
/// Plug it into a loop by its four members: watch ``fileDescriptor`` for reading (and
/// for writing while ``wantsWrite``), wake at ``nextDeadline``, and call
/// ``handleReadable()``, ``handleWritable()`` and ``handleDeadline(now:)``. A loop that
/// registers them (GLib, Dispatch) re-registers when ``onWatchChange`` is called.
///
/// It connects in `init` and again, after a backoff (100 ms doubling to 5 s), whenever
/// the connection is lost; after each connect it says `hello` again, re-creates the
/// navigators it owns (``navigators``) and re-sends its focus. Requests made while
/// disconnected wait for the next connection; requests out when it was lost fail with
/// `connection-lost`. Everything the app hears comes to `handler` (a reply goes to the
/// request's completion instead, when it has one), always from inside one of the
/// methods the app called, never from `init`.
///
/// Not thread-safe: use it from one thread (or one serial queue).
public final class PopGestureClient {
    /// The socket's path, as given.
    public let socketPath: String
    private let address: UnixSocketAddress
    private var machine: ClientConnectionState
    private let handler: (ClientEvent) -> Void
    private var completions: [Int64: (Result<ServerReply, ClientError>) -> Void] = [:]
    /// Events that happened in `init`, delivered at the first call after it.
    private var deferred: [ClientEvent]? = []

    private var socket: FileDescriptor?
    /// Counts connections, so that a socket closed and re-made under the same number is noticed.
    private var generation = 0
    private var output: [UInt8] = []
    /// `output[..<written]` is on the socket.
    private var written = 0
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)

    /// Called after ``fileDescriptor``, ``wantsWrite`` or ``nextDeadline`` changed, for
    /// loops that register them (GLib, Dispatch): re-register then. A `poll` loop reads
    /// them before each `poll` instead.
    public var onWatchChange: (() -> Void)?

    /// Connects to popgestured at `socketPath` (default: `$POPGESTURED_SOCKET`, else
    /// `/run/popgestured/popgestured.sock`) and says `hello` with `app` (the app id of its
    /// windows, as Wayland's `app_id` or X11's `WM_CLASS` names it) and `name` (shown in
    /// `popgesturectl status`). A daemon not there yet is no error: the client tries
    /// again (``nextDeadline``), and requests wait.
    ///
    /// - Throws: `UnixSocketAddressError` for a path no Unix socket can have.
    public init(
        socketPath: String = PopGestureSocket.path(), app: String?, name: String?,
        versions: [Int64] = ProtocolVersion.supported, limits: ClientLimits = ClientLimits(),
        handler: @escaping (ClientEvent) -> Void
    ) throws(UnixSocketAddressError) {
        self.socketPath = socketPath
        address = try UnixSocketAddress(path: socketPath)
        machine = ClientConnectionState(app: app, name: name, versions: versions, limits: limits)
        self.handler = handler
        perform(machine.start())
    }

    deinit {
        try? socket?.close()
    }

    // MARK: - The loop's view

    /// The connected socket, to watch for reading (and writing while ``wantsWrite``); nil
    /// while disconnected. **It changes at each reconnect** (and may get the same number
    /// as the closed one): re-register it when ``onWatchChange`` is called, or read it
    /// before each `poll`. The old one is closed before `onWatchChange` runs, and a new
    /// one comes only from ``handleDeadline(now:)``, at least
    /// `ClientLimits.initialReconnectDelay` (100 ms) later, so a loop that unregisters
    /// asynchronously (Dispatch) is done with the old one by then. Owned by the client:
    /// do not close it, read it or write it.
    public var fileDescriptor: FileDescriptor? { socket }

    /// Output waits for the socket to take it: watch ``fileDescriptor`` for writing too.
    public var wantsWrite: Bool { socket != nil && written < output.count }

    /// When to call ``handleDeadline(now:)``: the next reconnect, or the end of the wait
    /// for `hello`. Nil while connected: an idle client never wakes its loop.
    public var nextDeadline: ContinuousClock.Instant? { machine.nextDeadline }

    /// How long until ``nextDeadline`` in whole milliseconds, rounded up (0 once it has
    /// passed; at most `Int32.max`), for a timer or `poll`'s timeout: GLib's `g_timeout_add`, Dispatch's
    /// `.milliseconds(_:)`. Nil when there is no deadline.
    public func millisecondsUntilDeadline(now: ContinuousClock.Instant = .now) -> Int? {
        nextDeadline.map { Self.milliseconds(now.duration(to: $0)) }
    }

    /// Where the connection stands.
    public var state: ClientConnectionState.State { machine.state }

    /// The navigators this client owns, as the daemon confirmed them: re-created after
    /// each reconnect, the one in front last.
    public var navigators: [OwnedNavigator] { machine.navigators }

    // MARK: - Events of the loop

    /// ``fileDescriptor`` is readable (or hung up): reads what is there and delivers it.
    public func handleReadable() {
        entered {
            let connection = generation
            // Bounded per call, so a chatty daemon cannot starve the rest of the loop;
            // `poll` is level-triggered, and the rest is read next time.
            for _ in 0..<16 {
                guard let socket, generation == connection else { return }
                let count: Int
                do {
                    count = try readBuffer.withUnsafeMutableBytes { try socket.read(into: $0) }
                } catch let error as Errno where error == .wouldBlock {
                    return
                } catch let error as Errno where error == .connectionReset {
                    return perform(machine.closed("popgestured closed the connection", now: .now))
                } catch {
                    return perform(machine.closed("reading from \(socketPath) failed: \(error)", now: .now))
                }
                guard count > 0 else {
                    return perform(machine.closed("popgestured closed the connection", now: .now))
                }
                perform(machine.received(readBuffer[..<count], now: .now))
            }
        }
    }

    /// ``fileDescriptor`` is writable: writes what waits.
    public func handleWritable() {
        entered { flush() }
    }

    /// The time of ``nextDeadline`` came: connects again, or ends a wait for `hello`.
    public func handleDeadline(now: ContinuousClock.Instant = .now) {
        entered { perform(machine.deadline(now: now)) }
    }

    /// One round of a blocking loop, for tools: waits in `poll(2)` until the socket is
    /// ready, ``nextDeadline`` comes or `timeout` (nil: no limit) is over, and handles what
    /// happened. Returns at once after the client gave up or was closed.
    ///
    /// - Throws: `Errno` when `poll` fails (not `EINTR`: a signal only ends the round).
    public func poll(timeout: Duration? = nil) throws(Errno) {
        flushDeferred()
        switch machine.state {
        case .gaveUp, .closed: return
        default: break
        }
        var fds: [pollfd] = []
        if let socket {
            fds.append(pollfd(fd: socket.rawValue, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
        }
        var wait = timeout.map(Self.milliseconds)
        if let left = millisecondsUntilDeadline() { wait = min(wait ?? left, left) }
        let result = Glibc.poll(&fds, nfds_t(fds.count), Int32(clamping: wait ?? -1))
        if result < 0 {
            if errno == EINTR { return }
            throw Errno(rawValue: errno)
        }
        if let ready = fds.first?.revents, ready != 0 {
            if ready & Int16(POLLOUT) != 0 { handleWritable() }
            if ready & ~Int16(POLLOUT) != 0 { handleReadable() }
        }
        if let deadline = nextDeadline, ContinuousClock.now >= deadline {
            handleDeadline(now: .now)
        }
    }

    /// Closes the connection for good; every request not answered fails with `closed`.
    public func close() {
        entered { perform(machine.close()) }
    }

    // MARK: - Requests

    /// Sends `request` (any but `hello`, which is the client's own) and returns its id.
    /// The reply goes to `completion` when given, else to the handler as
    /// `ClientEvent.reply` with this id. An error reply is a `ClientError` with code
    /// `refused` whose `reply` is the daemon's.
    ///
    /// - Throws: at once, when the request cannot even wait: `output-full` (256 KiB of
    ///   requests not written yet: the daemon is not reading), `gave-up`, `closed`.
    @discardableResult
    public func request(
        _ request: ClientRequest, completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        flushDeferred()
        let before = watch
        let (id, actions) = try machine.request(request)
        if let completion { completions[id] = completion }
        perform(actions)
        if watch != before { onWatchChange?() }
        return id
    }

    /// Creates a navigator with its pages (bottom first); it comes to the front.
    @discardableResult
    public func create(
        _ navigator: String, pages: [ClientRequest.Page], layout: ClientRequest.Layout? = nil,
        barFollowsTopPage: Bool = true, completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.create(navigator: navigator, pages: pages, layout: layout, barFollowsTopPage: barFollowsTopPage),
                    completion: completion)
    }

    /// Pushes a page; `animated` makes the navigator wait for ``settle(_:completion:)``.
    @discardableResult
    public func push(
        _ navigator: String, page: ClientRequest.Page, animated: Bool = false,
        completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.push(navigator: navigator, page: page, animated: animated), completion: completion)
    }

    /// Pops the top page: the app's own back button.
    @discardableResult
    public func pop(
        _ navigator: String, animated: Bool = false, completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.pop(navigator: navigator, animated: animated), completion: completion)
    }

    /// Replaces the whole stack.
    @discardableResult
    public func replace(
        _ navigator: String, pages: [ClientRequest.Page], animated: Bool = false,
        completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.replace(navigator: navigator, pages: pages, animated: animated), completion: completion)
    }

    /// New properties for a page on the stack (found by its id).
    @discardableResult
    public func update(
        _ navigator: String, page: ClientRequest.Page, completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.update(navigator: navigator, page: page), completion: completion)
    }

    /// Changes the layout or whether the bar follows the top page; nil keeps it.
    @discardableResult
    public func configure(
        _ navigator: String, layout: ClientRequest.Layout? = nil, barFollowsTopPage: Bool? = nil,
        completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.configure(navigator: navigator, layout: layout, barFollowsTopPage: barFollowsTopPage),
                    completion: completion)
    }

    /// The push or pop animation is done: the back gesture may begin again.
    @discardableResult
    public func settle(
        _ navigator: String, completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.settle(navigator: navigator), completion: completion)
    }

    /// Brings the navigator to the front: it gets the back gesture while the app has focus.
    @discardableResult
    public func front(
        _ navigator: String, completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.front(navigator: navigator), completion: completion)
    }

    /// Forgets the navigator.
    @discardableResult
    public func remove(
        _ navigator: String, completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.remove(navigator: navigator), completion: completion)
    }

    /// The app's window gained (`true`) or lost focus; re-sent after each reconnect.
    @discardableResult
    public func focus(
        _ focused: Bool, completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.focus(focused: focused), completion: completion)
    }

    /// Becomes an observer: every event, `rejected` included; re-sent after each reconnect.
    @discardableResult
    public func subscribe(
        completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.subscribe, completion: completion)
    }

    /// Stops observing.
    @discardableResult
    public func unsubscribe(
        completion: ((Result<ServerReply, ClientError>) -> Void)? = nil
    ) throws(ClientError) -> Int64 {
        try request(.unsubscribe, completion: completion)
    }

    // MARK: - Carrying out actions

    /// What a registering loop watches.
    private struct Watch: Equatable {
        var descriptor: Int32?
        var generation: Int
        var wantsWrite: Bool
        var deadline: ContinuousClock.Instant?
    }

    private var watch: Watch {
        Watch(descriptor: socket?.rawValue, generation: generation, wantsWrite: wantsWrite, deadline: nextDeadline)
    }

    /// Runs one of the loop's calls: events from `init` first, `onWatchChange` after.
    private func entered(_ body: () -> Void) {
        flushDeferred()
        let before = watch
        body()
        if watch != before { onWatchChange?() }
    }

    private func flushDeferred() {
        guard let events = deferred else { return }
        deferred = nil
        for event in events { deliver(event) }
    }

    /// The I/O of the actions, in order; then writes what they queued.
    private func perform(_ actions: [ClientConnectionState.Action]) {
        for action in actions {
            switch action {
            case .connect:
                connect()
            case .send(let lines):
                guard socket != nil else { continue }  // lost meanwhile; the machine knows
                for line in lines {
                    output.append(contentsOf: line.utf8)
                    output.append(UInt8(ascii: "\n"))
                }
            case .deliver(let event):
                deliver(event)
            case .closeConnection:
                closeSocket()
            case .reconnect:
                break  // `nextDeadline` says when
            case .giveUp(let reason):
                closeSocket()
                deliver(.gaveUp(reason: reason))
            }
        }
        flush()
    }

    private func deliver(_ event: ClientEvent) {
        if deferred != nil {
            deferred!.append(event)
            return
        }
        if case .reply(let id, _, let result) = event, let completion = completions.removeValue(forKey: id) {
            completion(result)
        } else {
            handler(event)
        }
    }

    private func connect() {
        let now = ContinuousClock.now
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.unixStreamSocket()
        } catch {
            return perform(machine.connectFailed(ConnectError(path: socketPath, errno: error).description, now: now))
        }
        do throws(Errno) {
            // Never blocks: a daemon whose backlog is full (`EAGAIN`) is tried again later.
            guard fcntl(descriptor.rawValue, F_SETFL, fcntl(descriptor.rawValue, F_GETFL) | O_NONBLOCK) == 0 else {
                throw Errno(rawValue: errno)
            }
            try descriptor.connect(to: address)
        } catch {
            try? descriptor.close()
            return perform(machine.connectFailed(ConnectError(path: socketPath, errno: error).description, now: now))
        }
        socket = descriptor
        generation += 1
        output = []
        written = 0
        perform(machine.connected(now: now))
    }

    private func closeSocket() {
        guard let socket else { return }
        try? socket.close()
        self.socket = nil
        output = []
        written = 0
    }

    /// Writes what waits until the socket is full (`wantsWrite` then) or all is out.
    private func flush() {
        while let socket, written < output.count {
            let count = output[written...].withUnsafeBytes {
                Glibc.send(socket.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count < 0 {
                let error = Errno(rawValue: errno)
                if error == .interrupted { continue }
                if error == .wouldBlock { return }
                return perform(machine.closed("writing to \(socketPath) failed: \(error)", now: .now))
            }
            written += count
            machine.wrote(count)
        }
        if written == output.count, !output.isEmpty {
            output.removeAll(keepingCapacity: output.capacity <= 64 << 10)
            written = 0
        }
    }

    /// `poll`'s timeout: rounded up, so a wake-up just short of a deadline does not spin.
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        // At most Int32.max, so that it fits `poll`'s timeout and GLib's.
        guard seconds < Int64(Int32.max / 1000) else { return Int(Int32.max) }
        return Int(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
