import PopGestureClient
import PopGestureProtocol
import Testing

/// The state machine on its own: the inputs a driver would report, the actions it must take.
@Suite struct ClientConnectionStateTests {
    typealias Action = ClientConnectionState.Action

    let t0 = ContinuousClock.now

    // MARK: - Helpers

    /// Every line the actions send, decoded as the daemon reads them.
    static func sent(_ actions: [Action]) -> [IdentifiedRequest] {
        actions.flatMap { action -> [IdentifiedRequest] in
            guard case .send(let lines) = action else { return [] }
            return lines.map { try! RequestCodec.decode($0) }
        }
    }

    static func delivered(_ actions: [Action]) -> [ClientEvent] {
        actions.compactMap { if case .deliver(let event) = $0 { event } else { nil } }
    }

    static func replies(_ actions: [Action]) -> [(id: Int64, request: ClientRequest, result: Result<ServerReply, ClientError>)] {
        delivered(actions).compactMap { if case .reply(let id, let request, let result) = $0 { (id, request, result) } else { nil } }
    }

    /// A line from the daemon, newline included.
    static func line(_ reply: ServerReply, id: RequestID?) -> [UInt8] {
        Array((MessageCodec.encode(reply, id: id) + "\n").utf8)
    }

    static func line(_ event: ServerEvent) -> [UInt8] {
        Array((MessageCodec.encode(event) + "\n").utf8)
    }

    static func ok(_ request: IdentifiedRequest) -> [UInt8] {
        line(.ok(request: request.request.type), id: request.id)
    }

    /// Started, connected, hello answered (client 3): the machine and the hello's line.
    func greeted(limits: ClientLimits = ClientLimits()) -> (ClientConnectionState, [Action]) {
        var machine = ClientConnectionState(app: "org.example.Photos", name: "Photos", limits: limits)
        #expect(machine.start() == [.connect])
        let hello = Self.sent(machine.connected(now: t0))
        #expect(hello.count == 1)
        let actions = machine.received(Self.line(.hello(version: 1, server: "popgestured", client: 3), id: hello[0].id), now: t0)
        return (machine, actions)
    }

    /// Answers each request the actions sent with `ok`; returns what that did.
    static func answerAll(_ machine: inout ClientConnectionState, _ actions: [Action], at now: ContinuousClock.Instant) -> [Action] {
        var all: [Action] = []
        var pending = sent(actions)
        while !pending.isEmpty {
            let next = machine.received(ok(pending.removeFirst()), now: now)
            all += next
            pending += sent(next)
        }
        return all
    }

    static let pages = ["home", "detail"].map { ClientRequest.Page(id: $0) }

    // MARK: - Connecting

    @Test("hello offers the protocol module's versions, with the app id and name")
    func hello() {
        var machine = ClientConnectionState(app: "org.example.Photos", name: "Photos")
        #expect(machine.state == .idle)
        #expect(machine.start() == [.connect])
        #expect(machine.state == .connecting)
        let sent = Self.sent(machine.connected(now: t0))
        #expect(sent.map(\.request) == [.hello(versions: ProtocolVersion.supported, name: "Photos", app: "org.example.Photos")])
        #expect(sent.first?.id == .integer(1))
        #expect(machine.state == .greeting(deadline: t0 + .seconds(10)))
        #expect(machine.nextDeadline == t0 + .seconds(10))

        let actions = machine.received(Self.line(.hello(version: 1, server: "popgestured", client: 7), id: .integer(1)), now: t0)
        #expect(actions == [.deliver(.connected(version: 1, client: 7))])
        #expect(machine.state == .ready(version: 1, client: 7))
        #expect(machine.nextDeadline == nil, "a greeted client has no timer")
    }

    @Test("reconnects after 100 ms, doubling to 5 s; an answered hello starts again at 100 ms")
    func reconnectSchedule() {
        var machine = ClientConnectionState(app: nil, name: nil)
        _ = machine.start()
        var now = t0
        var delays: [Duration] = []
        for _ in 0..<9 {
            let actions = machine.connectFailed("cannot connect to /s: No such file or directory", now: now)
            guard case .reconnect(let at)? = actions.last else {
                Issue.record("no reconnect in \(actions)")
                return
            }
            #expect(Self.delivered(actions) == [.disconnected(reason: "cannot connect to /s: No such file or directory", retryAt: at)])
            delays.append(now.duration(to: at))
            #expect(machine.nextDeadline == at)
            #expect(machine.deadline(now: at - .milliseconds(1)).isEmpty, "not before its time")
            #expect(machine.deadline(now: at) == [.connect])
            #expect(machine.deadline(now: at).isEmpty, "one connect at a time")
            now = at
        }
        #expect(delays == [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000].map { Duration.milliseconds($0) })

        let hello = Self.sent(machine.connected(now: now))
        _ = machine.received(Self.line(.hello(version: 1, server: "popgestured", client: 1), id: hello[0].id), now: now)
        let lost = machine.closed("popgestured closed the connection", now: now)
        #expect(lost.first == .closeConnection)
        #expect(lost.last == .reconnect(at: now + .milliseconds(100)))
    }

