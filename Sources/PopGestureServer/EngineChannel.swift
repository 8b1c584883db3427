import NIOCore
import PopGestureInput
import PopGestureSystem
import Synchronization

/// The two bounded queues between the engine side (``EngineHost``, on the thread that
/// reads the devices) and the socket side (``ServerState``, on the event loop).
///
/// - Requests (``EngineRequest``) go to the engine side. At most ``requestBound`` wait
///   at once, all clients together; past that ``submit(_:)`` refuses, and the client
///   gets `overloaded`: the event loop never blocks and never queues without end.
///   A client gone (``EngineRequest/Kind/clientGone``) is always taken, so that its
///   navigators never outlive it, and so is who it is (``EngineRequest/Kind/identified(app:pid:uid:isShell:)``),
///   so that focus never misses a shell; there is at most one of each per client.
/// - Output (``EngineOutput``) goes to the socket side. Once ``outputBound`` wait, the
///   engine side stops reading the devices (``mayReadDevices()``) until the socket
///   side has taken them: the kernel buffers, then drops and says so with
///   `SYN_DROPPED`, so a stalled event loop never gets a swipe from seconds ago. A
///   read, or a batch of requests, that already started still adds its output, so the
///   queue holds at most the bound plus what one round of reads and requests produce.
///
/// The engine side sleeps in `poll(2)` on ``wakeDescriptor``, which is readable when
/// requests came or when the output it waited on was taken. The socket side is woken
/// with `wakeSocketSide`, once per batch of output (not once per event).
///
/// Both queues keep their storage, so once warm neither allocates per frame.
public final class EngineChannel: Sendable {
    /// Requests waiting for the engine side, all clients together: 256. The engine side
    /// takes them all at each wake-up, so only an input thread stalled for a long
    /// time lets them pile up this far; past it a request gets `overloaded`.
    public static let maximumQueuedRequests = 256
    /// Engine output (events and replies) waiting for the socket side: 256. A swipe
    /// sends one event per frame, 60–250 a second, so this is a second or more of
    /// events; an event loop that far behind is stalled, and the devices are not read
    /// until it has caught up.
    public static let maximumQueuedOutput = 256

    /// See ``maximumQueuedRequests``.
    public let requestBound: Int
    /// See ``maximumQueuedOutput``.
    public let outputBound: Int

    private struct Output {
        var queue: CircularBuffer<EngineOutput>
        /// The socket side was woken and has not taken the queue yet.
        var socketWoken = false
        /// The engine side found the queue at its bound and waits to be woken.
        var engineWaits = false
    }

    /// The requests, and how many of them count toward ``requestBound`` (not the
    /// always-taken ones).
    private struct Requests {
        var queue: CircularBuffer<EngineRequest>
        var bounded = 0
    }

    private let requests: Mutex<Requests>
    private let output: Mutex<Output>
    private let engineWake: WakePipe
    private let wakeSocketSide: @Sendable () -> Void

    /// - Parameters:
    ///   - requestBound, outputBound: see ``maximumQueuedRequests`` and ``maximumQueuedOutput``; at least 1.
    ///   - wakeSocketSide: called, on the engine side's thread, when output is queued
    ///     and the socket side was not told yet; it must not block (the socket server
    ///     schedules a task on its event loop).
    public init(
        requestBound: Int = EngineChannel.maximumQueuedRequests, outputBound: Int = EngineChannel.maximumQueuedOutput,
        wakeSocketSide: @escaping @Sendable () -> Void
    ) throws(InputError) {
        precondition(requestBound >= 1 && outputBound >= 1, "an EngineChannel needs bounds of at least one")
        self.requestBound = requestBound
        self.outputBound = outputBound
        requests = Mutex(Requests(queue: CircularBuffer(initialCapacity: requestBound)))
        output = Mutex(Output(queue: CircularBuffer(initialCapacity: outputBound)))
        engineWake = try WakePipe.forLoop()
        self.wakeSocketSide = wakeSocketSide
    }

    // MARK: - Socket side

    /// Queues a request for the engine side and wakes it. False, queuing nothing, when
    /// ``requestBound`` requests wait already (a `clientGone` or `identified` is always
    /// queued, and does not count).
    public func submit(_ request: EngineRequest) -> Bool {
        let queued = requests.withLock { requests in
            if !request.kind.isAlwaysTaken {
                guard requests.bounded < requestBound else { return false }
                requests.bounded += 1
            }
            requests.queue.append(request)
            return true
        }
        if queued { engineWake.wake() }
        return queued
    }

    /// Takes every queued output, oldest first, into `taken` (which should be empty;
    /// its storage is swapped in, so neither side allocates). Wakes the engine side if
    /// it stopped reading for want of room.
    public func takeOutput(into taken: inout CircularBuffer<EngineOutput>) {
        let wakeEngine = output.withLock { output in
            swap(&output.queue, &taken)
            output.socketWoken = false
            defer { output.engineWaits = false }
            return output.engineWaits
        }
        if wakeEngine { engineWake.wake() }
    }

    // MARK: - Engine side

    /// Readable when the engine side has something to do: call ``takeRequests(into:)``.
    public var wakeDescriptor: CInt { engineWake.readEnd }

    /// Empties the wake pipe; call it when `poll` says ``wakeDescriptor`` is readable.
    public func drainWakes() { engineWake.drain() }

    /// Takes every queued request, oldest first, into `taken` (which should be empty).
    public func takeRequests(into taken: inout CircularBuffer<EngineRequest>) {
        requests.withLock {
            swap(&$0.queue, &taken)
            $0.bounded = 0
        }
    }

    /// Queues `outputs` for the socket side, in order, and empties them (keeping their
    /// storage). Wakes the socket side once until it takes them.
    public func send(_ outputs: inout [EngineOutput]) {
        guard !outputs.isEmpty else { return }
        let wakeSocket = output.withLock { output in
            output.queue.append(contentsOf: outputs)
            defer { output.socketWoken = true }
            return !output.socketWoken
        }
        outputs.removeAll(keepingCapacity: true)
        if wakeSocket { wakeSocketSide() }
    }

    /// Whether the engine side may read the devices now: not while ``outputBound``
    /// outputs wait. When it says no, the socket side wakes the engine side
    /// (``wakeDescriptor``) once it has taken them.
    public func mayReadDevices() -> Bool {
        output.withLock { output in
            output.engineWaits = output.queue.count >= outputBound
            return !output.engineWaits
        }
    }

    /// Outputs waiting for the socket side; for tests and logs.
    public var queuedOutput: Int { output.withLock { $0.queue.count } }
    /// Always-taken requests (``EngineRequest/Kind/isAlwaysTaken``) waiting for the
    /// engine side: the socket side refuses new connections while there are
    /// ``ServerState/maximumEngineBacklogForNewClients`` of them, so that connecting and
    /// leaving in a loop cannot grow the queue while the engine side is stalled.
    public var queuedAlwaysTaken: Int { requests.withLock { $0.queue.count - $0.bounded } }
    /// Requests waiting for the engine side; for tests and logs.
    public var queuedRequests: Int { requests.withLock { $0.bounded } }
}

extension WakePipe {
    /// A wake pipe for a loop being set up; its failure is the loop's.
    public static func forLoop() throws(InputError) -> WakePipe {
        do {
            return try WakePipe()
        } catch {
            throw InputError(.loopSetup, "cannot create the wake pipe: \(error)")
        }
    }
}
