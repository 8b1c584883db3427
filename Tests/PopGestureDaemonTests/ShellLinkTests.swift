import Testing
@testable import popgesturectl
import PopGestureProtocol

/// A bridge's connection to the daemon, driven as a state machine: no socket, no clock.
@Suite struct ShellLinkTests {
    static let one = FocusedWindow(app: "one", pid: 100)
    static let two = FocusedWindow(app: "two", pid: 200)

    static func request(_ action: ShellLink.Action) throws -> IdentifiedRequest {
        guard case .send(let line) = action else { throw NotASend(action: action) }
        return try RequestCodec.decode(line)
    }

    struct NotASend: Error { var action: ShellLink.Action }

    static func helloReply(_ id: RequestID?) -> String {
        MessageCodec.encode(.hello(version: 1, server: "popgestured", client: 3), id: id)
    }

    static func sends(_ actions: [ShellLink.Action]) throws -> [ClientRequest] {
        try actions.filter { if case .send = $0 { true } else { false } }.map { try request($0).request }
    }

    /// A link that has said hello and been answered.
    static func ready() throws -> ShellLink {
        var link = ShellLink(name: "popgesturectl bridge test")
        let hello = try request(link.connected()[0])
        _ = link.received(helloReply(hello.id))
        return link
    }

    @Test("hello says the name and the shell role; no window goes out before its reply")
    func hello() throws {
        var link = ShellLink(name: "popgesturectl bridge test")
        let actions = link.connected()
        #expect(actions.count == 1)
        let hello = try Self.request(actions[0])
        #expect(hello.request == .hello(versions: ProtocolVersion.supported, name: "popgesturectl bridge test", role: .shell))
        #expect(link.state == .greeting)
        #expect(try Self.sends(link.focused(Self.one)).isEmpty)
        let answered = link.received(Self.helloReply(hello.id))
        #expect(try Self.sends(answered) == [.focusedWindow(app: "one", pid: 100)], "the window known before the reply")
        #expect(link.state == .ready(sent: Self.one))
    }

    @Test("each change is sent once; the same window again is not")
    func changes() throws {
        var link = try Self.ready()
        #expect(try Self.sends(link.focused(Self.one)) == [.focusedWindow(app: "one", pid: 100)])
        #expect(try Self.sends(link.focused(Self.one)).isEmpty)
        #expect(try Self.sends(link.focused(.none)) == [.focusedWindow(app: nil, pid: nil)])
        let ids = try [link.focused(Self.two), link.focused(Self.one)].map { try Self.request($0.last!).id }
        #expect(ids[0] != ids[1], "every request has an id of its own")
    }

