import Glibc
import PopGestureInput
import Synchronization

/// How other threads reach the main loop: a queue of commands and a self-pipe whose
/// read end is in the loop's `poll` set. ``send(_:)`` queues a command and writes a
/// byte; ``wake()`` writes the byte alone.
final class LoopMailbox: Sendable {
    enum Command: Sendable {
        case reconfigure(Configuration)
        case stop
    }

    private let commands = Mutex<[Command]>([])
    /// The pipe's read end, for `poll`.
    let readEnd: CInt
    private let writeEnd: CInt

    init() throws(InputError) {
        var ends: [CInt] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw InputError(.loopSetup, "cannot create the wake pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func send(_ command: Command) {
        commands.withLock { $0.append(command) }
        wake()
    }

    /// Wakes the loop's `poll`. A full pipe already wakes it, so a failed write is fine.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe; call it when `poll` says the read end is readable.
    func drainWakes() {
        var drain = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while read(readEnd, &drain, MemoryLayout.size(ofValue: drain)) > 0 {}
    }

    /// The commands sent since the last call, in order.
    func takeCommands() -> [Command] {
        var pending: [Command] = []
        commands.withLock { swap(&pending, &$0) }
        return pending
    }
}
