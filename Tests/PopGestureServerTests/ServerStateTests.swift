import Foundation
import PopGestureCore
import PopGestureProtocol
@testable import PopGestureServer
import PopGestureSynthesis
import Synchronization
import Testing

/// The server state machine, driven directly: lines and input events in, actions out.
/// Its two halves are wired together synchronously: the socket side (`state`) hands requests to
/// the engine side (`host`) with `.toEngine`, which this harness carries out at once, as
/// `SocketServer` does, and feeds what the engine side produced back to the socket side.
/// So the actions returned are what the clients get, in their order.
struct Harness {
    var state = ServerState(logger: quietLogger)
    var host = EngineHost(logger: quietLogger)
    var time = Fixtures.start
    /// The requests handed to the engine side so far.
    var requestsToEngine: [EngineRequest] = []
    /// ``connect(greeted:credentials:)`` gives each client a process of its own from this pid on.
    var nextPID: Int32 = 4242
    static let touchscreenKey = 11
    /// Stands for "a process of its own, of uid 1000" in ``connect(greeted:credentials:)``.
    static let ownProcess = PeerCredentials(pid: -1, uid: 1000, gid: 100)

    var engine: GestureEngine { host.engine }

    /// Carries out the engine side's part of `actions`: each `.toEngine` is replaced by
    /// what the socket side makes of the engine side's output.
    mutating func wired(_ actions: [ServerAction]) -> [ServerAction] {
        var result: [ServerAction] = []
        for action in actions {
            guard case .toEngine(let request) = action else {
                result.append(action)
                continue
            }
            requestsToEngine.append(request)
            var output: [EngineOutput] = []
            host.perform(request, output: &output)
            result += fromEngine(output)
        }
        return result
    }

    /// The engine side's output, through the socket side.
    mutating func fromEngine(_ output: [EngineOutput]) -> [ServerAction] {
        var result: [ServerAction] = []
        for item in output { result += wired(state.received(fromEngine: item, at: time)) }
        return result
    }