    @Test("no hello reply within 10 s: the connection is dropped and made again")
    func helloTimeout() {
        var machine = ClientConnectionState(app: nil, name: nil)
        _ = machine.start()
        _ = machine.connected(now: t0)
        #expect(machine.deadline(now: t0 + .seconds(9)).isEmpty)
        let actions = machine.deadline(now: t0 + .seconds(10))
        #expect(actions.first == .closeConnection)
        #expect(actions.last == .reconnect(at: t0 + .seconds(10) + .milliseconds(100)))
    }

    @Test("a busy daemon is tried again; an unsupported version or a refusal ends it, failing what waits")
    func helloRefused() throws {
        var busy = ClientConnectionState(app: nil, name: nil)
        _ = busy.start()
        _ = busy.connected(now: t0)
        // Sent on connecting, without an id: it answers the hello.
        let tooMany = busy.received(
            Self.line(.error(ProtocolError(.tooManyClients, "128 clients are connected")), id: nil), now: t0)
        #expect(tooMany.first == .closeConnection)
        #expect(tooMany.last == .reconnect(at: t0 + .milliseconds(100)))

        // `overloaded` is no longer sent; should it come, it is an error like any other.
        var overloaded = ClientConnectionState(app: nil, name: nil)
        _ = overloaded.start()
        _ = overloaded.connected(now: t0)
        let behind = overloaded.received(
            Self.line(.error(ProtocolError(.overloaded, "try again later")), id: nil), now: t0)
        #expect(behind.last == .giveUp(reason: "popgestured refused hello: overloaded: try again later"))

        var old = ClientConnectionState(app: nil, name: nil)
        _ = old.start()
        let waiting = try old.request(.status).id
        let hello = Self.sent(old.connected(now: t0))
        let refusal = ProtocolError(
            .unsupportedVersion, "protocol version 1 is not supported; supported: 2", request: "hello",
            supportedVersions: [2])
        let actions = old.received(Self.line(.error(refusal), id: hello[0].id), now: t0)
        let reason = "popgestured speaks protocol versions 2; this client speaks 1"
        #expect(actions.first == .closeConnection)
        #expect(actions.last == .giveUp(reason: reason))
        #expect(Self.replies(actions).map(\.id) == [waiting])
        #expect(Self.replies(actions).first.map { (try? $0.result.get()) == nil } == true)
        #expect(old.state == .gaveUp(reason: reason))
        #expect(old.nextDeadline == nil)
        #expect(throws: ClientError.self) { try old.request(.status) }
        do {
            _ = try old.request(.status)
        } catch {
            #expect(error.code == .gaveUp)
        }
    }

    // MARK: - Requests and replies

    /// Issue 28: a user switch used to close the connection; the Swift client then gave up.
    @Test("paused and resumed by a user switch: the connection and the record stay, nothing is re-sent, the app is told")
    func pausedAndResumed() {
        var (machine, _) = greeted()
        let paused = machine.received(Self.line(.paused(reason: "uid 1000 is not the active user of a seat now")), now: t0)
        #expect(Self.delivered(paused) == [.event(.paused(reason: "uid 1000 is not the active user of a seat now"))])
        #expect(Self.sent(paused).isEmpty)
        #expect(machine.isPaused)
        #expect(machine.state == .ready(version: 1, client: 3), "still connected, still the same client")
        let resumed = machine.received(Self.line(.resumed), now: t0)
        #expect(Self.delivered(resumed) == [.event(.resumed)])
        #expect(Self.sent(resumed).isEmpty, "the daemon kept the navigators: nothing to re-create")
        #expect(!machine.isPaused)
    }

