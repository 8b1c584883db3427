import Foundation
#if canImport(Glibc)
import Glibc
import PopGestureSystem
import SystemPackage
#endif

/// A blocking Unix-socket client written with plain POSIX calls, as an app in any
/// language would talk to the daemon. Reads time out (generously) so a broken server
/// fails the test instead of hanging it.
final class TestClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32
    private var pending: [UInt8] = []

    /// Ten seconds: only there to end a hang, never to measure anything.
    static let readTimeoutSeconds = 10

    init(path: String) throws {
        do {
            fd = try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(path: path)).rawValue
        } catch {
            throw Failure(description: "connect \(path): \(error)")
        }
        var timeout = timeval(tv_sec: Self.readTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends bytes; false when the server has closed the connection (never SIGPIPE).
    @discardableResult
    func send(bytes: [UInt8]) -> Bool { Self.send(bytes, to: fd) }

    /// Sends bytes on `fd`, from any thread; false when the peer has closed the connection.
    @discardableResult
    static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Sends one line, adding the newline.
    @discardableResult
    func send(_ line: String) -> Bool { send(bytes: Array((line + "\n").utf8)) }

    /// The next line, without its newline; throws at end of input or after the timeout.
    func readLine() throws -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw Failure(description: count == 0 ? "end of input" : "recv: errno \(errno)")
            }
            pending += chunk[..<count]
        }
    }

    /// The next line as a JSON object.
    func readObject() throws -> [String: Any] {
        let line = try readLine()
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Failure(description: "not an object: \(line)")
        }
        return object
    }

    /// Sends a request and reads the next line.
    func request(_ line: String) throws -> [String: Any] {
        guard send(line) else { throw Failure(description: "the server closed the connection") }
        return try readObject()
    }

    /// Says hello; returns the client number the server gave.
    @discardableResult
    func hello(name: String = "test") throws -> Int {
        let reply = try request(#"{"type":"hello","version":1,"name":"\#(name)"}"#)
        guard reply["type"] as? String == "hello", let client = reply["client"] as? Int else {
            throw Failure(description: "hello refused: \(reply)")
        }
        return client
    }

    /// Whether the server closed the connection: reads, discarding, until end of input.
    func readsToEnd() -> Bool {
        while true {
            do { _ = try readLine() } catch let failure as Failure {
                return failure.description == "end of input" || failure.description.hasPrefix("recv: errno \(ECONNRESET)")
            } catch { return false }
        }
    }
}

/// A fresh directory for sockets, short enough for `sun_path` (108 bytes).
func temporarySocketDirectory() throws -> String {
    var template = Array("/tmp/popgestured-test-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw TestClient.Failure(description: "mkdtemp: errno \(errno)") }
    return String(cString: made)
}
