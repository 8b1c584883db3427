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

    /// The reply types of protocol 1; any other `type` is an event.
    static let replyTypes: Set<String> = ["hello", "ok", "error", "stack", "status"]

    /// A reply: parsed, and the line as it came for `--json`.
    struct Reply {
        var message: JSON
        var line: String
        var isError: Bool { message.type == "error" }
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
    static func connect(_ options: SocketOptions, name: String, readingCommands: Bool = false,
                        signals: StopSignals?, onLine: (String) -> Void = { _ in }) throws -> (Client, hello: Reply)
    {
        let connection: Connection
        do {
            connection = try Connection(path: options.resolvedPath)
        } catch {
            throw CtlFailure(error.description, exitCode: .cannotConnect)
        }
        let client = Client(connection: connection, readingCommands: readingCommands, signals: signals)
        let hello = try client.request(
            .object(["type": .string("hello"), "version": .integer(1), "name": .string(name)]), onLine: onLine)
        if hello.isError { throw CtlFailure("popgestured refused hello: \(hello.message.errorSummary)", exitCode: .errorReply) }
        return (client, hello)
    }

    /// Sends `request` and throws `CtlFailure` (exit 1) on an error reply.
    @discardableResult
    func requireOK(_ request: JSON, onLine: (String) -> Void) throws -> Reply {
        let reply = try self.request(request, onLine: onLine)
        if reply.isError {
            throw CtlFailure("\(request.type ?? "request"): \(reply.message.errorSummary)", exitCode: .errorReply)
        }
        return reply
    }

    /// Sends `request` (an object with `"type"` first) with a fresh `id` and returns the
    /// reply, handing every other line to `onLine` as it arrives. An error reply is
    /// returned, not thrown, so a session can go on.
    @discardableResult
    func request(_ request: JSON, onLine: (String) -> Void) throws -> Reply {
        guard case .object(var object) = request else { preconditionFailure("a request is an object") }
        let id = nextID
        nextID += 1
        object["id"] = .integer(id)
        try connection.send(JSON.object(object).text)

        let deadline = ContinuousClock.now + Self.replyTimeout
        while true {
            switch try waiter.next(until: deadline) {
            case .daemon(let line):
                guard let message = try? JSON(parsing: line), let type = message["type"]?.string,
                      Self.replyTypes.contains(type)
                else {
                    onLine(line)
                    continue
                }
                // A reply to an earlier, abandoned request is shown, not mistaken for ours.
                if let echoed = message["id"], echoed != .integer(id) {
                    onLine(line)
                    continue
                }
                if type == "hello", let number = message["client"]?.integer { self.number = number }
                return Reply(message: message, line: line)
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

extension JSON {
    /// A request with no fields but its type and, when given, its navigator.
    static func request(_ type: String, navigator: String? = nil) -> JSON {
        .object(["type": .string(type), "navigator": navigator.map(JSON.string)])
    }

    /// `"type"` of a message, or nil when it has none.
    var type: String? { self["type"]?.string }

    /// `code: message` of an error reply, for stderr.
    var errorSummary: String {
        let code = self["code"]?.string ?? "error"
        guard let message = self["message"]?.string, !message.isEmpty else { return code }
        return "\(code): \(message)"
    }
}
