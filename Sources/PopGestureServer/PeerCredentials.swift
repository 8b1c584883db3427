#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// Who is on the other end of a Unix socket, as the kernel saw it at `connect(2)`
/// (`SO_PEERCRED`). Not forgeable by the client, so the log and `status` can be trusted.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "pid \(pid), uid \(uid), gid \(gid)" }
}

extension PeerCredentials {
    /// Reads `SO_PEERCRED` of an accepted Unix socket channel. Fails on channels that
    /// are not sockets (`EmbeddedChannel`), and the caller then goes without.
    ///
    /// Not public nor inlinable: NIO asks that `unsafeGetSocketOption` be called from
    /// such code only (a compiler issue with the Sendability of libc types).
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        // `struct ucred` is hidden behind _GNU_SOURCE from Swift; a tuple has its layout
        // (pid_t, uid_t, gid_t), which Swift guarantees for tuples.
        let future: EventLoopFuture<(pid_t, uid_t, gid_t)> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { PeerCredentials(pid: $0.0, uid: $0.1, gid: $0.2) }
    }
}
