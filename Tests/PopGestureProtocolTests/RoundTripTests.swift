import PopGestureProtocol
import Testing

/// Every request, reply and event, encoded and decoded again, gives back the value;
/// and the lines of version 1 are written byte for byte as docs/PROTOCOL.md shows them.
@Suite("Round trips")
struct RoundTripTests {
    static let detail = ClientRequest.Page(
        id: "detail", popDisabled: true, prefersBarHidden: true, maxStartDistance: 12.5,
        exclusionZones: [ClientRequest.Zone(x: 0, y: 0.5, width: 1, height: 0.25),
                         ClientRequest.Zone(x: 0.1, y: 0.2, width: 0.3, height: 0.4)])
    static let root = ClientRequest.Page(id: "root")

    static let requests: [IdentifiedRequest] = [
        IdentifiedRequest(.hello(versions: [1], name: "files"), id: .integer(1)),
        IdentifiedRequest(.hello(versions: [1, 2], name: nil)),
        IdentifiedRequest(.hello(versions: [3, 1], name: "é \"quoted\"\n")),
        IdentifiedRequest(.subscribe, id: .string("s")),
        IdentifiedRequest(.unsubscribe),
        IdentifiedRequest(.create(navigator: "main", pages: [root, detail], layout: .rightToLeft, barFollowsTopPage: false)),
        IdentifiedRequest(.create(navigator: "main", pages: [root], layout: nil, barFollowsTopPage: true), id: .integer(-3)),
        IdentifiedRequest(.push(navigator: "main", page: detail, animated: true)),
        IdentifiedRequest(.push(navigator: "main", page: root, animated: false)),
        IdentifiedRequest(.pop(navigator: "main", animated: true)),
        IdentifiedRequest(.pop(navigator: "main", animated: false)),
        IdentifiedRequest(.replace(navigator: "main", pages: [detail], animated: false)),
        IdentifiedRequest(.update(navigator: "main", page: detail)),
        IdentifiedRequest(.configure(navigator: "main", layout: .leftToRight, barFollowsTopPage: false)),
        IdentifiedRequest(.configure(navigator: "main", layout: nil, barFollowsTopPage: nil)),
        IdentifiedRequest(.settle(navigator: "main")),
        IdentifiedRequest(.front(navigator: "main")),
        IdentifiedRequest(.remove(navigator: "main")),
        IdentifiedRequest(.stack(navigator: "main"), id: .integer(.max)),
        IdentifiedRequest(.status),
        IdentifiedRequest(.hello(versions: [1], name: "files", app: "org.gnome.Nautilus", role: .app)),
        IdentifiedRequest(.hello(versions: [1], name: "sway bridge", app: nil, role: .shell), id: .integer(1)),
        IdentifiedRequest(.focus(focused: true)),
        IdentifiedRequest(.focus(focused: false), id: .string("f")),
        IdentifiedRequest(.focusedWindow(app: "firefox", pid: 1234)),
        IdentifiedRequest(.focusedWindow(app: nil, pid: nil)),
        IdentifiedRequest(.rotation(degrees: 90, output: "DSI-1"), id: .integer(3)),
        IdentifiedRequest(.rotation(degrees: 0, output: nil)),
        IdentifiedRequest(.outputs([
            ClientRequest.Output(
                name: "eDP-1", rotation: 90, widthMillimetres: 256, heightMillimetres: 144.5, isBuiltIn: true,
                inputs: ["1267:10780:ELAN_Touchscreen", "Wacom HID 52C2 Finger"]),
            ClientRequest.Output(name: "HDMI-A-1", rotation: 0),
        ]), id: .integer(4)),
        IdentifiedRequest(.outputs([])),
        IdentifiedRequest(.textDirection(.rightToLeft)),
        IdentifiedRequest(.textDirection(.leftToRight), id: .string("d")),
        IdentifiedRequest(.touchpadScrolling(natural: true)),
        IdentifiedRequest(.touchpadScrolling(natural: false), id: .integer(12)),
        IdentifiedRequest(.touchpadScrolling(natural: true, bridge: false)),
        IdentifiedRequest(.userSettings(text: "mode = edge\n[back-input]\nfoot = none\n"), id: .integer(13)),
        IdentifiedRequest(.userSettings(text: "")),
    ]

