import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import PopGestureSystem
import SystemPackage
#endif

/// The daemon binary beside the test bundle, as PopGestureDaemonTests finds it (the test
/// target depends on `popgestured`, so it is built there).
enum BuiltDaemon {
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("popgestured").path
    }
    /// `popgestured-demo`, built beside it.
    static var demoBinary: String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("popgestured-demo").path
    }
    static var built: Bool { FileManager.default.isExecutableFile(atPath: binary) }
}

/// A real `popgestured` of our own on `<directory>/s.sock`: the plain daemon with an empty
/// configuration file, or `demo`; its output in a log file.
final class TestDaemon {
    let directory: URL
    let socket: String
    let arguments: [String]
    private(set) var process = Process()
    var log: String { (try? String(contentsOf: directory.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? "" }

    /// `arguments` before `--socket`: none for the plain daemon, `["demo", "--rounds", "0"]`
    /// for `popgestured-demo --rounds 0`'s generated swipes.
    init(_ arguments: [String] = []) throws {
        // Unix socket paths must stay short: not under $TMPDIR's depths.
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("pgclient-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socket = directory.appendingPathComponent("s.sock").path
        self.arguments = arguments
        try start()
    }

    /// Starts the daemon (again, after `stop()`) on the same socket.
    func start() throws {
        let configuration = directory.appendingPathComponent("empty.conf")
        try Data().write(to: configuration)
        let logFile = directory.appendingPathComponent("daemon.log")
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        process = Process()
        let demo = arguments.first == "demo"
        process.executableURL = URL(fileURLWithPath: demo ? BuiltDaemon.demoBinary : BuiltDaemon.binary)
        process.arguments = arguments.dropFirst(demo ? 1 : 0) + ["--socket", socket]
            + (arguments.isEmpty ? ["--config", configuration.path] : [])
        process.standardInput = FileHandle.nullDevice
        let output = try FileHandle(forWritingTo: logFile)
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try waitUntilListening()
    }

    /// Until a connect succeeds: the socket file appears before `listen`.
    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let address = try? UnixSocketAddress(path: socket),
               let probe = try? FileDescriptor.connectedUnixSocket(to: address)
            {
                try? probe.close()
                return
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        stop()
        throw DidNotStart(log: log)
    }

    /// SIGTERM, the plain daemon's clean stop. The demo keeps default actions, which the
    /// test runner's blocked signal mask (inherited) may hold back: it gets SIGKILL.
    func stop() {
        guard process.isRunning else { return }
        if arguments.isEmpty {
            process.terminate()
        } else {
            kill(process.processIdentifier, SIGKILL)
        }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    struct DidNotStart: Error, CustomStringConvertible {
        var log: String
        var description: String { "popgestured did not start listening:\n\(log)" }
    }
}
