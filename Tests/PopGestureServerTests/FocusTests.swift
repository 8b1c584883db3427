import Glibc
import NIOCore
@testable import PopGestureCore
@testable import PopGestureServer
import PopGestureProtocol
import PopGestureSynthesis
import Testing

/// The focus model through the protocol: who may be the shell, what `hello`, `focus`
/// and `focused-window` change, and what `status` and observers see of it.
@Suite struct FocusTests {
    static let user = PeerCredentials(pid: 4242, uid: 1000, gid: 100)
    static let stranger = PeerCredentials(pid: 777, uid: 1001, gid: 100)

    /// Shells only from uid 1000, as the daemon's seat policy would decide.
    static func harness(backInput: BackInputMap = .none) -> Harness {
        var h = Harness()
        h.state = ServerState(
            shells: ConnectionPolicy { $0?.uid == 1000 ? nil : "uid \($0?.uid ?? 0) is not the seat's user" },
            logger: quietLogger)
        var settings = GestureSettings()
        settings.backInput = backInput
        h.host = EngineHost(settings: settings, logger: quietLogger)
        return h
    }

    static let altLeft = BackInput(codes: [56, 105], spelling: "alt+left")!

    @Test("a shell from the seat's user is taken, a second one is refused with shell-taken")
    func oneShell() {
        var h = Self.harness()
        let shell = h.connect(greeted: false, credentials: Self.user)
        #expect(h.reply(#"{"type":"hello","version":1,"role":"shell"}"#, from: shell)?.hasPrefix(#"{"type":"hello""#) == true)
        #expect(h.state.seatShells[.seat0] == shell)
        #expect(h.engine.navigation.focus.shell(on: .seat0) == shell)
        let second = h.connect(greeted: false, credentials: Self.user)
        #expect(h.reply(#"{"type":"hello","version":1,"role":"shell"}"#, from: second)?
            .hasPrefix(#"{"type":"error","code":"shell-taken""#) == true)
        _ = h.clientDisconnected(shell, at: h.time)
        #expect(h.state.seatShells[.seat0] == nil)
        #expect(h.engine.navigation.focus.shell(on: .seat0) == nil)
        #expect(h.reply(#"{"type":"hello","version":1,"role":"shell"}"#, from: second)?.hasPrefix(#"{"type":"hello""#) == true,
                "the place is free once the first shell left")
    }

