import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import PopGestureSystem
import SystemPackage
#endif

/// `popgesturectl` as a user runs it: the real binary, its messages and exit codes.
@Suite struct PopGestureCtlCommandTests {
    /// The binary sits beside the test bundle in the build folder.
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("popgesturectl").path
    }

    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: String = "")
        throws -> (status: Int32, out: String, err: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged["POPGESTURED_SOCKET"] = nil  // the developer's own daemon must not leak in
        merged.merge(environment) { $1 }
        process.environment = merged
        let input = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// A fresh directory for sockets; Unix socket paths must stay short.
    static func temporaryDirectory() throws -> URL {
        let url = URL(fileURLWithPath: "/tmp").appendingPathComponent("popgesturectl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("no daemon: exit 2, and the message says where it looked and what to check",
          arguments: ["status", "monitor", "demo", "session", "stack main", "push main home detail"])
    func noDaemon(command: String) throws {
        let result = try Self.run(command.split(separator: " ").map(String.init) + ["--socket", "/nonexistent/popgestured.sock"])
        #expect(result.status == 2)
        #expect(result.err == """
            popgesturectl: cannot connect to /nonexistent/popgestured.sock: No such file or directory \
            — is popgestured running? (systemctl status popgestured.socket)

            """)
        #expect(result.out.isEmpty)
    }

    @Test("$POPGESTURED_SOCKET is used without --socket, and --socket wins over it")
    func environmentVariable() throws {
        let fromEnvironment = try Self.run(["status"], environment: ["POPGESTURED_SOCKET": "/nonexistent/env.sock"])
        #expect(fromEnvironment.status == 2)
        #expect(fromEnvironment.err.contains("cannot connect to /nonexistent/env.sock: "))
        let fromOption = try Self.run(["status", "--socket", "/nonexistent/option.sock"],
                                      environment: ["POPGESTURED_SOCKET": "/nonexistent/env.sock"])
        #expect(fromOption.err.contains("cannot connect to /nonexistent/option.sock: "))
    }

    @Test("a socket nobody listens on: connection refused, exit 2")
    func refused() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("dead.sock").path
        // Bound but never listening: what a crashed daemon leaves behind.
        let descriptor = try FileDescriptor.unixStreamSocket()
        defer { try? descriptor.close() }
        try descriptor.bind(to: UnixSocketAddress(path: path))

        let result = try Self.run(["status", "--socket", path])
        #expect(result.status == 2)
        #expect(result.err.contains("cannot connect to \(path): Connection refused — is popgestured running?"))
    }

    @Test("a path too long for a Unix socket is refused before connecting")
    func longPath() throws {
        let path = "/tmp/" + String(repeating: "x", count: 120)
        let result = try Self.run(["status", "--socket", path])
        #expect(result.status == 2)
        #expect(result.err.contains("a Unix socket path must be 1 to 107 bytes long"))
    }

    @Test("usage errors exit 2", arguments: [["push", "main"], ["stack"], ["session", "--bogus"], ["frobnicate"]])
    func usage(arguments: [String]) throws {
        let result = try Self.run(arguments + ["--socket", "/nonexistent/popgestured.sock"])
        #expect(result.status == 2, "\(arguments): \(result.err)")
        #expect(!result.err.contains("cannot connect"))
    }

    @Test("standalone pop and front explain that a session owns navigators")
    func popOutsideSession() throws {
        for command in ["pop", "front"] {
            let result = try Self.run([command, "main"])
            #expect(result.status == 2)
            #expect(result.err.contains("popgesturectl session"))
        }
    }

    @Test("--help lists the commands and the exit codes")
    func help() throws {
        let result = try Self.run(["--help"])
        #expect(result.status == 0)
        for word in ["monitor", "status", "stack", "push", "session", "demo", "POPGESTURED_SOCKET", "Exit status"] {
            #expect(result.out.contains(word), "--help does not mention \(word)")
        }
    }
}
