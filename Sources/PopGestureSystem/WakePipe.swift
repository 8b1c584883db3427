import SystemPackage

/// A self-pipe that wakes a thread sleeping in `poll(2)`: its read end goes into the
/// poll set, and ``wake()``, from any thread, makes it readable. Both ends are
/// non-blocking (``FileDescriptor/nonBlockingPipe()``), so a wake never blocks the
/// thread that sends it, and a drain never blocks the loop.
public final class WakePipe: Sendable {
    private let ends: (readEnd: FileDescriptor, writeEnd: FileDescriptor)

    /// The pipe's read end, for `poll`. Owned by this object: do not close it.
    public var readEnd: CInt { ends.readEnd.rawValue }

    public init() throws(Errno) {
        ends = try FileDescriptor.nonBlockingPipe()
    }

    deinit {
        try? ends.readEnd.close()
        try? ends.writeEnd.close()
    }

    /// Makes the read end readable. A full pipe already is, so a failed write is fine.
    public func wake() { ends.writeEnd.writeWakeByte() }

    /// Empties the pipe; call it when `poll` says the read end is readable.
    public func drain() { ends.readEnd.drain() }
}
