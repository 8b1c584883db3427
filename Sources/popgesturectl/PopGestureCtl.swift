import ArgumentParser
import Glibc
import PopGestureClient

@main
struct PopGestureCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "popgesturectl",
        abstract: "Talk to popgestured: watch gestures, inspect navigators, script a client.",
        discussion: """
            The socket is --socket PATH, else $POPGESTURED_SOCKET, else \(PopGestureSocket.defaultPath).

            A navigator belongs to the connection that created it: only that connection \
            can change it, and it vanishes when that connection closes. So `push` stays \
            connected as the navigator's owner until Ctrl-C, and `session` runs several \
            commands over one connection, reading them from stdin.

            Exit status: 0 done, 1 the daemon answered a request with an error, 2 cannot \
            connect or bad usage, 3 `bridge auto` found no bridge for the session. Ctrl-C \
            (SIGINT) and SIGTERM end a waiting command with 0. See docs/POPGESTURECTL.md.
            """,
        subcommands: [
            Monitor.self, Status.self, Doctor.self, Stack.self, Push.self, Session.self, Demo.self,
            StandalonePop.self, StandaloneFront.self, Bridge.self,
        ])

    /// Runs the command; the exit codes above replace ArgumentParser's (64 for usage).
    static func main() {
        do {
            var command = try parseAsRoot(Self.movingLeadingSocket(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let failure as CtlFailure {
            standardError("popgesturectl: \(failure.message)")
            Glibc.exit(failure.exitCode.rawValue)
        } catch let interruption as Client.Interruption {
            switch interruption {
            case .stopped: Glibc.exit(ExitStatus.ok.rawValue)
            case .daemonClosed:
                standardError("popgesturectl: popgestured closed the connection")
                Glibc.exit(ExitStatus.cannotConnect.rawValue)
            }
        } catch let lost as ConnectionLost {
            standardError("popgesturectl: \(lost.description)")
            Glibc.exit(ExitStatus.cannotConnect.rawValue)
        } catch {
            if exitCode(for: error) == .validationFailure {
                standardError(fullMessage(for: error))
                Glibc.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

extension PopGestureCtl {
    /// `popgesturectl --socket PATH monitor` (as `popgestured-demo` suggests) becomes
    /// `monitor --socket PATH`: the option belongs to the subcommands.
    static func movingLeadingSocket(_ arguments: [String]) -> [String] {
        var rest = arguments[...]
        var socket: [String] = []
        while let first = rest.first {
            if first == "--socket", rest.count >= 2 {
                socket += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else if first.hasPrefix("--socket=") {
                socket.append(first)
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        return Array(rest) + socket
    }
}

/// popgesturectl's exit codes, the same for every command.
enum ExitStatus: Int32 {
    case ok = 0
    /// The daemon answered a request with an error.
    case errorReply = 1
    case cannotConnect = 2
    /// `bridge auto`: no bridge fits the session, so there is nothing to do (LSB's 3,
    /// "not implemented": systemd shows it as 3/NOTIMPLEMENTED).
    case noBridge = 3
    static let usage = ExitStatus.cannotConnect
}

/// A failure with its message and exit status; `main` prints it and exits.
struct CtlFailure: Error {
    var message: String
    var exitCode: ExitStatus

    init(_ message: String, exitCode: ExitStatus) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// Where the daemon is, shared by every command.
struct SocketOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The daemon's socket.", discussion: "Default: $POPGESTURED_SOCKET, else \(PopGestureSocket.defaultPath).",
        valueName: "path"))
    var socket: String?

    var resolvedPath: String {
        Self.resolve(option: socket, environment: getenv("POPGESTURED_SOCKET").map { String(cString: $0) })
    }

    /// `--socket`, else the environment variable when set and not empty, else the default.
    static func resolve(option: String?, environment: String?) -> String {
        PopGestureSocket.path(option: option, environment: environment)
    }
}

/// Writes one line to stdout at once: a monitor piped into another program must not
/// sit in a buffer. A closed pipe ends the process by SIGPIPE, as with `cat`.
func standardOutput(_ line: String) {
    writeAll(1, line + "\n")
}

func standardError(_ line: String) {
    writeAll(2, line.hasSuffix("\n") ? line : line + "\n")
}

private func writeAll(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return
        }
        bytes = bytes.dropFirst(count)
    }
}
