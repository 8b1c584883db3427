import Glibc
import PopGestureSystem
import SystemPackage

// The blocking side of the library, for command-line tools (popgesturectl): connect,
// write a line, read lines after `poll`. Apps with an event loop use `PopGestureClient`.

/// Why a connection to the daemon could not be made. The description is the whole
/// message, fit to print as is, with a hint for the usual causes:
///
///     cannot connect to /run/popgestured/popgestured.sock: No such file or directory — is popgestured running? (systemctl status popgestured.socket)
public struct ConnectError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The socket's path.
    public var path: String
    /// What `socket(2)` or `connect(2)` said; nil when `problem` says what went wrong.
    public var errno: Errno?
    /// A problem found before connecting (a path no Unix socket can have), as a sentence.
    public var problem: String?

    public init(path: String, errno: Errno? = nil, problem: String? = nil) {
        self.path = path
        self.errno = errno
        self.problem = problem
    }

    public var description: String {
        var text = "cannot connect to \(path): "
        if let problem { return text + problem }
        guard let errno else { return text + "unknown error" }
        text += errno.description
        switch errno {
        case .noSuchFileOrDirectory, .connectionRefused:
            text += " — is popgestured running? (systemctl status popgestured.socket)"
        case .permissionDenied, .notPermitted:
            text += " — this user may not use the socket (ls -l \(path))"
        default:
            break
        }
        return text
    }
}

/// The daemon went away or misbehaved after the connection was made; the description
/// is the whole message.
public struct ConnectionLost: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}

/// A line reader over one blocking descriptor: the daemon's socket, or stdin.
///
/// Keeps the bytes after the last newline for the next call, so the caller polls only
/// when no complete line is buffered: `bufferedLine()` until nil, then `poll`, then `fill()`.
public struct LineReader {
    public let descriptor: FileDescriptor
    private var buffer: [UInt8] = []
    /// The descriptor reached its end; `bufferedLine()` still returns what is left.
    public private(set) var atEnd = false

    /// A line longer than this (16 MiB) is a broken peer, not something to buffer forever:
    /// `fill()` throws `ConnectionLost`.
    public static let maximumLineBytes = 16 << 20

    public init(descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// A complete buffered line, without its newline; at end of input, the unterminated rest;
    /// nil when neither is there.
    public mutating func bufferedLine() -> String? {
        if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: buffer[..<newline], as: UTF8.self)
            buffer.removeSubrange(...newline)
            return line
        }
        if atEnd, !buffer.isEmpty {
            let line = String(decoding: buffer, as: UTF8.self)
            buffer.removeAll()
            return line
        }
        return nil
    }

    /// Reads what is available (call after `poll` said readable; it blocks otherwise) and
    /// sets `atEnd` at the end of input. Throws `Errno` when the read fails, and
    /// `ConnectionLost` when a line passes ``maximumLineBytes``.
    public mutating func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
        if count == 0 {
            atEnd = true
            return
        }
        buffer.append(contentsOf: chunk[..<count])
        if buffer.count > Self.maximumLineBytes, !buffer.contains(UInt8(ascii: "\n")) {
            throw ConnectionLost(description: "a line longer than \(Self.maximumLineBytes >> 20) MiB arrived")
        }
    }
}

/// A blocking connection to popgestured: newline-delimited JSON over a Unix stream
/// socket, for tools that wait for one thing at a time. The socket closes with the object.
public final class Connection {
    /// The socket's path, as given.
    public let path: String
    /// The connected socket; owned by this object: do not close it.
    public let socket: FileDescriptor
    /// The lines read from `socket`.
    public var reader: LineReader

    /// Connects to `path`. Throws `ConnectError`, whose description is a message fit to print as is.
    public init(path: String) throws(ConnectError) {
        self.path = path
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            throw ConnectError(path: path, problem: "\(error)")
        }
        do {
            socket = try FileDescriptor.connectedUnixSocket(to: address)
        } catch {
            throw ConnectError(path: path, errno: error)
        }
        reader = LineReader(descriptor: socket)
    }

    deinit {
        try? socket.close()
    }

    /// Sends one line (the newline is added here), blocking until all of it is written.
    public func send(_ line: String) throws(ConnectionLost) {
        do {
            try socket.sendAll(Array((line + "\n").utf8))
        } catch {
            throw ConnectionLost(description: "writing to \(path) failed: \(error)")
        }
    }
}

extension FileDescriptor {
    /// Writes all of `bytes` to this blocking socket, however many `send` calls it takes,
    /// tried again when a signal interrupts it. A peer that went away is an error here
    /// (`MSG_NOSIGNAL`), never a SIGPIPE that ends the process.
    public func sendAll(_ bytes: [UInt8]) throws(Errno) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                let error = Errno(rawValue: errno)
                if error == .interrupted { continue }
                throw error
            }
            sent += count
        }
    }
}
