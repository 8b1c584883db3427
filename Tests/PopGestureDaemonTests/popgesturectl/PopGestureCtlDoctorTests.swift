import Foundation
import PopGestureCore
import PopGestureInput
import PopGestureSynthesis
import Testing

#if canImport(Glibc)
import Glibc
import PopGestureSystem
import SystemPackage
#endif

/// `popgesturectl doctor` against the real daemon: `popgestured run` on a socket of its
/// own, with `--event-pipe` as its touchscreen where a test needs one.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct PopGestureCtlDoctorTests {
    typealias Daemon = PopGestureCtlDaemonTests.Daemon

    static func doctor(_ socket: String, json: Bool = false) throws -> (status: Int32, out: String, err: String) {
        try PopGestureCtlCommandTests.run(["doctor", "--socket", socket] + (json ? ["--json"] : []))
    }

    /// The daemon with the event pipe as its one touchscreen.
    static func daemonWithEventPipe() throws -> (Daemon, fifo: String) {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        let fifo = directory.appendingPathComponent("events").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let daemon = try Daemon(["run", "--event-pipe", fifo], in: directory)
        return (daemon, fifo)
    }

    /// Whether the machine running the tests has no touch device the daemon could read:
    /// then `run` without an event pipe has none in use.
    static var noTouchDevice: Bool { !FileManager.default.fileExists(atPath: "/dev/input") }

    /// One finger's stroke on the pipe's touchscreen, in the evdev clock: down at (x, y)
    /// (fractions of the screen), moved by (dx, dy) mm in 150 ms, lifted.
    static func stroke(into fifo: String, at x: Double, _ y: Double, byMillimetres dx: Double, _ dy: Double) throws {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var script = TouchScript(
            device: EventPipe.description, start: Timestamp(seconds: Int64(now.tv_sec), microseconds: Int64(now.tv_nsec / 1000)))
        script.down(at: x, y)
        script.move(byMillimetres: dx, dy, over: .milliseconds(150))
        script.up()
        let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
        try writer.write(contentsOf: Data(script.events.flatMap(EventPipe.record)))
        try writer.close()
    }

    @Test("no touch device: exit 1, the finding with what to check, and the verdict says why")
    func noTouchDevice() throws {
        guard Self.noTouchDevice else { try Test.cancel("this machine has input devices; the daemon may read one") }
        let daemon = try Daemon()
        let result = try Self.doctor(daemon.socket)
        #expect(result.status == 1, "\(result.out)\(result.err)")
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "popgesturectl doctor: popgestured on \(daemon.socket)")
        #expect(lines.contains { $0.hasPrefix("  ok       reachable on \(daemon.socket): pid ") })
        #expect(lines.contains("  note     started by hand, not by systemd: it stops with its terminal and does not start at boot"))
        #expect(lines.contains("  PROBLEM  no touch device in use: popgestured reads no touchscreen or touchpad"))
        #expect(lines.contains { $0.hasPrefix("           check: may the daemon read it? getfacl /dev/input/eventN must show group:popgestured-touch:r--") })
        #expect(lines.last(where: { !$0.isEmpty })?.hasPrefix("verdict: no swipe can work: popgestured reads no touchscreen or touchpad") == true)
        #expect(result.err.isEmpty)
    }

    /// This machine's kernel may have no uinput; the doctor then names it, with the fix.
    @Test("no /dev/uinput: the back input finding says so, with modprobe and the reload")
    func noUinput() throws {
        guard !FileManager.default.fileExists(atPath: "/dev/uinput") else {
            try Test.cancel("/dev/uinput exists here")
        }
        let daemon = try Daemon()
        let result = try Self.doctor(daemon.socket)
        #expect(result.out.contains("""
            back input
              PROBLEM  off: /dev/uinput does not exist, so the daemon cannot make its back input device
                       the uinput module is not loaded, or this kernel has none (CONFIG_INPUT_UINPUT)
                       the daemon says: cannot create the back input device on /dev/uinput: No such file or directory; \
            load the uinput module
            """), "\(result.out)")
        #expect(result.out.contains("""
                       fix: sudo modprobe uinput (systemd/modules-load.d/popgestured.conf loads it at every boot)
                       fix: then: sudo systemctl restart popgestured (systemd lets the service open /dev/uinput only if it was there when the service started)
            """))
        #expect(result.out.contains("nothing can receive a back: the back input is off, and no app owns a navigator"))
    }

    @Test("the event pipe and an app owning a navigator: exit 0, the device with its size, rotation and seat")
    func swipeCanWork() throws {
        let (daemon, fifo) = try Self.daemonWithEventPipe()
        let app = try PopGestureCtlDaemonTests.Background(
            ["push", "main", "home", "detail", "--socket", daemon.socket], in: daemon.directory, name: "app")
        #expect(app.waitForOutput(seconds: 10) { $0.contains("ok             create main home detail") }, "\(app.err)")

        let result = try Self.doctor(daemon.socket)
        #expect(result.status == 0, "\(result.out)\(result.err)\n\(daemon.log)")
        #expect(result.out.contains("""
            touch devices
              ok       device 0: touchscreen "popgestured event pipe" on \(fifo), 217.0 × 136.0 mm, rotation 0° from the configuration, seat seat0
            """), "\(result.out)")
        #expect(result.out.contains("grab mode\n  ok       off (grab = off)"))
        #expect(result.out.contains(#"  ok       1 navigator: main of client "#))
        #expect(result.out.contains(#" "popgesturectl push main", in front"#))
        #expect(result.out.contains("  note     no focus bridge connected"))
        #expect(result.out.contains("  ok       no pan rejected since the daemon started"))
        let verdict = try #require(result.out.split(separator: "\n").last)
        #expect(verdict.hasPrefix("verdict: a swipe can work: popgestured reads 1 touch device, and backs go to "))
        #expect(verdict.hasSuffix("1 navigator"))
        _ = app.interrupt()
    }

    @Test("rejected pans are listed with their reasons in plain words", .timeLimit(.minutes(1)))
    func rejectedPans() throws {
        let (daemon, fifo) = try Self.daemonWithEventPipe()
        let app = try PopGestureCtlDaemonTests.Background(
            ["push", "main", "home", "detail", "--socket", daemon.socket], in: daemon.directory, name: "app")
        #expect(app.waitForOutput(seconds: 10) { $0.contains("ok             create main home detail") }, "\(app.err)")
        let monitor = try PopGestureCtlDaemonTests.Background(
            ["monitor", "--socket", daemon.socket], in: daemon.directory, name: "monitor")
        #expect(PopGestureCtlDaemonTests.within(seconds: 10) {
            (try? PopGestureCtlCommandTests.run(["status", "--json", "--socket", daemon.socket]).out.contains(#""observer":true"#)) == true
        })

        // Mostly down: a scroll. Then leftwards from the middle: toward the leading side.
        try Self.stroke(into: fifo, at: 0.5, 0.3, byMillimetres: 10, 40)
        #expect(monitor.waitForOutput(seconds: 10) { $0.contains("rejected       too-steep  device 0") }, "\(monitor.out)")
        try Self.stroke(into: fifo, at: 0.5, 0.5, byMillimetres: -40, 0)
        #expect(monitor.waitForOutput(seconds: 10) { $0.contains("rejected       wrong-direction  device 0") }, "\(monitor.out)")

        let result = try Self.doctor(daemon.socket)
        #expect(result.status == 0, "\(result.out)\(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex(of: "rejected pans"), "\(result.out)")
        #expect(lines[header + 1] == "  note     2 pans rejected since the daemon started, oldest first:")
        #expect(lines[header + 2].hasSuffix(" s ago  device 0  too-steep: steeper than the angle limit (max-angle-degrees): taken for a scroll"), "\(lines[header + 2])")
        #expect(lines[header + 3].hasSuffix(" s ago  device 0  wrong-direction: it moved toward the leading side (left in a left-to-right layout), or straight up or down"))

        let status = try PopGestureCtlCommandTests.run(["status", "--json", "--socket", daemon.socket])
        let reply = try #require(JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any])
        #expect(reply["rejectedCount"] as? Int == 2)
        #expect((reply["rejected"] as? [[String: Any]])?.map { $0["reason"] as? String } == ["too-steep", "wrong-direction"])
        _ = app.interrupt()
        _ = monitor.interrupt()
    }

    @Test("no socket there: exit 1, where it looked and how to start a daemon on it")
    func noSocket() throws {
        let result = try Self.doctor("/nonexistent/popgestured.sock")
        #expect(result.status == 1)
        #expect(result.out == """
            popgesturectl doctor: popgestured on /nonexistent/popgestured.sock

            daemon
              PROBLEM  no socket at /nonexistent/popgestured.sock: popgestured is not listening there
                       fix: start popgestured on it: popgestured run --socket /nonexistent/popgestured.sock
                       fix: or ask the right socket: --socket PATH, $POPGESTURED_SOCKET (default /run/popgestured/popgestured.sock)

            verdict: no swipe can work: popgestured is not reachable on /nonexistent/popgestured.sock

            """)
        #expect(result.err.isEmpty)
    }

    /// A Unix socket bound in a folder of its own, not listening yet; both go with it.
    final class BoundSocket {
        let directory: URL
        let path: String
        let descriptor: FileDescriptor

        init() throws {
            directory = try PopGestureCtlCommandTests.temporaryDirectory()
            path = directory.appendingPathComponent("d.sock").path
            descriptor = try FileDescriptor.unixStreamSocket()
            try descriptor.bind(to: UnixSocketAddress(path: path))
        }

        deinit {
            try? descriptor.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("a socket nobody listens on: the daemon that made it is gone")
    func deadSocket() throws {
        let socket = try BoundSocket()  // what a crashed daemon leaves behind
        let path = socket.path
        let result = try Self.doctor(path)
        #expect(result.status == 1)
        #expect(result.out.contains("  PROBLEM  nothing listens on \(path): the socket file is there, but the daemon that made it is gone"))
        #expect(result.out.contains("fix: start popgestured on it again (it replaces the dead socket): popgestured run --socket \(path)"))
    }

    /// What popgestured does to a peer it does not serve: the error at once, then close.
    @Test("refused as not-permitted: the daemon's words and who may connect")
    func notPermitted() throws {
        let socket = try BoundSocket()
        let listener = socket.descriptor
        #expect(listen(listener.rawValue, 1) == 0)
        let message = "uid 1001 may not connect: clients = seat admits root, the daemon's user and the user of a seat's active session"
        let refuser = Thread {
            let peer = accept(listener.rawValue, nil, nil)
            guard peer >= 0 else { return }
            let line = #"{"type":"error","code":"not-permitted","message":"\#(message)"}"# + "\n"
            _ = line.withCString { write(peer, $0, strlen($0)) }
            close(peer)
        }
        refuser.start()
        let result = try Self.doctor(socket.path)
        #expect(result.status == 1)
        #expect(result.out.contains("  PROBLEM  popgestured refused this user (uid \(getuid())): \(message)"), "\(result.out)")
        #expect(result.out.contains("fix: or let every local user connect: clients = any in /etc/popgestured/popgestured.conf"))
    }

    @Test("--json: one object with the verdict and every finding")
    func json() throws {
        let daemon = try Daemon()
        let result = try Self.doctor(daemon.socket, json: true)
        let report = try #require(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let checks = try #require(report["checks"] as? [[String: Any]])
        #expect(checks.map { $0["check"] as? String } == [
            "daemon", "touch devices", "back input", "grab mode", "focus and apps", "rotation and direction",
            "rejected pans",
        ])
        #expect(report["socket"] as? String == daemon.socket)
        #expect((report["swipeCanWork"] as? Bool) == (result.status == 0))
        #expect((report["verdict"] as? String)?.hasPrefix("verdict: ") == true)
    }
}