    @Test("every request decodes to itself", arguments: requests)
    func request(_ request: IdentifiedRequest) throws {
        let line = RequestCodec.encode(request)
        #expect(!line.contains("\n"))
        #expect(try RequestCodec.decode(line) == request, "\(line)")
    }

    @Test("every request type is in the list above")
    func everyRequestType() {
        #expect(Set(Self.requests.map(\.request.kind)) == Set(ClientRequest.Kind.allCases))
    }

    @Test("requests are written as version 1 wrote them: type first, defaults left out, id last")
    func requestLines() {
        #expect(RequestCodec.encode(IdentifiedRequest(.hello(versions: [1], name: "files"), id: .integer(1)))
            == #"{"type":"hello","version":1,"name":"files","id":1}"#)
        #expect(RequestCodec.encode(IdentifiedRequest(.hello(versions: [1, 2], name: nil)))
            == #"{"type":"hello","version":1,"versions":[1,2]}"#)
        #expect(RequestCodec.encode(IdentifiedRequest(.push(navigator: "main", page: Self.detail, animated: true)))
            == #"{"type":"push","navigator":"main","page":{"id":"detail","popDisabled":true,"prefersBarHidden":true,"maxStartDistance":12.5,"exclusionZones":[[0,0.5,1,0.25],[0.1,0.2,0.3,0.4]]},"animated":true}"#)
        #expect(RequestCodec.encode(IdentifiedRequest(.pop(navigator: "n", animated: false), id: .string("a")))
            == #"{"type":"pop","navigator":"n","id":"a"}"#)
    }

    static let replies: [ServerMessage] = [
        .reply(.hello(version: 1, server: "popgestured", client: 3), id: nil),
        .reply(.ok(request: "push"), id: .integer(7)),
        .reply(.error(ProtocolError(.notOwner, "navigator \"main\" belongs to another client", request: "push")),
               id: .integer(7)),
        .reply(.error(ProtocolError(.malformedJSON, "the line is not valid JSON")), id: nil),
        .reply(.error(ProtocolError(.unsupportedVersion, "no", request: "hello", supportedVersions: [1])), id: nil),
        .reply(.error(ProtocolError(ProtocolError.Code(rawValue: "a-code-from-the-future"), "")), id: .string("x")),
        .reply(.stack(ServerReply.Stack(navigator: "main", owner: 3, pages: ["root", "detail"], front: true,
                                        transitioning: false)), id: nil),
        .reply(.status(status), id: .integer(2)),
        .reply(.status(truncatedStatus), id: nil),
        .reply(.status(ServerReply.Status(version: 1, devices: [], navigators: [], clients: [])), id: nil),
        .reply(.status(ServerReply.Status(
            version: 1, devices: [], navigators: [], clients: [],
            focus: ServerReply.Status.Focus(source: "shell", app: "firefox", pid: 4321),
            lastBack: .input(app: "firefox", input: "alt+left"))), id: nil),
        .reply(.status(ServerReply.Status(
            version: 1, devices: [], navigators: [], clients: [],
            focus: ServerReply.Status.Focus(source: "clients", app: nil, pid: nil),
            lastBack: .navigator(navigator: "main", owner: 3))), id: nil),
        .reply(.status(doctorStatus), id: .integer(4)),
    ]

