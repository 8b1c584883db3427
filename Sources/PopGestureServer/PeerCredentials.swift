#if canImport(Glibc)
import Glibc
#endif

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
    /// Reads `SO_PEERCRED` of an accepted Unix socket; nil when the kernel would not say
    /// (`errno` tells why), and the caller then goes without.
    static func read(_ socket: CInt) -> PeerCredentials? {
        // `struct ucred` is hidden behind _GNU_SOURCE from Swift; a tuple has its layout
        // (pid_t, uid_t, gid_t), which Swift guarantees for tuples.
        var credentials: (pid_t, uid_t, gid_t) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return nil }
        return PeerCredentials(pid: credentials.0, uid: credentials.1, gid: credentials.2)
    }
}
