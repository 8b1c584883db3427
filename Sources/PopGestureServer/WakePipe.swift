import Glibc
import PopGestureInput

/// A self-pipe that wakes a thread sleeping in `poll(2)`: its read end goes into the
/// poll set, and ``wake()``, from any thread, makes it readable. Both ends are
/// non-blocking, so a wake never blocks the thread that sends it.
public final class WakePipe: Sendable {
    /// The pipe's read end, for `poll`.
    public let readEnd: CInt
    private let writeEnd: CInt

    public init() throws(InputError) {
        var ends: [CInt] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // The daemon's loop-setup code: its loop cannot work without the pipe either.
            throw InputError(.init(rawValue: "loop-setup"), "cannot create the wake pipe: \(String(cString: strerror(errno)))")
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

    /// Makes the read end readable. A full pipe already is, so a failed write is fine.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe; call it when `poll` says the read end is readable.
    public func drain() {
        var drain = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while read(readEnd, &drain, MemoryLayout.size(ofValue: drain)) > 0 {}
    }
}
