import Logging
import NIOCore
import PopGestureCore
import PopGestureInput

/// The server's mutable half, confined to its one event loop: the state machine and
/// the channel of each client. It feeds inputs to `ServerState` and carries out the
/// actions that come back; it decides nothing itself.
///
/// Output: each `run` writes a client's lines as one buffer. While a client's channel is
/// not writable (NIO's write buffer is past its high water mark, ``SocketServer/writeBufferWaterMark``),
/// its further output is appended to one held buffer instead of queueing a write per
/// line, so the bytes counted are the memory used (within the buffer's doubling), and
/// the held bytes go out as one write when the channel is writable again. The count the
/// state limits is the held bytes plus NIO's `bufferedWritableBytes`, asked once the
/// client is behind (not writable, or bytes held): a client that keeps up counts as
/// nothing unsent, which leaves out at most the 32 KiB under its high water mark.
///
/// The engine: requests go to the engine side through ``EngineChannel`` (one refused
/// there gets `overloaded`, from the state), and what the engine side sends back is
/// taken in one batch per wake-up (``drainEngineOutput()``).
///
/// Timers: the state says when it next has something to do (``ServerState/nextDeadline``);
/// one task is scheduled for that, and none while no client is waiting for a `hello`
/// or the end of a line, so an idle daemon never wakes up.
///
/// Not `Sendable`. `SocketServer` reaches it from other threads only through a
/// `NIOLoopBoundBox`, which checks that the caller is on the loop; the client handlers
/// live on the same loop.
final class ServerLoop {
    /// One client's channel and the output held back while it is not writable.
    private struct Connection {
        let channel: any Channel
        var held: ByteBuffer?
    }

    private(set) var state: ServerState
    private var connections: [ClientID: Connection] = [:]
    private var timer: (deadline: Timestamp, task: Scheduled<Void>)?
    /// Set once, right after init: the channel's wake-up refers to this loop.
    var engine: EngineChannel!
    /// Reused for each batch of engine output.
    private var engineOutput = CircularBuffer<EngineOutput>(initialCapacity: EngineChannel.maximumQueuedOutput)
    let eventLoop: any EventLoop
    let clock: @Sendable () -> Timestamp
    let logger: Logger
    let maximumLineLength: Int

    init(
        state: ServerState, eventLoop: any EventLoop, clock: @escaping @Sendable () -> Timestamp,
        maximumLineLength: Int, logger: Logger
    ) {
        self.state = state
        self.eventLoop = eventLoop
        self.clock = clock
        self.maximumLineLength = maximumLineLength
        self.logger = logger
    }

    // MARK: - From the client handlers

    func clientConnected(channel: any Channel, credentials: PeerCredentials?) -> ClientID {
        let (id, actions) = state.clientConnected(
            credentials: credentials, at: clock(), engineBacklog: engine?.queuedAlwaysTaken ?? 0)
        connections[id] = Connection(channel: channel)
        run(actions)
        scheduleTimer()
        return id
    }

    func received(line: ByteBuffer, from client: ClientID) {
        let hadDeadline = state.clients[client]?.unfinishedLineSince != nil || state.clients[client]?.greeted == false
        run(state.received(line: line.readableBytesView, from: client, at: clock()))
        if hadDeadline { scheduleTimer() }
    }

    func receivedOverlongLine(from client: ClientID) {
        run(state.receivedOverlongLine(from: client, maximumLength: maximumLineLength, at: clock()))
    }

    func lineUnfinished(from client: ClientID) {
        state.lineUnfinished(from: client, at: clock())
        scheduleTimer()
    }

    func lineEnded(from client: ClientID) {
        state.lineEnded(from: client)
        scheduleTimer()
    }

    /// The channel became writable (the client read) or stopped being so: send what was
    /// held back, and tell the state the new backlog.
    func writabilityChanged(of client: ClientID) {
        guard let connection = connections[client] else { return }
        if connection.channel.isWritable, let held = connection.held {
            connections[client]?.held = nil
            connection.channel.writeAndFlush(held, promise: nil)
        }
        run(state.outputBacklog(of: client, unsentBytes: unsentBytes(of: client), at: clock()))
    }