    /// Every field `popgesturectl doctor` reads: device details, the shell, the daemon,
    /// the back input, the last rejections.
    static let doctorStatus = ServerReply.Status(
        version: 1,
        devices: [ServerReply.Status.Device(
            device: 0, name: "ELAN Touchscreen", path: "/dev/input/event5", kind: "touchscreen", widthMillimetres: 256.5,
            heightMillimetres: 144, sizeAssumed: false, sizeSource: "display", rotation: 90, seat: "seat0", grab: "grabbed",
            clone: "/dev/input/event9")],
        navigators: [], clients: [],
        focus: ServerReply.Status.Focus(source: "shell", app: "firefox", pid: 4321, shell: 5),
        daemon: ServerReply.Status.Daemon(
            pid: 812, startedBy: "systemd", unit: "popgestured.service", socketFromSystemd: true, grab: "on"),
        backInput: ServerReply.Status.BackInput(
            on: false, input: nil, mode: "edge", device: nil, problem: "back input off: cannot create it"),
        rejected: [ServerReply.Status.Rejection(reason: .tooSteep, device: 0, timeMicroseconds: 1_000_150_000)],
        rejectedCount: 3)

    static let status = ServerReply.Status(
        version: 1,
        devices: [ServerReply.Status.Device(device: 0, name: "ELAN Touchscreen", path: "/dev/input/event5", kind: "touchscreen")],
        navigators: [ServerReply.Status.Navigator(navigator: "main", owner: 3, pages: 2, front: true)],
        clients: [ServerReply.Status.Client(
            client: 3, name: "files", credentials: ServerReply.Status.Credentials(pid: 1234, uid: 1000, gid: 1000),
            observer: false)])

    static let truncatedStatus = ServerReply.Status(
        version: 1, devices: [], deviceCount: 2, navigators: [], navigatorCount: 0,
        clients: [ServerReply.Status.Client(client: 4, name: nil, credentials: nil, observer: true)], clientCount: 200)

    @Test("every reply decodes to itself", arguments: replies)
    func reply(_ message: ServerMessage) throws {
        let line = MessageCodec.encode(message)
        #expect(try MessageCodec.decode(line) == message, "\(line)")
    }

    @Test("every reply type is in the list above")
    func everyReplyType() {
        let kinds = Self.replies.compactMap { message -> ServerReply.Kind? in
            if case .reply(let reply, _) = message { reply.kind } else { nil }
        }
        #expect(Set(kinds) == Set(ServerReply.Kind.allCases))
    }