    @Test("requests wait for the hello reply, then go out in order")
    func requestsWaitForHello() throws {
        var machine = ClientConnectionState(app: nil, name: nil)
        #expect(try machine.request(.status).actions.isEmpty, "nothing out before start")
        _ = machine.start()
        #expect(try machine.request(.create(navigator: "main", pages: Self.pages, layout: nil, barFollowsTopPage: true)).actions.isEmpty)
        let hello = Self.sent(machine.connected(now: t0))
        #expect(hello.map(\.request.kind) == [.hello])
        let actions = machine.received(Self.line(.hello(version: 1, server: "popgestured", client: 1), id: hello[0].id), now: t0)
        #expect(Self.sent(actions).map(\.request.kind) == [.status, .create])
        #expect(Self.sent(actions).map(\.id) == [.integer(1), .integer(2)], "ids are given when asked, hello's after them")
        #expect(actions.last == .deliver(.connected(version: 1, client: 1)), "told after the lines are out")
    }

    @Test("replies are matched to request ids, an error reply is a refused failure, one without an id answers the oldest")
    func replyMatching() throws {
        var (machine, _) = greeted()
        let first = try machine.request(.create(navigator: "main", pages: Self.pages, layout: nil, barFollowsTopPage: true))
        let second = try machine.request(.push(navigator: "main", page: ClientRequest.Page(id: "detail"), animated: false))
        let third = try machine.request(.stack(navigator: "main"))
        #expect(Self.sent(first.actions + second.actions + third.actions).map(\.id)
            == [first.id, second.id, third.id].map { RequestID.integer($0) })

        var actions = machine.received(Self.line(.ok(request: "create"), id: .integer(first.id)), now: t0)
        // An event between two replies is delivered as it comes.
        actions += machine.received(Self.line(.bar(navigator: "main", page: "detail", hidden: false)), now: t0)
        let refusal = ProtocolError(.duplicatePage, "page \"detail\" is already on the stack", request: "push")
        actions += machine.received(Self.line(.error(refusal), id: .integer(second.id)), now: t0)
        let stack = ServerReply.Stack(navigator: "main", owner: 3, pages: ["home", "detail"], front: true, transitioning: false)
        actions += machine.received(Self.line(.stack(stack), id: nil), now: t0)

