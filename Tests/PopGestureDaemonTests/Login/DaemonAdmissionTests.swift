import Foundation
import PopGestureDaemon
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `popgestured run`: who gets in under `clients`, and the open-files limit
/// it raises at start. Peers of another uid are made with setpriv (the tests run as root).
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct DaemonAdmissionTests {
    static let setpriv = "/usr/bin/setpriv"
    static let python = "/usr/bin/python3"
    /// `nobody`: no seat, not root, not the daemon's user.
    static let outsider: UInt32 = 65534
    static var canSwitchUser: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
            && FileManager.default.isExecutableFile(atPath: python)
    }

    /// `popgestured run` on a socket in a fresh directory that every user can
    /// search, with `configuration` as its file; `prefix` runs before it (prlimit).
    final class Daemon {
        let directory: URL
        let socket: String
        let configurationFile: URL
        let process = Process()
        var log: String { (try? String(contentsOf: directory.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? "" }

        /// Whether the log holds `text` within 10 s: the daemon's log writer is a thread
        /// of its own, so a line logged before the socket answered may land after.
        func logContains(_ text: String) -> Bool {
            PopGestureCtlDaemonTests.within(seconds: 10) { log.contains(text) }
        }

        init(configuration: String, prefix: [String] = []) throws {
            directory = try PopGestureCtlCommandTests.temporaryDirectory()
            chmod(directory.path, 0o755)
            socket = directory.appendingPathComponent("d.sock").path
            let file = directory.appendingPathComponent("popgestured.conf")
            configurationFile = file
            try Data(configuration.utf8).write(to: file)
            let logFile = directory.appendingPathComponent("daemon.log")
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
            let command = prefix + [PopGestureCtlDaemon.binary, "run", "--socket", socket, "--config", file.path]
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: logFile)
            process.standardError = process.standardOutput
            try process.run()
            let deadline = Date().addingTimeInterval(15)
            while !PopGestureCtlDaemonTests.connects(to: socket) {
                guard process.isRunning, Date() < deadline else {
                    throw PopGestureCtlDaemonTests.DaemonDidNotStart(log: log)
                }
                usleep(20_000)
            }
        }

        /// Rewrites the file, sends SIGHUP, and waits until the log says it was reloaded.
        func reload(_ configuration: String) throws -> Bool {
            try Data(configuration.utf8).write(to: configurationFile)
            kill(process.processIdentifier, SIGHUP)
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if log.contains("configuration reloaded") { return true }
                usleep(20_000)
            }
            return false
        }

        deinit {
            if process.isRunning { process.terminate() }
            PopGestureCtlDaemonTests.waitForExit(process, seconds: 10)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Connects as `uid` (nil: as the test, root), says hello, and returns the first
    /// line the daemon sends: its `hello` reply, or the refusal.
    static func firstLine(from socket: String, as uid: UInt32?) throws -> String {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            s.connect(sys.argv[1])
            try:
                s.sendall(b'{"type":"hello","version":1,"name":"outsider"}\\n')
            except OSError:
                pass  # refused and closed already: the refusal is still there to read
            data = b""
            while b"\\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            print(data.split(b"\\n")[0].decode())
            """
        let process = Process()
        let asUser = uid.map { ["--reuid=\($0)", "--regid=\($0)", "--clear-groups"] }
        process.executableURL = URL(fileURLWithPath: asUser == nil ? python : setpriv)
        process.arguments = (asUser.map { $0 + [python] } ?? []) + ["-c", script, socket]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .newlines)
            + (process.terminationStatus == 0 ? "" : " [client failed: \(String(decoding: errors, as: UTF8.self))]")
    }

    /// Needs the server to enforce the policy (helper B's `admission` in SocketServer).
    @Test("clients = seat: uid 65534, on no seat, gets not-permitted", .enabled(if: canSwitchUser, "needs root, setpriv and /usr/bin/python3"))
    func anOutsiderIsRefused() throws {
        let daemon = try Daemon(configuration: "clients = seat\n")
        let line = try Self.firstLine(from: daemon.socket, as: Self.outsider)
        #expect(line.contains(#""type":"error""#) && line.contains(#""code":"not-permitted""#), "\(line)\n\(daemon.log)")
        #expect(!line.contains(#""type":"hello""#))
    }

    @Test("clients = seat: root is admitted", .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: python), "needs root and /usr/bin/python3"))
    func rootIsAdmitted() throws {
        let daemon = try Daemon(configuration: "clients = seat\n")
        let line = try Self.firstLine(from: daemon.socket, as: nil)
        #expect(line.hasPrefix(#"{"type":"hello","version":1,"server":"popgestured""#), "\(line)\n\(daemon.log)")
        if SeatUsers.current().seats.isEmpty {
            #expect(daemon.logContains("clients = seat, but logind lists no seats: only root and uid 0 may connect"))
        }
    }

    @Test("clients = any: uid 65534 is admitted", .enabled(if: canSwitchUser, "needs root, setpriv and /usr/bin/python3"))
    func anyAdmitsAnOutsider() throws {
        let daemon = try Daemon(configuration: "clients = any\n")
        let line = try Self.firstLine(from: daemon.socket, as: Self.outsider)
        #expect(line.hasPrefix(#"{"type":"hello","version":1,"server":"popgestured""#), "\(line)\n\(daemon.log)")
        #expect(daemon.logContains("clients = any: every local user who can reach the socket may connect"))
    }

    /// logind's files as a seat whose active session belongs to `uid`, for the daemon
    /// alone: a tmpfs over /run/systemd/seats in a mount namespace of its own.
    static func onASeat(activeUID uid: UInt32) -> [String] {
        let script = #"mount -t tmpfs tmpfs /run/systemd/seats && printf 'ACTIVE=c1\nACTIVE_UID=%s\n' "$1" >/run/systemd/seats/seat0 && shift && exec "$@""#
        return ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", "\(uid)"]
    }

    static var canFakeASeat: Bool {
        canSwitchUser && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
            && FileManager.default.fileExists(atPath: "/run/systemd/seats")
    }

    /// The refusal of uid 65533 needs the server to enforce the policy (helper B's).
    @Test("clients = seat: the seat's active user (65534 here) is admitted, another uid is not", .enabled(if: canFakeASeat, "needs root, setpriv, unshare and /run/systemd/seats"))
    func theSeatsActiveUserIsAdmitted() throws {
        let daemon = try Daemon(configuration: "clients = seat\n", prefix: Self.onASeat(activeUID: Self.outsider))
        #expect(daemon.logContains("(1 seat(s), active now: uid 65534)"), "\(daemon.log)")
        let line = try Self.firstLine(from: daemon.socket, as: Self.outsider)
        #expect(line.hasPrefix(#"{"type":"hello","version":1,"server":"popgestured""#), "\(line)\n\(daemon.log)")
        let other = try Self.firstLine(from: daemon.socket, as: Self.outsider - 1)
        #expect(other.contains(#""code":"not-permitted""#), "\(other)\n\(daemon.log)")
    }

    /// The refusal after the reload needs the server to enforce the policy (helper B's).
    @Test("a reload from clients = any to seat refuses uid 65534 from the next connection", .enabled(if: canSwitchUser, "needs root, setpriv and /usr/bin/python3"))
    func aReloadChangesWhoMayConnect() throws {
        let daemon = try Daemon(configuration: "clients = any\n")
        #expect(try Self.firstLine(from: daemon.socket, as: Self.outsider).hasPrefix(#"{"type":"hello""#))
        #expect(try daemon.reload("clients = seat\n"), "\(daemon.log)")
        #expect(daemon.logContains("configuration reloaded; changed: clients"))
        #expect(daemon.logContains("clients = seat"))
        let line = try Self.firstLine(from: daemon.socket, as: Self.outsider)
        #expect(line.contains(#""code":"not-permitted""#), "\(line)\n\(daemon.log)")
        #expect(try Self.firstLine(from: daemon.socket, as: nil).hasPrefix(#"{"type":"hello""#))
    }

    @Test("a soft limit of 512 on open files is raised to 4096 at start", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux)"))
    func theOpenFilesLimitIsRaised() throws {
        let daemon = try Daemon(configuration: "", prefix: ["/usr/bin/prlimit", "--nofile=512:8192", "--"])
        let limits = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/limits", encoding: .utf8)
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
        #expect(openFiles?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["4096", "8192"], "\(limits)")
        #expect(daemon.logContains("open files: soft limit raised from 512 to 4096 (hard 8192)"), "\(daemon.log)")
    }
}