    @Test("after the daemon closes: retry after 0.5 s, doubling to 5 s; a new hello resends the window")
    func reconnect() throws {
        var link = try Self.ready()
        _ = link.focused(Self.two)
        let closed = link.closed()
        #expect(closed == [.log("popgestured closed the connection; connecting again"), .retry(after: .milliseconds(500))])
        #expect(link.state == .disconnected)

        var delays: [Duration] = []
        for _ in 0..<6 {
            for case .retry(let delay) in link.connectFailed("cannot connect to /s: Connection refused") { delays.append(delay) }
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5), .seconds(5)])

        let hello = try Self.request(link.connected()[0])
        let answered = link.received(Self.helloReply(hello.id))
        #expect(answered.contains(ShellLink.Action.log("connected to popgestured as the shell")), "the outage's end is logged")
        #expect(try Self.sends(answered) == [.focusedWindow(app: "two", pid: 200)])
        #expect(link.retryDelay == ShellLink.initialRetryDelay)
    }

    @Test("an outage is one line however many tries fail")
    func quietRetries() throws {
        var link = ShellLink(name: "b")
        let logs = (0..<5).flatMap { _ in link.connectFailed("cannot connect to /s: No such file or directory") }
            .filter { if case .log = $0 { true } else { false } }
        #expect(logs == [.log("cannot connect to /s: No such file or directory; trying again until it answers")])
    }

    @Test("shell-taken: try again later; shell-refused: stop for good; another error: log and go on")
    func refusals() throws {
        var link = ShellLink(name: "b")
        var hello = try Self.request(link.connected()[0])
        let taken = MessageCodec.encode(.error(ProtocolError(.shellTaken, "client 2 is the shell", id: hello.id)), id: hello.id)
        let afterTaken = link.received(taken)
        #expect(afterTaken.contains(.retry(after: .milliseconds(500))))
        #expect(link.state == .disconnected)

        hello = try Self.request(link.connected()[0])
        let refused = MessageCodec.encode(.error(ProtocolError(.shellRefused, "not this user", id: hello.id)), id: hello.id)
        #expect(link.received(refused) == [.fail("popgestured refused the shell's hello: shell-refused: not this user")])

        var ready = try Self.ready()
        let invalid = MessageCodec.encode(.error(ProtocolError(.invalidField, "bad pid", id: .integer(9))), id: .integer(9))
        #expect(ready.received(invalid) == [.log("popgestured refused a request: invalid-field: bad pid")])
        #expect(ready.state == .ready(sent: nil))
        #expect(ready.received(#"{"type":"back","navigator":"n","from":"a","to":"b","time":1}"#).isEmpty, "events are not for a bridge")
    }

    static func refusal(_ code: ProtocolError.Code, of action: ShellLink.Action) throws -> String {
        let id = try request(action).id
        return MessageCodec.encode(.error(ProtocolError(code, "256 requests wait for the engine", request: "focused-window", id: id)), id: id)
    }

    @Test("a refused focused-window (overloaded) is not sent: it goes again after 0.5 s, then 1 s…, until the daemon takes it")
    func refusedWindowIsResent() throws {
        var link = try Self.ready()
        let first = link.focused(Self.one)
        let refused = link.received(try Self.refusal(.overloaded, of: first.last!))
        #expect(refused == [
            .log("popgestured refused focused-window (app one, pid 100): overloaded: 256 requests wait for the engine; sending it again"),
            .resend(after: .milliseconds(500)),
        ])
        #expect(link.state == .ready(sent: nil), "the daemon does not have it")

        let second = link.resendDue()
        #expect(try Self.sends(second) == [.focusedWindow(app: "one", pid: 100)])
        #expect(try Self.request(second[0]).id != Self.request(first.last!).id)
        #expect(link.received(try Self.refusal(.overloaded, of: second[0])) == [.resend(after: .seconds(1))],
                "the wait doubles; the same refusal is not logged again")

        let third = link.resendDue()
        let id = try Self.request(third[0]).id
        #expect(link.received(MessageCodec.encode(.ok(request: "focused-window"), id: id))
                    == [.log("popgestured took the focused window")])
        #expect(link.state == .ready(sent: Self.one))
        #expect(link.resendDelay == ShellLink.initialRetryDelay)
        #expect(link.resendDue().isEmpty, "a late wake-up sends nothing that went out")
    }

    @Test("after a refusal, a new window goes at once; a refusal of a superseded window is only logged")
    func refusalsAndNewerWindows() throws {
        var link = try Self.ready()
        let first = link.focused(Self.one)
        _ = link.received(try Self.refusal(.overloaded, of: first.last!))
        let two = link.focused(Self.two)
        #expect(try Self.sends(two) == [.focusedWindow(app: "two", pid: 200)], "not held back by the wait")
        #expect(link.resendDue().isEmpty)
        _ = link.received(MessageCodec.encode(.ok(request: "focused-window"), id: try Self.request(two.last!).id))

        let three = link.focused(Self.one)
        let four = link.focused(.none)
        let stale = link.received(try Self.refusal(.overloaded, of: three.last!))
        #expect(stale == [.log("popgestured refused a request: overloaded: 256 requests wait for the engine")])
        #expect(link.state == .ready(sent: FocusedWindow.none), "the newer window stands")
        #expect(link.received(try Self.refusal(.overloaded, of: four.last!)).contains(.resend(after: .milliseconds(500))))
    }
}
