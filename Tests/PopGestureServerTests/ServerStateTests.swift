import Foundation
import PopGestureCore
@testable import PopGestureServer
import Testing

/// The server state machine, driven directly: lines and input events in, actions out.
struct Harness {
    var state = ServerState(logger: quietLogger)
    var time = Fixtures.start
    static let touchscreenKey = 11

    /// Connects a client and, unless told otherwise, says hello for it.
    mutating func connect(
        greeted: Bool = true, credentials: PeerCredentials? = PeerCredentials(pid: 4242, uid: 1000, gid: 100)
    ) -> ClientID {
        let client = state.clientConnected(credentials: credentials)
        if greeted { _ = send(#"{"type":"hello","version":1}"#, from: client) }
        return client
    }

    mutating func send(_ line: String, from client: ClientID) -> [ServerAction] {
        state.received(line: Array(line.utf8), from: client, at: time)
    }

    /// The one reply a request gets, with any events it caused left out.
    mutating func reply(_ line: String, from client: ClientID) -> String? {
        send(line, from: client).lines(to: client).first
    }

    @discardableResult
    mutating func addTouchscreen(key: Int = touchscreenKey) throws -> DeviceID {
        try state.deviceAdded(
            key: key, path: "/dev/input/event\(key)", name: "Fixture Touchscreen", kind: .touchscreen,
            description: Fixtures.touchscreen, at: time
        ).device
    }

    /// Feeds a script frame by frame, as the daemon does, and collects every action.
    mutating func play(_ script: TouchScript, key: Int = touchscreenKey) -> [ServerAction] {
        Fixtures.frames(script.events).flatMap { state.handle(events: $0, fromDevice: key) }
    }

    /// A client with `main` in front: root and detail.
    mutating func owner() -> ClientID {
        let client = connect()
        _ = send(#"{"type":"create","navigator":"main","pages":[{"id":"root"},{"id":"detail"}]}"#, from: client)
        return client
    }
}

extension Array where Element == ServerAction {
    func lines(to client: ClientID) -> [String] {
        compactMap {
            if case .send(client, let line) = $0 { line } else { nil }
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
        #expect(h.state.engine.navigation.navigators.isEmpty)
        #expect(h.state.clients[client]?.observer == false)
    }

    @Test("an unsupported version is refused, says which is supported, and hello can be retried")
    func unsupportedVersion() {
        var h = Harness()
        let client = h.connect(greeted: false)
        let reply = h.reply(#"{"type":"hello","version":2}"#, from: client).map(json)
        #expect(reply?["code"] as? String == "unsupported-version")
        #expect((reply?["message"] as? String)?.contains("supported: 1") == true)
        #expect(h.state.clients[client]?.greeted == false)
        #expect(h.reply(#"{"type":"hello","version":1}"#, from: client).map(json)?["type"] as? String == "hello")
    }

    @Test("a malformed line is answered with its parse error, before hello too")
    func parseErrors() {
        var h = Harness()
        let client = h.connect(greeted: false)
        #expect(h.reply("{", from: client).map(json)?["code"] as? String == "malformed-json")
        #expect(h.reply(#"{"type":"jump","id":9}"#, from: client)
            == #"{"type":"error","code":"unknown-type","message":"\"type\" \"jump\" is not a request; known: hello, subscribe, unsubscribe, create, push, pop, replace, update, configure, settle, front, remove, stack, status","request":"jump","id":9}"#)
        #expect(h.send("  \r", from: client).isEmpty)
    }

    @Test("an over-long line gets line-too-long")
    func lineTooLong() {
        var h = Harness()
        let client = h.connect()
        let reply = h.state.receivedOverlongLine(from: client, maximumLength: 65536).lines(to: client).first.map(json)
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
        #expect(h.state.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root", "detail"])
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
        #expect(h.state.engine.navigation.navigators["main"]?.depth == 2)
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
        let nav = try #require(h.state.engine.navigation.navigators["main"])
        #expect(nav.layout == .rightToLeft)
        #expect(nav.barFollowsTopPage == false)
        _ = h.send(#"{"type":"configure","navigator":"main","barFollowsTopPage":true}"#, from: a)
        #expect(h.state.engine.navigation.navigators["main"]?.layout == .rightToLeft)
        #expect(h.state.engine.navigation.navigators["main"]?.barFollowsTopPage == true)
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
        #expect(h.state.engine.navigation.front?.id == "b-main")
        _ = h.state.clientDisconnected(b, at: h.time)
        #expect(h.state.clients[b] == nil)
        #expect(h.state.engine.navigation.navigators["b-main"] == nil)
        #expect(h.state.engine.navigation.front?.id == "main")
        _ = h.state.clientDisconnected(a, at: h.time)
        #expect(h.state.engine.navigation.navigators.isEmpty)
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
        #expect(h.state.engine.navigation.navigators["main"]?.pages.map(\.id) == ["root"])
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
        #expect(actions.prefix(2) == [.send(a, line: actions.lines(to: a)[0]), .send(watcher, line: actions.lines(to: a)[0])])

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
        for frame in frames.prefix(10) { actions += h.state.handle(events: frame, fromDevice: Harness.touchscreenKey) }
        #expect(actions.types(to: a).first == "pop-began")
        let removed = h.state.deviceRemoved(key: Harness.touchscreenKey, at: h.time)
        #expect(removed.types(to: a) == ["pop-cancelled", "bar"])
        #expect(removed.lines(to: a).first.map(json)?["reason"] as? String == "device-removed")
        #expect(frames.dropFirst(10).flatMap { h.state.handle(events: $0, fromDevice: Harness.touchscreenKey) }.isEmpty)
    }

    @Test("a client leaving under the finger: observers hear the cancel")
    func ownerLeavesMidSwipe() throws {
        var h = Harness()
        let a = h.owner()
        let watcher = h.connect()
        _ = h.send(#"{"type":"subscribe"}"#, from: watcher)
        try h.addTouchscreen()
        for frame in Fixtures.frames(Fixtures.backSwipe().events).prefix(10) {
            _ = h.state.handle(events: frame, fromDevice: Harness.touchscreenKey)
        }
        let actions = h.state.clientDisconnected(a, at: h.time)
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
        #expect(h.reply(#"{"type":"status","id":"s"}"#, from: b) == """
            {"type":"status","version":1,\
            "devices":[{"device":0,"name":"Fixture Touchscreen","path":"/dev/input/event11","kind":"touchscreen"}],\
            "navigators":[{"navigator":"main","owner":1,"pages":2,"front":true}],\
            "clients":[{"client":1,"name":"files","pid":4242,"uid":1000,"gid":100,"observer":false},\
            {"client":2,"observer":true}],"id":"s"}
            """)
    }

    @Test("a client more than 1 MiB behind is closed, with the reason")
    func backlog() {
        var h = Harness()
        let a = h.connect()
        #expect(h.state.outputBacklog(of: a, unsentBytes: ServerState.maximumUnsentBytes).isEmpty)
        let actions = h.state.outputBacklog(of: a, unsentBytes: ServerState.maximumUnsentBytes + 1)
        #expect(actions.count == 1)
        guard case .close(a, let reason)? = actions.first else {
            Issue.record("expected a close, got \(actions)")
            return
        }
        #expect(reason.hasPrefix("not reading, 1 MiB unsent"))
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
        h.state.updateSettings(settings, transitionTimeout: .milliseconds(500), defaultLayout: .rightToLeft)
        #expect(h.state.engine.settings.mode == .edge)
        #expect(h.state.engine.transitionTimeout == .milliseconds(500))
        #expect(h.state.engine.defaultLayout == .rightToLeft)
    }

    @Test("a device key added twice replaces the device")
    func deviceReplaced() throws {
        var h = Harness()
        try h.addTouchscreen()
        let second = try h.addTouchscreen()
        #expect(second == DeviceID(1))
        #expect(h.state.devices.count == 1)
        #expect(h.state.devices[Harness.touchscreenKey]?.id == DeviceID(1))
    }
}