        #expect(Self.delivered(actions) == [
            .reply(id: first.id, request: .create(navigator: "main", pages: Self.pages, layout: nil, barFollowsTopPage: true),
                   result: .success(.ok(request: "create"))),
            .event(.bar(navigator: "main", page: "detail", hidden: false)),
            .reply(id: second.id, request: .push(navigator: "main", page: ClientRequest.Page(id: "detail"), animated: false),
                   result: .failure(.refused(refusal))),
            .reply(id: third.id, request: .stack(navigator: "main"), result: .success(.stack(stack))),
        ])
        #expect(machine.pendingRequests == 0)
        // A reply to nothing of ours is ignored.
        #expect(machine.received(Self.line(.ok(request: "pop"), id: .integer(99)), now: t0).isEmpty)
        #expect(throws: ClientError(.invalidRequest, "hello is the client's own: give the app id and name when creating it")) {
            try machine.request(.hello(versions: [1], name: nil))
        }
    }

    @Test("the record follows ok replies and back events, never a refusal")
    func record() throws {
        var (machine, _) = greeted()
        func answer(_ request: ClientRequest, with reply: ServerReply? = nil) throws {
            let (id, actions) = try machine.request(request)
            #expect(Self.sent(actions).map(\.id) == [.integer(id)])
            _ = machine.received(Self.line(reply ?? .ok(request: request.type), id: .integer(id)), now: t0)
        }
        try answer(.create(navigator: "main", pages: Self.pages, layout: .rightToLeft, barFollowsTopPage: true))
        try answer(.create(navigator: "settings", pages: [ClientRequest.Page(id: "root")], layout: nil, barFollowsTopPage: false))
        try answer(.push(navigator: "main", page: ClientRequest.Page(id: "photo", prefersBarHidden: true), animated: true))
        try answer(.push(navigator: "main", page: ClientRequest.Page(id: "photo"), animated: false),
                   with: .error(ProtocolError(.duplicatePage, "already there")))
        try answer(.update(navigator: "main", page: ClientRequest.Page(id: "detail", popDisabled: true)))
        try answer(.configure(navigator: "main", layout: nil, barFollowsTopPage: false))
        try answer(.front(navigator: "main"))
        try answer(.focus(focused: false))
        try answer(.subscribe)

        #expect(machine.navigators == [
            OwnedNavigator(id: "settings", pages: [ClientRequest.Page(id: "root")], layout: nil, barFollowsTopPage: false),
            OwnedNavigator(
                id: "main",
                pages: [ClientRequest.Page(id: "home"), ClientRequest.Page(id: "detail", popDisabled: true),
                        ClientRequest.Page(id: "photo", prefersBarHidden: true)],
                layout: .rightToLeft, barFollowsTopPage: false),
        ])
        #expect(machine.focused == false)
        #expect(machine.subscribed)

        // The daemon popped the page itself: the swipe's back.
        _ = machine.received(Self.line(.back(navigator: "main", popped: "photo", top: "detail", timeMicroseconds: 1)), now: t0)
        #expect(machine.navigators.last?.pages.map(\.id) == ["home", "detail"])
        try answer(.pop(navigator: "main", animated: false))
        #expect(machine.navigators.last?.pages.map(\.id) == ["home"])
        try answer(.replace(navigator: "main", pages: Self.pages, animated: false))
        #expect(machine.navigators.last?.pages.map(\.id) == ["home", "detail"])
        try answer(.remove(navigator: "settings"))
        #expect(machine.navigators.map(\.id) == ["main"])
    }

    @Test("after a reconnect: hello again, the navigators re-created (the front one last), focus and subscribe re-sent, then what waited")
    func recreation() throws {
        var (machine, _) = greeted()
        for request in [
            ClientRequest.create(navigator: "main", pages: Self.pages, layout: nil, barFollowsTopPage: true),
            .create(navigator: "settings", pages: [ClientRequest.Page(id: "root")], layout: .rightToLeft, barFollowsTopPage: false),
            .front(navigator: "main"), .focus(focused: false), .subscribe,
        ] {
            _ = Self.answerAll(&machine, try machine.request(request).actions, at: t0)
        }
        // Out when the connection goes: fails, as its outcome is unknown.
        let push = try machine.request(.push(navigator: "main", page: ClientRequest.Page(id: "photo"), animated: false))
        #expect(Self.sent(push.actions).count == 1)

        let lost = machine.closed("popgestured closed the connection", now: t0)
        #expect(lost.first == .closeConnection)
        let failed = Self.replies(lost)
        #expect(failed.map(\.id) == [push.id])
        #expect(failed.first.map { if case .failure(let error) = $0.result { error.code == .connectionLost } else { false } } == true)
        #expect(Self.delivered(lost).last == .disconnected(reason: "popgestured closed the connection", retryAt: t0 + .milliseconds(100)))
        #expect(machine.navigators.last?.pages.map(\.id) == ["home", "detail"], "the push was never confirmed")

        // Made while disconnected: waits.
        let pop = try machine.request(.pop(navigator: "main", animated: false))
        #expect(pop.actions.isEmpty)

        let later = t0 + .milliseconds(100)
        #expect(machine.deadline(now: later) == [.connect])
        let hello = Self.sent(machine.connected(now: later))
        #expect(hello.map(\.request.kind) == [.hello])
        let actions = machine.received(Self.line(.hello(version: 1, server: "popgestured", client: 9), id: hello[0].id), now: later)
        #expect(Self.sent(actions).map(\.request) == [
            .create(navigator: "settings", pages: [ClientRequest.Page(id: "root")], layout: .rightToLeft, barFollowsTopPage: false),
            .create(navigator: "main", pages: Self.pages, layout: nil, barFollowsTopPage: true),
            .focus(focused: false), .subscribe, .pop(navigator: "main", animated: false),
        ])
        #expect(actions.last == .deliver(.connected(version: 1, client: 9)))

        // Another client took "settings" meanwhile: it leaves the record, and the app is told.
        let sent = Self.sent(actions)
        let taken = ProtocolError(.navigatorExists, "navigator \"settings\" exists", request: "create")
        let refused = machine.received(Self.line(.error(taken), id: sent[0].id), now: later)
        #expect(Self.delivered(refused) == [.recreationFailed(navigator: "settings", error: taken)])
        #expect(machine.navigators.map(\.id) == ["main"])
        // The re-creation's ok is the client's own; the pop's is the app's.
        #expect(machine.received(Self.ok(sent[1]), now: later).isEmpty)
        #expect(machine.received(Self.ok(sent[2]), now: later).isEmpty)
        #expect(machine.received(Self.ok(sent[3]), now: later).isEmpty)
        let popped = machine.received(Self.ok(sent[4]), now: later)
        #expect(Self.replies(popped).map(\.id) == [pop.id])
        #expect(machine.navigators.first?.pages.map(\.id) == ["home"])
    }

    // MARK: - Bounds

    @Test("a line over 1 MiB drops the connection, with the reason, and reconnects; 1 MiB exactly is read")
    func incomingLineBound() {
        var (machine, _) = greeted()
        // Exactly the limit, in pieces: an unreadable line, but no drop.
        let limit = ClientLimits().maximumIncomingLineBytes
        var exact = machine.received([UInt8](repeating: UInt8(ascii: "x"), count: limit - 10), now: t0)
        exact += machine.received([UInt8](repeating: UInt8(ascii: "x"), count: 10) + [UInt8(ascii: "\n")], now: t0)
        #expect(exact.count == 1)
        if case .deliver(.unreadable(let line, let error))? = exact.first {
            #expect(line.utf8.count == limit)
            #expect(error.code == .malformedJSON)
        } else {
            Issue.record("expected an unreadable line, got \(exact)")
        }
        #expect(machine.state == .ready(version: 1, client: 3))

        // One byte more, never ended: dropped as soon as it passes.
        let chunk = [UInt8](repeating: UInt8(ascii: "y"), count: 64 << 10)
        var actions: [Action] = []
        for _ in 0..<16 { actions += machine.received(chunk, now: t0) }
        #expect(actions.isEmpty, "exactly 1 MiB so far")
        actions = machine.received([UInt8(ascii: "y")], now: t0)
        let reason = "popgestured sent a line longer than 1024 KiB"
        #expect(actions == [.closeConnection, .deliver(.disconnected(reason: reason, retryAt: t0 + .milliseconds(100))),
                            .reconnect(at: t0 + .milliseconds(100))])
        #expect(machine.received(Self.line(.bar(navigator: "m", page: "p", hidden: false)), now: t0).isEmpty,
                "nothing more is read from the dropped connection")
    }

    @Test("a line over the limit inside one read, after a good line, is dropped too")
    func incomingLineBoundInOneRead() {
        var limits = ClientLimits()
        limits.maximumIncomingLineBytes = 100
        var (machine, _) = greeted(limits: limits)
        let event = Self.line(.bar(navigator: "m", page: "p", hidden: false))
        let actions = machine.received(event + [UInt8](repeating: UInt8(ascii: "z"), count: 101) + [UInt8(ascii: "\n")], now: t0)
        #expect(Self.delivered(actions).first == .event(.bar(navigator: "m", page: "p", hidden: false)))
        #expect(actions.contains(.closeConnection))
    }

    @Test("unsent requests are held to 256 KiB: past it a request fails at once; written bytes make room")
    func outgoingBound() throws {
        var (machine, _) = greeted()
        let page = ClientRequest.Page(id: String(repeating: "p", count: 200))
        let request = ClientRequest.update(navigator: "main", page: page)
        var accepted = 0
        var refusal: ClientError?
        while refusal == nil {
            do {
                _ = try machine.request(request)
                accepted += 1
            } catch {
                refusal = error
            }
        }
        let lineBytes = RequestCodec.encode(IdentifiedRequest(request, id: .integer(Int64(accepted) + 2))).utf8.count + 1
        #expect(machine.queuedBytes <= 256 << 10)
        #expect(machine.queuedBytes + lineBytes > 256 << 10)
        #expect(accepted > 900)
        #expect(refusal?.code == .outputFull)
        #expect(refusal?.message.contains("the 256 KiB limit; popgestured is not reading") == true)
        #expect(machine.pendingRequests == accepted, "the refused one is not queued")

        // The driver wrote what was handed out: there is room again.
        machine.wrote(machine.unwrittenBytes)
        #expect(throws: Never.self) { try machine.request(request) }
    }

    @Test("at most 32 requests are out unanswered; each reply lets the next go")
    func requestsInFlight() throws {
        var (machine, _) = greeted()
        var out: [IdentifiedRequest] = []
        for _ in 0..<40 { out += Self.sent(try machine.request(.status).actions) }
        #expect(out.count == 32)
        #expect(machine.pendingRequests == 40)
        let next = machine.received(Self.line(.ok(request: "status"), id: out[0].id), now: t0)
        #expect(Self.sent(next).map(\.id) == [.integer(34)], "hello was 1, so the 33rd request is 34")
    }

    @Test("close fails what is unanswered, once")
    func close() throws {
        var (machine, _) = greeted()
        let id = try machine.request(.status).id
        let actions = machine.close()
        #expect(actions.first == .closeConnection)
        #expect(Self.replies(actions).map(\.id) == [id])
        #expect(machine.state == .closed)
        #expect(machine.close().isEmpty)
        #expect(machine.received(Self.line(.ok(request: "status"), id: .integer(id)), now: t0).isEmpty)
    }
}
