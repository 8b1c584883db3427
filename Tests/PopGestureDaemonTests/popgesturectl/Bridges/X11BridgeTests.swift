import Foundation
import PopGestureProtocol
import Testing
@testable import popgesturectl

#if canImport(Glibc)
import Glibc
import PopGestureSystem
import SystemPackage
#endif

/// `popgesturectl bridge x11` against the real thing: Xvfb, openbox (an EWMH window
/// manager that sets `_NET_ACTIVE_WINDOW`), two xterms with their own `WM_CLASS` class and
/// `_NET_WM_PID`, focus switched with `xdotool windowactivate`, and `popgestured-demo`,
/// whose virtual touchscreen swipes back every few seconds.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct X11BridgeTests {
    typealias Daemon = PopGestureCtlDaemonTests.Daemon
    typealias Background = PopGestureCtlDaemonTests.Background

    /// An X server of our own with a window manager and two windows, classes `One` and `Two`.
    final class XSession {
        let directory: URL
        private(set) var processes: [Process] = []
        let server = Process()
        /// `:N`, as Xvfb chose it.
        let display: String
        /// The xterms' pids, which they set as `_NET_WM_PID`.
        var pids: [String: Int32] = [:]
        /// The xterms' windows, for xdotool.
        var windows: [String: String] = [:]
        let openbox: String
        let xterm: String
        let xdotoolPath: String

        /// Without Xvfb, openbox, xterm or xdotool (scripts/setup installs them), a
        /// cancelled test, or under CI a failed one.
        init() throws {
            let xvfb = try PopGestureCtlDaemonTests.tool("Xvfb", package: "xvfb")
            openbox = try PopGestureCtlDaemonTests.tool("openbox", package: "openbox")
            xterm = try PopGestureCtlDaemonTests.tool("xterm", package: "xterm")
            xdotoolPath = try PopGestureCtlDaemonTests.tool("xdotool", package: "xdotool")
            directory = try PopGestureCtlCommandTests.temporaryDirectory()
            // -displayfd: Xvfb picks a free display and writes its number once it accepts clients.
            let number = Pipe()
            server.executableURL = URL(fileURLWithPath: xvfb)
            server.arguments = ["-displayfd", "1", "-screen", "0", "800x600x24", "-nolisten", "tcp"]
            server.standardInput = FileHandle.nullDevice
            server.standardOutput = number
            server.standardError = try Self.log("Xvfb", in: directory)
            try server.run()
            let line = String(decoding: number.fileHandleForReading.availableData, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard let n = Int(line) else {
                if server.isRunning { kill(server.processIdentifier, SIGKILL) }
                throw Failed("Xvfb gave no display number (\(line))")
            }
            display = ":\(n)"

            try start(openbox, [], name: "openbox")
            // Windows made before openbox manages the screen would never be activated.
            let deadline = Date().addingTimeInterval(15)
            while (try? xdotool(["get_num_desktops"])) == nil {
                guard Date() < deadline else { throw Failed("openbox did not take over the display \(display)") }
                usleep(50_000)
            }
            for app in ["One", "Two"] {
                let window = try start(xterm, ["-class", app, "-title", app], name: "xterm-\(app)")
                pids[app] = window.processIdentifier
                // --sync --onlyvisible waits until the window is mapped, not only made: openbox
                // focuses each new window as it maps (focusNew), so a window still unmapped
                // here would take the focus from one activated later.
                let found = try xdotool(["search", "--sync", "--onlyvisible", "--class", "^\(app)$"])
                guard let id = found.split(separator: "\n").first else { throw Failed("no window of class \(app)") }
                windows[app] = String(id)
                try waitUntilActive(app)
            }
        }

        /// `popgesturectl bridge x11` on this display, for `daemon`.
        func bridge(to daemon: Daemon, name: String, verbose: Bool = false) throws -> Background {
            try Background(
                ["bridge", "x11", "--display", display, "--socket", daemon.socket] + (verbose ? ["--verbose"] : []),
                in: daemon.directory, name: name)
        }

        /// Makes `app`'s window the active one, through the window manager.
        func activate(_ app: String) throws {
            _ = try xdotool(["windowactivate", "--sync", windows[app]!])
            try waitUntilActive(app)
        }

        /// Waits until the window manager names `app`'s window as `_NET_ACTIVE_WINDOW`.
        func waitUntilActive(_ app: String, seconds: Double = 15) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while (try? xdotool(["getactivewindow"]))?.trimmingCharacters(in: .whitespacesAndNewlines) != windows[app] {
                guard Date() < deadline else { throw Failed("the window of \(app) never became active") }
                usleep(20_000)
            }
        }

        @discardableResult
        func start(_ path: String, _ arguments: [String], name: String) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try Self.log(name, in: directory)
            process.standardError = process.standardOutput
            try process.run()
            processes.append(process)
            return process
        }

        /// xdotool to its end, with a time limit (a `--sync` that never comes is a failure).
        func xdotool(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: xdotoolPath)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let timer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            DispatchQueue.global().asyncAfter(deadline: .now() + 15, execute: timer)
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            timer.cancel()
            guard process.terminationStatus == 0 else { throw Failed("xdotool \(arguments.joined(separator: " ")) failed") }
            return output
        }

        func stopServer() {
            kill(server.processIdentifier, SIGTERM)
            PopGestureCtlDaemonTests.waitForExit(server, seconds: 10)
        }

        private static func log(_ name: String, in directory: URL) throws -> FileHandle {
            let url = directory.appendingPathComponent("\(name).log")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return try FileHandle(forWritingTo: url)
        }

        deinit {
            for process in processes.reversed() where process.isRunning { kill(process.processIdentifier, SIGKILL) }
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// An X session with `app`'s window active, `popgestured run`, and a bridge between
    /// them, once `status` shows `app` in focus.
    static func bridged(activating app: String) throws -> (x: XSession, daemon: Daemon, bridge: Background) {
        let x = try XSession()
        try x.activate(app)
        let daemon = try Daemon()
        let bridge = try x.bridge(to: daemon, name: "bridge")
        let reply = try waitForStatus(daemon.socket) { focus($0).app == app }
        #expect(focus(reply).app == app, "\(reply)\n\(bridge.err)")
        return (x, daemon, bridge)
    }

    /// The daemon's `status` reply, parsed.
    static func status(_ socket: String) throws -> [String: Any] {
        let result = try PopGestureCtlCommandTests.run(["status", "--json", "--socket", socket])
        guard result.status == 0,
              let reply = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any]
        else { return [:] }
        return reply
    }

    /// Polls `status` until `condition` holds for it; returns the last reply seen.
    static func waitForStatus(_ socket: String, seconds: Double = 15, _ condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var reply: [String: Any] = [:]
        while Date() < deadline {
            reply = (try? status(socket)) ?? [:]
            if condition(reply) { return reply }
            usleep(50_000)
        }
        return reply
    }

    static func focus(_ reply: [String: Any]) -> (source: String?, app: String?, pid: Int?) {
        let focus = reply["focus"] as? [String: Any]
        return (focus?["source"] as? String, focus?["app"] as? String, focus?["pid"] as? Int)
    }

    static func navigators(_ reply: [String: Any]) -> [String] {
        ((reply["navigators"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String ?? $0["navigator"] as? String }
    }

    @Test("status follows the active window, a back reaches the focused app's session only, and the bridge reconnects",
          .timeLimit(.minutes(3)))
    func followsTheActiveWindow() throws {
        let x = try XSession()
        try x.activate("One")

        let daemon = try PopGestureCtlDaemonTests.demoWithGeneratedSwipes()
        let bridge = try x.bridge(to: daemon, name: "bridge", verbose: true)

        var reply = try Self.waitForStatus(daemon.socket) { Self.focus($0).app == "One" }
        #expect(Self.focus(reply).source == "shell", "\(reply)\n\(bridge.err)")
        #expect(Self.focus(reply).app == "One", "\(reply)\n\(bridge.err)")
        #expect(Self.focus(reply).pid == Int(x.pids["One"]!), "\(reply)")

        // Two apps, each a session that says its app id and waits for one back.
        let one = try Background(
            ["session", "--app", "One", "--socket", daemon.socket], in: daemon.directory, name: "one",
            stdin: "create one home detail\nwait back one --timeout 60\n")
        let two = try Background(
            ["session", "--app", "Two", "--socket", daemon.socket], in: daemon.directory, name: "two",
            stdin: "create two home detail\nwait back two --timeout 90\n")
        reply = try Self.waitForStatus(daemon.socket) { Set(Self.navigators($0)).isSuperset(of: ["one", "two"]) }
        #expect(Set(Self.navigators(reply)).isSuperset(of: ["one", "two"]), "\(reply)\n\(one.err)\n\(two.err)")

        // One has focus: the demo's next swipe pops One's page, not Two's (created later, so
        // in front were it not for the focus).
        PopGestureCtlDaemonTests.waitForExit(one.process, seconds: 60)
        #expect(one.process.terminationStatus == 0, "\(one.out)\n\(one.err)\n\(daemon.log)")
        #expect(one.out.contains("back           one  detail → home"), "\(one.out)")
        #expect(!two.out.contains("back "), "Two got a back while One had focus: \(two.out)")
        reply = try Self.status(daemon.socket)
        let lastBack = reply["lastBack"] as? [String: Any]
        #expect(lastBack?["navigator"] as? String == "one" || lastBack?["target"] as? String == "input",
                "the last back went to one, or (one gone since) to the input: \(reply)")

        // Two gets focus: the next back is Two's.
        try x.activate("Two")
        reply = try Self.waitForStatus(daemon.socket) { Self.focus($0).app == "Two" }
        #expect(Self.focus(reply).app == "Two", "\(reply)\n\(bridge.err)")
        #expect(Self.focus(reply).pid == Int(x.pids["Two"]!), "\(reply)")
        PopGestureCtlDaemonTests.waitForExit(two.process, seconds: 60)
        #expect(two.process.terminationStatus == 0, "\(two.out)\n\(two.err)\n\(daemon.log)")
        #expect(two.out.contains("back           two  detail → home"), "\(two.out)")
        #expect(bridge.err.contains("focus: app One, pid \(x.pids["One"]!)"), "\(bridge.err)")
        #expect(bridge.err.contains("focus: app Two, pid \(x.pids["Two"]!)"), "\(bridge.err)")

        // The daemon restarts on the same socket: the bridge says hello again and resends.
        daemon.stop()
        let restarted = try Daemon(["demo", "--rounds", "0"], in: daemon.directory)
        reply = try Self.waitForStatus(restarted.socket) { Self.focus($0).app == "Two" }
        #expect(Self.focus(reply).source == "shell", "\(reply)\n\(bridge.err)")
        #expect(Self.focus(reply).app == "Two", "after the restart: \(reply)\n\(bridge.err)")
        #expect(bridge.err.contains("popgestured closed the connection; connecting again"), "\(bridge.err)")
        #expect(bridge.err.contains("connected to popgestured as the shell"), "\(bridge.err)")
        #expect(bridge.err.contains("outputs: screen 0°"), "Xvfb's one output: \(bridge.err)")
        #expect(!bridge.err.contains("refused"), "the daemon takes the outputs: \(bridge.err)")

        // The X server goes away (the session ends): the bridge ends with 0 and says why.
        x.stopServer()
        PopGestureCtlDaemonTests.waitForExit(bridge.process, seconds: 10)
        #expect(bridge.process.terminationStatus == 0, "\(bridge.err)")
        #expect(bridge.err.contains("popgesturectl bridge x11: the X display \(x.display) went away"), "\(bridge.err)")
    }

    @Test("no active window is reported as no focused window")
    func noActiveWindow() throws {
        let (x, daemon, bridge) = try Self.bridged(activating: "One")

        // Both windows close. openbox may leave _NET_ACTIVE_WINDOW naming the closed
        // window; the bridge sees the window's end and reports no window either way.
        for process in x.processes where process.processIdentifier == x.pids["One"] || process.processIdentifier == x.pids["Two"] {
            kill(process.processIdentifier, SIGKILL)
        }
        let reply = try Self.waitForStatus(daemon.socket) { Self.focus($0).source == "shell" && Self.focus($0).app == nil }
        #expect(Self.focus(reply).source == "shell", "\(reply)\n\(bridge.err)")
        #expect(Self.focus(reply).app == nil, "\(reply)\n\(bridge.err)")
        #expect(Self.focus(reply).pid == nil, "\(reply)")
        #expect(bridge.interrupt() == 0, "SIGTERM/SIGINT end the bridge cleanly: \(bridge.err)")
    }

    @Test("a second bridge is told shell-taken, keeps asking, and takes over when the first leaves")
    func secondBridgeWaits() throws {
        let (x, daemon, first) = try Self.bridged(activating: "Two")
        let second = try x.bridge(to: daemon, name: "second")
        #expect(second.waitForError(seconds: 10) { $0.contains("popgestured has another shell (shell-taken") }, "\(second.err)")
        #expect(second.process.isRunning)

        #expect(first.interrupt() == 0)
        // The second one's next try (at most 5 s later) makes it the shell; its focus line
        // follows its hello, so a status between the two shows the shell with no window yet.
        let reply = try Self.waitForStatus(daemon.socket) {
            second.err.contains("as the shell") && Self.focus($0).source == "shell" && Self.focus($0).app == "Two"
        }
        #expect(second.err.contains("connected to popgestured as the shell"), "\(second.err)")
        #expect(Self.focus(reply).source == "shell", "\(reply)")
        #expect(Self.focus(reply).app == "Two", "\(reply)\n\(second.err)")
        #expect(second.interrupt() == 0)
    }

    /// A stand-in daemon that reads the bridge's hello and refuses it as the real one does
    /// for a user that may not be the shell (the tests run as root, whom it admits).
    @Test("shell-refused ends the bridge with 1 and the daemon's reason")
    func shellRefused() throws {
        let x = try XSession()
        let path = x.directory.appendingPathComponent("fake.sock").path
        let listener = try FileDescriptor.unixStreamSocket()
        defer { try? listener.close() }
        try listener.bind(to: UnixSocketAddress(path: path))
        #expect(listen(listener.rawValue, 1) == 0)
        let bridge = try Background(["bridge", "x11", "--display", x.display, "--socket", path], in: x.directory, name: "bridge")

        var waiting = pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0)
        try #require(poll(&waiting, 1, 10_000) == 1, "the bridge did not connect: \(bridge.err)")
        let peer = FileDescriptor(rawValue: accept(listener.rawValue, nil, nil))
        #expect(peer.rawValue >= 0)
        defer { try? peer.close() }
        var hello: [UInt8] = []
        var byte: [UInt8] = [0]
        while hello.count < 4096, try byte.withUnsafeMutableBytes({ try peer.read(into: $0) }) == 1, byte[0] != 10 {
            hello.append(byte[0])
        }
        let line = String(decoding: hello, as: UTF8.self)
        #expect(line.contains(#""role":"shell""#), "\(line)")
        #expect(line.contains(#""name":"popgesturectl bridge x11""#), "\(line)")
        let refusal = #"{"type":"error","code":"shell-refused","message":"uid 1000 may not be the shell","request":"hello","id":1}"# + "\n"
        _ = try peer.writeAll(Array(refusal.utf8))

        PopGestureCtlDaemonTests.waitForExit(bridge.process, seconds: 10)
        #expect(bridge.process.terminationStatus == 1, "\(bridge.err)")
        #expect(bridge.err.contains("refused the shell's hello: shell-refused: uid 1000 may not be the shell"), "\(bridge.err)")
    }

    @Test("no X server: exit 2 with a message that names the display")
    func noDisplay() throws {
        let result = try PopGestureCtlCommandTests.run(["bridge", "x11", "--display", ":999", "--socket", "/nonexistent/x.sock"])
        #expect(result.status == 2)
        #expect(result.err.contains("cannot open the X display :999"), "\(result.err)")
    }

    // MARK: Outputs (RandR)

    @Test("RandR rotation bits as the daemon's rotation: RR_Rotate_90 (xrandr's left) is 90, as wl_output's 90 is",
          arguments: [(1, 90 - 90), (2, 90), (4, 180), (8, 270), (2 | 16, 90), (8 | 32, 270), (0, -1), (3, -1), (16, -1)]
              as [(UInt16, Int64)])
    func randrRotation(bits: UInt16, degrees: Int64) {
        #expect(X11Outputs.rotation(fromRandR: bits) == (degrees < 0 ? nil : degrees))
    }

    @Test("the outputs are the connected ones with a CRTC, with their size when RandR knows it and built-in by name")
    func randrList() {
        let outputs = [
            XDisplay.RandROutput(name: "eDP-1", connected: true, enabled: true, rotation: 2, widthMillimetres: 256, heightMillimetres: 144),
            XDisplay.RandROutput(name: "HDMI-1", connected: true, enabled: false, rotation: 0, widthMillimetres: 600, heightMillimetres: 340),
            XDisplay.RandROutput(name: "DP-1", connected: false, enabled: false, rotation: 0, widthMillimetres: 0, heightMillimetres: 0),
            XDisplay.RandROutput(name: "screen", connected: true, enabled: true, rotation: 1, widthMillimetres: 0, heightMillimetres: 0),
        ]
        #expect(X11Outputs.list(outputs) == OutputList([
            ClientRequest.Output(name: "eDP-1", rotation: 90, widthMillimetres: 256, heightMillimetres: 144, isBuiltIn: true),
            ClientRequest.Output(name: "screen", rotation: 0),
        ]))
    }

    @Test("on Xvfb the bridge sends its one output, screen, 0° and no size (Xvfb has no rotation and 0 mm)",
          .timeLimit(.minutes(1)))
    func xvfbOutputs() throws {
        let x = try XSession()
        let standIn = try WlrootsBridgeTests.StandInDaemon(in: x.directory)
        let bridge = try Background(
            ["bridge", "x11", "--verbose", "--display", x.display, "--socket", standIn.path], in: x.directory, name: "bridge")
        try standIn.accept()
        #expect(try standIn.greet() == .hello(versions: ProtocolVersion.supported, name: "popgesturectl bridge x11", role: .shell))
        let first = try Set([standIn.request().request, standIn.request().request])
        #expect(first == [
            .focusedWindow(app: "Two", pid: Int64(x.pids["Two"]!)), .outputs([ClientRequest.Output(name: "screen", rotation: 0)]),
        ], "\(bridge.err)")
        #expect(bridge.interrupt() == 0)
    }

    @Test("under Xwayland the bridge follows RandR: sway's transform 90 (xrandr's right) is 270, as the sway bridge says",
          .timeLimit(.minutes(2)))
    func xwaylandOutputs() throws {
        _ = try PopGestureCtlDaemonTests.tool("Xwayland", package: "xwayland")
        let xhost = try PopGestureCtlDaemonTests.tool("xhost", package: "x11-xserver-utils")
        let xrandr = try PopGestureCtlDaemonTests.tool("xrandr", package: "x11-xserver-utils")
        let sway = try SwayBridgeTests.HeadlessSway(xwayland: true)
        // sway starts Xwayland for its first X client, as sway's user; this one lets us in.
        let file = sway.directory.appendingPathComponent("display").path
        try sway.command("exec sh -c 'echo $DISPLAY > \(file); \(xhost) +si:localuser:\(String(cString: getpwuid(getuid())!.pointee.pw_name))'")
        var display = ""
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) {
            display = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return !display.isEmpty && (try? WlrootsBridgeTests.HeadlessPhoc.run(xrandr, ["--display", display])) != nil
        }, "Xwayland did not let us in (\(display))\n\(sway.log)")

        let standIn = try WlrootsBridgeTests.StandInDaemon(in: sway.directory)
        let bridge = try Background(
            ["bridge", "x11", "--verbose", "--display", display, "--socket", standIn.path], in: sway.directory, name: "bridge")
        try standIn.accept()
        _ = try standIn.greet()
        func xwayland(_ degrees: Int64) -> ClientRequest { .outputs([ClientRequest.Output(name: "XWAYLAND0", rotation: degrees)]) }
        let first = try Set([standIn.request().request, standIn.request().request])
        #expect(first == [.focusedWindow(app: nil, pid: nil), xwayland(0)], "\(bridge.err)")

        try sway.command("output HEADLESS-1 transform 90")
        #expect(try SwayBridgeTests.nextOutputs(from: standIn) == xwayland(270), "xrandr's right\n\(bridge.err)")
        try sway.command("output HEADLESS-1 transform 270")
        #expect(try SwayBridgeTests.nextOutputs(from: standIn) == xwayland(90), "xrandr's left\n\(bridge.err)")
        try sway.command("output HEADLESS-1 transform flipped-180")
        #expect(try SwayBridgeTests.nextOutputs(from: standIn) == xwayland(180), "a reflection sends its turn\n\(bridge.err)")
        #expect(bridge.err.contains("outputs: XWAYLAND0 90°"), "--verbose: \(bridge.err)")
        #expect(bridge.interrupt() == 0)
    }
}
