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

    /// Issue 28: a user switch closed the bridge, and its unit's start limit left it dead.
    @Test("paused by a user switch it sends nothing and stays connected; resumed, it sends what the source said meanwhile")
    func pausedAndResumed() throws {
        var link = try Self.ready()
        _ = link.focused(Self.one)
        let paused = link.received(MessageCodec.encode(.paused(reason: "uid 1000 is not the active user of a seat now")))
        #expect(link.state == .paused)
        #expect(paused.contains { if case .log(let line) = $0 { line.hasPrefix("paused: uid 1000") } else { false } })
        #expect(!paused.contains { if case .retry = $0 { true } else if case .fail = $0 { true } else { false } })
        #expect(try Self.sends(link.focused(Self.two)).isEmpty, "nothing goes out while another user is at the seat")
        #expect(try Self.sends(link.rotated(OutputRotation(degrees: 90, output: "DSI-1")!)).isEmpty)
        let resumed = link.received(MessageCodec.encode(.resumed))
        #expect(try Self.sends(resumed) == [.focusedWindow(app: "two", pid: 200), .rotation(degrees: 90, output: "DSI-1")])
        #expect(link.state == .ready(sent: Self.two, sentRotation: OutputRotation(degrees: 90, output: "DSI-1")))
        // A seat-inactive reply to a request sent just before the pause is no problem to log.
        let late = link.received(MessageCodec.encode(
            ServerReply.error(ProtocolError(.seatInactive, "waits until resumed", request: "focused-window")), id: .integer(99)))
        #expect(!late.contains { if case .log = $0 { true } else { false } })
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

    @Test("an error reply to focused-window (overloaded included) is logged like any other: nothing is sent again")
    func refusedWindowIsNotResent() throws {
        var link = try Self.ready()
        let first = link.focused(Self.one)
        let id = try Self.request(first.last!).id
        let refused = MessageCodec.encode(
            .error(ProtocolError(.overloaded, "try again later", request: "focused-window", id: id)), id: id)
        #expect(link.received(refused) == [.log("popgestured refused a request: overloaded: try again later")])
        #expect(link.state == .ready(sent: Self.one))
        #expect(try Self.sends(link.focused(Self.one)).isEmpty, "the same window is not sent again")
        #expect(try Self.sends(link.focused(Self.two)) == [.focusedWindow(app: "two", pid: 200)], "a change goes at once")
    }

    @Test("an app id with a control character is shown escaped in the bridge's lines")
    func focusLineEscapesTheAppID() {
        var link = ShellLink(name: "b")
        let odd = FocusedWindow(app: "fire\u{1B}[2Jfox", pid: 7)
        #expect(link.focused(odd) == [.verbose(#"focus: app "fire\u{1b}[2Jfox", pid 7 (popgestured not connected)"#)])
        #expect(FocusedWindow(app: "firefox", pid: nil).description == "app firefox, pid unknown")
    }

    static let portrait = OutputRotation(degrees: 90, output: "DSI-1")!

    @Test("the rotation goes after the window at hello, then at each change only; the same again is not sent")
    func rotation() throws {
        var link = ShellLink(name: "popgesturectl bridge test")
        #expect(link.rotated(Self.portrait) == [.verbose("rotation: 90° on DSI-1 (popgestured not connected)")])
        _ = link.focused(Self.one)
        let hello = try Self.request(link.connected()[0])
        let answered = link.received(Self.helloReply(hello.id))
        #expect(try Self.sends(answered) == [.focusedWindow(app: "one", pid: 100), .rotation(degrees: 90, output: "DSI-1")])
        #expect(link.state == .ready(sent: Self.one, sentRotation: Self.portrait))
        #expect(try Self.sends(link.rotated(Self.portrait)).isEmpty)
        let upsideDown = OutputRotation(degrees: 180, output: "DSI-1")!
        #expect(try Self.sends(link.rotated(upsideDown)) == [.rotation(degrees: 180, output: "DSI-1")])
        #expect(try Self.sends(link.focused(Self.two)) == [.focusedWindow(app: "two", pid: 200)], "a window change sends no rotation")
    }

    @Test("after a reconnect the new hello resends the window and the rotation; a refused rotation is logged, not resent")
    func rotationAfterReconnect() throws {
        var link = try Self.ready()
        _ = link.focused(Self.two)
        let sent = link.rotated(Self.portrait)
        let id = try Self.request(sent.last!).id
        let refused = MessageCodec.encode(
            .error(ProtocolError(.invalidField, "rotation is not supported yet", request: "rotation", id: id)), id: id)
        #expect(link.received(refused) == [.log("popgestured refused a request: invalid-field: rotation is not supported yet")])
        #expect(try Self.sends(link.rotated(Self.portrait)).isEmpty, "the same rotation is not sent again")

        _ = link.closed()
        let hello = try Self.request(link.connected()[0])
        #expect(try Self.sends(link.received(Self.helloReply(hello.id)))
                    == [.focusedWindow(app: "two", pid: 200), .rotation(degrees: 90, output: "DSI-1")])
    }

    @Test("a bridge that never says a rotation sends none")
    func noRotation() throws {
        var link = ShellLink(name: "b")
        _ = link.focused(Self.one)
        let hello = try Self.request(link.connected()[0])
        #expect(try Self.sends(link.received(Self.helloReply(hello.id))) == [.focusedWindow(app: "one", pid: 100)])
    }

    @Test("a rotation before the hello's reply goes right after it, with the window; the same again is not sent")
    func rotationAfterHello() throws {
        var link = ShellLink(name: "b")
        let hello = try Self.request(link.connected()[0])
        let turned = try #require(OutputRotation(degrees: 90, output: "eDP-1"))
        #expect(try Self.sends(link.rotated(turned)).isEmpty, "nothing goes out before the reply")
        _ = link.focused(Self.one)
        _ = link.textDirectionChanged(.rightToLeft)
        let answered = link.received(Self.helloReply(hello.id))
        #expect(try Self.sends(answered) == [
            .focusedWindow(app: "one", pid: 100), .rotation(degrees: 90, output: "eDP-1"), .textDirection(.rightToLeft),
        ])
        #expect(try Self.sends(link.rotated(turned)).isEmpty)
        #expect(try Self.sends(link.textDirectionChanged(.rightToLeft)).isEmpty)
        let back = try #require(OutputRotation(degrees: 0, output: "eDP-1"))
        #expect(try Self.sends(link.rotated(back)) == [.rotation(degrees: 0, output: "eDP-1")])
    }

    @Test("after a reconnect the rotation and text direction are sent again, after the window")
    func rotationResentAfterReconnect() throws {
        var link = try Self.ready()
        _ = link.focused(Self.two)
        _ = link.rotated(try #require(OutputRotation(degrees: 270, output: nil)))
        _ = link.closed()
        let hello = try Self.request(link.connected()[0])
        #expect(try Self.sends(link.received(Self.helloReply(hello.id))) == [
            .focusedWindow(app: "two", pid: 200), .rotation(degrees: 270, output: nil),
        ], "no text direction: the source never said one")
    }

    @Test("touchpad scrolling: sent once ready, only when it changed, and again after a reconnect")
    func touchpadScrolling() throws {
        var link = ShellLink(name: "bridge")
        let hello = try Self.request(link.connected()[0])
        #expect(try Self.sends(link.touchpadScrollingChanged(natural: true)).isEmpty, "nothing before the hello's reply")
        #expect(try Self.sends(link.received(Self.helloReply(hello.id))) == [.touchpadScrolling(natural: true)])
        #expect(try Self.sends(link.touchpadScrollingChanged(natural: true)).isEmpty)
        #expect(try Self.sends(link.touchpadScrollingChanged(natural: false)) == [.touchpadScrolling(natural: false)])
        _ = link.focused(Self.two)
        _ = link.closed()
        let again = try Self.request(link.connected()[0])
        #expect(try Self.sends(link.received(Self.helloReply(again.id))) == [
            .focusedWindow(app: "two", pid: 200), .touchpadScrolling(natural: false),
        ])
    }

    @Test("the user's settings file: sent once ready, again when it changes and after a resume; a user with no file sends nothing")
    func userSettings() throws {
        var link = ShellLink(name: "bridge")
        let hello = try Self.request(link.connected()[0])
        #expect(link.userSettingsChanged("").isEmpty, "no file, never had one")
        #expect(try Self.sends(link.received(Self.helloReply(hello.id))).isEmpty)
        #expect(try Self.sends(link.userSettingsChanged("edge-width-mm = 6\n")) == [.userSettings(text: "edge-width-mm = 6\n")])
        #expect(try Self.sends(link.userSettingsChanged("edge-width-mm = 6\n")).isEmpty, "unchanged")
        #expect(try Self.sends(link.received(MessageCodec.encode(.paused(reason: "user-switch")))).isEmpty)
        #expect(try Self.sends(link.received(MessageCodec.encode(.resumed))) == [.userSettings(text: "edge-width-mm = 6\n")],
                "the daemon forgot them at the switch")
        #expect(try Self.sends(link.userSettingsChanged("")) == [.userSettings(text: "")], "the file went: the system's")
    }

    @Test("a session that takes no touchpad bridge says so with every touchpad-scrolling")
    func touchpadBridgeDeclined() throws {
        var link = ShellLink(name: "bridge", touchpadBridge: false)
        let hello = try Self.request(link.connected()[0])
        _ = link.touchpadScrollingChanged(natural: true)
        #expect(try Self.sends(link.received(Self.helloReply(hello.id))) == [.touchpadScrolling(natural: true, bridge: false)])
        #expect(try Self.sends(link.touchpadScrollingChanged(natural: false)) == [.touchpadScrolling(natural: false, bridge: false)])
    }

    @Test("a rotation other than a quarter turn, or an output name past 256 bytes, is not taken as said")
    func rotationBounds() {
        #expect(OutputRotation(degrees: 45, output: "eDP-1") == nil)
        #expect(OutputRotation(degrees: -90, output: nil) == nil)
        #expect(OutputRotation(degrees: 180, output: String(repeating: "x", count: 257))?.output == nil)
        #expect(OutputRotation(degrees: 180, output: "DSI-1")?.description == "180° on DSI-1")
    }

    static let tablet = OutputList([
        ClientRequest.Output(
            name: "DSI-1", rotation: 90, widthMillimetres: 68, heightMillimetres: 136, isBuiltIn: true,
            inputs: ["1046:911:Goodix_Capacitive_TouchScreen"]),
        ClientRequest.Output(name: "HDMI-A-1", rotation: 0),
    ])

    @Test("the outputs go after the window at hello, then at each change only; the same list again is not sent")
    func outputs() throws {
        var link = ShellLink(name: "popgesturectl bridge test")
        #expect(link.outputsChanged(Self.tablet) == [.verbose(
            "outputs: DSI-1 90° 68×136 mm built-in (inputs 1046:911:Goodix_Capacitive_TouchScreen), HDMI-A-1 0° (popgestured not connected)")])
        _ = link.focused(Self.one)
        let hello = try Self.request(link.connected()[0])
        #expect(try Self.sends(link.outputsChanged(Self.tablet)).isEmpty, "nothing before the hello's reply")
        _ = link.textDirectionChanged(.rightToLeft)
        let answered = link.received(Self.helloReply(hello.id))
        #expect(try Self.sends(answered) == [
            .focusedWindow(app: "one", pid: 100), .outputs(Self.tablet.outputs), .textDirection(.rightToLeft),
        ])
        #expect(try Self.sends(link.outputsChanged(Self.tablet)).isEmpty)
        let docked = OutputList([ClientRequest.Output(name: "HDMI-A-1", rotation: 0)])
        #expect(try Self.sends(link.outputsChanged(docked)) == [.outputs([ClientRequest.Output(name: "HDMI-A-1", rotation: 0)])])
        #expect(try Self.sends(link.outputsChanged(OutputList([]))) == [.outputs([])], "no enabled output is a list too")
        #expect(try Self.sends(link.focused(Self.two)) == [.focusedWindow(app: "two", pid: 200)], "a window change sends no outputs")
    }

    @Test("after a reconnect the new hello resends the outputs; a refused list is logged, not resent")
    func outputsAfterReconnect() throws {
        var link = try Self.ready()
        _ = link.focused(Self.two)
        let sent = link.outputsChanged(Self.tablet)
        let id = try Self.request(sent.last!).id
        let refused = MessageCodec.encode(
            .error(ProtocolError(.unknownType, "\"type\" \"outputs\" is not a request", request: "outputs", id: id)), id: id)
        #expect(link.received(refused) == [.log("popgestured refused a request: unknown-type: \"type\" \"outputs\" is not a request")])
        #expect(try Self.sends(link.outputsChanged(Self.tablet)).isEmpty, "the same list is not sent again")

        _ = link.closed()
        let hello = try Self.request(link.connected()[0])
        #expect(try Self.sends(link.received(Self.helloReply(hello.id)))
                    == [.focusedWindow(app: "two", pid: 200), .outputs(Self.tablet.outputs)])
    }

    @Test("an output list keeps what the protocol takes: 16 outputs of 16 inputs, names of 1 to 256 bytes once, sizes above 0")
    func outputListBounds() throws {
        let many = (0..<20).map { ClientRequest.Output(name: "O-\($0)", rotation: 0) }
        #expect(OutputList(many).outputs.map(\.name) == (0..<16).map { "O-\($0)" })
        let odd = OutputList([
            ClientRequest.Output(name: "", rotation: 0),
            ClientRequest.Output(name: String(repeating: "x", count: 257), rotation: 0),
            ClientRequest.Output(name: "A", rotation: 45),
            ClientRequest.Output(
                name: "B", rotation: 180, widthMillimetres: 0, heightMillimetres: 0,
                inputs: ["", String(repeating: "i", count: 257), "t", "t"] + (0..<20).map { "in\($0)" }),
            ClientRequest.Output(name: "B", rotation: 90),
            ClientRequest.Output(name: "C", rotation: 270, widthMillimetres: -5, heightMillimetres: .infinity),
        ])
        #expect(odd.outputs == [
            ClientRequest.Output(name: "B", rotation: 180, inputs: ["t"] + (0..<15).map { "in\($0)" }),
            ClientRequest.Output(name: "C", rotation: 270),
        ])
        // What the bridge sends, the daemon's codec takes.
        let line = RequestCodec.encode(IdentifiedRequest(.outputs(odd.outputs)))
        #expect(try RequestCodec.decode(line).request == .outputs(odd.outputs))
        #expect(OutputList([]).description == "no enabled output")
        #expect(OutputList.isBuiltIn("eDP-1") && OutputList.isBuiltIn("LVDS-1") && OutputList.isBuiltIn("DSI-2"))
        #expect(!OutputList.isBuiltIn("HDMI-A-1") && !OutputList.isBuiltIn("HEADLESS-1") && !OutputList.isBuiltIn("screen"))
    }
}
