import PopGestureClient
import PopGestureProtocol

/// The request/reply layer over a `Connection`: `hello`, numbered requests, and
/// events that arrive while a reply is awaited.
///
/// One request is in flight at a time, so a reply without an `id` (the daemon could
/// not read ours) still belongs to it.
final class Client {
    let connection: Connection
    var waiter: Waiter
    /// The daemon's number for this connection, from the `hello` reply.
    private(set) var number: Int64?
    private var nextID: Int64 = 1

    /// How long a reply may take; the daemon answers at once, so this only catches a
    /// wedged daemon or something else listening on the socket.
    static let replyTimeout: Duration = .seconds(10)

    /// A reply: decoded, and the line as it came for `--json`.
    struct Reply {
        var message: ServerReply
        var line: String
        var error: ProtocolError? {
            if case .error(let error) = message { error } else { nil }
        }
        var isError: Bool { error != nil }
    }

    /// Why a command stops before its reply arrived.
    enum Interruption: Error {
        /// SIGINT or SIGTERM.
        case stopped
        case daemonClosed
    }

    init(connection: Connection, readingCommands: Bool = false, signals: StopSignals?) {
        self.connection = connection
        self.waiter = Waiter(connection: connection, readingCommands: readingCommands, signals: signals)
    }

    /// Connects to the socket from the options and says hello.
    static func connect(_ options: SocketOptions, name: String, app: String? = nil, role: ClientRequest.Role = .app,
                        readingCommands: Bool = false, signals: StopSignals?,
                        onLine: (String) -> Void = { _ in }) throws -> (Client, hello: Reply)
    {
        let connection: Connection
        do {
            connection = try Connection(path: options.resolvedPath)
        } catch {
            throw CtlFailure(error.description, exitCode: .cannotConnect)
        }
        let client = Client(connection: connection, readingCommands: readingCommands, signals: signals)
        let hello = try client.request(
            .hello(versions: ProtocolVersion.supported, name: name, app: app, role: role), onLine: onLine)
        if let error = hello.error { throw CtlFailure("popgestured refused hello: \(error.summary)", exitCode: .errorReply) }
        return (client, hello)
    }

    /// Sends `request` and throws `CtlFailure` (exit 1) on an error reply.
    @discardableResult
    func requireOK(_ request: ClientRequest, onLine: (String) -> Void) throws -> Reply {
        let reply = try self.request(request, onLine: onLine)
        if let error = reply.error {
            throw CtlFailure("\(request.type): \(error.summary)", exitCode: .errorReply)
        }
        return reply
    }

    /// Sends `request` with a fresh `id` and returns the reply, handing every other line
    /// to `onLine` as it arrives. An error reply is returned, not thrown, so a session can go on.
    @discardableResult
    func request(_ request: ClientRequest, onLine: (String) -> Void) throws -> Reply {
        let id = nextID
        nextID += 1
        try connection.send(RequestCodec.encode(IdentifiedRequest(request, id: .integer(id))))

        let deadline = ContinuousClock.now + Self.replyTimeout
        while true {
            switch try waiter.next(until: deadline) {
            case .daemon(let line):
                guard case .reply(let reply, let echoed)? = try? MessageCodec.decode(line) else {
                    onLine(line)  // an event, or a line this version cannot read
                    continue
                }
                // A reply to an earlier, abandoned request is shown, not mistaken for ours.
                if let echoed, echoed != .integer(id) {
                    onLine(line)
                    continue
                }
                if case .hello(_, _, let number) = reply { self.number = number }
                return Reply(message: reply, line: line)
            case .daemonClosed:
                throw Interruption.daemonClosed
            case .stop:
                throw Interruption.stopped
            case .timeout:
                throw CtlFailure(
                    "no reply from \(connection.path) within \(Self.replyTimeout.components.seconds) s — is that popgestured?",
                    exitCode: .cannotConnect)
            case .command, .commandsEnded:
                continue  // not asked for stdin
            }
        }
    }
}

extension ProtocolError {
    /// `code: message` of an error reply, for stderr.
    var summary: String {
        message.isEmpty ? code.rawValue : "\(code): \(message)"
    }
}
