import Glibc
import SystemPackage
import PopGestureSystem

/// Where the daemon listens when neither `--socket` nor `$POPGESTURED_SOCKET` says otherwise;
/// `popgestured.socket` (systemd) creates it.
let defaultSocketPath = "/run/popgestured/popgestured.sock"

/// Why popgesturectl could not reach the daemon; the description is the whole message.
struct ConnectError: Error, CustomStringConvertible {
    var path: String
    var errno: Errno?
    var problem: String?

    var description: String {
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

/// The daemon went away or misbehaved after the connection was made.
struct ConnectionLost: Error, CustomStringConvertible {
    var description: String
}

/// A blocking line reader over one descriptor: the socket or stdin.
///
/// Keeps the bytes after the last newline for the next call, so `poll` only runs when
/// no complete line is buffered.
struct LineReader {
    let descriptor: FileDescriptor
    private var buffer: [UInt8] = []
    private(set) var atEnd = false

    /// A line longer than this is a broken peer, not something to buffer forever.
    static let maximumLineBytes = 16 << 20

    init(descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// A complete buffered line, without its newline; at end of input, the unterminated rest.
    mutating func bufferedLine() -> String? {
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

    /// Reads what is available (call after `poll` said readable); sets `atEnd` on EOF.
    mutating func fill() throws {
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

/// A connection to popgestured: newline-delimited JSON over a Unix stream socket.
final class Connection {
    let path: String
    let socket: FileDescriptor
    var reader: LineReader

    /// Connects to `path`. Throws `ConnectError` with a message fit to print as is.
    init(path: String) throws(ConnectError) {
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

    /// Sends one line; the newline is added here.
    func send(_ line: String) throws(ConnectionLost) {
        do {
            try socket.sendAll(Array((line + "\n").utf8))
        } catch {
            throw ConnectionLost(description: "writing to \(path) failed: \(error)")
        }
    }
}

extension FileDescriptor {
    /// Writes all of `bytes` to this socket, however many `send` calls it takes.
    func sendAll(_ bytes: [UInt8]) throws(Errno) {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE death.
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
