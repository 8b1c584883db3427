import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// A pipe whose ends are close-on-exec and non-blocking, as a self-pipe needs:
    /// a write to a full pipe fails at once instead of blocking the writer, and a read
    /// of an empty one returns instead of blocking the loop that drains it.
    public static func nonBlockingPipe() throws(Errno) -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
        // Glibc's module leaves out pipe2, so the flags are set after pipe(2).
        let ends: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do {
            ends = try pipe()
        } catch {
            throw error as? Errno ?? .ioError
        }
        for end in [ends.readEnd, ends.writeEnd] {
            guard fcntl(end.rawValue, F_SETFD, FD_CLOEXEC) == 0,
                  fcntl(end.rawValue, F_SETFL, fcntl(end.rawValue, F_GETFL) | O_NONBLOCK) == 0
            else {
                let error = Errno(rawValue: errno)
                try? ends.readEnd.close()
                try? ends.writeEnd.close()
                throw error
            }
        }
        return ends
    }

    /// Writes one byte to wake whoever polls the other end; a full pipe already wakes
    /// it, so a write that fails (`EAGAIN`) is not an error.
    public func writeWakeByte() {
        var byte: UInt8 = 1
        _ = try? withUnsafeBytes(of: &byte) { try write($0) }
    }

    /// Reads until the descriptor has nothing more (`EAGAIN`) or is at its end.
    public func drain() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while let count = try? withUnsafeMutableBytes(of: &buffer, { try read(into: $0) }), count > 0 {}
    }
}
