import Glibc
import PopGestureClient
import SystemPackage

/// The write end of the self-pipe; the handler may touch nothing but this.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// SIGINT and SIGTERM turned into a readable descriptor, so a blocking `poll` wakes up
/// and the command can end cleanly (close the socket, exit 0) instead of dying mid-line.
struct StopSignals {
    let readEnd: FileDescriptor

    /// Installs the handlers; call once, before the first wait.
    static func install() -> StopSignals? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            // A full pipe must not block the handler; one byte already wakes the poll.
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        signalPipeWriteEnd = ends[1]
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in [SIGINT, SIGTERM] {
            Glibc.signal(signal) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
            sigaddset(&unblock, signal)
        }
        // A parent may have blocked them (a test runner does); the mask is inherited.
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        return StopSignals(readEnd: FileDescriptor(rawValue: ends[0]))
    }
}

/// What woke a command up.
enum Arrival: Equatable {
    /// One line from the daemon, without its newline.
    case daemon(String)
    /// The daemon closed the connection (it stopped, or dropped this client).
    case daemonClosed
    /// One line from stdin (sessions only).
    case command(String)
    case commandsEnded
    /// SIGINT or SIGTERM.
    case stop
    case timeout
}

/// Blocks on the daemon, stdin and the stop signals at once.
///
/// Buffered daemon lines come first, so a reply is never overtaken by the next command.
struct Waiter {
    let connection: Connection
    var commands: LineReader?
    let signals: StopSignals?

    init(connection: Connection, readingCommands: Bool = false, signals: StopSignals?) {
        self.connection = connection
        self.commands = readingCommands ? LineReader(descriptor: .standardInput) : nil
        self.signals = signals
    }

    /// The next arrival. `commands: false` leaves stdin unread (while a reply or an
    /// event is awaited); `deadline` nil waits as long as it takes.
    mutating func next(commands wantCommands: Bool = false, until deadline: ContinuousClock.Instant? = nil)
        throws -> Arrival
    {
        while true {
            if let line = connection.reader.bufferedLine() { return .daemon(line) }
            if connection.reader.atEnd { return .daemonClosed }
            if wantCommands, commands != nil {
                if let line = commands!.bufferedLine() { return .command(line) }
                if commands!.atEnd { return .commandsEnded }
            }

            var fds = [pollfd(fd: connection.socket.rawValue, events: Int16(POLLIN), revents: 0)]
            if let signals { fds.append(pollfd(fd: signals.readEnd.rawValue, events: Int16(POLLIN), revents: 0)) }
            let commandsIndex = fds.count
            if wantCommands, let commands {
                fds.append(pollfd(fd: commands.descriptor.rawValue, events: Int16(POLLIN), revents: 0))
            }

            var timeout: Int32 = -1
            if let deadline {
                if deadline <= ContinuousClock.now { return .timeout }
                timeout = pollTimeout(until: deadline)
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }  // the signal's byte is in the pipe; the next poll sees it
                throw ConnectionLost(description: "poll failed: \(Errno(rawValue: errno))")
            }
            if ready == 0 { continue }  // the deadline check above returns .timeout

            if signals != nil, fds[1].revents != 0 { return .stop }
            if fds[0].revents != 0 {
                do {
                    try connection.reader.fill()
                } catch let error as Errno where error == .connectionReset {
                    return .daemonClosed
                } catch let error as Errno {
                    throw ConnectionLost(description: "reading from \(connection.path) failed: \(error)")
                }
            }
            if wantCommands, commands != nil, fds[commandsIndex].revents != 0 {
                do {
                    try commands!.fill()
                } catch let error as Errno {
                    throw ConnectionLost(description: "reading stdin failed: \(error)")
                }
            }
        }
    }
}

/// `poll`'s timeout in milliseconds until `deadline`, 0 when it has passed. Rounded up,
/// so a wake-up just short of the deadline does not spin.
func pollTimeout(until deadline: ContinuousClock.Instant) -> Int32 {
    let left = deadline - ContinuousClock.now
    guard left > .zero else { return 0 }
    let (seconds, attoseconds) = left.components
    return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
}
