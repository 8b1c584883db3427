import Glibc
import NIOConcurrencyHelpers
import PopGestureCore
import PopGestureInput
import PopGestureSystem
import Synchronization

/// An ``EngineSide`` on a thread of its own, for a process that has no device reader
/// to run it (the demo, tests): the thread sleeps in `poll(2)`, serves the socket
/// side's requests as they come, and runs what other threads hand it with ``sync(_:)``.
/// The daemon does not use it: its input thread runs the engine side beside the reads.
public final class EngineThread: Sendable {
    private let jobs = Mutex<[@Sendable (EngineSide) -> Void]>([])
    private let wake: WakePipe
    private let stopped = Atomic<Bool>(false)

    /// Starts the thread; it owns `side` from now on.
    public init(_ side: EngineSide) throws(InputError) {
        let wake = try WakePipe.forLoop()
        self.wake = wake
        PosixThread.detach(name: "engine") { [self] in
            var fds = [
                pollfd(fd: side.channel.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            while !stopped.load(ordering: .acquiring) {
                _ = poll(&fds, nfds_t(fds.count), -1)
                self.wake.drain()
                var taken: [@Sendable (EngineSide) -> Void] = []
                jobs.withLock { swap(&taken, &$0) }
                for job in taken { job(side) }
                side.serveRequests()
            }
        }
    }

    /// Runs `job` on the thread and returns its result once it ran, so a request sent
    /// after it returns sees what it did. Not after ``stop()``: nothing would run it.
    public func sync<Result: Sendable>(_ job: @escaping @Sendable (EngineSide) -> Result) -> Result {
        let done = ConditionLock(value: false)
        let result = Mutex<Result?>(nil)
        jobs.withLock {
            $0.append { side in
                let value = job(side)
                result.withLock { $0 = value }
                done.lock()
                done.unlock(withValue: true)
            }
        }
        wake.wake()
        done.lock(whenValue: true)
        done.unlock()
        return result.withLock { $0! }
    }

    /// Ends the thread after what it was handed so far.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        wake.wake()
    }
}
