import Foundation
import PopGestureProtocol
import Testing

#if canImport(Glibc)
import Glibc
import PopGestureSystem
import SystemPackage
#endif

/// What the KDE and GNOME bridges' tests share: a session bus of their own, GTK windows
/// with known app ids, and a stand-in daemon that records what the bridge sends.
enum DesktopSession {
    /// Makes /tmp/.X11-unix root's, mode 1777, as systemd-tmpfiles' x11.conf does at boot.
    /// mutter starts Xwayland only in a directory of root's or its own; the sway tests run
    /// their Xwayland as nobody, which makes the directory nobody's when it is not there
    /// yet. Only root can; for others it is left as it is.
    static func ensureX11SocketDirectory() {
        guard geteuid() == 0 else { return }
        let path = "/tmp/.X11-unix"
        if mkdir(path, 0o1777) != 0 && errno != EEXIST { return }
        _ = chown(path, 0, 0)
        _ = chmod(path, 0o1777)
    }


    /// A private session bus (a `dbus-daemon` of the session's kind, as `dbus-run-session`
    /// starts one), in a directory that is also the session's HOME and XDG_RUNTIME_DIR.
    /// It activates no services: nothing of the host's session (the accessibility bus,
    /// evolution's calendar) starts, or outlives the test.
    final class Bus {
        let directory: URL
        let address: String
        private let daemon = Process()
        private var children: [Process] = []

        init() throws {
            try DesktopSession.require("/usr/bin/python3", package: "python3")
            directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("popgestured-desktop-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let path = directory.appendingPathComponent("bus").path
            address = "unix:path=\(path)"
            let configuration = directory.appendingPathComponent("bus.conf")
            try Data("""
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <listen>\(address)</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow send_destination="*" eavesdrop="true"/>
                    <allow eavesdrop="true"/>
                    <allow own="*"/>
                  </policy>
                </busconfig>
                """.utf8).write(to: configuration)
            Self.unblockingSignals(daemon, try PopGestureCtlDaemonTests.tool("dbus-daemon", package: "dbus"),
                                   ["--config-file=\(configuration.path)", "--nofork", "--nopidfile"])
            daemon.environment = environment
            daemon.standardInput = FileHandle.nullDevice
            daemon.standardOutput = try log("dbus-daemon")
            daemon.standardError = daemon.standardOutput
            try daemon.run()
            guard PopGestureCtlDaemonTests.within(seconds: 10, { FileManager.default.fileExists(atPath: path) }) else {
                throw Failed("dbus-daemon did not make its socket")
            }
        }

        /// The session's environment: this bus, its own HOME and runtime directory.
        var environment: [String: String] {
            [
                "PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path,
                "DBUS_SESSION_BUS_ADDRESS": address, "LANG": "C.UTF-8",
            ]
        }

        /// A process of the session, its output in DIRECTORY/NAME.log; ended with the bus.
        @discardableResult
        func start(_ executable: String, _ arguments: [String], name: String, environment extra: [String: String] = [:]) throws -> Process {
            let process = Process()
            Self.unblockingSignals(process, executable, arguments)
            process.environment = environment.merging(extra) { $1 }
            process.currentDirectoryURL = directory
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try log(name)
            process.standardError = process.standardOutput
            try process.run()
            children.append(process)
            return process
        }

        /// Runs `executable` with no signal blocked. The test runner blocks signals for its
        /// children, SIGCHLD among them, and dbus-daemon and GLib's child watches wait for
        /// SIGCHLD: with it blocked they hang. Python's `pthread_sigmask` clears the mask
        /// before the exec.
        static func unblockingSignals(_ process: Process, _ executable: String, _ arguments: [String]) {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
                executable,
            ] + arguments
        }

        /// `gdbus call` on this bus; throws with gdbus's words when the call fails.
        @discardableResult
        func call(_ destination: String, _ path: String, _ method: String, _ arguments: [String] = []) throws -> String {
            let run = Process()
            run.executableURL = URL(fileURLWithPath: try PopGestureCtlDaemonTests.tool("gdbus", package: "libglib2.0-bin"))
            run.arguments = ["call", "--session", "--timeout", "10", "--dest", destination, "--object-path", path, "--method", method] + arguments
            run.environment = environment
            let out = Pipe()
            run.standardOutput = out
            run.standardError = out
            try run.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.waitUntilExit()
            guard run.terminationStatus == 0 else { throw Failed("gdbus call \(method) \(arguments): \(text)") }
            return text
        }

