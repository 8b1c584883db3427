import Glibc
import NIOConcurrencyHelpers
import Synchronization  // Atomic, for the stop flag
import PopGestureCore
import PopGestureInput
import PopGestureServer
import PopGestureSystem

/// A ``SocketServer`` on a thread of its own, for a process with no device reader to run
/// it (the demo without a touchscreen, tests): the thread sleeps in `poll(2)` on the
/// server's descriptors and a wake pipe, and runs what other threads hand it with
/// ``sync(_:)``. The daemon does not use it: its input thread polls the server beside
/// the devices (`MainLoop`).
public final class ServerThread: Sendable {
    private let jobs = NIOLockedValueBox<[@Sendable (SocketServer) -> Void]>([])
    private let wake: WakePipe
    private let stopped = Atomic<Bool>(false)
    private let finished = ConditionLock(value: false)

    /// Starts the thread; it owns `server` from now on, and shuts it down at ``stop()``.
    public init(_ server: SocketServer) throws(InputError) {
        let wake = try WakePipe.forLoop()
        self.wake = wake
        let owned = UncheckedBox(server)
        PosixThread.detach(name: "server") { [self] in
            let server = owned.value
            var set: [pollfd] = []
            while !stopped.load(ordering: .acquiring) {
                set.removeAll(keepingCapacity: true)
                set.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0))
                server.appendDescriptors(to: &set)
                _ = poll(&set, nfds_t(set.count), server.pollTimeout())
                if set[0].revents != 0 { wake.drain() }
                var taken: [@Sendable (SocketServer) -> Void] = []
                jobs.withLockedValue { swap(&taken, &$0) }
                for job in taken { job(server) }
                server.handle(set[1...])
                server.flush()
            }
            server.shutdown()
            finished.lock()
            finished.unlock(withValue: true)
        }
    }

    /// Runs `job` on the thread, writes what it produced, and returns its result once it
    /// ran, so a request sent after it returns sees what it did. Not after ``stop()``.
    public func sync<Result: Sendable>(_ job: @escaping @Sendable (SocketServer) -> Result) -> Result {
        let done = ConditionLock(value: false)
        let result = NIOLockedValueBox<Result?>(nil)
        jobs.withLockedValue {
            $0.append { server in
                let value = job(server)
                server.flush()
                result.withLockedValue { $0 = value }
                done.lock()
                done.unlock(withValue: true)
            }
        }
        wake.wake()
        done.lock(whenValue: true)
        done.unlock()
        return result.withLockedValue { $0! }
    }

    /// Ends the thread after what it was handed so far, shutting the server down (its
    /// clients closed, its socket file removed); returns when that is done.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        wake.wake()
        finished.lock(whenValue: true)
        finished.unlock()
    }
}

/// Hands a value that is confined to one thread over to that thread.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
