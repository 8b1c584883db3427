import Foundation
import PopGestureProtocol
import Testing
@testable import popgesturectl

#if canImport(Glibc)
import Glibc
import PopGestureSystem
import SystemPackage
#endif

/// `popgesturectl bridge wlroots` against the real thing: phoc, Phosh's compositor, headless,
/// with two foot windows whose app ids are `One` and `Two`; focus switched through
/// wlr-foreign-toplevel-management's `activate`, as a task switcher does, and the output
/// turned with `wlr-randr --transform`.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct WlrootsBridgeTests {
    typealias Daemon = PopGestureCtlDaemonTests.Daemon
    typealias Background = PopGestureCtlDaemonTests.Background

    /// A phoc of our own: the headless backend, software rendering, its own runtime
    /// directory. Headless phoc has no input device, hence no `wl_seat`, and without a seat
    /// no window is ever activated: the helper's virtual pointer makes phoc create its seat.
    final class HeadlessPhoc {
        let directory: URL
        let process = Process()
        /// The helper, built from Tests/Fixtures/wayland/wlroots-test-client.c.
        let helper: String
        let footPath: String
        let wlrRandr: String
        private let seat = Process()
        private let seatInput = Pipe()
        private var windows: [String: Process] = [:]
        /// The display's socket, absolute: clients need no XDG_RUNTIME_DIR for it.
        var display: String { directory.appendingPathComponent("wayland-0").path }
        var log: String { (try? String(contentsOf: directory.appendingPathComponent("phoc.log"), encoding: .utf8)) ?? "" }

        init() throws {
            let phoc = try PopGestureCtlDaemonTests.tool("phoc", package: "phoc")
            footPath = try PopGestureCtlDaemonTests.tool("foot", package: "foot")
            wlrRandr = try PopGestureCtlDaemonTests.tool("wlr-randr", package: "wlr-randr")
            directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("popgestured-phoc-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            helper = try Self.buildHelper(in: directory)

            let config = directory.appendingPathComponent("phoc.ini")
            try Data("[core]\nxwayland=false\n".utf8).write(to: config)
            process.executableURL = URL(fileURLWithPath: phoc)
            process.arguments = ["-C", config.path]
            process.environment = [
                "PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path,
                "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
            ]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try Self.logFile("phoc", in: directory)
            process.standardError = process.standardOutput
            try process.run()
            guard PopGestureCtlDaemonTests.within(seconds: 20, { FileManager.default.fileExists(atPath: display) || !process.isRunning }),
                  process.isRunning
            else { throw Failed("phoc did not start:\n\(log)") }

            seat.executableURL = URL(fileURLWithPath: helper)
            seat.arguments = ["seat"]
            seat.environment = clientEnvironment
            seat.standardInput = seatInput
            seat.standardOutput = try Self.logFile("seat", in: directory)
            seat.standardError = seat.standardOutput
            try seat.run()
            let seatLog = directory.appendingPathComponent("seat.log")
            guard PopGestureCtlDaemonTests.within(seconds: 10, {
                (try? String(contentsOf: seatLog, encoding: .utf8))?.contains("ready") == true
            }) else { throw Failed("phoc made no seat: \((try? String(contentsOf: seatLog, encoding: .utf8)) ?? "")\n\(log)") }
        }

        var clientEnvironment: [String: String] {
            ["PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path, "WAYLAND_DISPLAY": "wayland-0"]
        }

        static let root = Repository.root

        /// The helper, from its C source and the glue wayland-scanner makes of the two XMLs it needs.
        static func buildHelper(in directory: URL) throws -> String {
            let scanner = try PopGestureCtlDaemonTests.tool("wayland-scanner", package: "libwayland-bin")
            let xmls = [
                root.appendingPathComponent("Sources/CWayland/protocols/wlr-foreign-toplevel-management-unstable-v1.xml"),
                root.appendingPathComponent("Tests/Fixtures/wayland/wlr-virtual-pointer-unstable-v1.xml"),
            ]
            var sources = [root.appendingPathComponent("Tests/Fixtures/wayland/wlroots-test-client.c").path]
            for xml in xmls {
                let name = xml.deletingPathExtension().lastPathComponent
                for (kind, output) in [("client-header", "\(name)-client-protocol.h"), ("private-code", "\(name)-protocol.c")] {
                    let path = directory.appendingPathComponent(output).path
                    try run(scanner, [kind, xml.path, path])
                    if kind == "private-code" { sources.append(path) }
                }
            }
            return try compile(sources, to: "wlroots-test-client", in: directory, library: "wayland-client")
        }

        /// `gcc` of `sources` into `directory`, linked with `library`; the program's path.
        static func compile(_ sources: [String], to name: String, in directory: URL, library: String) throws -> String {
            let gcc = try PopGestureCtlDaemonTests.tool("gcc", package: "gcc")
            let binary = directory.appendingPathComponent(name).path
            try run(gcc, ["-o", binary, "-I", directory.path] + sources + ["-l\(library)"])
            return binary
        }

        /// Runs `tool` to its end; its output, or a failure with it.
        @discardableResult
        static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            if let environment { process.environment = environment }
            let out = Pipe()
            process.standardOutput = out
            process.standardError = out
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw Failed("\(tool) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
            }
            return text
        }

        /// A foot window with this app id, once phoc lists it.
        func openWindow(appID: String) throws {
            let window = Process()
            window.executableURL = URL(fileURLWithPath: footPath)
            window.arguments = ["--app-id", appID]
            window.environment = clientEnvironment
            window.standardInput = FileHandle.nullDevice
            window.standardOutput = try Self.logFile("foot-\(appID)", in: directory)
            window.standardError = window.standardOutput
            try window.run()
            windows[appID] = window
            guard PopGestureCtlDaemonTests.within(seconds: 20, {
                (try? Self.run(helper, ["exists", appID], environment: clientEnvironment)) != nil || !window.isRunning
            }), window.isRunning else {
                let footLog = (try? String(contentsOf: directory.appendingPathComponent("foot-\(appID).log"), encoding: .utf8)) ?? ""
                throw Failed("foot --app-id \(appID) did not show:\n\(footLog)\n\(log)")
            }
        }

        /// Closes `appID`'s window (its foot ends), once phoc no longer lists it.
        func closeWindow(appID: String) throws {
            guard let window = windows.removeValue(forKey: appID) else { return }
            kill(window.processIdentifier, SIGKILL)
            PopGestureCtlDaemonTests.waitForExit(window, seconds: 5)
            guard PopGestureCtlDaemonTests.within(seconds: 10, {
                (try? Self.run(helper, ["exists", appID], environment: clientEnvironment)) == nil
            }) else { throw Failed("phoc still lists \(appID) after its foot ended") }
        }

        /// Activates `appID`'s window through the foreign-toplevel protocol.
        func activate(_ appID: String) throws {
            try Self.run(helper, ["activate", appID], environment: clientEnvironment)
        }

        /// `wlr-randr --output HEADLESS-1 --transform VALUE`.
        func transform(_ value: String) throws {
            try Self.run(wlrRandr, ["--output", "HEADLESS-1", "--transform", value], environment: clientEnvironment)
        }

        func stop() {
            // The test runner blocks SIGTERM for its children; SIGKILL reaches them.
            for window in windows.values where window.isRunning { kill(window.processIdentifier, SIGKILL) }
            try? seatInput.fileHandleForWriting.close()
            if seat.isRunning { kill(seat.processIdentifier, SIGKILL) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            PopGestureCtlDaemonTests.waitForExit(process, seconds: 5)
        }

        private static func logFile(_ name: String, in directory: URL) throws -> FileHandle {
            let url = directory.appendingPathComponent("\(name).log")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return try FileHandle(forWritingTo: url)
        }

        deinit {
            stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A stand-in for popgestured on a socket of its own: it takes the bridge's connection,
    /// reads its lines one by one and answers what the test says, so the test sees every line.
    final class StandInDaemon {
        let path: String
        private let listener: FileDescriptor
        private var peer: FileDescriptor?
        private var buffer: [UInt8] = []

        init(in directory: URL) throws {
            path = directory.appendingPathComponent("stand-in.sock").path
            listener = try FileDescriptor.unixStreamSocket()
            try listener.bind(to: UnixSocketAddress(path: path))
            guard listen(listener.rawValue, 1) == 0 else { throw Failed("listen failed") }
        }

        /// Takes the next connection, within 10 s.
        func accept() throws {
            var waiting = pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 10_000) == 1 else { throw Failed("the bridge did not connect") }
            peer = FileDescriptor(rawValue: Glibc.accept(listener.rawValue, nil, nil))
            buffer = []
        }

        /// The next line from the bridge, within `seconds`; nil when none came.
        func line(seconds: Int32 = 15) throws -> String? {
            guard let peer else { return nil }
            while true {
                if let newline = buffer.firstIndex(of: 10) {
                    defer { buffer.removeSubrange(...newline) }
                    return String(decoding: buffer[..<newline], as: UTF8.self)
                }
                var readable = pollfd(fd: peer.rawValue, events: Int16(POLLIN), revents: 0)
                guard poll(&readable, 1, seconds * 1000) == 1 else { return nil }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = try chunk.withUnsafeMutableBytes { try peer.read(into: $0) }
                guard count > 0 else { return nil }
                buffer += chunk[..<count]
            }
        }

        /// The next request from the bridge, decoded.
        func request() throws -> IdentifiedRequest {
            guard let line = try line() else { throw Failed("the bridge sent nothing more") }
            return try RequestCodec.decode(line)
        }

        /// Reads the hello and answers it as popgestured does.
        func greet() throws -> ClientRequest {
            let hello = try request()
            try send(MessageCodec.encode(.hello(version: 1, server: "popgestured", client: 3), id: hello.id))
            return hello.request
        }

        func send(_ line: String) throws {
            _ = try peer?.writeAll(Array((line + "\n").utf8))
        }

        /// Ends the connection, as a daemon that stops does.
        func hangUp() {
            try? peer?.close()
            peer = nil
        }

        deinit {
            hangUp()
            try? listener.close()
        }
    }

    static let one = ClientRequest.focusedWindow(app: "One", pid: nil)
    static let two = ClientRequest.focusedWindow(app: "Two", pid: nil)
    /// phoc's one headless output, turned `degrees`: it has no physical size and is not built in.
    static func outputs(_ degrees: Int64) -> ClientRequest { .outputs([ClientRequest.Output(name: "HEADLESS-1", rotation: degrees)]) }

    @Test("the lines a daemon receives: the focused window and the outputs at hello, each change in order, both again after a reconnect",
          .timeLimit(.minutes(2)))
    func linesInOrder() throws {
        let phoc = try HeadlessPhoc()
        try phoc.openWindow(appID: "One")
        try phoc.openWindow(appID: "Two")  // mapped last, so phoc activates it
        let standIn = try StandInDaemon(in: phoc.directory)
        let bridge = try Background(
            ["bridge", "wlroots", "--verbose", "--wayland-display", phoc.display, "--socket", standIn.path],
            in: phoc.directory, name: "bridge")

        try standIn.accept()
        #expect(try standIn.greet() == .hello(versions: ProtocolVersion.supported, name: "popgesturectl bridge wlroots", role: .shell))
        // The window and the outputs known at start; which goes first depends on whether the
        // hello's answer or phoc's first lists reach the bridge first.
        let first = try Set([standIn.request().request, standIn.request().request])
        #expect(first == [Self.two, Self.outputs(0)], "\(bridge.err)")

        try phoc.activate("One")
        #expect(try standIn.request().request == Self.one, "phoc deactivates Two and activates One: one line\n\(bridge.err)")
        try phoc.activate("Two")
        #expect(try standIn.request().request == Self.two, "\(bridge.err)")
        try phoc.transform("90")
        #expect(try standIn.request().request == Self.outputs(90), "\(bridge.err)")
        try phoc.transform("270")
        #expect(try standIn.request().request == Self.outputs(270), "\(bridge.err)")
        try phoc.transform("flipped-180")
        #expect(try standIn.request().request == Self.outputs(180), "a mirrored output: its rotation part\n\(bridge.err)")
        #expect(bridge.waitForError(seconds: 5) { $0.contains("output HEADLESS-1 is mirrored (transform flipped-180)") }, "\(bridge.err)")
        try phoc.transform("normal")
        #expect(try standIn.request().request == Self.outputs(0), "\(bridge.err)")
        // A refusal is logged, not resent.
        let refusal = MessageCodec.encode(
            .error(ProtocolError(.invalidField, "not yet", request: "outputs", id: .integer(99))), id: .integer(99))
        try standIn.send(refusal)
        #expect(bridge.waitForError(seconds: 5) { $0.contains("popgestured refused a request: invalid-field: not yet") }, "\(bridge.err)")

        // The daemon goes away and comes back: a new hello, then the window and outputs again.
        standIn.hangUp()
        try standIn.accept()
        #expect(try standIn.greet() == .hello(versions: ProtocolVersion.supported, name: "popgesturectl bridge wlroots", role: .shell))
        #expect(try standIn.request().request == Self.two, "\(bridge.err)")
        #expect(try standIn.request().request == Self.outputs(0), "\(bridge.err)")
        #expect(bridge.err.contains("focus: app One, pid unknown"), "--verbose logs each change: \(bridge.err)")
        #expect(bridge.err.contains("outputs: HEADLESS-1 90°"), "\(bridge.err)")
        #expect(!bridge.err.contains("focus: no window"), "never \"no window\" between two windows: \(bridge.err)")

        // phoc exits, as at logout: the bridge ends with 0 and says so.
        phoc.stop()
        PopGestureCtlDaemonTests.waitForExit(bridge.process, seconds: 10)
        #expect(bridge.process.terminationStatus == 0, "\(bridge.err)")
        #expect(bridge.err.contains("popgesturectl bridge wlroots: the Wayland compositor at \(phoc.display) went away; done"),
                "\(bridge.err)")
    }

    @Test("the real daemon's status follows phoc's focus, with the app id and no pid, and after a restart",
          .timeLimit(.minutes(2)))
    func daemonFollowsFocus() throws {
        let phoc = try HeadlessPhoc()
        try phoc.openWindow(appID: "One")
        try phoc.openWindow(appID: "Two")
        let daemon = try Daemon()
        let bridge = try Background(
            ["bridge", "wlroots", "--wayland-display", phoc.display, "--socket", daemon.socket],
            in: daemon.directory, name: "bridge")
        var reply = try X11BridgeTests.waitForStatus(daemon.socket) { X11BridgeTests.focus($0).app == "Two" }
        #expect(X11BridgeTests.focus(reply).source == "shell", "\(reply)\n\(bridge.err)")
        #expect(X11BridgeTests.focus(reply).app == "Two", "\(reply)\n\(bridge.err)")
        #expect(X11BridgeTests.focus(reply).pid == nil, "the protocol has no pid: \(reply)")

        try phoc.activate("One")
        reply = try X11BridgeTests.waitForStatus(daemon.socket) { X11BridgeTests.focus($0).app == "One" }
        #expect(X11BridgeTests.focus(reply).app == "One", "\(reply)\n\(bridge.err)")

        daemon.stop()
        let restarted = try Daemon(["run"], in: daemon.directory)
        reply = try X11BridgeTests.waitForStatus(restarted.socket) { X11BridgeTests.focus($0).app == "One" }
        #expect(X11BridgeTests.focus(reply).source == "shell", "after the restart: \(reply)\n\(bridge.err)")
        #expect(X11BridgeTests.focus(reply).app == "One", "after the restart: \(reply)\n\(bridge.err)")
        #expect(bridge.err.contains("popgestured closed the connection; connecting again"), "\(bridge.err)")
        #expect(!bridge.err.contains("refused"), "the daemon takes the outputs: \(bridge.err)")
        #expect(bridge.interrupt() == 0, "\(bridge.err)")
    }

    @Test("bridge auto in a Phosh session runs the wlroots bridge", .timeLimit(.minutes(1)))
    func autoInPhosh() throws {
        let phoc = try HeadlessPhoc()
        try phoc.openWindow(appID: "One")
        let daemon = try Daemon()
        let bridge = try Background(
            ["bridge", "auto", "--socket", daemon.socket], in: daemon.directory, name: "bridge",
            environment: AutoBridgeTests.noSession.merging([
                "XDG_CURRENT_DESKTOP": "Phosh:GNOME", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": phoc.display,
            ]) { $1 })
        let reply = try X11BridgeTests.waitForStatus(daemon.socket) { X11BridgeTests.focus($0).app == "One" }
        #expect(X11BridgeTests.focus(reply).app == "One", "\(reply)\n\(bridge.err)")
        #expect(bridge.err.hasPrefix("popgesturectl bridge auto: Phosh on Wayland: running bridge wlroots ("), "\(bridge.err)")
        let shell = (reply["clients"] as? [[String: Any]])?.first { $0["role"] as? String == "shell" || $0["name"] as? String == "popgesturectl bridge wlroots" }
        #expect(shell?["name"] as? String == "popgesturectl bridge wlroots", "\(reply)")
        #expect(bridge.interrupt() == 0)
    }

    @Test("past its bound the bridge lets a new window or output go, says so once, and follows a window again once one closes",
          .timeLimit(.minutes(1)))
    func bounds() throws {
        let phoc = try HeadlessPhoc()
        try phoc.openWindow(appID: "One")
        try phoc.openWindow(appID: "Two")
        let display = try WaylandDisplay(name: phoc.display, maximumToplevels: 1, maximumHeads: 0)
        let first = try display.dispatch()
        let apps = first.compactMap { if case .toplevelAppID(_, let app) = $0 { app } else { nil } }
        #expect(apps.count == 1, "one window followed: \(first)")
        #expect(!first.contains { if case .headName = $0 { true } else { false } }, "no output followed: \(first)")
        #expect(first.filter { if case .overflow = $0 { true } else { false } }.count == 1, "said once: \(first)")

        // The window followed closes; the next one opened is followed.
        try phoc.closeWindow(appID: apps.first ?? "One")
        try phoc.openWindow(appID: "Three")
        var seen: [WlrootsEvent] = []
        _ = PopGestureCtlDaemonTests.within(seconds: 10) {
            seen += (try? display.dispatch()) ?? []
            return seen.contains { if case .toplevelAppID(_, "Three") = $0 { true } else { false } }
        }
        #expect(seen.contains { if case .toplevelClosed = $0 { true } else { false } }, "\(seen)")
        #expect(seen.contains { if case .toplevelAppID(_, "Three") = $0 { true } else { false } }, "\(seen)")
        #expect(!seen.contains { if case .overflow = $0 { true } else { false } }, "said once only: \(seen)")
    }

    @Test("a Wayland compositor without wlr-foreign-toplevel-management: bridge wlroots exits 2, bridge auto 3, each saying so")
    func compositorWithoutTheProtocol() throws {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: try HeadlessPhoc.compile(
            [HeadlessPhoc.root.appendingPathComponent("Tests/Fixtures/wayland/bare-wayland-server.c").path],
            to: "bare-wayland-server", in: directory, library: "wayland-server"))
        server.arguments = ["wayland-bare"]
        server.environment = ["XDG_RUNTIME_DIR": directory.path]
        try server.run()
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        let socket = directory.appendingPathComponent("wayland-bare").path
        #expect(PopGestureCtlDaemonTests.within(seconds: 10) { FileManager.default.fileExists(atPath: socket) })

        let named = try PopGestureCtlCommandTests.run(
            ["bridge", "wlroots", "--wayland-display", socket, "--socket", "/nonexistent/x.sock"])
        #expect(named.status == 2, "\(named.err)")
        #expect(named.err.contains("the Wayland compositor at \(socket) does not offer zwlr_foreign_toplevel_manager_v1"),
                "\(named.err)")

        let auto = try PopGestureCtlCommandTests.run(
            ["bridge", "auto", "--socket", "/nonexistent/x.sock"],
            environment: AutoBridgeTests.noSession.merging(
                ["XDG_CURRENT_DESKTOP": "labwc:wlroots", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": socket]) { $1 })
        #expect(auto.status == 3, "\(auto.err)")
        #expect(auto.err.contains("labwc on Wayland: running bridge wlroots"), "\(auto.err)")
        #expect(auto.err.contains("popgesturectl: bridge auto: the Wayland compositor at \(socket) does not offer "
            + "zwlr_foreign_toplevel_manager_v1"), "\(auto.err)")
        #expect(auto.err.contains("apps report their own focus; see docs/BRIDGES.md (the session: "), "\(auto.err)")
    }

    @Test("no compositor: exit 2 with a message that names the display")
    func noCompositor() throws {
        let result = try PopGestureCtlCommandTests.run(
            ["bridge", "wlroots", "--wayland-display", "/nonexistent/wayland-9", "--socket", "/nonexistent/x.sock"])
        #expect(result.status == 2)
        #expect(result.err.contains("cannot connect to the Wayland display /nonexistent/wayland-9"), "\(result.err)")
    }
}