        /// Whether `name` has an owner on this bus.
        func hasOwner(_ name: String) -> Bool {
            (try? call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", [name]))?
                .contains("true") ?? false
        }

        func logText(_ name: String) -> String {
            (try? String(contentsOf: directory.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
        }

        private func log(_ name: String) throws -> FileHandle {
            let url = directory.appendingPathComponent("\(name).log")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return try FileHandle(forWritingTo: url)
        }

        deinit {
            // The test runner blocks SIGTERM for its children; SIGKILL reaches them.
            for child in children.reversed() where child.isRunning { kill(child.processIdentifier, SIGKILL) }
            for child in children { child.waitUntilExit() }
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A GTK 4 window whose Wayland app_id is `appID` (its GApplication id); returns its process.
    static func window(_ appID: String, on bus: Bus, display: String) throws -> Process {
        let python = "/usr/bin/python3"  // Debian's, which python3-gi serves
        let script = """
            import sys, gi
            gi.require_version("Gtk", "4.0")
            from gi.repository import Gtk
            app = Gtk.Application(application_id=sys.argv[1])
            app.connect("activate", lambda app: Gtk.ApplicationWindow(application=app, title=sys.argv[1]).present())
            app.run([])
            """
        return try bus.start(python, ["-c", script, appID], name: "window-\(appID)", environment: [
            "WAYLAND_DISPLAY": display, "GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1",
        ])
    }

    /// `path`, which `package` installs; without it, a cancelled test, or under CI a failed one.
    static func require(_ path: String, package: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let message = "\(path) is missing: apt-get install \(package) (scripts/setup does)"
        if ProcessInfo.processInfo.environment["CI"] != nil { throw Failed(message) }
        try Test.cancel(Comment(rawValue: message))
    }

    /// What the GTK windows need: Python's GObject bindings and GTK 4's introspection data.
    static func requireGTK() throws {
        try require("/usr/bin/python3", package: "python3")
        let typelibs = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        let found = typelibs.contains { FileManager.default.fileExists(atPath: "/usr/lib/\($0)/girepository-1.0/Gtk-4.0.typelib") }
        if !found { try require("/usr/lib/girepository-1.0/Gtk-4.0.typelib", package: "gir1.2-gtk-4.0") }
        try require("/usr/lib/python3/dist-packages/gi/__init__.py", package: "python3-gi")
    }

    /// A stand-in popgestured: answers the shell's hello as the daemon does and records
    /// every request after it, in order. The real daemon refuses `rotation` until its side
    /// of issue 20 lands, and its `status` shows the focus but not the requests' order.
    final class Recorder {
        let path: String
        private let state = State()

        /// What the serving thread shares with the test; the thread holds it, not the
        /// recorder, so the recorder may go while the thread still reads.
        final class State: @unchecked Sendable {
            let lock = NSLock()
            var received: [ClientRequest] = []
            /// The listening socket and the connection being read, for the recorder to shut down.
            var listener: Int32 = -1
            var peer: Int32 = -1
        }

        init(in directory: URL) throws {
            path = directory.appendingPathComponent("recorder.sock").path
            let listener = try FileDescriptor.unixStreamSocket()
            try listener.bind(to: UnixSocketAddress(path: path))
            guard listen(listener.rawValue, 4) == 0 else { throw Failed("listen: \(Errno(rawValue: errno))") }
            state.listener = listener.rawValue
            Thread { [state] in Self.serve(state) }.start()
        }

        /// The requests after hello, in the order the bridge sent them.
        var requests: [ClientRequest] { state.lock.withLock { state.received } }

        /// The focused-window requests, in order, as (app, pid).
        var focusLines: [(app: String?, pid: Int64?)] {
            requests.compactMap { if case .focusedWindow(let app, let pid) = $0 { (app, pid) } else { nil } }
        }

        /// The outputs requests, in order.
        var outputLists: [[ClientRequest.Output]] {
            requests.compactMap { if case .outputs(let list) = $0 { list } else { nil } }
        }

        var rotations: [(degrees: Int64, output: String?)] {
            requests.compactMap { if case .rotation(let degrees, let output) = $0 { (degrees, output) } else { nil } }
        }

        /// Until the last focused-window is `app` with `pid`, or the time is up.
        func waitForFocus(_ app: String?, pid: Int32?, seconds: Double = 20) -> Bool {
            PopGestureCtlDaemonTests.within(seconds: seconds) {
                guard let last = focusLines.last else { return false }
                return last.app == app && last.pid == pid.map(Int64.init)
            }
        }

        /// Accepts one connection at a time; closes each descriptor itself, so that none is
        /// used after it was closed (and its number given to another test's socket).
        private static func serve(_ state: State) {
            while true {
                let peer = accept(state.listener, nil, nil)
                guard peer >= 0 else { break }  // shut down: the test is over
                state.lock.withLock { state.peer = peer }
                var pending: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(peer, &chunk, chunk.count)
                    guard count > 0 else { break }
                    pending += chunk[..<count]
                    while let newline = pending.firstIndex(of: 10) {
                        let line = String(decoding: pending[..<newline], as: UTF8.self)
                        pending.removeSubrange(...newline)
                        guard let request = try? RequestCodec.decode(line) else { continue }
                        if case .hello = request.request {
                            let reply = Array((MessageCodec.encode(.hello(version: 1, server: "recorder", client: 1), id: request.id) + "\n").utf8)
                            _ = write(peer, reply, reply.count)
                        } else {
                            state.lock.withLock { state.received.append(request.request) }
                        }
                    }
                }
                state.lock.withLock { state.peer = -1 }
                close(peer)
            }
            close(state.listener)
        }

        deinit {
            state.lock.withLock {
                shutdown(state.listener, Int32(SHUT_RDWR))
                if state.peer >= 0 { shutdown(state.peer, Int32(SHUT_RDWR)) }
            }
        }
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