    @Test("replies are written byte for byte as version 1 wrote them")
    func replyLines() {
        #expect(MessageCodec.encode(.ok(request: "push"), id: .integer(7)) == #"{"type":"ok","request":"push","id":7}"#)
        #expect(MessageCodec.encode(ProtocolError(
            .notOwner, "navigator \"main\" belongs to another client", request: "push", id: .integer(7)))
            == #"{"type":"error","code":"not-owner","message":"navigator \"main\" belongs to another client","request":"push","id":7}"#)
        #expect(MessageCodec.encode(.hello(version: 1, server: "popgestured", client: 3), id: nil)
            == #"{"type":"hello","version":1,"server":"popgestured","client":3}"#)
        #expect(MessageCodec.encode(.stack(ServerReply.Stack(
            navigator: "main", owner: 3, pages: ["root", "detail"], front: true, transitioning: false)), id: nil)
            == #"{"type":"stack","navigator":"main","owner":3,"pages":["root","detail"],"front":true,"transitioning":false}"#)
        #expect(MessageCodec.encode(.status(Self.status), id: nil)
            == #"{"type":"status","version":1,"devices":[{"device":0,"name":"ELAN Touchscreen","path":"/dev/input/event5","kind":"touchscreen"}],"deviceCount":1,"navigators":[{"navigator":"main","owner":3,"pages":2,"front":true}],"navigatorCount":1,"clients":[{"client":3,"name":"files","pid":1234,"uid":1000,"gid":1000,"observer":false}],"clientCount":1}"#)
        #expect(MessageCodec.encode(.status(Self.truncatedStatus), id: .integer(9))
            == #"{"type":"status","version":1,"devices":[],"deviceCount":2,"navigators":[],"navigatorCount":0,"clients":[{"client":4,"observer":true}],"clientCount":200,"truncated":true,"id":9}"#)
    }

    @Test("status's fields for doctor come after version 1's, each left out when unknown")
    func doctorStatusLine() {
        #expect(MessageCodec.encode(.status(Self.doctorStatus), id: .integer(4))
            == #"{"type":"status","version":1,"devices":[{"device":0,"name":"ELAN Touchscreen","path":"/dev/input/event5","kind":"touchscreen","widthMillimetres":256.5,"heightMillimetres":144.0,"sizeAssumed":false,"sizeSource":"display","rotation":90,"seat":"seat0","grab":"grabbed","clone":"/dev/input/event9"}],"deviceCount":1,"navigators":[],"navigatorCount":0,"clients":[],"clientCount":0,"focus":{"source":"shell","app":"firefox","pid":4321,"shell":5},"daemon":{"pid":812,"startedBy":"systemd","unit":"popgestured.service","socketFromSystemd":true,"grab":"on"},"backInput":{"on":false,"mode":"edge","problem":"back input off: cannot create it"},"rejected":[{"reason":"too-steep","device":0,"time_us":1000150000}],"rejectedCount":3,"id":4}"#)
    }

    @Test("unsupported-version lists what the daemon speaks, before the id")
    func unsupportedVersionLine() {
        let error = ProtocolError(
            .unsupportedVersion, "protocol version 2 is not supported; supported: 1", request: "hello", id: .integer(1),
            supportedVersions: [1])
        #expect(MessageCodec.encode(error)
            == #"{"type":"error","code":"unsupported-version","message":"protocol version 2 is not supported; supported: 1","request":"hello","supported":[1],"id":1}"#)
    }

    static let events: [ServerEvent] = [
        .popBegan(navigator: "main", page: "detail", progress: 0.25, timeMicroseconds: 12_345_678),
        .popProgress(navigator: "main", page: "detail", progress: 1, timeMicroseconds: 0),
        .popProgress(navigator: "main", page: "detail", progress: -0.125, timeMicroseconds: -1),
        .popFinished(navigator: "main", page: "detail", reason: .fling, timeMicroseconds: 5),
        .popFinished(navigator: "main", page: "detail", reason: .progress, timeMicroseconds: 5),
        .popCancelled(navigator: "main", page: "detail", reason: .stackChanged, timeMicroseconds: 6),
        .popCancelled(navigator: "main", page: "detail", reason: ServerEvent.CancelReason(rawValue: "new"), timeMicroseconds: 6),
        .back(navigator: "main", popped: "detail", top: "root", timeMicroseconds: .max),
        .bar(navigator: "main", page: "root", hidden: true),
        .bar(navigator: "n\"1", page: "設定\n", hidden: false),
        .rejected(reason: .tooSteep, device: 3, timeMicroseconds: 7),
        .rejected(reason: ServerEvent.RejectionReason(rawValue: "second-screen"), device: 0, timeMicroseconds: 7),
        .refused(reason: .noNavigator, device: 1, timeMicroseconds: 7),
        .inputBegan(app: "firefox", timeMicroseconds: 8),
        .inputBegan(app: nil, timeMicroseconds: 8),
        .inputProgress(app: "firefox", progress: 0.25, commit: 0.3, timeMicroseconds: 8),
        .inputProgress(app: nil, progress: 1, commit: 0.3, timeMicroseconds: 8),
        .inputCancelled(app: "firefox", reason: .released, timeMicroseconds: 9),
        .backInput(app: nil, input: "alt+left", reason: .progress, timeMicroseconds: 10),
        .focusChanged(source: "shell", app: "firefox", pid: 4321, navigator: nil),
        .focusChanged(source: "clients", app: nil, pid: nil, navigator: "main"),
        .screenChanged(.init(rotation: 270, rotationSource: "sensor", direction: "ltr", directionSource: "configuration")),
        .screenChanged(.init(rotation: nil, rotationSource: "shell", output: "DSI-1", direction: "rtl", directionSource: "shell")),
        .paused(reason: "uid 1000 is not the active user of a seat"),
        .resumed,
    ]

    @Test("every event decodes to itself", arguments: events)
    func event(_ event: ServerEvent) throws {
        let line = MessageCodec.encode(event)
        #expect(try MessageCodec.decode(line) == .event(event), "\(line)")
    }

    @Test("every event type is in the list above")
    func everyEventType() {
        #expect(Set(Self.events.map(\.kind)) == Set(ServerEvent.Kind.allCases))
    }

    @Test("progress travels in thousandths: 0.1234 comes back as 0.123")
    func progressRounding() throws {
        let line = MessageCodec.encode(ServerEvent.popProgress(
            navigator: "n", page: "p", progress: 0.1234, timeMicroseconds: 1))
        #expect(line == #"{"type":"pop-progress","navigator":"n","page":"p","progress":0.123,"time_us":1}"#)
        #expect(try MessageCodec.decode(line)
            == .event(.popProgress(navigator: "n", page: "p", progress: 0.123, timeMicroseconds: 1)))
    }

    // MARK: - Refusals

    @Test("a message the decoder cannot read gets a typed error naming the key", arguments: [
        ("{", ProtocolError.Code.malformedJSON, "not valid JSON"),
        ("[]", .notAnObject, "a message is a JSON object"),
        (#"{"type":"fly"}"#, .unknownType, #""type" "fly" is not a reply or an event"#),
        (#"{"id":1}"#, .missingField, #""type" is required"#),
        (#"{"type":"back","navigator":"n","popped":"a","top":"b"}"#, .missingField, #""time_us" is required"#),
        (#"{"type":"bar","navigator":"n","page":"p","hidden":1}"#, .invalidField, #""hidden" must be true or false"#),
        (#"{"type":"pop-began","navigator":"n","page":"p","progress":"x","time_us":1}"#, .invalidField,
         #""progress" must be a number"#),
        (#"{"type":"ok","request":"push","id":1.5}"#, .invalidField, #""id" must be an integer or a string"#),
        (#"{"type":"status","version":1,"devices":[{"device":0}],"navigators":[],"clients":[]}"#, .missingField,
         #""devices[0].name" is required"#),
        (#"{"type":"stack","navigator":"n","owner":1,"pages":[1],"front":true,"transitioning":false}"#, .invalidField,
         #""pages[0]" must be a string"#),
        (#"{"type":"error","code":"x","message":"m","supported":[true]}"#, .invalidField,
         #""supported[0]" must be an integer"#),
    ])
    func refused(line: String, code: ProtocolError.Code, message: String) {
        do {
            let message = try MessageCodec.decode(line)
            Issue.record("decoded as \(message)")
        } catch {
            #expect(error.code == code)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test("a page object on its own: the errors a request would give, under page")
    func pageAlone() throws {
        #expect(try RequestCodec.decodePage(.object(["id": .string("p"), "future": .integer(1)]))
            == ClientRequest.Page(id: "p"))
        #expect(throws: ProtocolError(.invalidField, #""page.popDisabled" must be true or false, got an integer"#)) {
            try RequestCodec.decodePage(.object(["id": .string("p"), "popDisabled": .integer(1)]))
        }
    }
}

@Suite("ProtocolVersion")
struct ProtocolVersionTests {
    @Test("the highest version both speak", arguments: [
        ([1], [1], 1), ([1, 2, 3], [1, 2], 2), ([3, 2], [1, 2, 3], 3), ([5, 1], [1], 1),
    ] as [([Int64], [Int64], Int64)])
    func agreed(offered: [Int64], supported: [Int64], agreed: Int64) {
        #expect(ProtocolVersion.negotiate(offered: offered, supported: supported) == agreed)
    }

    @Test("none in common: nil", arguments: [([2], [1]), ([0, -1], [1]), ([2, 3], [1])] as [([Int64], [Int64])])
    func none(offered: [Int64], supported: [Int64]) {
        #expect(ProtocolVersion.negotiate(offered: offered, supported: supported) == nil)
    }

    @Test("this module speaks version 1")
    func supported() {
        #expect(ProtocolVersion.supported == [1])
        #expect(ProtocolVersion.negotiate(offered: [1]) == 1)
    }
}