    @Test("a shell from another user is refused with shell-refused, and stays an ordinary client")
    func shellRefused() {
        var h = Self.harness()
        let stranger = h.connect(greeted: false, credentials: Self.stranger)
        #expect(h.reply(#"{"type":"hello","version":1,"role":"shell"}"#, from: stranger)?
            .hasPrefix(#"{"type":"error","code":"shell-refused""#) == true)
        #expect(h.state.seatShells[.seat0] == nil)
        #expect(h.reply(#"{"type":"focused-window","app":"firefox"}"#, from: stranger)?
            .hasPrefix(#"{"type":"error","code":"hello-required""#) == true)
    }

    @Test("user-settings from another local user (clients = any lets them in) is not-permitted; the seat's user reaches the engine side")
    func userSettingsOnlyFromTheSeatsUser() {
        var h = Self.harness()
        let stranger = h.connect(greeted: false, credentials: Self.stranger)
        #expect(h.reply(#"{"type":"hello","version":1}"#, from: stranger)?.hasPrefix(#"{"type":"hello""#) == true)
        let refused = h.reply(#"{"type":"user-settings","text":"edge-width-mm = 20\n","id":1}"#, from: stranger)
        #expect(refused?.hasPrefix(#"{"type":"error","code":"not-permitted","message":"only root, the daemon's user and the seat's active user may set its settings: uid 1001 is not the seat's user""#) == true,
                "\(refused ?? "no reply")")
        let user = h.connect(greeted: false, credentials: Self.user)
        #expect(h.reply(#"{"type":"hello","version":1}"#, from: user)?.hasPrefix(#"{"type":"hello""#) == true)
        // This host has no user settings maker (the daemon's): its own refusal shows the request got there.
        #expect(h.reply(#"{"type":"user-settings","text":"edge-width-mm = 20\n","id":2}"#, from: user)?
            .contains("this daemon takes no user settings") == true)
    }

    @Test("focused-window from an app is not-shell; from the shell it moves the back to the focused app")
    func focusedWindow() throws {
        var h = Self.harness()
        let files = h.connect(greeted: false)
        _ = h.send(#"{"type":"hello","version":1,"app":"org.gnome.Nautilus"}"#, from: files)
        _ = h.send(#"{"type":"create","navigator":"files","pages":[{"id":"root"},{"id":"detail"}]}"#, from: files)
        #expect(h.reply(#"{"type":"focused-window","app":"org.gnome.Nautilus"}"#, from: files)?
            .hasPrefix(#"{"type":"error","code":"not-shell""#) == true)

        let shell = h.connect(greeted: false)
        _ = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: shell)
        #expect(h.engine.navigation.front(on: .seat0) == nil, "with a shell and no window reported, nothing has focus")
        #expect(h.reply(#"{"type":"focused-window","app":"org.gnome.Nautilus","pid":99}"#, from: shell)
            == #"{"type":"ok","request":"focused-window"}"#)
        #expect(h.engine.navigation.front(on: .seat0)?.id == "files")
        try h.addTouchscreen()
        let actions = h.play(Fixtures.backSwipe())
        #expect(actions.types(to: files).contains("back"))
        let reply = h.reply(#"{"type":"status"}"#, from: shell)
        let status = try #require(reply)
        #expect(status.contains(#""focus":{"seat":"seat0","source":"shell","app":"org.gnome.Nautilus","pid":99,"shell":2}"#))
        #expect(status.contains(#""lastBack":{"target":"navigator","navigator":"files","owner":1}"#))
    }

    @Test("an app that says it lost focus gets no back; observers see the back input go out instead")
    func lostFocusGoesToTheBackInput() throws {
        var h = Self.harness(backInput: BackInputMap(standard: Self.altLeft))
        let app = h.owner()
        let observer = h.connect()
        _ = h.send(#"{"type":"subscribe"}"#, from: observer)
        #expect(h.reply(#"{"type":"focus","focused":false}"#, from: app) == #"{"type":"ok","request":"focus"}"#)
        try h.addTouchscreen()
        // A finger down at 1 % of the width, inside the back input's 4.8 mm edge zone.
        var finger = TouchScript(device: Fixtures.touchscreen, start: Fixtures.start)
        finger.down(at: 0.01, 0.5)
        finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
        finger.up()
        let actions = h.play(finger)
        #expect(actions.lines(to: app).isEmpty, "the unfocused app hears nothing")
        let types = actions.types(to: observer)
        #expect(types.first == "input-began" && types.last == "back-input")
        #expect(types.dropFirst().dropLast().allSatisfy { $0 == "input-progress" } && types.count > 2)
        #expect(h.engine.navigation.navigators["main"]?.depth == 2)
        let reply = h.reply(#"{"type":"status"}"#, from: observer)
        let status = try #require(reply)
        #expect(status.contains(#""lastBack":{"target":"input","input":"alt+left"}"#))
    }

    @Test("observers see focus-changed when the focus or the navigator in front changes, and only then")
    func observersSeeFocusChanges() {
        var h = Self.harness()
        let observer = h.connect()
        _ = h.send(#"{"type":"subscribe"}"#, from: observer)
        let shell = h.connect(greeted: false)
        let hello = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: shell)
        #expect(hello.lines(to: observer) == [#"{"type":"focus-changed","source":"shell"}"#])
        let first = h.send(#"{"type":"focused-window","app":"firefox","pid":55}"#, from: shell)
        #expect(first.lines(to: observer) == [#"{"type":"focus-changed","source":"shell","app":"firefox","pid":55}"#])
        #expect(h.send(#"{"type":"focused-window","app":"firefox","pid":55}"#, from: shell).lines(to: observer).isEmpty,
                "the same window again changes nothing")
        let gone = h.clientDisconnected(shell, at: h.time)
        #expect(gone.lines(to: observer) == [#"{"type":"focus-changed","source":"clients"}"#])
        let app = h.connect()
        let create = h.send(#"{"type":"create","navigator":"main","pages":[{"id":"root"}]}"#, from: app)
        #expect(create.lines(to: observer).contains(#"{"type":"focus-changed","source":"clients","navigator":"main"}"#),
                "a new navigator in front is where a back goes now")
    }

    @Test("a later hello may not change the app id or the role")
    func helloSaysWhoOnce() {
        var h = Self.harness()
        let client = h.connect(greeted: false)
        _ = h.send(#"{"type":"hello","version":1,"app":"one"}"#, from: client)
        #expect(h.reply(#"{"type":"hello","version":1,"app":"two"}"#, from: client)?
            .hasPrefix(#"{"type":"error","code":"invalid-value""#) == true)
        #expect(h.reply(#"{"type":"hello","version":1,"app":"one"}"#, from: client)?.hasPrefix(#"{"type":"hello""#) == true)
        #expect(h.engine.navigation.focus.clients[client]?.app == "one")
    }

    @Test("hello's role must be app or shell, and focused-window's pid a process id")
    func badFields() {
        var h = Self.harness()
        let client = h.connect(greeted: false)
        #expect(h.reply(#"{"type":"hello","version":1,"role":"root"}"#, from: client)?
            .hasPrefix(#"{"type":"error","code":"invalid-field""#) == true)
        _ = h.send(#"{"type":"hello","version":1}"#, from: client)
        #expect(h.reply(#"{"type":"focused-window","pid":-1}"#, from: client)?
            .hasPrefix(#"{"type":"error","code":"invalid-field""#) == true)
        #expect(h.reply(#"{"type":"focus"}"#, from: client)?.hasPrefix(#"{"type":"error","code":"missing-field""#) == true)
        #expect(h.reply(#"{"type":"focused-window","app":""}"#, from: client)?
            .hasPrefix(#"{"type":"error","code":"invalid-field","message":"\"app\" must not be empty"#) == true)
    }

    @Test("the server sends a committed back input through its device, once, and hands the event on")
    func serverSendsTheBackInput() async throws {
        var settings = GestureSettings()
        settings.backInput = BackInputMap(standard: Self.altLeft)
        let directory = try temporarySocketDirectory()
        defer { rmdir(directory) }
        let server = try SocketServer(
            listening: .path(directory + "/popgestured.sock"),
            host: EngineHost(settings: settings, logger: quietLogger), clock: { Fixtures.start }, logger: quietLogger)
        defer { server.shutdown() }
        var sent: [BackInput] = []
        server.sendBackInput = { input, _ in sent.append(input) }
        try server.deviceAdded(key: 1, path: "/dev/input/event1", name: "Fixture", description: Fixtures.touchscreen)
        var finger = TouchScript(device: Fixtures.touchscreen, start: Fixtures.start)
        finger.down(at: 0.01, 0.5)
        finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
        finger.up()
        for frame in Fixtures.frames(finger.events) { server.received(frame, fromDevice: 1) }
        #expect(sent == [Self.altLeft])
        #expect(server.host.lastBack == .input(app: nil, input: Self.altLeft.spelling))
    }
}