    func clientDisconnected(_ client: ClientID) {
        connections[client] = nil
        run(state.clientDisconnected(client, at: clock()))
        scheduleTimer()
    }

    // MARK: - From the engine side

    /// Routes what the engine side sent since the last call: replies, then the
    /// requests that waited behind them, and events. Wakes the engine side if it
    /// stopped reading for want of room.
    func drainEngineOutput() {
        engine.takeOutput(into: &engineOutput)
        guard !engineOutput.isEmpty else { return }
        let now = clock()
        var actions: [ServerAction] = []
        while let output = engineOutput.popFirst() {
            actions += state.received(fromEngine: output, at: now)
        }
        run(actions)
    }

    /// Closes every client; the future completes when all are closed.
    func shutdown(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        timer?.task.cancel()
        timer = nil
        let closing = connections.values.map(\.channel.closeFuture)
        run(state.shutdown())
        return EventLoopFuture.andAllComplete(closing, on: eventLoop)
    }

    // MARK: - Timer

    /// Keeps one task scheduled for the state's next deadline, and none without one.
    private func scheduleTimer() {
        let next = state.nextDeadline
        guard next != timer?.deadline else { return }
        timer?.task.cancel()
        timer = nil
        guard let next else { return }
        let delay = TimeAmount.microseconds(max(0, next - clock()))
        let task = eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
            timer = nil
            run(state.tick(at: clock()))
            scheduleTimer()
        }
        timer = (next, task)
    }

    // MARK: - Carrying out actions

    /// Writes each client's lines as one buffer, flushes each client written to once,
    /// and tells the state how far behind each is. A close first sends what was
    /// decided before it (the error line that says why).
    ///
    /// A client's first line of the batch is written as it is, sharing its bytes with
    /// every other client it goes to; only a second line makes a buffer of its own.
    private func run(_ actions: [ServerAction]) {
        guard !actions.isEmpty else { return }
        // Local, not stored: a write can call back into this loop (writability) before this returns.
        var output: [(client: ClientID, bytes: ByteBuffer)] = []
        var slots: [ClientID: Int] = [:]
        var refused: [EngineRequest] = []
        for action in actions {
            switch action {
            case .send(let client, let line):
                if let slot = slots[client] {
                    output[slot].bytes.writeImmutableBuffer(line.bytes)
                } else if connections[client] != nil {
                    slots[client] = output.count
                    output.append((client, line.bytes))
                }
            case .close(let client, _):
                // The reason is logged; channelInactive then tells the state it is gone.
                guard let connection = connections.removeValue(forKey: client) else { continue }
                if let slot = slots.removeValue(forKey: client), connection.held == nil {
                    connection.channel.writeAndFlush(output[slot].bytes, promise: nil)
                }
                connection.channel.close(promise: nil)
            case .toEngine(let request):
                // Refusals after this batch's lines: they come after the replies before them.
                if !engine.submit(request) { refused.append(request) }
            }
        }
        var followUp: [ServerAction] = []
        for request in refused { followUp += state.engineRefused(request, at: clock()) }
        for (slot, (client, bytes)) in output.enumerated() where slots[client] == slot {
            guard let channel = connections[client]?.channel else { continue }
            // In place: a copy of the connection would make each append copy the held bytes.
            if connections[client]?.held != nil {
                connections[client]!.held!.writeImmutableBuffer(bytes)
            } else if channel.isWritable {
                channel.writeAndFlush(bytes, promise: nil)
            } else {
                connections[client]!.held = bytes
            }
            // A client that keeps up costs no question to NIO (a generic option lookup,
            // a fifth of a write's cost): below its high water mark it counts as nothing
            // behind, and it cannot pass its own limit without first going past that mark.
            let behind = connections[client]?.held != nil || !channel.isWritable
            if behind || state.clients[client]?.unsentBytes != 0 {
                followUp += state.outputBacklog(of: client, unsentBytes: unsentBytes(of: client), at: clock())
            }
        }
        run(followUp)
    }

    /// What the client has not taken yet: held here, and queued in NIO.
    private func unsentBytes(of client: ClientID) -> Int {
        guard let connection = connections[client] else { return 0 }
        let queued = (try? connection.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        return (connection.held?.readableBytes ?? 0) + queued
    }
}
