import Foundation
import PopGestureProtocol
@testable import popgesturectl
import Testing

/// popgesturectl's readable lines, on the events exactly as docs/PROTOCOL.md shows them.
@Suite struct EventFormatterTests {
    /// docs/PROTOCOL.md, "A left-edge swipe on a two-page stack, then a tap".
    static let committedSwipe = [
        #"{"type":"pop-began","navigator":"main","page":"detail","progress":0.018,"time_us":1000010000}"#,
        #"{"type":"pop-progress","navigator":"main","page":"detail","progress":0.037,"time_us":1000020000}"#,
        #"{"type":"pop-finished","navigator":"main","page":"detail","reason":"fling","time_us":1000160000}"#,
        #"{"type":"back","navigator":"main","popped":"detail","top":"root","time_us":1000160000}"#,
        #"{"type":"bar","navigator":"main","page":"root","hidden":false}"#,
    ]

    /// docs/PROTOCOL.md, "A vertical scroll, as an observer sees it".
    static let scroll = #"{"type":"rejected","reason":"too-steep","device":0,"time_us":1000020000}"#

    @Test("a committed swipe: aligned columns, time since the first event, bar without a time")
    func committedSwipeLines() {
        var formatter = EventFormatter()
        #expect(Self.committedSwipe.map { formatter.format(line: $0) } == [
            "  0.000s  pop-began      main  detail  progress 0.018",
            "  0.010s  pop-progress   main  detail  progress 0.037",
            "  0.150s  pop-finished   main  detail  fling",
            "  0.150s  back           main  detail → root",
            "          bar            main  root  shown",
        ])
    }

    @Test("a rejected pan shows its reason and device")
    func rejectedLine() {
        var formatter = EventFormatter()
        #expect(formatter.format(line: Self.scroll) == "  0.000s  rejected       too-steep  device 0")
    }

    @Test("screen-changed: the rotation and text direction in force and who says them; a turn cancels a pop as rotated")
    func screenChangedLine() {
        var formatter = EventFormatter()
        #expect(formatter.format(line: #"{"type":"screen-changed","rotation":90,"rotationSource":"shell","output":"DSI-1","direction":"rtl","directionSource":"shell"}"#)
            == "          screen-changed  rotation 90° from the shell (DSI-1), text direction rtl from the shell")
        #expect(formatter.format(line: #"{"type":"screen-changed","rotationSource":"configuration","direction":"ltr","directionSource":"configuration"}"#)
            == "          screen-changed  rotation none (no touchscreen) from the configuration, text direction ltr from the configuration")
        #expect(formatter.format(line: #"{"type":"pop-cancelled","navigator":"main","page":"detail","reason":"rotated","time_us":5}"#)
            == "  0.000s  pop-cancelled  main  detail  rotated")
    }

    @Test("a swipe toward the back input: its progress and the commit point, as docs/PROTOCOL.md shows it")
    func backInputProgressLines() {
        var formatter = EventFormatter()
        #expect([
            #"{"type":"input-began","app":"firefox","time_us":1000010000}"#,
            #"{"type":"input-progress","app":"firefox","progress":0.18,"commit":0.3,"time_us":1000090000}"#,
        ].map { formatter.format(line: $0) } == [
            "  0.000s  input-began    input  firefox",
            "  0.080s  input-progress  input  firefox  progress 0.180 of 0.300",
        ])
    }

    @Test("a cancelled pop and a hidden bar")
    func cancelledLine() {
        var formatter = EventFormatter()
        _ = formatter.format(line: #"{"type":"pop-began","navigator":"m","page":"p","progress":0.1,"time_us":5000000}"#)
        #expect(formatter.format(line: #"{"type":"pop-cancelled","navigator":"m","page":"p","reason":"released","time_us":7345600}"#)
            == "  2.346s  pop-cancelled  m  p  released")
        #expect(formatter.format(line: #"{"type":"bar","navigator":"m","page":"p","hidden":true}"#)
            == "          bar            m  p  hidden")
    }

    @Test("times count from the first timed event; bar does not start the clock")
    func origin() {
        var formatter = EventFormatter()
        _ = formatter.format(line: Self.committedSwipe[4])
        #expect(formatter.origin == nil)
        _ = formatter.format(line: Self.scroll)
        #expect(formatter.origin == 1_000_020_000)
        #expect(formatter.format(line: Self.committedSwipe[0]) == " -0.010s  pop-began      main  detail  progress 0.018")
        #expect(formatter.format(line: #"{"type":"rejected","reason":"busy","device":3,"time_us":1123456789000}"#)
            == "1122456.769s  rejected       busy  device 3")
    }

    @Test("progress has three decimals", arguments: [(0.0, "0.000"), (0.25, "0.250"), (1.0, "1.000"), (0.0005, "0.001")])
    func progress(value: Double, text: String) {
        #expect(EventFormatter.thousandths(value) == text)
    }

    /// Lines this version cannot show are printed as they came: never a crash, never lost.
    @Test("unknown and malformed lines come back raw", arguments: [
        "",
        "garbage{",
        "{}",
        "[1,2,3]",
        "null",
        #"{"type":"back"}"#,
        #"{"type":"future-event","navigator":"main","time_us":1}"#,
        #"{"type":"pop-began","navigator":"main","page":"detail","progress":"fast","time_us":1}"#,
        #"{"type":"rejected","reason":"too-steep","device":"zero","time_us":1}"#,
        #"{"type":"bar","navigator":"main","page":"root","hidden":"no"}"#,
        #"{"type":17}"#,
        #"{"type":"back","navigator":"main","popped":"a","top":"b","time_us":1} trailing"#,
        #"{"type":"back","navigator":"\ud800","popped":"a""#,
        String(repeating: "[", count: 100_000),
        String(repeating: "{\"a\":", count: 10_000),
    ])
    func raw(line: String) {
        var formatter = EventFormatter()
        #expect(formatter.format(line: line) == line)
        #expect(formatter.origin == nil)
    }

    @Test("an event with extra fields still formats: new fields must not break old clients")
    func extraFields() {
        var formatter = EventFormatter()
        #expect(formatter.format(line: #"{"type":"back","navigator":"main","popped":"detail","top":"root","time_us":5,"new":[1,{"x":null}]}"#)
            == "  0.000s  back           main  detail → root")
    }

    @Test("replies in a session: ok names the command, error its code and message")
    func replies() throws {
        #expect(EventFormatter.format(reply: try Self.reply(#"{"type":"ok","request":"push","id":2}"#),
                                      command: "push main detail")
            == "          ok             push main detail")
        #expect(EventFormatter.format(
            reply: try Self.reply(#"{"type":"error","code":"not-owner","message":"main belongs to client 3","request":"pop","id":3}"#),
            command: "pop main")
            == "          error          pop main  not-owner: main belongs to client 3")
        #expect(EventFormatter.format(
            reply: try Self.reply(#"{"type":"stack","navigator":"main","owner":3,"pages":["home","detail"],"front":true,"transitioning":false}"#),
            command: "stack main")
            == "          stack          main  home → detail  (client 3, front)")
        #expect(EventFormatter.format(
            reply: try Self.reply(#"{"type":"hello","version":1,"server":"popgestured","client":4}"#), command: "hello")
            == "          hello          client 4  popgestured protocol 1")
    }

    /// The reply in a line, decoded.
    static func reply(_ line: String) throws -> ServerReply {
        guard case .reply(let reply, _) = try MessageCodec.decode(line) else { throw ProtocolError(.unknownType, line) }
        return reply
    }

    static func status(_ line: String) throws -> ServerReply.Status {
        guard case .status(let status) = try reply(line) else { throw ProtocolError(.unknownType, line) }
        return status
    }

    @Test("status: devices, navigators and clients as tables, then how many")
    func statusTable() throws {
        let status = try Self.status("""
            {"type":"status","version":1,"devices":[{"device":0,"name":"ELAN Touchscreen","path":"/dev/input/event5","kind":"touchscreen",\
            "rotation":90,"rotationSource":"shell","output":"eDP-1"}],\
            "navigators":[{"navigator":"main","owner":3,"pages":2,"front":true}],\
            "clients":[{"client":3,"name":"x","pid":123,"uid":1000,"gid":1000,"observer":false},{"client":12,"pid":9,"uid":0,"gid":0,"observer":true}]}
            """)
        #expect(StatusTable.render(status) == [
            "DEVICE  KIND         PATH               NAME              ROTATION",
            "0       touchscreen  /dev/input/event5  ELAN Touchscreen  90° shell (eDP-1)",
            "",
            "NAVIGATOR  OWNER  PAGES  FRONT",
            "main       3      2      yes",
            "",
            "CLIENT  NAME  PID  UID   OBSERVER",
            "3       x     123  1000  no",
            "12      -     9    0     yes",
            "",
            "1 device, 1 navigator, 2 clients",
        ])
    }

    @Test("status says who has focus and where the last back went")
    func statusFocus() throws {
        let shell = try Self.status("""
            {"type":"status","version":1,"devices":[],"navigators":[],"clients":[],            "focus":{"source":"shell","app":"firefox","pid":4321},"lastBack":{"target":"input","app":"firefox","input":"alt+left"}}
            """)
        #expect(Array(StatusTable.render(shell).suffix(3)) == [
            "focus: firefox (pid 4321), says the shell",
            "last back: back input alt+left for firefox",
            "0 devices, 0 navigators, 0 clients",
        ])
        let clients = try Self.status("""
            {"type":"status","version":1,"devices":[],"navigators":[],"clients":[],"focus":{"source":"clients"}}
            """)
        #expect(StatusTable.render(clients).contains("focus: from the clients' own reports (no shell connected)"))
        #expect(!StatusTable.render(shell).contains { $0.hasPrefix("touchpad scrolling") }, "the shell said nothing of it")
        let natural = try Self.status("""
            {"type":"status","version":1,"devices":[],"navigators":[],"clients":[],"focus":{"source":"shell","touchpadScrolling":"natural"}}
            """)
        #expect(StatusTable.render(natural).contains("touchpad scrolling: natural, says the shell (the touchpad bridge plays its scroll so)"))
        #expect(StatusTable.render(clients).contains("last back: none yet"))
        let users = try Self.status("""
            {"type":"status","version":1,"devices":[],"navigators":[],"clients":[],"settings":{"seat":"seat0",\
            "mode":"edge","backInputMode":"edge","edgeWidthMm":6,"commitProgress":0.25,"flingVelocityMmPerS":180,\
            "edgeFlingVelocityMmPerS":60,"user":["edge-width-mm","commit-progress"],"locked":["mode"]}}
            """)
        #expect(StatusTable.render(users).contains(
            "settings on seat0: mode edge, back input edge, edge 6 mm, commit 0.25, fling 180/60 mm/s; "
                + "the user's: edge-width-mm, commit-progress; locked: mode"))
    }

    @Test("status without devices says why no swipe will come")
    func statusWithoutDevices() throws {
        let lines = StatusTable.render(try Self.status(#"{"type":"status","version":1,"devices":[],"navigators":[],"clients":[]}"#))
        #expect(lines.first == StatusTable.noDevices)
        #expect(lines.contains("no navigators: no client has created one"))
    }

    /// The daemon lists at most 64 of each; `status` says what it left out (it used to show
    /// the 64 as if they were all).
    @Test("a truncated status says how many are not listed, and the counts")
    func truncatedStatus() throws {
        let status = try Self.status("""
            {"type":"status","version":1,"devices":[],"deviceCount":0,\
            "navigators":[{"navigator":"a","owner":3,"pages":1,"front":true}],"navigatorCount":70,\
            "clients":[{"client":3,"observer":false}],"clientCount":1,"truncated":true}
            """)
        let lines = StatusTable.render(status)
        #expect(lines.contains("… 69 more navigators not listed"), "\(lines)")
        #expect(!lines.contains { $0.contains("more clients") })
        #expect(lines.last == "0 devices, 70 navigators, 1 client (the daemon listed only some)")
    }

    /// Every event the protocol document shows must be one the CLI can show readably;
    /// a new event type in the document fails here until the formatter knows it.
    @Test("every event in docs/PROTOCOL.md's examples formats readably")
    func protocolDocument() throws {
        let document = Repository.root.appendingPathComponent("docs/PROTOCOL.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        // Requests and replies may appear in examples too; they are not events.
        let notEvents = Set(ServerReply.Kind.allCases.map(\.rawValue) + ClientRequest.Kind.allCases.map(\.rawValue))
        var events = 0
        for line in text.split(separator: "\n").map(String.init) where line.hasPrefix("{\"type\"") {
            let message = try JSONValue(parsing: line)
            guard let type = message["type"]?.string, !notEvents.contains(type) else { continue }
            var formatter = EventFormatter()
            #expect(formatter.format(line: line) != line, "popgesturectl cannot show \(line)")
            events += 1
        }
        #expect(events >= 6)
    }
}
