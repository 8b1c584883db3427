import Foundation
import PopGestureProtocol
import Testing
@testable import popgesturectl

#if canImport(Glibc)
import Glibc
#endif

/// `popgesturectl bridge sway` against the real thing: a headless sway with two foot
/// windows, `popgestured-demo` (whose virtual touchscreen swipes back now and then),
/// and two sessions standing in for the apps "one" and "two".
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct SwayBridgeTests {
    typealias Daemon = PopGestureCtlDaemonTests.Daemon
    typealias Background = PopGestureCtlDaemonTests.Background

    /// A sway of our own: the headless backend, software rendering, no input devices,
    /// its own runtime directory. sway refuses to run as root, so as root it runs as
    /// `nobody`, in a directory made over to that user.
    final class HeadlessSway {
        let directory: URL
        let process = Process()
        let swaymsg: String
        let foot: String
        private(set) var ipcSocket = ""
        private var windows: [Process] = []
        var log: String { (try? String(contentsOf: directory.appendingPathComponent("sway.log"), encoding: .utf8)) ?? "" }

        static let unprivileged: UInt32 = 65534  // nobody

        /// `xwayland`: X11 clients may connect; off, sway starts faster. `config`: more
        /// lines for sway's config.
        init(xwayland: Bool = false, config extra: String = "") throws {
            let sway = try PopGestureCtlDaemonTests.tool("sway", package: "sway")
            swaymsg = try PopGestureCtlDaemonTests.tool("swaymsg", package: "sway")
            foot = try PopGestureCtlDaemonTests.tool("foot", package: "foot")
            directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("popgestured-sway-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let config = directory.appendingPathComponent("config")
            try Data(((xwayland ? "" : "xwayland disable\n") + "output HEADLESS-1 resolution 1280x800\n" + extra).utf8)
                .write(to: config)
            let logFile = directory.appendingPathComponent("sway.log")
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)

            var arguments = ["-c", config.path]
            if getuid() == 0 {
                try FileManager.default.setAttributes(
                    [.ownerAccountID: Self.unprivileged, .groupOwnerAccountID: Self.unprivileged, .posixPermissions: 0o700],
                    ofItemAtPath: directory.path)
                arguments = ["--reuid=\(Self.unprivileged)", "--regid=\(Self.unprivileged)", "--clear-groups", sway] + arguments
                process.executableURL = URL(fileURLWithPath: try PopGestureCtlDaemonTests.tool("setpriv", package: "util-linux"))
            } else {
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
                process.executableURL = URL(fileURLWithPath: sway)
            }
            process.arguments = arguments
            process.environment = [
                "PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path,
                "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
            ]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: logFile)
            process.standardError = process.standardOutput
            try process.run()

            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, process.isRunning {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                if let name = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }) {
                    ipcSocket = directory.appendingPathComponent(name).path
                    if (try? message(["-t", "get_version"]).status) == 0 { return }
                }
                usleep(50_000)
            }
            throw SwayDidNotStart(log: log)
        }

        /// `swaymsg` with these arguments against this sway.
        func message(_ arguments: [String]) throws -> (status: Int32, out: String) {
            let run = Process()
            run.executableURL = URL(fileURLWithPath: swaymsg)
            run.arguments = ["-s", ipcSocket] + arguments
            let out = Pipe()
            run.standardOutput = out
            run.standardError = out
            try run.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.waitUntilExit()
            return (run.terminationStatus, text)
        }

        /// A sway command, e.g. `[app_id=one] focus`, which must succeed.
        func command(_ text: String) throws {
            let result = try message([text])
            guard result.status == 0, result.out.contains("\"success\": true") else {
                throw SwayCommandFailed(command: text, output: result.out)
            }
        }

        /// A foot window with this app id, once sway shows it; returns foot's pid.
        func openWindow(appID: String) throws -> Int32 {
            let window = Process()
            window.executableURL = URL(fileURLWithPath: foot)
            window.arguments = ["--app-id", appID]
            window.environment = [
                "PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path,
                "WAYLAND_DISPLAY": "wayland-1",
            ]
            window.standardInput = FileHandle.nullDevice
            let logFile = directory.appendingPathComponent("foot-\(appID).log")
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
            window.standardOutput = try FileHandle(forWritingTo: logFile)
            window.standardError = window.standardOutput
            try window.run()
            windows.append(window)
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, window.isRunning {
                if try message(["-t", "get_tree"]).out.contains("\"app_id\": \"\(appID)\"") { return window.processIdentifier }
                usleep(50_000)
            }
            throw SwayDidNotStart(log: log + "\nfoot --app-id \(appID):\n"
                + ((try? String(contentsOf: logFile, encoding: .utf8)) ?? ""))
        }

        deinit {
            // The test runner blocks SIGTERM for its children; SIGKILL reaches them.
            for window in windows where window.isRunning { kill(window.processIdentifier, SIGKILL) }
            if process.isRunning { _ = try? message(["exit"]) }
            PopGestureCtlDaemonTests.waitForExit(process, seconds: 5)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    struct SwayDidNotStart: Error, CustomStringConvertible {
        var log: String
        var description: String { "sway did not start:\n\(log)" }
    }

    struct SwayCommandFailed: Error, CustomStringConvertible {
        var command: String
        var output: String
        var description: String { "swaymsg '\(command)' failed: \(output)" }
    }

    /// The `focus` and `lastBack` of the daemon's status reply; nil while it cannot be read.
    static func status(_ daemon: Daemon) -> (focus: [String: Any], lastBack: [String: Any]?)? {
        guard let result = try? PopGestureCtlCommandTests.run(["status", "--json", "--socket", daemon.socket]),
              result.status == 0,
              let reply = try? JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any],
              let focus = reply["focus"] as? [String: Any]
        else { return nil }
        return (focus, reply["lastBack"] as? [String: Any])
    }

    /// Until the daemon's focus is the shell's word for this app and pid.
    static func waitForFocus(_ daemon: Daemon, app: String, pid: Int32, seconds: Double = 20) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String: Any]?
        while Date() < deadline {
            last = status(daemon)?.focus
            if let last, last["source"] as? String == "shell", last["app"] as? String == app,
               (last["pid"] as? NSNumber)?.int32Value == pid
            {
                return last
            }
            usleep(50_000)
        }
        Issue.record("the daemon's focus did not become \(app) (pid \(pid)); last: \(String(describing: last))")
        return nil
    }

    static func stack(_ navigator: String, _ daemon: Daemon) throws -> String {
        try PopGestureCtlCommandTests.run(["stack", navigator, "--socket", daemon.socket]).out
    }

    /// Until `navigator`'s stack is `pages` (one a line), or the time is up.
    static func waitForStack(_ navigator: String, _ pages: String, _ daemon: Daemon, seconds: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try stack(navigator, daemon) == pages { return true }
            usleep(100_000)
        }
        return try stack(navigator, daemon) == pages
    }

    @Test("an Xwayland window's app id is its WM_CLASS class", .timeLimit(.minutes(1)))
    func xwayland() throws {
        _ = try PopGestureCtlDaemonTests.tool("Xwayland", package: "xwayland")
        _ = try PopGestureCtlDaemonTests.tool("xclock", package: "x11-apps")
        let sway = try HeadlessSway(xwayland: true)
        let daemon = try Daemon()
        let bridge = try Background(
            ["bridge", "sway", "--verbose", "--sway-socket", sway.ipcSocket, "--socket", daemon.socket],
            in: daemon.directory, name: "bridge")
        // sway starts it, as its own user and with its DISPLAY, so Xwayland lets it in.
        try sway.command("exec xclock")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !(try sway.message(["-t", "get_tree"]).out.contains("\"class\": \"XClock\"")) { usleep(50_000) }
        try sway.command("[class=XClock] focus")
        var focus: [String: Any]?
        while Date() < deadline {
            focus = Self.status(daemon)?.focus
            if focus?["app"] as? String == "XClock" { break }
            usleep(50_000)
        }
        #expect(focus?["source"] as? String == "shell" && focus?["app"] as? String == "XClock", "\(String(describing: focus))\n\(bridge.err)")
        #expect((focus?["pid"] as? NSNumber)?.intValue ?? 0 > 0, "Xwayland windows have a pid too")
    }

    @Test("status follows sway's focus, a back reaches the focused app only, and the bridge outlives a daemon restart",
          .timeLimit(.minutes(3)))
    func followsFocus() throws {
        let sway = try HeadlessSway()
        let one = try sway.openWindow(appID: "one")
        let two = try sway.openWindow(appID: "two")
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("d.sock").path

        // Before the daemon: the bridge waits for it, saying so once.
        let bridge = try Background(
            ["bridge", "sway", "--verbose", "--sway-socket", sway.ipcSocket, "--socket", socket], in: directory, name: "bridge")
        #expect(bridge.waitForError(seconds: 10) { $0.contains("cannot connect to \(socket)") && $0.contains("trying again until it answers") },
                "\(bridge.err)")
        #expect(bridge.process.isRunning, "the bridge waits for the daemon: \(bridge.err)")

        let daemon = try PopGestureCtlDaemonTests.demoWithGeneratedSwipes(in: directory)
        // The window opened last has focus; the bridge says so right after its hello.
        _ = Self.waitForFocus(daemon, app: "two", pid: two)

        try sway.command("[app_id=one] focus")
        _ = Self.waitForFocus(daemon, app: "one", pid: one)

        // Two apps, each a session with its app id; b's navigator, made last, is in front
        // of a's, but only a's app has focus.
        let a = try Background(
            ["session", "--app", "one", "--socket", daemon.socket], in: directory, name: "one",
            stdin: "create a home detail more\nsleep 600\n")
        #expect(try Self.waitForStack("a", "home\ndetail\nmore\n", daemon, seconds: 10), "\(a.err)")
        let b = try Background(
            ["session", "--app", "two", "--socket", daemon.socket], in: directory, name: "two",
            stdin: "create b home detail\nsleep 600\n")
        #expect(try Self.waitForStack("b", "home\ndetail\n", daemon, seconds: 10), "\(b.err)")

        #expect(try Self.waitForStack("a", "home\ndetail\n", daemon, seconds: 60), "a back reaches one\n\(daemon.log)")
        #expect(try Self.stack("b", daemon) == "home\ndetail\n", "and not two")
        let lastBack = Self.status(daemon)?.lastBack
        #expect(lastBack?["target"] as? String == "navigator" && lastBack?["navigator"] as? String == "a", "\(String(describing: lastBack))")

        try sway.command("[app_id=two] focus")
        _ = Self.waitForFocus(daemon, app: "two", pid: two)
        // A swipe that began before the switch may still land on a; what a has after it is a's.
        usleep(1_500_000)
        let aBefore = try Self.stack("a", daemon)
        #expect(try Self.waitForStack("b", "home\n", daemon, seconds: 60), "a back reaches two\n\(daemon.log)")
        #expect(try Self.stack("a", daemon) == aBefore, "and not one")
        #expect(Self.status(daemon)?.lastBack?["navigator"] as? String == "b")
        #expect(a.interrupt() == 0)
        #expect(b.interrupt() == 0)

        // The daemon restarts: the bridge connects again and says the focused window at once.
        daemon.stop()
        let restarted = try Daemon(["demo", "--rounds", "0"], in: directory)
        _ = Self.waitForFocus(restarted, app: "two", pid: two)
        #expect(bridge.err.contains("popgestured closed the connection; connecting again"), "\(bridge.err)")
        #expect(bridge.err.contains("connected to popgestured as the shell"), "\(bridge.err)")
        #expect(bridge.err.contains("focus: app one, pid \(one)"), "--verbose logs each change: \(bridge.err)")

        // One shell at a time: a second bridge waits for the first to leave.
        let second = try Background(
            ["bridge", "sway", "--sway-socket", sway.ipcSocket, "--socket", restarted.socket], in: directory, name: "second")
        #expect(second.waitForError(seconds: 10) { $0.contains("popgestured has another shell (shell-taken") }, "\(second.err)")
        #expect(second.process.isRunning)
        #expect(second.interrupt() == 0)

        // Focus onto an empty workspace: no window has focus.
        try sway.command("workspace 2")
        let deadline = Date().addingTimeInterval(10)
        var focus: [String: Any]?
        while Date() < deadline {
            focus = Self.status(restarted)?.focus
            if focus?["source"] as? String == "shell", focus?["app"] == nil, focus?["pid"] == nil { break }
            usleep(50_000)
        }
        #expect(focus?["source"] as? String == "shell" && focus?["app"] == nil && focus?["pid"] == nil,
                "\(String(describing: focus))")

        // sway exits: so does the bridge, with 0 and a message.
        _ = try? sway.message(["exit"])
        PopGestureCtlDaemonTests.waitForExit(bridge.process, seconds: 10)
        #expect(bridge.process.terminationStatus == 0, "\(bridge.err)")
        #expect(bridge.err.contains("popgesturectl bridge sway: sway is exiting; done")
                    || bridge.err.contains("popgesturectl bridge sway: sway closed its IPC socket; done"), "\(bridge.err)")
    }

    /// The next `outputs` the bridge sends, skipping other lines; nil when none came.
    static func nextOutputs(from standIn: WlrootsBridgeTests.StandInDaemon, lines: Int = 10) throws -> ClientRequest? {
        for _ in 0..<lines {
            guard let line = try standIn.line() else { return nil }
            let request = try RequestCodec.decode(line).request
            if case .outputs = request { return request }
        }
        return nil
    }

    /// The next `outputs` the bridge sends that is `expected`, skipping the other lines (a
    /// change in sway may come as more than one output event); nil when none came.
    static func waitForOutputs(
        _ expected: [ClientRequest.Output], from standIn: WlrootsBridgeTests.StandInDaemon, lines: Int = 10
    ) throws -> [ClientRequest]? {
        var seen: [ClientRequest] = []
        for _ in 0..<lines {
            guard let line = try standIn.line() else { break }
            let request = try RequestCodec.decode(line).request
            seen.append(request)
            if request == .outputs(expected) { return seen }
        }
        Issue.record("the bridge did not send \(expected); it sent \(seen)")
        return nil
    }

    @Test("the lines a daemon receives: sway's active outputs with the config's map_to_output, again at each output change",
          .timeLimit(.minutes(2)))
    func outputs() throws {
        let sway = try HeadlessSway(config: """
            input "1267:10780:ELAN_Touchscreen" map_to_output HEADLESS-1
            input 1046:911:Goodix_Capacitive_TouchScreen {
                map_to_output HEADLESS-2
            }

            """)
        let standIn = try WlrootsBridgeTests.StandInDaemon(in: sway.directory)
        // sway's Wayland display too, for the sizes (headless outputs have none: 0 × 0).
        let bridge = try Background(
            ["bridge", "sway", "--verbose", "--sway-socket", sway.ipcSocket, "--socket", standIn.path],
            in: sway.directory, name: "bridge",
            environment: ["WAYLAND_DISPLAY": sway.directory.appendingPathComponent("wayland-1").path])
        try standIn.accept()
        #expect(try standIn.greet() == .hello(versions: ProtocolVersion.supported, name: "popgesturectl bridge sway", role: .shell))
        let panel = ClientRequest.Output(name: "HEADLESS-1", rotation: 0, inputs: ["1267:10780:ELAN_Touchscreen"])
        // No window, and the one output; which goes first depends on what reached the bridge first.
        let first = try Set([standIn.request().request, standIn.request().request])
        #expect(first == [.focusedWindow(app: nil, pid: nil), .outputs([panel])], "\(bridge.err)")

        // sway 1.7 has no output events: the bridge reads the outputs again at the next
        // workspace event, which `change` makes (sway 1.8 would not need it).
        func change(_ command: String) throws {
            try sway.command(command)
            try sway.command("workspace 2")
            try sway.command("workspace 1")
        }
        // sway's 90 turns the picture clockwise: wl_output's 270 (xrandr's right), the daemon's 270.
        try change("output HEADLESS-1 transform 90")
        var turned = panel
        turned.rotation = 270
        #expect(try Self.waitForOutputs([turned], from: standIn) == [.outputs([turned])], "one line for one change\n\(bridge.err)")

        // A second output: it is listed after the first, with its own mapping.
        try change("create_output")
        let second = ClientRequest.Output(name: "HEADLESS-2", rotation: 0, inputs: ["1046:911:Goodix_Capacitive_TouchScreen"])
        #expect(try Self.waitForOutputs([turned, second], from: standIn) != nil, "\(bridge.err)")
        try change("output HEADLESS-2 transform flipped-270")
        var flipped = second
        flipped.rotation = 90
        #expect(try Self.waitForOutputs([turned, flipped], from: standIn) != nil, "a flipped transform sends its turn\n\(bridge.err)")
        // Headless outputs cannot be disabled (wlroots fails the commit): SwayOutputsTests
        // shows that an inactive output is left out.

        // The daemon goes away and comes back: the outputs again after the new hello.
        standIn.hangUp()
        try standIn.accept()
        _ = try standIn.greet()
        let again = try Set([standIn.request().request, standIn.request().request])
        #expect(again == [.focusedWindow(app: nil, pid: nil), .outputs([turned, flipped])], "\(bridge.err)")
        #expect(bridge.err.contains("outputs: HEADLESS-1 270° (inputs 1267:10780:ELAN_Touchscreen)"), "--verbose: \(bridge.err)")
        #expect(!bridge.err.contains("physical sizes"), "it reached sway's wlr-output-management: \(bridge.err)")
    }

    @Test("the real daemon takes the sway bridge's outputs: each is answered ok, none refused", .timeLimit(.minutes(1)))
    func daemonTakesOutputs() throws {
        let sway = try HeadlessSway()
        let daemon = try Daemon()
        // A Wayland display that is not there costs the sizes only.
        let bridge = try Background(
            ["bridge", "sway", "--verbose", "--sway-socket", sway.ipcSocket, "--socket", daemon.socket],
            in: daemon.directory, name: "bridge", environment: ["WAYLAND_DISPLAY": "/nonexistent/wayland-9"])
        #expect(bridge.waitForError(seconds: 10) { $0.contains("connected to popgestured as the shell") }, "\(bridge.err)")
        #expect(bridge.err.contains(
            "cannot connect to the Wayland display /nonexistent/wayland-9: No such file or directory: outputs are sent without "
                + "their physical sizes"), "\(bridge.err)")
        try sway.command("output HEADLESS-1 transform 180")
        try sway.command("workspace 2")  // sway 1.7 has no output events; see outputs()
        #expect(bridge.waitForError(seconds: 10) { $0.contains("outputs: HEADLESS-1 180°") }, "\(bridge.err)")
        // A status after the outputs: its reply comes after theirs, so a refusal would be in by then.
        _ = Self.status(daemon)
        usleep(300_000)
        #expect(!bridge.err.contains("refused"), "\(bridge.err)")
        #expect(Self.status(daemon)?.focus["source"] as? String == "shell", "the bridge is still the shell")
        #expect(bridge.interrupt() == 0)
    }
}
