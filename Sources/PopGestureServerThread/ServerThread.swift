import Glibc
import NIOConcurrencyHelpers
import Synchronization  // Atomic, for the stop flag
import PopGestureCore
import PopGestureEventLoop
import PopGestureInput
import PopGestureServer
import PopGestureSystem

/// A ``SocketServer`` on a thread of its own, for a process with no device reader to run
/// it (the demo without a touchscreen, tests): the thread runs the server's loop
/// (``SocketServer/loop``), where a wake pipe brings what other threads hand it with
/// ``sync(_:)``. The daemon does not use it: its input thread runs the server's sources
/// beside the devices (`MainLoop`).
public final class ServerThread: Sendable {
    private let jobs = NIOLockedValueBox<[@Sendable (SocketServer) -> Void]>([])
    private let wake: WakePipe
    private let stopped = Atomic<Bool>(false)
    private let finished = ConditionLock(value: false)

    /// Starts the thread; it owns `server` from now on, and shuts it down at ``stop()``.
    public init(_ server: SocketServer) throws(InputError) {
        let wake = try WakePipe.forLoop()
        self.wake = wake
        let wakeSource: EventSource
        do {
            wakeSource = try server.loop.watch(wake.readEnd, priority: .session) { [jobs] _ in
                wake.drain()
                var taken: [@Sendable (SocketServer) -> Void] = []
                jobs.withLockedValue { swap(&taken, &$0) }
                for job in taken { job(server) }
            }
        } catch {
            throw InputError(.loopSetup, "\(error)")
        }
        let owned = UncheckedBox((server, wakeSource))
        PosixThread.detach(name: "server") { [self] in
            let (server, wakeSource) = owned.value
            while !stopped.load(ordering: .acquiring) {
                do {
                    try server.loop.runOnce()
                } catch {
                    break
                }
            }
            wakeSource.cancel()
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
