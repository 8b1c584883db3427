import PopGestureInput
import PopGestureServer
import PopGestureSystem
import NIOConcurrencyHelpers

/// How other threads reach the main loop: a queue of commands and a self-pipe whose
/// read end is in the loop's `poll` set. ``send(_:)`` queues a command and writes a
/// byte; ``wake()`` writes the byte alone.
final class LoopMailbox: Sendable {
    enum Command: Sendable {
        case reconfigure(Configuration)
        case stop
    }

    private let commands = NIOLockedValueBox<[Command]>([])
    private let pipe: WakePipe
    /// The pipe's read end, for `poll`.
    var readEnd: CInt { pipe.readEnd }

    init() throws(InputError) {
        pipe = try WakePipe.forLoop()
    }

    func send(_ command: Command) {
        commands.withLockedValue { $0.append(command) }
        wake()
    }

    /// Wakes the loop's `poll`. A full pipe already wakes it, so a failed write is fine.
    func wake() {
        pipe.wake()
    }

    /// Empties the pipe; call it when `poll` says the read end is readable.
    func drainWakes() {
        pipe.drain()
    }

    /// The commands sent since the last call, in order.
    func takeCommands() -> [Command] {
        var pending: [Command] = []
        commands.withLockedValue { swap(&pending, &$0) }
        return pending
    }
}
