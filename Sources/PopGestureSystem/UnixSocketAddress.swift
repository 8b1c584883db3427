import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The address of a Unix socket: the one place that fills a `sockaddr_un`.
///
/// The kernel needs the path and its terminating NUL inside `sun_path` (108 bytes on
/// Linux), so a longer path is refused here, with a typed error, instead of being cut
/// short and naming another file.
public struct UnixSocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The longest path, in bytes: `sun_path` less its terminating NUL (107 on Linux).
    public static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    public let path: String

    /// - Throws: ``UnixSocketAddressError`` for an empty path, one longer than
    ///   ``maximumPathBytes``, or one holding a NUL byte.
    public init(path: String) throws(UnixSocketAddressError) {
        let bytes = path.utf8
        guard !bytes.isEmpty else { throw UnixSocketAddressError(.empty, path: path) }
        guard !bytes.contains(0) else { throw UnixSocketAddressError(.containsNUL, path: path) }
        guard bytes.count <= Self.maximumPathBytes else { throw UnixSocketAddressError(.tooLong, path: path) }
        self.path = path
    }

    public var description: String { path }

    /// Calls `body` with the address as `bind(2)` and `connect(2)` take it.
    public func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)  // The rest, NUL included, is already zero.
        }
        return try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}

/// Why a path cannot be a Unix socket's address.
public struct UnixSocketAddressError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable codes, so that new ones do not break callers.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let empty = Code(rawValue: "empty")
        /// More than ``UnixSocketAddress/maximumPathBytes`` bytes.
        public static let tooLong = Code(rawValue: "too-long")
        /// A NUL byte would end the path early.
        public static let containsNUL = Code(rawValue: "contains-nul")
    }

    public let code: Code
    public let path: String

    init(_ code: Code, path: String) {
        self.code = code
        self.path = path
    }

    public var description: String {
        switch code {
        case .tooLong:
            "a Unix socket path must be 1 to \(UnixSocketAddress.maximumPathBytes) bytes long; this one has \(path.utf8.count)"
        case .containsNUL: "a Unix socket path cannot hold a NUL byte"
        default: "a Unix socket path must be 1 to \(UnixSocketAddress.maximumPathBytes) bytes long"
        }
    }
}

extension FileDescriptor {
    /// A new Unix stream socket, close-on-exec.
    public static func unixStreamSocket() throws(Errno) -> FileDescriptor {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        return FileDescriptor(rawValue: fd)
    }

    /// `connect(2)`, tried again when a signal interrupts it.
    public func connect(to address: UnixSocketAddress) throws(Errno) {
        let result = address.withSockaddr { address, length in
            while true {
                let result = Glibc.connect(rawValue, address, length)
                if result == 0 || errno != EINTR { return result }
            }
        }
        guard result == 0 else { throw Errno(rawValue: errno) }
    }

    /// `bind(2)`: creates the socket file at the address's path.
    public func bind(to address: UnixSocketAddress) throws(Errno) {
        let result = address.withSockaddr { Glibc.bind(rawValue, $0, $1) }
        guard result == 0 else { throw Errno(rawValue: errno) }
    }

    /// A new Unix stream socket connected to `address`; closed again when that fails.
    public static func connectedUnixSocket(to address: UnixSocketAddress) throws(Errno) -> FileDescriptor {
        let socket = try unixStreamSocket()
        do {
            try socket.connect(to: address)
        } catch {
            try? socket.close()
            throw error
        }
        return socket
    }
}
