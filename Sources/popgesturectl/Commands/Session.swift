import ArgumentParser
import PopGestureProtocol

struct Session: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run client commands from stdin over one connection, which owns what it creates.",
        discussion: """
            One command a line, the same words as the command line. Each reply and each \
            event is printed as it arrives. The session holds its navigators until stdin \
            ends (or Ctrl-C); then they vanish, as a closing app's would.

            \(SessionCommand.usage)

            `wait back` returns at a back that came after the event the previous `wait` \
            returned, or at once when one came during a `sleep` or while a reply was awaited.

            A page is an id, or a JSON page object written in place:
                push main {"id":"editor","popDisabled":true,"exclusionZones":[[0,0,0.1,1]]}

            Stops at the first error reply (exit 1) or bad line (exit 2), naming the line \
            on stderr; with --keep-going it goes on and exits non-zero at the end. A `wait` \
            that times out is an error (exit 1).

                popgesturectl session <<'EOF'
                create main home detail
                wait back --timeout 30
                stack main
                EOF
            """)

    @Flag(help: "Go on after an error; the exit status still says one happened.")
    var keepGoing = false

    @Option(help: ArgumentHelp(
        "The app id to say in hello (Wayland app_id, X11 WM_CLASS): a shell's focused window is matched against it.",
        valueName: "app-id"))
    var app: String?

    @OptionGroup var socketOptions: SocketOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let signals = StopSignals.install()
        var printer = EventPrinter(json: output.json)
        let (client, hello) = try Client.connect(
            socketOptions, name: "popgesturectl session", app: app, readingCommands: true, signals: signals,
            onLine: { printer.print($0) })
        printer.print(reply: hello, command: "hello")
        var runner = SessionRunner(client: client, printer: printer, keepGoing: keepGoing)
        let status = try runner.run()
        if status != .ok { throw ExitCode(status.rawValue) }
    }
}

/// Carries out a session's commands in order, printing what arrives meanwhile.
struct SessionRunner {
    let client: Client
    var printer: EventPrinter
    let keepGoing: Bool
    /// Events no `wait` has returned yet, oldest first, so a `back` during `sleep` counts.
    private(set) var unwaited: [ServerEvent] = []
    /// Enough for any script; the cap only keeps a long session's memory flat.
    static let maximumUnwaited = 10_000
    private var lineNumber = 0
    /// The worst failure so far (with --keep-going).
    private var status = ExitStatus.ok

    init(client: Client, printer: EventPrinter, keepGoing: Bool) {
        self.client = client
        self.printer = printer
        self.keepGoing = keepGoing
    }

    /// Runs until stdin ends, a failure stops it, or a stop signal; returns the exit status.
    mutating func run() throws -> ExitStatus {
        do {
            while true {
                switch try client.waiter.next(commands: true) {
                case .daemon(let line):
                    received(line)
                case .command(let line):
                    lineNumber += 1
                    if try !execute(line) { return status }
                case .commandsEnded, .stop:
                    return status
                case .daemonClosed:
                    throw Client.Interruption.daemonClosed
                case .timeout:
                    continue
                }
            }
        } catch Client.Interruption.stopped {
            return status
        } catch Client.Interruption.daemonClosed {
            throw CtlFailure(
                "popgestured closed the connection at line \(lineNumber); this session's navigators are gone",
                exitCode: .cannotConnect)
        }
    }

    /// Prints an event and keeps it for `wait`.
    private mutating func received(_ line: String) {
        printer.print(line)
        guard case .event(let event)? = try? MessageCodec.decode(line) else { return }
        unwaited.append(event)
        if unwaited.count > Self.maximumUnwaited { unwaited.removeFirst(unwaited.count - Self.maximumUnwaited) }
    }

    /// Runs one line; false when the session must stop.
    private mutating func execute(_ line: String) throws -> Bool {
        let command: SessionCommand
        do {
            guard let parsed = try SessionCommand.parse(line) else { return true }
            command = parsed
        } catch {
            return fail(.usage, error.description)
        }
        let text = line.trimmingWhitespace

        if let request = command.request {
            let reply = try client.request(request, onLine: { received($0) })
            printer.print(reply: reply, command: text)
            if let error = reply.error { return fail(.errorReply, "\(text): \(error.summary)") }
            return true
        }
        switch command {
        case .wait(let type, let navigator, let timeout):
            let deadline = timeout.map { ContinuousClock.now + $0 }
            while true {
                if let index = unwaited.firstIndex(where: {
                    $0.kind.rawValue == type && (navigator == nil || $0.navigator == navigator)
                }) {
                    unwaited.removeSubrange(...index)  // what came before is older than any later wait's event
                    return true
                }
                guard try takeLine(until: deadline) else {
                    return fail(.errorReply, "\(text): none came within the timeout")
                }
            }
        case .sleep(let duration):
            let deadline = ContinuousClock.now + duration
            while try takeLine(until: deadline) {}
            return true
        default:
            return true
        }
    }

    /// Takes one line from the daemon; false at the deadline.
    private mutating func takeLine(until deadline: ContinuousClock.Instant?) throws -> Bool {
        switch try client.waiter.next(until: deadline) {
        case .daemon(let line): received(line); return true
        case .timeout: return false
        case .daemonClosed: throw Client.Interruption.daemonClosed
        case .stop: throw Client.Interruption.stopped
        case .command, .commandsEnded: return true
        }
    }

    /// Reports a failed line; false when the session stops here.
    private mutating func fail(_ failure: ExitStatus, _ message: String) -> Bool {
        standardError("popgesturectl: line \(lineNumber): \(message)")
        status = ExitStatus(rawValue: max(status.rawValue, failure.rawValue))!
        return keepGoing
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
