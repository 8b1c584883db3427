@testable import PopGestureDaemon
import Testing

#if canImport(Glibc)
import Glibc
import PopGestureSystem
#endif

/// Real libsystemd against a real datagram socket standing in for systemd's.
/// Serialized: the environment is one per process.
@Suite(.serialized) struct SystemdNotifierTests {
    static let systemdVariables = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

    /// As if run by hand, even when the tests themselves run under systemd.
    static var outsideSystemd: [String: String?] {
        Dictionary(uniqueKeysWithValues: systemdVariables.map { ($0, nil) })
    }

    @Test func outsideSystemdEverythingIsANoOp() {
        withEnvironment(Self.outsideSystemd) {
            let notifier = SystemdNotifier()
            #expect(!notifier.ready(status: "ready"))
            #expect(!notifier.reloading())
            #expect(!notifier.watchdog())
            #expect(!notifier.stopping())
            #expect(notifier.watchdogInterval == nil)
            #expect(notifier.listenFileDescriptors() == [])
        }
    }

    @Test func socketsMeantForAnotherProcessAreNotTakenAndTheVariablesAreCleared() {
        var variables = Self.outsideSystemd
        variables["LISTEN_PID"] = "1"
        variables["LISTEN_FDS"] = "1"
        withEnvironment(variables) {
            #expect(SystemdNotifier().listenFileDescriptors() == [])
            #expect(getenv("LISTEN_FDS") == nil)
            #expect(getenv("LISTEN_PID") == nil)
        }
    }

    @Test func theWatchdogIntervalIsHalfOfWatchdogSec() {
        var variables = Self.outsideSystemd
        variables["WATCHDOG_USEC"] = "10000000"
        variables["WATCHDOG_PID"] = "\(getpid())"
        withEnvironment(variables) {
            #expect(SystemdNotifier().watchdogInterval == .seconds(5))
        }
        variables["WATCHDOG_PID"] = "1"
        withEnvironment(variables) {
            #expect(SystemdNotifier().watchdogInterval == nil)
        }
    }

    @Test func messagesReachTheNotifySocket() throws {
        let socket = try DatagramSocket()
        defer { socket.close() }
        var variables = Self.outsideSystemd
        variables["NOTIFY_SOCKET"] = socket.path
        try withEnvironment(variables) {
            let notifier = SystemdNotifier()
            #expect(notifier.ready())
            #expect(try socket.receive() == "READY=1")
            #expect(notifier.ready(status: "watching 2 devices"))
            #expect(try socket.receive() == "READY=1\nSTATUS=watching 2 devices")
            #expect(notifier.watchdog())
            #expect(try socket.receive() == "WATCHDOG=1")
            // A newline in the status must not become an assignment of its own.
            #expect(notifier.ready(status: "two\nRELOADING=1"))
            #expect(try socket.receive() == "READY=1\nSTATUS=two RELOADING=1")
            #expect(notifier.stopping())
            #expect(try socket.receive() == "STOPPING=1")

            let before = monotonicMicroseconds()
            #expect(notifier.reloading())
            let reloading = try socket.receive()
            let lines = reloading.split(separator: "\n")
            #expect(lines.first == "RELOADING=1")
            let stamp = lines.count == 2 && lines[1].hasPrefix("MONOTONIC_USEC=")
                ? UInt64(lines[1].dropFirst("MONOTONIC_USEC=".count)) : nil
            #expect(stamp.map { (before...monotonicMicroseconds()).contains($0) } == true, "\(reloading)")

            // Never unset: the watchdog needs it for the daemon's whole life.
            #expect(getenv("NOTIFY_SOCKET") != nil)
        }
    }
}

/// Runs `body` with the variables set (nil: unset), then puts them back.
private func withEnvironment<T>(_ variables: [String: String?], _ body: () throws -> T) rethrows -> T {
    let saved = variables.keys.map { name in (name, getenv(name).map { String(cString: $0) }) }
    func assign(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    for (name, value) in variables { assign(name, value) }
    defer { for (name, value) in saved { assign(name, value) } }
    return try body()
}

private func monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}

/// A bound `AF_UNIX` datagram socket at a fresh path, as systemd's notify socket is.
private struct DatagramSocket {
    let path = "/tmp/popgestured-notify-\(getpid())-\(UInt32.random(in: .min ... .max)).sock"
    let fd: Int32

    init() throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError(errno) }
        let address = try UnixSocketAddress(path: path)
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else { throw SystemCallError(errno) }
        // A message that never comes fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { throw SystemCallError(errno) }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    func close() {
        _ = Glibc.close(fd)
        unlink(path)
    }
}

private struct SystemCallError: Error, CustomStringConvertible {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { String(cString: strerror(code)) }
}
