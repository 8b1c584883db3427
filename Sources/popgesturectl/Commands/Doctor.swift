import ArgumentParser
import Glibc
import PopGestureClient
import PopGestureProtocol

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check what a swipe needs, say what is wrong and how to fix it.",
        discussion: """
            Checks, in order: the daemon (reachable, and how it was started), the touch \
            devices it reads, the back input device (and whether udev made it a keyboard), \
            grab mode, the focus bridge and the apps' navigators, and the last rejected pans \
            with their reasons. Each finding that needs fixing says how. The last line is \
            the verdict.

            Exit status: 0 when a swipe can work (the daemon reachable, a touch device in \
            use, and the back input working or an app owning a navigator), 1 otherwise, \
            2 for bad usage. See docs/POPGESTURECTL.md.
            """)

    @OptionGroup var socketOptions: SocketOptions

    @Flag(help: "Print the findings as one JSON object.")
    var json = false

    func run() throws {
        let path = socketOptions.resolvedPath
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        var environment: [String: String] = [:]
        for name in ["SWAYSOCK", "DISPLAY", "WAYLAND_DISPLAY"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        let diagnosis = Diagnosis(
            socket: path, status: Self.askStatus(path), now: Int64(clock.tv_sec) * 1_000_000 + Int64(clock.tv_nsec) / 1000,
            environment: environment)
        let report = diagnosis.report
        if json {
            standardOutput(report.json)
        } else {
            report.lines.forEach(standardOutput)
        }
        if !report.swipeCanWork { throw ExitCode(1) }
    }

    /// The daemon's `status`, or why it could not be had.
    static func askStatus(_ path: String) -> Result<ServerReply.Status, Diagnosis.Failure> {
        let connection: Connection
        do {
            connection = try Connection(path: path)
        } catch {
            return .failure(.connect(error))
        }
        let client = Client(connection: connection, signals: nil)
        do {
            let hello = try client.request(
                .hello(versions: ProtocolVersion.supported, name: "popgesturectl doctor", app: nil, role: .app),
                onLine: { _ in })
            if let error = hello.error { return .failure(.refused(error)) }
            let reply = try client.request(.status, onLine: { _ in })
            if let error = reply.error { return .failure(.other("popgestured refused status: \(error.summary)")) }
            guard case .status(let status) = reply.message else {
                return .failure(.other("popgestured answered status with \(reply.line)"))
            }
            return .success(status)
        } catch let failure as CtlFailure {
            return .failure(.other(failure.message))
        } catch {
            // A refused peer is sent its error and closed at once: the line may be all
            // there is left to read once writing `hello` failed.
            if let refusal = refusal(waitingOn: client) { return .failure(.refused(refusal)) }
            let lost = (error as? ConnectionLost)?.description ?? "popgestured closed the connection before it answered"
            return .failure(.other(lost))
        }
    }

    /// The error line a daemon sent before it closed the connection, read within a second.
    private static func refusal(waitingOn client: Client) -> ProtocolError? {
        let deadline = ContinuousClock.now + .seconds(1)
        while case .daemon(let line)? = try? client.waiter.next(until: deadline) {
            if case .reply(.error(let error), _)? = try? MessageCodec.decode(line) { return error }
        }
        return nil
    }
}