    /// Connects a client and, unless told otherwise, says hello for it; by default from a
    /// process of its own (pids 4242, 4243…) of uid 1000.
    mutating func connect(greeted: Bool = true, credentials: PeerCredentials? = Harness.ownProcess) -> ClientID {
        var credentials = credentials
        if credentials == Self.ownProcess {
            credentials?.pid = nextPID
            nextPID += 1
        }
        let client = state.clientConnected(credentials: credentials, at: time).client
        if greeted { _ = send(#"{"type":"hello","version":1}"#, from: client) }
        return client
    }

    mutating func send(_ line: String, from client: ClientID) -> [ServerAction] {
        wired(state.received(line: Array(line.utf8), from: client, at: time))
    }

    mutating func clientDisconnected(_ client: ClientID, at time: Timestamp) -> [ServerAction] {
        wired(state.clientDisconnected(client, at: time))
    }

    mutating func tick(at time: Timestamp) -> [ServerAction] { wired(state.tick(at: time)) }

    mutating func outputBacklog(of client: ClientID, unsentBytes: Int, at time: Timestamp) -> [ServerAction] {
        wired(state.outputBacklog(of: client, unsentBytes: unsentBytes, at: time))
    }

    @discardableResult
    mutating func deviceAdded(
        key: Int, path: String, name: String, description: DeviceDescription,
        configuration: DeviceConfiguration = .init(), atOpen stateAtOpen: DeviceStateAtOpen? = nil, at time: Timestamp
    ) throws -> DeviceID {
        var output: [EngineOutput] = []
        defer { _ = fromEngine(output) }
        return try host.deviceAdded(
            key: key, path: path, name: name, description: description, configuration: configuration,
            atOpen: stateAtOpen, at: time, output: &output)
    }

    mutating func deviceRemoved(key: Int, at time: Timestamp) -> [ServerAction] {
        var output: [EngineOutput] = []
        host.deviceRemoved(key: key, at: time, output: &output)
        return fromEngine(output)
    }

    /// One read's events into the engine side, and what the clients get of them.
    mutating func handle(events: [InputEvent], fromDevice key: Int) -> [ServerAction] {
        var output: [EngineOutput] = []
        host.handle(events: events, fromDevice: key, output: &output)
        return fromEngine(output)
    }

    /// The one reply a request gets, with any events it caused left out.
    mutating func reply(_ line: String, from client: ClientID) -> String? {
        send(line, from: client).lines(to: client).first
    }

    @discardableResult
    mutating func addTouchscreen(key: Int = touchscreenKey) throws -> DeviceID {
        try deviceAdded(
            key: key, path: "/dev/input/event\(key)", name: "Fixture Touchscreen", description: Fixtures.touchscreen, at: time)
    }

    /// Feeds a script frame by frame, as the daemon does, and collects every action.
    mutating func play(_ script: TouchScript, key: Int = touchscreenKey) -> [ServerAction] {
        Fixtures.frames(script.events).flatMap { handle(events: $0, fromDevice: key) }
    }

    /// A client with `main` in front: root and detail.
    mutating func owner() -> ClientID {
        let client = connect()
        _ = send(#"{"type":"create","navigator":"main","pages":[{"id":"root"},{"id":"detail"}]}"#, from: client)
        return client
    }
}

extension ServerAction {
    /// The client a `.close` closes; nil for a `.send`.
    var closed: ClientID? {
        if case .close(let client, _) = self { client } else { nil }
    }
}

extension Array where Element == ServerAction {
    func lines(to client: ClientID) -> [String] {
        compactMap {
            if case .send(client, let line) = $0 { line.text } else { nil }
        }
    }

    /// The `"type"` of each line to `client`, runs of pop-progress collapsed.
    func types(to client: ClientID) -> [String] {
        var out: [String] = []
        for line in lines(to: client) {
            let type = json(line)["type"] as? String ?? "?"
            if type == "pop-progress" && out.last == type { continue }
            out.append(type)
        }
        return out
    }
}

func json(_ line: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
}

@Suite("ServerState")
struct ServerStateTests {
    // MARK: - Hello

    @Test("hello is answered with the client's number and the echoed id")
    func hello() {
        var h = Harness()
        let client = h.connect(greeted: false)
        #expect(h.send(#"{"type":"hello","version":1,"name":"files","id":"h"}"#, from: client) == [
            .send(client, line: #"{"type":"hello","version":1,"server":"popgestured","client":\#(client.rawValue),"id":"h"}"#),
        ])
        #expect(h.state.clients[client]?.name == "files")
        #expect(h.state.clients[client]?.greeted == true)
    }

    @Test("anything before hello is refused with hello-required, and changes nothing")
    func helloRequired() {
        var h = Harness()
        let client = h.connect(greeted: false)
        for line in [#"{"type":"status","id":1}"#, #"{"type":"subscribe"}"#,
                     #"{"type":"create","navigator":"main","pages":[{"id":"root"}]}"#] {
            let reply = h.reply(line, from: client).map(json)
            #expect(reply?["type"] as? String == "error")
            #expect(reply?["code"] as? String == "hello-required")
        }
        #expect(h.reply(#"{"type":"status","id":1}"#, from: client)
            == #"{"type":"error","code":"hello-required","message":"the first request must be {\"type\":\"hello\",\"version\":1}","request":"status","id":1}"#)
        #expect(h.engine.navigation.navigators.isEmpty)
        #expect(h.state.clients[client]?.observer == false)
    }

    @Test("an unsupported version is refused, says which is supported, and hello can be retried")
    func unsupportedVersion() {
        var h = Harness()
        let client = h.connect(greeted: false)
        let reply = h.reply(#"{"type":"hello","version":2}"#, from: client).map(json)
        #expect(reply?["code"] as? String == "unsupported-version")
        #expect((reply?["message"] as? String)?.contains("supported: 1") == true)
        #expect(reply?["supported"] as? [Int] == [1])
        #expect(h.state.clients[client]?.greeted == false)
        #expect(h.reply(#"{"type":"hello","version":1}"#, from: client).map(json)?["type"] as? String == "hello")
    }

    @Test("negotiation: versions offers a list, the highest both speak is chosen, version is then ignored")
    func negotiation() {
        var h = Harness()
        let client = h.connect(greeted: false)
        #expect(h.reply(#"{"type":"hello","version":7,"versions":[1,2,3],"id":1}"#, from: client)
            == #"{"type":"hello","version":1,"server":"popgestured","client":\#(client.rawValue),"id":1}"#)
        #expect(h.state.clients[client]?.version == 1)
        #expect(h.state.clients[client]?.greeted == true)
    }

    @Test("negotiation: no version in common is unsupported-version, with the list the daemon speaks")
    func negotiationRefused() {
        var h = Harness()
        let client = h.connect(greeted: false)
        #expect(h.reply(#"{"type":"hello","versions":[2,3],"id":1}"#, from: client)
            == #"{"type":"error","code":"unsupported-version","message":"protocol versions 2, 3 are not supported; supported: 1","request":"hello","supported":[1],"id":1}"#)
        #expect(h.state.clients[client]?.greeted == false)
        #expect(h.state.clients[client]?.version == nil)
        // Not greeted: the next request still needs hello.
        #expect(h.reply(#"{"type":"status"}"#, from: client).map(json)?["code"] as? String == "hello-required")
        #expect(h.reply(#"{"type":"hello","versions":[1]}"#, from: client).map(json)?["version"] as? Int == 1)
    }

    @Test("a malformed line is answered with its parse error, before hello too")
    func parseErrors() {
        var h = Harness()
        let client = h.connect(greeted: false)
        #expect(h.reply("{", from: client).map(json)?["code"] as? String == "malformed-json")
        #expect(h.reply(#"{"type":"jump","id":9}"#, from: client)
            == #"{"type":"error","code":"unknown-type","message":"\"type\" \"jump\" is not a request; known: hello, subscribe, unsubscribe, create, push, pop, replace, update, configure, settle, front, remove, stack, status, focus, focused-window, rotation, outputs, text-direction, touchpad-scrolling, user-settings","request":"jump","id":9}"#)
        #expect(h.send("  \r", from: client).isEmpty)
    }

    @Test("an over-long line gets line-too-long")
    func lineTooLong() {
        var h = Harness()
        let client = h.connect()
        let reply = h.state.receivedOverlongLine(from: client, maximumLength: 65536, at: h.time).lines(to: client).first.map(json)
        #expect(reply?["code"] as? String == "line-too-long")
        #expect((reply?["message"] as? String)?.contains("65536") == true)
    }

    // MARK: - Navigation and ownership

    @Test("create replies ok, then the bar event it caused")
    func createThenBar() {
        var h = Harness()
        let client = h.connect()
        let actions = h.send(#"{"type":"create","navigator":"main","pages":[{"id":"root"}],"id":1}"#, from: client)
        #expect(actions == [
            .send(client, line: #"{"type":"ok","request":"create","id":1}"#),
            .send(client, line: #"{"type":"bar","navigator":"main","page":"root","hidden":false}"#),
        ])
    }

    @Test("another client cannot push onto a navigator it does not own; the owner's stack is untouched")
    func notOwner() {
        var h = Harness()
        let a = h.owner()
        let b = h.connect()
        let actions = h.send(#"{"type":"push","navigator":"main","page":{"id":"evil"},"id":5}"#, from: b)
        #expect(actions.count == 1)
        let reply = actions.lines(to: b).first.map(json)
        #expect(reply?["code"] as? String == "not-owner")
        #expect(reply?["request"] as? String == "push")
        #expect(reply?["id"] as? Int == 5)
        #expect(actions.lines(to: a).isEmpty)
        #expect(h.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root", "detail"])
        // Reading is open to everyone.
        #expect(h.reply(#"{"type":"stack","navigator":"main"}"#, from: b)
            == #"{"type":"stack","navigator":"main","owner":\#(a.rawValue),"pages":["root","detail"],"front":true,"transitioning":false}"#)
    }

    @Test("pushing a page that is already there is duplicate-page")
    func duplicatePush() {
        var h = Harness()
        let a = h.owner()
        let reply = h.reply(#"{"type":"push","navigator":"main","page":{"id":"detail"}}"#, from: a).map(json)
        #expect(reply?["code"] as? String == "duplicate-page")
        #expect(h.engine.navigation.navigators["main"]?.depth == 2)
    }

    @Test("navigation errors carry the engine's code", arguments: [
        (#"{"type":"pop","navigator":"nope"}"#, "unknown-navigator"),
        (#"{"type":"stack","navigator":"nope"}"#, "unknown-navigator"),
        (#"{"type":"create","navigator":"main","pages":[{"id":"x"}]}"#, "navigator-exists"),
        (#"{"type":"create","navigator":"other","pages":[]}"#, "empty-stack"),
        (#"{"type":"update","navigator":"main","page":{"id":"ghost"}}"#, "unknown-page"),
        (#"{"type":"replace","navigator":"main","pages":[{"id":"a","maxStartDistance":-1}]}"#, "invalid-value"),
    ])
    func navigationErrors(line: String, code: String) {
        var h = Harness()
        let a = h.owner()
        #expect(h.reply(line, from: a).map(json)?["code"] as? String == code)
    }

    @Test("popping the root page is cannot-pop-root")
    func cannotPopRoot() {
        var h = Harness()
        let a = h.owner()
        #expect(h.reply(#"{"type":"pop","navigator":"main"}"#, from: a).map(json)?["type"] as? String == "ok")
        #expect(h.reply(#"{"type":"pop","navigator":"main"}"#, from: a).map(json)?["code"] as? String == "cannot-pop-root")
    }

    @Test("configure keeps the keys it leaves out")
    func configureKeepsOmittedKeys() throws {
        var h = Harness()
        let a = h.connect()
        _ = h.send(#"{"type":"create","navigator":"main","pages":[{"id":"r"}],"barFollowsTopPage":false}"#, from: a)
        #expect(h.reply(#"{"type":"configure","navigator":"main","layout":"rtl"}"#, from: a)
            == #"{"type":"ok","request":"configure"}"#)
        let nav = try #require(h.engine.navigation.navigators["main"])
        #expect(nav.layout == .rightToLeft)
        #expect(nav.barFollowsTopPage == false)
        _ = h.send(#"{"type":"configure","navigator":"main","barFollowsTopPage":true}"#, from: a)
        #expect(h.engine.navigation.navigators["main"]?.layout == .rightToLeft)
        #expect(h.engine.navigation.navigators["main"]?.barFollowsTopPage == true)
    }

    @Test("an animated push makes the stack transitioning until settled")
    func transitioning() {
        var h = Harness()
        let a = h.owner()
        _ = h.send(#"{"type":"push","navigator":"main","page":{"id":"more"},"animated":true}"#, from: a)
        #expect(h.reply(#"{"type":"stack","navigator":"main"}"#, from: a).map(json)?["transitioning"] as? Bool == true)
        _ = h.send(#"{"type":"settle","navigator":"main"}"#, from: a)
        #expect(h.reply(#"{"type":"stack","navigator":"main"}"#, from: a).map(json)?["transitioning"] as? Bool == false)
    }

    @Test("a client that disconnects takes its navigators with it; the previous one comes back to the front")
    func disconnectRemovesNavigators() {
        var h = Harness()
        let a = h.owner()
        let b = h.connect()
        _ = h.send(#"{"type":"create","navigator":"b-main","pages":[{"id":"home"}]}"#, from: b)
        #expect(h.engine.navigation.front(on: .seat0)?.id == "b-main")
        _ = h.clientDisconnected(b, at: h.time)
        #expect(h.state.clients[b] == nil)
        #expect(h.engine.navigation.navigators["b-main"] == nil)
        #expect(h.engine.navigation.front(on: .seat0)?.id == "main")
        _ = h.clientDisconnected(a, at: h.time)
        #expect(h.engine.navigation.navigators.isEmpty)
        let c = h.connect()
        #expect(h.reply(#"{"type":"stack","navigator":"main"}"#, from: c).map(json)?["code"] as? String
            == "unknown-navigator")
    }

    // MARK: - Events

    @Test("a back swipe fed as input events sends the owner the whole pop, ending in back and bar")
    func swipeProducesBack() throws {
        var h = Harness()
        let a = h.owner()
        let device = try h.addTouchscreen()
        #expect(device == DeviceID(0))
        let actions = h.play(Fixtures.backSwipe())
        #expect(actions.types(to: a) == ["pop-began", "pop-progress", "pop-finished", "back", "bar"])
        let back = actions.lines(to: a).first { $0.contains(#""type":"back""#) }
        #expect(back?.hasPrefix(#"{"type":"back","navigator":"main","popped":"detail","top":"root","time_us":"#) == true)
        #expect(h.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root"])
    }

    @Test("an observer gets rejected, the owner does not")
    func observerGetsRejected() throws {
        var h = Harness()
        let a = h.owner()
        let observer = h.connect()
        #expect(h.reply(#"{"type":"subscribe"}"#, from: observer) == #"{"type":"ok","request":"subscribe"}"#)
        try h.addTouchscreen()
        let actions = h.play(Fixtures.scroll())
        #expect(actions.lines(to: a).isEmpty)
        #expect(actions.lines(to: observer).count == 1)
        #expect(actions.lines(to: observer).first?.hasPrefix(
            #"{"type":"rejected","reason":"too-steep","device":0,"time_us":"#) == true)
    }

    @Test("an observer sees the owner's events; an owner that observes gets each line once")
    func ownerAndObserver() throws {
        var h = Harness()
        let a = h.owner()
        let watcher = h.connect()
        _ = h.send(#"{"type":"subscribe"}"#, from: watcher)
        _ = h.send(#"{"type":"subscribe"}"#, from: a)
        try h.addTouchscreen()
        let actions = h.play(Fixtures.backSwipe())
        #expect(actions.lines(to: a) == actions.lines(to: watcher))
        #expect(actions.types(to: a) == ["pop-began", "pop-progress", "pop-finished", "back", "bar"])
        // Owner first, then observers by number.
        #expect(actions.prefix(2) == [.send(a, line: OutgoingLine(actions.lines(to: a)[0])), .send(watcher, line: OutgoingLine(actions.lines(to: a)[0]))])
        // Encoded once: both get the very same bytes, not two copies.
        guard case .send(_, let first) = actions[0], case .send(_, let second) = actions[1] else {
            Issue.record("expected two sends first")
            return
        }
        #expect(first.bytes.withUnsafeReadableBytes(\.baseAddress) == second.bytes.withUnsafeReadableBytes(\.baseAddress))

        // After unsubscribe, a scroll's rejection reaches nobody.
        _ = h.send(#"{"type":"unsubscribe"}"#, from: watcher)
        _ = h.send(#"{"type":"unsubscribe"}"#, from: a)
        #expect(h.play(Fixtures.scroll()).isEmpty)
    }

    @Test("a device removed mid-swipe cancels the pop; its later events are dropped")
    func deviceRemovedMidSwipe() throws {
        var h = Harness()
        let a = h.owner()
        try h.addTouchscreen()
        let frames = Fixtures.frames(Fixtures.backSwipe().events)
        var actions: [ServerAction] = []
        for frame in frames.prefix(10) { actions += h.handle(events: frame, fromDevice: Harness.touchscreenKey) }
        #expect(actions.types(to: a).first == "pop-began")
        let removed = h.deviceRemoved(key: Harness.touchscreenKey, at: h.time)
        #expect(removed.types(to: a) == ["pop-cancelled", "bar"])
        #expect(removed.lines(to: a).first.map(json)?["reason"] as? String == "device-removed")
        #expect(frames.dropFirst(10).flatMap { h.handle(events: $0, fromDevice: Harness.touchscreenKey) }.isEmpty)
    }

    @Test("a client leaving under the finger: observers hear the cancel")
    func ownerLeavesMidSwipe() throws {
        var h = Harness()
        let a = h.owner()
        let watcher = h.connect()
        _ = h.send(#"{"type":"subscribe"}"#, from: watcher)
        try h.addTouchscreen()
        for frame in Fixtures.frames(Fixtures.backSwipe().events).prefix(10) {
            _ = h.handle(events: frame, fromDevice: Harness.touchscreenKey)
        }
        let actions = h.clientDisconnected(a, at: h.time)
        #expect(actions.lines(to: a).isEmpty)
        #expect(actions.lines(to: watcher).first.map(json)?["reason"] as? String == "stack-changed")
    }

    // MARK: - Status, backlog, settings

    @Test("status lists devices, navigators and clients with their credentials")
    func status() throws {
        var h = Harness()
        let a = h.connect()
        _ = h.send(#"{"type":"hello","version":1,"name":"files"}"#, from: a)
        _ = h.send(#"{"type":"create","navigator":"main","pages":[{"id":"root"},{"id":"detail"}]}"#, from: a)
        let b = h.connect(credentials: nil)
        _ = h.send(#"{"type":"subscribe"}"#, from: b)
        try h.addTouchscreen()
        // Asked by client 1, which sees its own credentials (``credentialsFollowTheSeat`` has the rest).
        #expect(h.reply(#"{"type":"status","id":"s"}"#, from: a) == """
            {"type":"status","version":1,\
            "devices":[{"device":0,"name":"Fixture Touchscreen","path":"/dev/input/event11","kind":"touchscreen",\
            "widthMillimetres":255.9,"heightMillimetres":255.9,"sizeAssumed":false,"sizeSource":"axes","rotation":0,\
            "seat":"seat0","rotationSource":"configuration"}],\
            "deviceCount":1,\
            "navigators":[{"navigator":"main","owner":1,"pages":2,"front":true}],"navigatorCount":1,\
            "clients":[{"client":1,"name":"files","pid":4242,"uid":1000,"gid":100,"observer":false},\
            {"client":2,"observer":true}],"clientCount":2,"focus":{"seat":"seat0","source":"clients"},\
            "rejected":[],"rejectedCount":0,\
            "settings":{"seat":"seat0","mode":"fullscreen","backInputMode":"edge","edgeWidthMm":4.8,"commitProgress":0.3,\
            "flingVelocityMmPerS":180,"edgeFlingVelocityMmPerS":60,"user":[],"locked":[]},\
            "screen":{"rotation":0,"rotationSource":"configuration","direction":"ltr","directionSource":"configuration"},\
            "id":"s"}
            """)
    }

    @Test("a client more than 256 KiB behind is closed, with the reason, and its navigators go")
    func backlog() {
        var h = Harness()
        let a = h.owner()
        let limit = h.state.limits.maximumUnsentBytesPerClient
        #expect(limit == 256 * 1024)
        #expect(h.outputBacklog(of: a, unsentBytes: limit, at: h.time).isEmpty)
        #expect(h.state.totalUnsentBytes == limit)
        let actions = h.outputBacklog(of: a, unsentBytes: limit + 1, at: h.time)
        #expect(actions.count == 1)
        guard case .close(a, let reason)? = actions.first else {
            Issue.record("expected a close, got \(actions)")
            return
        }
        #expect(reason == "not reading, 262145 bytes unsent, over the 256 KiB per client")
        #expect(h.state.clients[a] == nil)
        #expect(h.state.totalUnsentBytes == 0)
        #expect(h.engine.navigation.navigators.isEmpty)
        // channelInactive comes later, and finds nothing more to do.
        #expect(h.clientDisconnected(a, at: h.time).isEmpty)
    }

    @Test("past 8 MiB unsent across clients, the largest backlog is closed, and only it")
    func totalBacklog() {
        var h = Harness()
        let clients = (0..<40).map { _ in h.connect() }
        #expect(h.state.limits.maximumUnsentBytesTotal == 8 << 20)
        // 40 × 204 KiB = 8160 KiB: under 8 MiB (8192 KiB), each under its own limit.
        for client in clients {
            #expect(h.outputBacklog(of: client, unsentBytes: 204 << 10, at: h.time).isEmpty)
        }
        #expect(h.state.totalUnsentBytes == 40 * (204 << 10))
        let actions = h.outputBacklog(of: clients[7], unsentBytes: 250 << 10, at: h.time)
        #expect(actions.map(\.closed) == [clients[7]])
        #expect(h.state.clients.count == 39)
        #expect(h.state.totalUnsentBytes == 39 * (204 << 10))
    }

    @Test("among equal backlogs the lowest number goes first, and as many as it takes")
    func totalBacklogTies() {
        var h = Harness()
        var limits = ServerLimits()
        limits.maximumUnsentBytesTotal = 1000
        h.state = ServerState(limits: limits, logger: quietLogger)
        let a = h.connect(), b = h.connect(), c = h.connect()
        #expect(h.outputBacklog(of: a, unsentBytes: 400, at: h.time).isEmpty)
        #expect(h.outputBacklog(of: b, unsentBytes: 400, at: h.time).isEmpty)
        #expect(h.outputBacklog(of: c, unsentBytes: 400, at: h.time).map(\.closed) == [a])
        #expect(h.outputBacklog(of: c, unsentBytes: 2000, at: h.time).map(\.closed) == [c])
        #expect(h.state.clients.keys.sorted() == [b])
        #expect(h.state.totalUnsentBytes == 400)
    }

    // MARK: - Admission

    @Test("the 129th hello gets too-many-clients and is closed; it never becomes a client")
    func tooManyClients() {
        var h = Harness()
        var limits = ServerLimits()
        limits.maximumClientsPerUser = .max  // this test is about the places in all
        h.state = ServerState(limits: limits, logger: quietLogger)
        let first = h.owner()
        for _ in 1..<h.state.limits.maximumClients { _ = h.connect() }
        #expect(h.state.greetedCount == 128)
        // Connections before hello have places of their own.
        let extra = h.connect(greeted: false)
        #expect(h.state.clients[extra] != nil)
        let actions = h.send(#"{"type":"hello","version":1}"#, from: extra)
        #expect(actions.lines(to: extra).first.map(json)?["code"] as? String == "too-many-clients")
        #expect(actions.compactMap(\.closed) == [extra])
        #expect(h.state.clients[extra] == nil)
        #expect(h.state.greetedCount == 128)
        #expect(h.clientDisconnected(extra, at: h.time).isEmpty)
        // The others carry on; when one leaves, the next is admitted.
        #expect(h.reply(#"{"type":"stack","navigator":"main"}"#, from: first).map(json)?["type"] as? String == "stack")
        _ = h.clientDisconnected(first, at: h.time)
        let next = h.connect()
        #expect(h.state.clients[next]?.greeted == true)
    }

    @Test("one user holds at most 64 places after hello; root and the daemon's user have no share")
    func shareOfAUser() {
        var h = Harness()
        h.state = ServerState(unlimitedUsers: [0, 999], logger: quietLogger)
        for _ in 0..<64 { _ = h.connect() }
        let over = h.connect(greeted: false)
        let actions = h.send(#"{"type":"hello","version":1}"#, from: over)
        #expect(actions.lines(to: over).first.map(json)?["message"] as? String
            == "uid 1000 holds 64 of the 128 places, its share; try again later")
        #expect(actions.compactMap(\.closed) == [over])
        // Another user still gets in, and so do root and the daemon's user past 64.
        let other = h.connect(credentials: PeerCredentials(pid: 7000, uid: 1001, gid: 100))
        #expect(h.state.clients[other]?.greeted == true)
        for pid in Int32(8000)..<8031 { _ = h.connect(credentials: PeerCredentials(pid: pid, uid: 0, gid: 0)) }
        for pid in Int32(9000)..<9032 { _ = h.connect(credentials: PeerCredentials(pid: pid, uid: 999, gid: 999)) }
        #expect(h.state.greetedCount == 128)
        #expect(h.state.clients.values.filter { $0.credentials?.uid != 1000 && $0.greeted }.count == 64)
    }

    @Test("connections before hello: 32 at once, 8 per user whatever pid connected; a process holds 32 in all")
    func placesBeforeHello() {
        var h = Harness()
        // One user's connections from short-lived children, a new pid each (handed back
        // over SCM_RIGHTS): the share counts the user.
        let early = (0..<8).map { n in
            h.connect(greeted: false, credentials: PeerCredentials(pid: 500 + Int32(n), uid: 1000, gid: 100))
        }
        let (ninth, refused) = h.state.clientConnected(credentials: PeerCredentials(pid: 600, uid: 1000, gid: 100), at: h.time)
        #expect(refused.lines(to: ninth).first.map(json)?["message"] as? String
            == "uid 1000 holds 8 connections that have not said hello, the most one user may; try again later")
        #expect(refused.compactMap(\.closed) == [ninth])
        // Three other users fill the rest of the 32; a fourth is refused for want of any place.
        for uid in UInt32(1001)...1003 {
            for n in 0..<8 {
                let id = h.connect(greeted: false, credentials: PeerCredentials(pid: Int32(uid) * 10 + Int32(n), uid: uid, gid: 100))
                #expect(h.state.clients[id] != nil)
            }
        }
        let (full, refusedFull) = h.state.clientConnected(credentials: PeerCredentials(pid: 700, uid: 1004, gid: 100), at: h.time)
        #expect(refusedFull.lines(to: full).first.map(json)?["message"] as? String
            == "32 connections have not said hello yet, the most served at once; try again later")
        // Once the first user's connections say hello, it may open more; one process holds 32 in all.
        for client in early { _ = h.send(#"{"type":"hello","version":1}"#, from: client) }
        let process = PeerCredentials(pid: 500, uid: 1000, gid: 100)
        for _ in 0..<31 {
            let id = h.connect(greeted: false, credentials: process)
            #expect(h.state.clients[id] != nil)
            _ = h.send(#"{"type":"hello","version":1}"#, from: id)
        }
        let (past, refusedPast) = h.state.clientConnected(credentials: process, at: h.time)
        #expect(refusedPast.lines(to: past).first.map(json)?["message"] as? String
            == "pid 500 holds 32 connections, the most one process may; try again later")
        // Root's processes have no share: only the 32 places before hello limit them.
        let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
        for _ in 0..<40 {
            let id = h.connect(greeted: false, credentials: root)
            #expect(h.state.clients[id] != nil)
            _ = h.send(#"{"type":"hello","version":1}"#, from: id)
        }
    }

    @Test("a client is read only while its unsent output leaves room for the largest reply")
    func mayReceive() {
        var h = Harness()
        let a = h.connect()
        let threshold = h.state.limits.maximumUnsentBytesPerClient - ServerLimits.maximumReplyBytes
        #expect(h.state.mayReceive(from: a))
        _ = h.outputBacklog(of: a, unsentBytes: threshold, at: h.time)
        #expect(h.state.mayReceive(from: a))
        _ = h.outputBacklog(of: a, unsentBytes: threshold + 1, at: h.time)
        #expect(!h.state.mayReceive(from: a))
        _ = h.outputBacklog(of: a, unsentBytes: 0, at: h.time)
        #expect(h.state.mayReceive(from: a))
        #expect(!h.state.mayReceive(from: ClientID(999)))
    }

    @Test("a peer the admission policy refuses gets not-permitted and is closed; others are served")
    func notPermitted() {
        var h = Harness()
        h.state = ServerState(
            admission: ConnectionPolicy { $0?.uid == 1000 ? nil : "only uid 1000" }, logger: quietLogger)
        let (refused, actions) = h.state.clientConnected(
            credentials: PeerCredentials(pid: 7, uid: 1001, gid: 100), at: h.time)
        #expect(actions == [
            .send(refused, line: #"{"type":"error","code":"not-permitted","message":"this daemon does not serve you: only uid 1000"}"#),
            .close(refused, reason: "this daemon does not serve you: only uid 1000"),
        ])
        #expect(h.state.clients.isEmpty)
        #expect(h.send(#"{"type":"hello","version":1}"#, from: refused).isEmpty)
        #expect(h.state.clientConnected(credentials: nil, at: h.time).actions.count == 2)
        let admitted = h.connect()
        #expect(h.state.clients.keys.sorted() == [admitted])
    }

    /// A finger down at 2 % of the width, 60 mm to the right in 150 ms, up: starting `seconds` in.
    static func backSwipe(at seconds: Int64) -> TouchScript {
        var finger = TouchScript(device: Fixtures.touchscreen, start: Fixtures.start + .seconds(seconds))
        finger.down(at: 0.02, 0.5)
        finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
        finger.up()
        return finger
    }

    /// Issue 28: a user switch closed the old user's clients; they reconnected, were
    /// refused, and stayed gone after the switch back.
    @Test("a user switch A → B → A pauses A's app and shell, never closes them; back on A the same connections are served")
    func userSwitchPausesAndResumes() throws {
        let active = Mutex<UInt32>(1000)
        let policy = ConnectionPolicy({ peer in
            guard let peer else { return "no credentials" }
            return active.withLock { $0 } == peer.uid ? nil : "uid \(peer.uid) is not at a seat"
        }, mayWait: { _ in true })
        var h = Harness()
        h.state = ServerState(admission: policy, shells: policy, logger: quietLogger)
        try h.addTouchscreen()
        let shellA = h.connect(greeted: false)
        _ = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: shellA)
        let appA = h.owner()
        #expect(h.wired(h.state.reviewAdmission(at: h.time)).isEmpty, "nothing changed: nobody notices")

        // B takes the seat: A's two are paused, none is closed.
        active.withLock { $0 = 1001 }
        let toB = h.wired(h.state.reviewAdmission(at: h.time))
        #expect(toB.compactMap(\.closed).isEmpty)
        #expect(toB.types(to: appA) == ["paused"])
        #expect(toB.lines(to: appA).first.map(json)?["reason"] as? String == "uid 1000 is not the active user of a seat now")
        #expect(toB.types(to: shellA) == ["paused"])
        #expect(h.state.seatShells[.seat0] == nil, "the seat's shell role is free for B's bridge")
        #expect(h.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root", "detail"], "A's pages stay")
        // While B is at the screen: A's app gets nothing of a swipe, and seat-inactive for status.
        #expect(h.play(Self.backSwipe(at: 10)).lines(to: appA).isEmpty)
        #expect(h.engine.navigation.navigators["main"]?.pages.count == 2, "no back for a paused owner")
        #expect(h.reply(#"{"type":"status","id":1}"#, from: appA).map(json)?["code"] as? String == "seat-inactive")
        #expect(h.reply(#"{"type":"focused-window","app":"x","pid":1}"#, from: shellA).map(json)?["code"] as? String
            == "seat-inactive")
        #expect(h.reply(#"{"type":"push","navigator":"main","page":{"id":"more"}}"#, from: appA).map(json)?["type"] as? String
            == "ok", "its own navigator's changes are taken, so its record stays true")
        // B's bridge is B's seat's shell at once.
        let shellB = h.connect(greeted: false, credentials: PeerCredentials(pid: 77, uid: 1001, gid: 100))
        _ = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: shellB)
        #expect(h.state.seatShells[.seat0] == shellB)

        // Back to A: B's shell is paused, A's are resumed, A's shell is the shell again.
        active.withLock { $0 = 1000 }
        let toA = h.wired(h.state.reviewAdmission(at: h.time))
        #expect(toA.compactMap(\.closed).isEmpty)
        #expect(toA.types(to: shellB) == ["paused"])
        #expect(toA.types(to: appA) == ["resumed"])
        #expect(toA.types(to: shellA) == ["resumed"])
        #expect(h.state.seatShells[.seat0] == shellA)
        #expect(h.reply(#"{"type":"focused-window","app":null,"pid":\#(h.state.clients[appA]!.credentials!.pid)}"#,
                        from: shellA).map(json)?["type"] as? String == "ok")
        // The same connection gets the next swipe's back.
        let swipe = h.play(Self.backSwipe(at: 20))
        #expect(swipe.types(to: appA) == ["pop-began", "pop-progress", "pop-finished", "back", "bar"])
        #expect(h.state.clients.count == 3)
    }

    @Test("a pop under the finger when its owner is paused is cancelled, and the owner hears that alone")
    func pauseCancelsAPopInProgress() throws {
        let active = Mutex<UInt32>(1000)
        let policy = ConnectionPolicy({ active.withLock { $0 } == $0?.uid ? nil : "not at a seat" }, mayWait: { _ in true })
        var h = Harness()
        h.state = ServerState(admission: policy, logger: quietLogger)
        try h.addTouchscreen()
        let app = h.owner()
        var held = TouchScript(device: Fixtures.touchscreen, start: Fixtures.start + .seconds(5))
        held.down(at: 0.02, 0.5)
        held.move(byMillimetres: 30, 0, over: .milliseconds(100))
        #expect(h.play(held).types(to: app).first == "pop-began")
        active.withLock { $0 = 1001 }
        let actions = h.wired(h.state.reviewAdmission(at: h.time))
        #expect(actions.types(to: app) == ["paused", "pop-cancelled"])
    }

    @Test("a user who has a seat session but not the active one connects paused: hello, then paused; resumed with the user")
    func connectingWhileInactiveWaits() {
        let active = Mutex<UInt32>(1001)
        let policy = ConnectionPolicy({ active.withLock { $0 } == $0?.uid ? nil : "uid \($0?.uid ?? 0) is not at a seat" },
                                      mayWait: { $0?.uid == 1000 })
        var h = Harness()
        h.state = ServerState(admission: policy, shells: policy, logger: quietLogger)
        let bridge = h.connect(greeted: false)
        let hello = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: bridge)
        #expect(hello.types(to: bridge) == ["hello", "paused"])
        #expect(h.state.seatShells[.seat0] == nil, "no role while its user is away")
        // Somebody with no seat session at all is refused, as ever.
        let (stranger, refused) = h.state.clientConnected(credentials: PeerCredentials(pid: 9, uid: 1002, gid: 100), at: h.time)
        #expect(refused.lines(to: stranger).first.map(json)?["code"] as? String == "not-permitted")
        active.withLock { $0 = 1000 }
        let back = h.wired(h.state.reviewAdmission(at: h.time))
        #expect(back.types(to: bridge) == ["resumed"])
        #expect(h.state.seatShells[.seat0] == bridge)
    }

    @Test("a shell back from a pause whose seat has another shell gets shell-taken and is closed")
    func resumedShellFindsTheRoleTaken() {
        let active = Mutex<UInt32>(1000)
        let policy = ConnectionPolicy({ peer in
            peer?.uid == 0 || active.withLock { $0 } == peer?.uid ? nil : "not at a seat"
        }, mayWait: { _ in true })
        var h = Harness()
        h.state = ServerState(admission: policy, shells: policy, logger: quietLogger)
        let shell = h.connect(greeted: false)
        _ = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: shell)
        active.withLock { $0 = 1001 }
        _ = h.wired(h.state.reviewAdmission(at: h.time))
        // Root's bridge takes the role meanwhile, and is never paused.
        let root = h.connect(greeted: false, credentials: PeerCredentials(pid: 1, uid: 0, gid: 0))
        _ = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: root)
        active.withLock { $0 = 1000 }
        let actions = h.wired(h.state.reviewAdmission(at: h.time))
        #expect(actions.compactMap(\.closed) == [shell])
        #expect(actions.lines(to: shell).first.map(json)?["code"] as? String == "shell-taken")
        #expect(h.state.seatShells[.seat0] == root)
    }

    @Test("a shell whose user may no longer be its seat's shell, but may still connect, is paused and gives the role up")
    func shellRevoked() {
        let seatUser = Mutex<UInt32>(1000)
        let shells = ConnectionPolicy { peer in peer?.uid == seatUser.withLock { $0 } ? nil : "not the seat's user" }
        var h = Harness()
        h.state = ServerState(shells: shells, logger: quietLogger)
        let shell = h.connect(greeted: false)
        _ = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: shell)
        let observer = h.connect()
        seatUser.withLock { $0 = 1001 }
        let actions = h.wired(h.state.reviewAdmission(at: h.time))
        #expect(actions.compactMap(\.closed).isEmpty)
        #expect(actions.types(to: shell) == ["paused"])
        #expect(h.state.seatShells[.seat0] == nil)
        #expect(actions.lines(to: observer).isEmpty)
    }

    // MARK: - Timeouts

    @Test("a connection without hello is closed with hello-required after 10 s; a greeted idle one sets no timer")
    func helloTimeout() {
        var h = Harness()
        let greeted = h.connect()
        #expect(h.state.nextDeadline == nil)
        let silent = h.connect(greeted: false)
        let due = h.time + .seconds(10)
        #expect(h.state.nextDeadline == due)
        // Requests other than hello do not put it off.
        h.time = h.time + .seconds(5)
        _ = h.send(#"{"type":"status"}"#, from: silent)
        #expect(h.state.nextDeadline == due)
        #expect(h.tick(at: Timestamp(microseconds: due.microseconds - 1)).isEmpty)
        let actions = h.tick(at: due)
        #expect(actions.lines(to: silent).map(json).first?["code"] as? String == "hello-required")
        #expect(actions.last == .close(silent, reason: "no hello within 10.0 seconds; closing"))
        #expect(h.state.clients.keys.sorted() == [greeted])
        #expect(h.state.nextDeadline == nil)
    }

    @Test("an unfinished line is closed with line-timeout 10 s after the input stopped inside it")
    func lineTimeout() {
        var h = Harness()
        let a = h.owner()
        let b = h.connect()
        h.state.lineUnfinished(from: a, at: h.time)
        let due = h.time + .seconds(10)
        #expect(h.state.nextDeadline == due)
        // More bytes of the same line do not put it off; its end does.
        h.state.lineUnfinished(from: a, at: h.time + .seconds(3))
        #expect(h.state.nextDeadline == due)
        _ = h.send(#"{"type":"status"}"#, from: a)
        #expect(h.state.nextDeadline == nil)
        h.state.lineUnfinished(from: b, at: h.time + .seconds(4))
        h.state.lineEnded(from: b)
        #expect(h.state.nextDeadline == nil)

        h.state.lineUnfinished(from: a, at: h.time)
        #expect(h.tick(at: h.time + .seconds(9)).isEmpty)
        let actions = h.tick(at: due)
        #expect(actions.lines(to: a).map(json).first?["code"] as? String == "line-timeout")
        #expect(actions.contains(.close(a, reason: "a line was not finished within 10.0 seconds; closing")))
        #expect(h.engine.navigation.navigators.isEmpty)
        #expect(h.state.clients.keys.sorted() == [b])
    }

    @Test("the deadline's revision moves with what moves a deadline, and not with a swipe")
    func deadlineRevision() throws {
        var h = Harness()
        var seen = h.state.deadlineRevision
        func moved(_ state: ServerState) -> Bool {
            defer { seen = state.deadlineRevision }
            return state.deadlineRevision != seen
        }
        let a = h.connect(greeted: false)
        #expect(moved(h.state), "a connection: its hello is due")
        _ = h.send(#"{"type":"hello","version":1}"#, from: a)
        #expect(moved(h.state), "hello: nothing is due now")
        _ = h.send(#"{"type":"create","navigator":"main","pages":[{"id":"root"},{"id":"detail"}]}"#, from: a)
        #expect(!moved(h.state), "a complete line, none unfinished before it")
        h.state.lineUnfinished(from: a, at: h.time)
        #expect(moved(h.state), "the input stopped inside a line")
        h.state.lineUnfinished(from: a, at: h.time + .seconds(1))
        #expect(!moved(h.state), "more of the same line: the same deadline")
        h.state.lineEnded(from: a)
        #expect(moved(h.state), "the line ended")
        try h.addTouchscreen()
        let actions = h.play(Fixtures.backSwipe())
        #expect(actions.types(to: a).contains("back"))
        #expect(!moved(h.state), "a swipe routed to the owner")
        _ = h.clientDisconnected(a, at: h.time)
        #expect(moved(h.state), "the client left")
        #expect(h.state.nextDeadline == nil)
    }

    // MARK: - Bounded replies and logs

    /// 256 bytes that each become 6 when escaped (`\u0001`): the longest encoding of an
    /// id, page id or name at its limit of 256 bytes.
    static let worstID = String(repeating: "\u{1}", count: 256)

    @Test("status lists at most 64 of each, with counts and truncated")
    func statusTruncated() throws {
        var h = Harness()
        h.state = ServerState(unlimitedUsers: [1000], logger: quietLogger)  // 70 clients of one user
        for n in 0..<70 {
            let client = h.connect()
            if n < 5 {
                for k in 0..<16 {
                    _ = h.send(#"{"type":"create","navigator":"n\#(n)-\#(k)","pages":[{"id":"r"}]}"#, from: client)
                }
            }
        }
        let status = h.reply(#"{"type":"status"}"#, from: ClientID(1))
        let reply = json(try #require(status))
        #expect((reply["clients"] as? [Any])?.count == 64)
        #expect(reply["clientCount"] as? Int == 70)
        #expect((reply["navigators"] as? [Any])?.count == 64)
        #expect(reply["navigatorCount"] as? Int == 80)
        #expect(reply["deviceCount"] as? Int == 0)
        #expect(reply["truncated"] as? Bool == true)
    }

    @Test("the largest status reply, with the longest ids everywhere, stays under the per-client limit")
    func statusWorstCase() throws {
        var h = Harness()
        // The daemon's part at its longest: a back input problem and a unit name of 256 bytes
        // that escape to 6 each, every device's grab with a clone.
        let supplement = EngineHostStatusTests.Supplement()
        supplement.daemon?.unit = Self.worstID
        supplement.backInput = .init(on: false, input: nil, mode: "fullscreen", device: nil, problem: Self.worstID)
        h.host = EngineHost(supplement: supplement, logger: quietLogger)
        let quotedID = JSONValue.quoted(Self.worstID)
        for n in 0..<128 {
            let client = h.connect(greeted: false)
            let role = n == 0 ? #","role":"shell""# : ""
            _ = h.send(#"{"type":"hello","version":1,"name":\#(quotedID)\#(role)}"#, from: client)
            _ = h.send(#"{"type":"subscribe"}"#, from: client)
            // The shell's rotation names an output of the worst kind too (status's `screen`).
            if n == 0 {
                #expect(h.reply(#"{"type":"rotation","rotation":90,"output":\#(quotedID)}"#, from: client)?.contains("ok") == true)
            }
            for k in 0..<(n < 8 ? 16 : 0) {
                // Distinct ids of the worst kind: the counter in front, padded to 256 bytes.
                let id = JSONValue.quoted(String("\(n)-\(k)-\(Self.worstID)".utf8.prefix(256))!)
                _ = h.send(#"{"type":"create","navigator":\#(id),"pages":[{"id":"r"}]}"#, from: client)
            }
        }
        #expect(h.engine.navigation.navigators.count == 128)
        for key in 0..<64 {
            try h.deviceAdded(
                key: key, path: "/dev/input/" + Self.worstID, name: Self.worstID, description: Fixtures.touchscreen, at: h.time)
        }
        // A full list of rejections, the device numbers at their widest.
        _ = h.play(EngineHostStatusTests.scrolls(EngineHost.recentRejectionLimit), key: 63)
        #expect(h.host.recentRejections.count == EngineHost.recentRejectionLimit)
        let status = h.reply(#"{"type":"status","id":\#(quotedID)}"#, from: ClientID(1))
        let line = try #require(status)
        let size = line.utf8.count
        print("worst-case status reply: \(size) bytes")
        #expect(size < h.state.limits.maximumUnsentBytesPerClient)
        #expect(size < 200 * 1024)
        #expect(json(line)["truncated"] as? Bool == true)
    }

    @Test("the largest stack reply stays far under the per-client limit")
    func stackWorstCase() throws {
        var h = Harness()
        let client = h.connect()
        let pages = (0..<64).map { n in #"{"id":\#(JSONValue.quoted(String("\(n)-\(Self.worstID)".utf8.prefix(256))!))}"# }
        let navigator = JSONValue.quoted(Self.worstID)
        _ = h.send(#"{"type":"create","navigator":\#(navigator),"pages":[\#(pages.joined(separator: ","))]}"#, from: client)
        let stack = h.reply(#"{"type":"stack","navigator":\#(navigator),"id":\#(navigator)}"#, from: client)
        let line = try #require(stack)
        #expect(json(line)["type"] as? String == "stack")
        print("worst-case stack reply: \(line.utf8.count) bytes")
        #expect(line.utf8.count < h.state.limits.maximumUnsentBytesPerClient / 2)
    }

    @Test("the disconnect log names the count and at most 3 ids, each cut to 64 characters")
    func disconnectSummary() {
        let ids = (0..<100).map { "\($0)-" + String(repeating: "x", count: 60_000) }.sorted()
        let summary = EngineHost.summary(removedNavigators: ids)
        #expect(summary.hasPrefix(", removed 100 navigators: 0-xxx"))
        #expect(summary.hasSuffix("… and 97 more"))
        #expect(summary.count < 3 * 66 + 60)
        #expect(EngineHost.summary(removedNavigators: ["main"]) == ", removed 1 navigator: main")
        #expect(EngineHost.summary(removedNavigators: []) == "")
    }

    @Test("shutdown closes every client")
    func shutdown() {
        var h = Harness()
        let a = h.connect(), b = h.connect(greeted: false)
        #expect(h.state.shutdown() == [.close(a, reason: "daemon shutting down"), .close(b, reason: "daemon shutting down")])
    }

    @Test("settings reload reaches the engine")
    func settings() {
        var h = Harness()
        var settings = GestureSettings()
        settings.mode = .edge
        h.host.updateSettings(settings, transitionTimeout: .milliseconds(500), defaultLayout: .rightToLeft)
        #expect(h.engine.settings.mode == .edge)
        #expect(h.engine.transitionTimeout == .milliseconds(500))
        #expect(h.engine.defaultLayout == .rightToLeft)
    }

    @Test("a device key added twice replaces the device")
    func deviceReplaced() throws {
        var h = Harness()
        try h.addTouchscreen()
        let second = try h.addTouchscreen()
        // The first was removed, so its engine id is free again and taken by the second.
        #expect(second == DeviceID(0))
        #expect(h.host.devices.count == 1)
        #expect(h.host.devices[Harness.touchscreenKey]?.id == DeviceID(0))
    }
}
