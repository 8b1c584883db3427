import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import PopGestureSystem
import SystemPackage
#endif

/// The daemon binary beside the test bundle (outside the suite: its trait needs it).
enum PopGestureCtlDaemon {
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("popgestured").path
    }
    /// `popgestured-demo`, built beside it.
    static var demoBinary: String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("popgestured-demo").path
    }
    static var built: Bool { FileManager.default.isExecutableFile(atPath: binary) }
}

/// popgesturectl against the real daemon, `popgestured run --socket` on a temporary
/// socket, and against `popgestured-demo`, whose virtual touchscreen makes real swipes.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct PopGestureCtlDaemonTests {
    static var daemonBinary: String { PopGestureCtlDaemon.binary }

    /// A daemon of our own: its own socket and an empty configuration, its log in a file.
    final class Daemon {
        let directory: URL
        let socket: String
        let process = Process()
        var log: String { (try? String(contentsOf: directory.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? "" }

        /// Whether the log holds `text` within 10 s: the daemon's log writer is a thread
        /// of its own, so a line logged before the socket answered may land after.
        func logContains(_ text: String) -> Bool {
            PopGestureCtlDaemonTests.within(seconds: 10) { log.contains(text) }
        }

        /// `popgestured run` by default; `demo` first runs `popgestured-demo` with the rest,
        /// which plays generated swipes on a virtual touchscreen.
        /// `directory`: an earlier daemon's, to restart on its socket.
        /// `environment`: variables set over the test's own.
        init(_ arguments: [String] = ["run"], in directory: URL? = nil, environment: [String: String] = [:]) throws {
            self.directory = try directory ?? PopGestureCtlCommandTests.temporaryDirectory()
            socket = self.directory.appendingPathComponent("d.sock").path
            let configuration = self.directory.appendingPathComponent("empty.conf")
            try Data().write(to: configuration)
            let logFile = self.directory.appendingPathComponent("daemon.log")
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
            let demo = arguments.first == "demo"
            process.executableURL = URL(fileURLWithPath: demo ? PopGestureCtlDaemon.demoBinary : PopGestureCtlDaemonTests.daemonBinary)
            process.arguments = arguments.dropFirst(demo ? 1 : 0) + ["--socket", socket]
                + (arguments.first == "run" ? ["--config", configuration.path] : [])
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: logFile)
            process.standardError = process.standardOutput
            try process.run()
            try waitUntilListening()
        }

        /// Until a connect succeeds: the socket file appears before `listen`.
        private func waitUntilListening() throws {
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if PopGestureCtlDaemonTests.connects(to: socket) { return }
                guard process.isRunning else { break }
                usleep(20_000)
            }
            stop()
            throw DaemonDidNotStart(log: log)
        }

        func stop() {
            guard process.isRunning else { return }
            // SIGTERM is `run`'s clean stop. `demo` keeps default actions, which the test
            // runner's blocked signal mask (inherited) holds back; nothing of it needs saving.
            if process.arguments?.first == "run" {
                process.terminate()
            } else {
                kill(process.processIdentifier, SIGKILL)
            }
            PopGestureCtlDaemonTests.waitForExit(process, seconds: 10)
        }

        deinit {
            stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    struct DaemonDidNotStart: Error, CustomStringConvertible {
        var log: String
        var description: String { "popgestured did not start listening:\n\(log)" }
    }

    static func connects(to path: String) -> Bool {
        guard let address = try? UnixSocketAddress(path: path),
              let socket = try? FileDescriptor.connectedUnixSocket(to: address)
        else { return false }
        try? socket.close()
        return true
    }

    static func waitForExit(_ process: Process, seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The path of `name` on PATH; without it, a cancelled test, or under CI (`CI` set) a failed one.
    static func tool(_ name: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let message = "\(name) is not installed: apt-get install \(package) (scripts/setup does)"
        if ProcessInfo.processInfo.environment["CI"] != nil { throw MissingTool(description: message) }
        try Test.cancel(Comment(rawValue: message))
    }

    struct MissingTool: Error, CustomStringConvertible { var description: String }

    /// Whether `condition` holds within `seconds`, asked every 20 ms.
    static func within(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// popgesturectl in the background, its output in files so a full pipe cannot stall it.
    final class Background {
        let process = Process()
        let directory: URL
        let name: String

        /// `stdin`: a script to read, e.g. a session's commands; none by default.
        /// `environment`: variables set over the test's own.
        init(_ arguments: [String], in directory: URL, name: String, stdin: String? = nil,
             environment: [String: String] = [:]) throws {
            self.directory = directory
            self.name = name
            process.executableURL = URL(fileURLWithPath: PopGestureCtlCommandTests.binary)
            process.arguments = arguments
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.standardInput = FileHandle.nullDevice
            if let stdin {
                let url = directory.appendingPathComponent("\(name).in")
                try Data(stdin.utf8).write(to: url)
                process.standardInput = try FileHandle(forReadingFrom: url)
            }
            for (suffix, keyPath) in [("out", \Process.standardOutput), ("err", \Process.standardError)] as [(String, ReferenceWritableKeyPath<Process, Any?>)] {
                let url = directory.appendingPathComponent("\(name).\(suffix)")
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                process[keyPath: keyPath] = try FileHandle(forWritingTo: url)
            }
            try process.run()
        }

        var out: String { (try? String(contentsOf: directory.appendingPathComponent("\(name).out"), encoding: .utf8)) ?? "" }
        var err: String { (try? String(contentsOf: directory.appendingPathComponent("\(name).err"), encoding: .utf8)) ?? "" }

        /// Until `condition` holds for the output so far, or the time is up.
        func waitForOutput(seconds: Double, _ condition: (String) -> Bool) -> Bool {
            PopGestureCtlDaemonTests.within(seconds: seconds) { condition(out) }
        }

        /// Until `condition` holds for stderr so far, or the time is up.
        func waitForError(seconds: Double, _ condition: (String) -> Bool) -> Bool {
            PopGestureCtlDaemonTests.within(seconds: seconds) { condition(err) }
        }

        func interrupt() -> Int32 {
            kill(process.processIdentifier, SIGINT)
            PopGestureCtlDaemonTests.waitForExit(process, seconds: 10)
            return process.terminationStatus
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    @Test("status lists the daemon's clients, itself included; --json gives the reply")
    func status() throws {
        let daemon = try Daemon()
        let result = try PopGestureCtlCommandTests.run(["status", "--socket", daemon.socket])
        #expect(result.status == 0, "\(result.err)\n\(daemon.log)")
        #expect(result.out.contains("CLIENT  NAME"))
        #expect(result.out.contains("popgesturectl status"))
        #expect(result.out.contains("DEVICE  KIND") || result.out.contains("no devices"))

        let json = try PopGestureCtlCommandTests.run(["status", "--json"], environment: ["POPGESTURED_SOCKET": daemon.socket])
        #expect(json.status == 0)
        let reply = try #require(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(reply["type"] as? String == "status")
    }

    @Test("a session creates, pushes, pops and reads its stack; an error reply ends it with 1")
    func session() throws {
        let daemon = try Daemon()
        let script = """
            # comments and blank lines are fine

            create main home detail
            push main more --animated
            settle main
            stack main
            pop main
            stack main
            pop nope
            status
            """
        let result = try PopGestureCtlCommandTests.run(["session", "--socket", daemon.socket], stdin: script)
        #expect(result.status == 1, "\(result.err)\n\(daemon.log)")
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("          hello          client ") == true)
        #expect(lines.contains("          ok             create main home detail"))
        #expect(lines.contains { $0.hasPrefix("          stack          main  home → detail → more  (client ") })
        #expect(lines.contains { $0.hasPrefix("          stack          main  home → detail  (client ") })
        #expect(lines.contains { $0.hasPrefix("          error          pop nope  unknown-navigator") })
        #expect(!lines.contains { $0.hasPrefix("NAVIGATOR") }, "the session went on after the error")
        #expect(result.err.contains("line 9: pop nope: unknown-navigator"))

        let goingOn = try PopGestureCtlCommandTests.run(["session", "--keep-going", "--socket", daemon.socket], stdin: script)
        #expect(goingOn.status == 1)
        #expect(goingOn.out.contains("NAVIGATOR  OWNER"), "--keep-going ran status after the error")
    }

    @Test("push stands in for an app: others can look, only it can change, and its navigator leaves with it")
    func standalonePush() throws {
        let daemon = try Daemon()
        let app = try Background(["push", "main", "home", "detail", "--socket", daemon.socket], in: daemon.directory, name: "app")
        #expect(app.waitForOutput(seconds: 10) { $0.contains("ok             create main home detail") }, "\(app.err)")

        let stack = try PopGestureCtlCommandTests.run(["stack", "main", "--socket", daemon.socket])
        #expect(stack.status == 0)
        #expect(stack.out == "home\ndetail\n")

        let intruder = try PopGestureCtlCommandTests.run(["session", "--socket", daemon.socket], stdin: "pop main\n")
        #expect(intruder.status == 1)
        #expect(intruder.err.contains("not-owner"))

        #expect(app.interrupt() == 0)
        let gone = try PopGestureCtlCommandTests.run(["stack", "main", "--socket", daemon.socket])
        #expect(gone.status == 1)
        #expect(gone.err.contains("unknown-navigator"))
    }

    @Test("monitor prints what observers get, and ends with 0 and a message when the daemon stops")
    func monitorUntilTheDaemonStops() throws {
        let daemon = try Daemon()
        let monitor = try Background(["monitor", "--json", "--socket", daemon.socket], in: daemon.directory, name: "monitor")
        // The observer is in place once status shows it.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let status = try PopGestureCtlCommandTests.run(["status", "--json", "--socket", daemon.socket])
            if status.out.contains(#""observer":true"#) { break }
            usleep(20_000)
        }
        let session = try PopGestureCtlCommandTests.run(["session", "--socket", daemon.socket], stdin: "create main home detail\n")
        #expect(session.status == 0, "\(session.err)")
        #expect(monitor.waitForOutput(seconds: 10) { $0.contains(#"{"type":"bar","navigator":"main","page":"detail","hidden":false}"#) },
                "monitor got: \(monitor.out)")

        daemon.stop()
        PopGestureCtlDaemonTests.waitForExit(monitor.process, seconds: 10)
        #expect(monitor.process.terminationStatus == 0)
        #expect(monitor.err.contains("popgestured closed the connection"))
    }

    /// `popgestured-demo` on its virtual touchscreen, or a cancelled test when a real
    /// touchscreen is present (then the demo waits for a finger).
    static func demoWithGeneratedSwipes(in directory: URL? = nil) throws -> Daemon {
        let daemon = try Daemon(["demo", "--rounds", "0"], in: directory)
        // The demo plays gestures only on its virtual touchscreen, made when no real one exists.
        var devices = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !devices.contains("\"path\":\"") {
            devices = try PopGestureCtlCommandTests.run(["status", "--json", "--socket", daemon.socket]).out
            usleep(20_000)
        }
        if devices.contains("\"kind\":\"touchscreen\""), !devices.contains("\"path\":\"(virtual)\"") {
            try Test.cancel("a real touchscreen is present, so popgestured-demo waits for a finger")
        }
        return daemon
    }

    /// `popgestured-demo` plays generated gestures in real time; a navigator created
    /// after its own is in front, so the committed swipe among them pops ours.
    @Test("a session's wait back returns when a real swipe pops its page", .timeLimit(.minutes(1)))
    func waitBack() throws {
        let daemon = try Self.demoWithGeneratedSwipes()
        let script = "create main home detail\nwait back main --timeout 40\nstack main\n"
        let result = try PopGestureCtlCommandTests.run(["session", "--socket", daemon.socket], stdin: script)
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasSuffix("back           main  detail → home") }, "\(result.out)")
        #expect(lines.last?.hasPrefix("          stack          main  home  (client ") == true)
    }

    /// The documented Python client, as the VM test runs it: its output line is a contract.
    @Test("examples/client.py --once prints the back it receives", .timeLimit(.minutes(1)))
    func examplePythonClient() throws {
        let daemon = try Self.demoWithGeneratedSwipes()
        let example = Repository.path("examples/client.py")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", example, "--once"]
        python.environment = ["POPGESTURED_SOCKET": daemon.socket, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        python.standardOutput = out
        python.standardError = err
        try python.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        if python.terminationStatus == 127 { try Test.cancel("python3 is not installed") }
        #expect(python.terminationStatus == 0, "\(errors)")
        #expect(output == "back: detail -> home\n")
    }
}
