import Foundation
@testable import PopGestureCore
import PopGestureProtocol
import Testing

@Suite("WireEncoding")
struct WireEncodingTests {
    static let target = PopTarget(navigator: "main", owner: ClientID(7), page: "detail")
    static let time = Timestamp(seconds: 12, microseconds: 345_678)

    struct Line: Sendable, CustomStringConvertible {
        var event: EngineEvent
        var json: String
        var description: String { json }
    }

    static let lines: [Line] = [
        Line(event: .popBegan(target, progress: 0.25, time: time),
             json: #"{"type":"pop-began","navigator":"main","page":"detail","progress":0.25,"time_us":12345678}"#),
        Line(event: .popProgress(target, progress: 0.5, time: time),
             json: #"{"type":"pop-progress","navigator":"main","page":"detail","progress":0.5,"time_us":12345678}"#),
        Line(event: .popFinished(target, reason: .progress, time: time),
             json: #"{"type":"pop-finished","navigator":"main","page":"detail","reason":"progress","time_us":12345678}"#),
        Line(event: .popFinished(target, reason: .fling, time: time),
             json: #"{"type":"pop-finished","navigator":"main","page":"detail","reason":"fling","time_us":12345678}"#),
        Line(event: .popCancelled(target, reason: .flungBack, time: time),
             json: #"{"type":"pop-cancelled","navigator":"main","page":"detail","reason":"flung-back","time_us":12345678}"#),
        Line(event: .popCancelled(target, reason: .eventsDropped, time: time),
             json: #"{"type":"pop-cancelled","navigator":"main","page":"detail","reason":"events-dropped","time_us":12345678}"#),
        Line(event: .back(navigator: "main", owner: ClientID(7), popped: "detail", top: "root", time: time),
             json: #"{"type":"back","navigator":"main","popped":"detail","top":"root","time_us":12345678}"#),
        Line(event: .bar(navigator: "main", owner: ClientID(7), page: "root", hidden: true),
             json: #"{"type":"bar","navigator":"main","page":"root","hidden":true}"#),
        Line(event: .bar(navigator: "main", owner: ClientID(7), page: "root", hidden: false),
             json: #"{"type":"bar","navigator":"main","page":"root","hidden":false}"#),
        Line(event: .rejected(.tooFarFromEdge, device: DeviceID(3), time: time),
             json: #"{"type":"rejected","reason":"too-far-from-edge","device":3,"time_us":12345678}"#),
        Line(event: .refused(.stackTooShallow, device: DeviceID(2), time: time),
             json: #"{"type":"refused","reason":"stack-too-shallow","device":2,"time_us":12345678}"#),
        Line(event: .inputBegan(app: "firefox", seat: .seat0, pointer: ScreenPoint(x: 0.02, y: 0.5, xMillimetres: 3, yMillimetres: 70), time: time),
             json: #"{"type":"input-began","app":"firefox","time_us":12345678}"#),
        Line(event: .inputProgress(
                BackInput(codes: [56, 105], spelling: "alt+left")!, app: "firefox", seat: .seat0, progress: 0.125,
                commit: 0.3, time: time),
             json: #"{"type":"input-progress","app":"firefox","progress":0.125,"commit":0.3,"time_us":12345678}"#),
        Line(event: .inputCancelled(app: nil, seat: .seat0, reason: .released, time: time),
             json: #"{"type":"input-cancelled","reason":"released","time_us":12345678}"#),
        Line(event: .backInput(BackInput(codes: [56, 105], spelling: "alt+left")!, app: "firefox", seat: .seat0, reason: .fling, time: time),
             json: #"{"type":"back-input","app":"firefox","input":"alt+left","reason":"fling","time_us":12345678}"#),
        Line(event: .focusChanged(FocusSummary(source: .shell, app: "firefox", pid: 42, navigator: nil)),
             json: #"{"type":"focus-changed","source":"shell","app":"firefox","pid":42}"#),
        Line(event: .focusChanged(FocusSummary(source: .clients, app: nil, pid: nil, navigator: "main")),
             json: #"{"type":"focus-changed","source":"clients","navigator":"main"}"#),
        Line(event: .popCancelled(target, reason: .rotated, time: time),
             json: #"{"type":"pop-cancelled","navigator":"main","page":"detail","reason":"rotated","time_us":12345678}"#),
        Line(event: .screenChanged(ScreenSummary(rotation: .clockwise90, rotationSource: .shell, output: "DSI-1",
                                                 direction: .rightToLeft, directionSource: .shell)),
             json: #"{"type":"screen-changed","rotation":90,"rotationSource":"shell","output":"DSI-1","direction":"rtl","directionSource":"shell"}"#),
        Line(event: .screenChanged(ScreenSummary(rotation: nil, rotationSource: .configuration, output: nil,
                                                 direction: .leftToRight, directionSource: .configuration)),
             json: #"{"type":"screen-changed","rotationSource":"configuration","direction":"ltr","directionSource":"configuration"}"#),
    ]

    @Test("each event encodes to its exact JSON line", arguments: lines)
    func exactLine(_ line: Line) {
        #expect(WireEncoding.encode(line.event) == line.json)
    }

    @Test("each line parses as a JSON object with the same fields", arguments: lines)
    func parses(_ line: Line) throws {
        let encoded = WireEncoding.encode(line.event)
        #expect(!encoded.contains("\n"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(encoded.utf8)) as? [String: Any])
        let type = try #require(object["type"] as? String)
        switch line.event {
        case .popBegan(let t, let progress, let time), .popProgress(let t, let progress, let time):
            if case .popBegan = line.event { #expect(type == "pop-began") } else { #expect(type == "pop-progress") }
            #expect(object["navigator"] as? String == t.navigator)
            #expect(object["page"] as? String == t.page)
            #expect((object["progress"] as? NSNumber)?.doubleValue == progress)
            #expect((object["time_us"] as? NSNumber)?.int64Value == time.microseconds)
        case .popFinished(let t, let reason, let time):
            #expect(type == "pop-finished")
            #expect(object["page"] as? String == t.page)
            #expect(object["reason"] as? String == reason.rawValue)
            #expect((object["time_us"] as? NSNumber)?.int64Value == time.microseconds)
        case .popCancelled(let t, let reason, _):
            #expect(type == "pop-cancelled")
            #expect(object["navigator"] as? String == t.navigator)
            #expect(object["reason"] as? String == reason.rawValue)
        case .back(let navigator, _, let popped, let top, _):
            #expect(type == "back")
            #expect(object["navigator"] as? String == navigator)
            #expect(object["popped"] as? String == popped)
            #expect(object["top"] as? String == top)
        case .bar(_, _, let page, let hidden):
            #expect(type == "bar")
            #expect(object["page"] as? String == page)
            #expect(object["hidden"] as? Bool == hidden)
        case .inputBegan(let app, _, _, _):
            #expect(type == "input-began")
            #expect(object["app"] as? String == app)
        case .inputProgress(_, let app, _, let progress, let commit, _):
            #expect(type == "input-progress")
            #expect(object["app"] as? String == app)
            #expect((object["progress"] as? NSNumber)?.doubleValue == progress)
            #expect((object["commit"] as? NSNumber)?.doubleValue == commit)
        case .inputCancelled(_, _, let reason, _):
            #expect(type == "input-cancelled")
            #expect(object["reason"] as? String == reason.rawValue)
        case .backInput(let input, _, _, _, _):
            #expect(type == "back-input")
            #expect(object["input"] as? String == input.spelling)
        case .focusChanged(let focus):
            #expect(type == "focus-changed")
            #expect(object["source"] as? String == focus.source.rawValue)
            #expect(object["navigator"] as? String == focus.navigator)
        case .screenChanged(let screen):
            #expect(type == "screen-changed")
            #expect(object["rotationSource"] as? String == screen.rotationSource.rawValue)
            #expect(object["direction"] as? String == screen.direction.rawValue)
        case .rejected(let reason, let device, _):
            #expect(type == "rejected")
            #expect(object["reason"] as? String == reason.rawValue)
            #expect((object["device"] as? NSNumber)?.intValue == device.rawValue)
        case .refused(let reason, let device, _):
            #expect(type == "refused")
            #expect(object["reason"] as? String == reason.rawValue)
            #expect((object["device"] as? NSNumber)?.intValue == device.rawValue)
        }
    }

    @Test("the owner is not on the wire; it routes the event")
    func ownerNotWritten() {
        for line in Self.lines {
            #expect(!line.json.contains("owner"))
            #expect(!line.json.contains("\"7\""))
        }
        #expect(EngineEvent.rejected(.busy, device: DeviceID(1), time: Self.time).owner == nil)
        #expect(EngineEvent.popBegan(Self.target, progress: 0, time: Self.time).owner == ClientID(7))
        #expect(EngineEvent.bar(navigator: "n", owner: ClientID(9), page: "p", hidden: true).owner == ClientID(9))
    }

    // MARK: - Progress

    static let progressCases: [(Double, String)] = [
        (0.25, "0.25"), (1, "1"), (0.1234, "0.123"), (0, "0"), (0.5, "0.5"), (0.1, "0.1"),
        (0.05, "0.05"), (0.001, "0.001"), (0.0004, "0"), (0.9996, "1"), (0.1235, "0.124"),
        (0.999, "0.999"), (2.5, "2.5"), (-0.25, "-0.25"), (-0.0001, "0"),
    ]

    @Test("progress is written in thousandths without trailing zeros", arguments: progressCases)
    func progress(value: Double, text: String) throws {
        let line = WireEncoding.encode(.popProgress(Self.target, progress: value, time: Self.time))
        #expect(line.contains(#","progress":\#(text),"time_us""#), "\(line)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let parsed = try #require((object["progress"] as? NSNumber)?.doubleValue)
        #expect(abs(parsed - value) <= 0.0005 + 1e-12)
    }

    // MARK: - Escaping

    static func pageLine(_ page: String) -> String {
        WireEncoding.encode(.bar(navigator: "main", owner: ClientID(1), page: page, hidden: false))
    }

    @Test("quotes, backslashes, newlines and control characters in ids are escaped")
    func escaping() throws {
        let page = "say \"hi\"\\path\nline\u{01}bell\r\ttab\u{1F}end"
        let line = Self.pageLine(page)
        #expect(line == #"{"type":"bar","navigator":"main","page":"say \"hi\"\\path\nline\u0001bell\r\ttab\u001fend","hidden":false}"#)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["page"] as? String == page)
    }

    @Test("non-ASCII text passes through unescaped and round-trips", arguments: [
        "détail", "設定", "emoji 🚀", "\u{7F}del", "\u{2028}separator", "/slash",
    ])
    func nonASCII(_ page: String) throws {
        let line = Self.pageLine(page)
        #expect(line.contains(page))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["page"] as? String == page)
    }

    @Test("escaping applies to navigator ids and every string field")
    func escapingEverywhere() throws {
        let event = EngineEvent.back(
            navigator: "nav\"1", owner: ClientID(1), popped: "a\\b", top: "c\nd", time: Self.time)
        let line = WireEncoding.encode(event)
        #expect(line == #"{"type":"back","navigator":"nav\"1","popped":"a\\b","top":"c\nd","time_us":12345678}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["navigator"] as? String == "nav\"1")
        #expect(object["popped"] as? String == "a\\b")
        #expect(object["top"] as? String == "c\nd")
    }

    // MARK: - Reasons

    @Test("every engine reason keeps its wire name in the protocol's event")
    func reasonNames() {
        for reason in RejectionReason.allCases {
            #expect(ServerEvent.RejectionReason(reason).rawValue == reason.rawValue)
        }
        for reason in [PopCancelReason.released, .flungBack, .extraFinger, .palm, .eventsDropped, .deviceRemoved,
                       .stackChanged] {
            #expect(ServerEvent.CancelReason(reason).rawValue == reason.rawValue)
        }
        #expect(ServerEvent.FinishReason(CommitReason.progress) == .progress)
        #expect(ServerEvent.FinishReason(CommitReason.fling) == .fling)
    }

    @Test("the protocol's decoder reads back each line as the mapped event", arguments: lines)
    func decodes(_ line: Line) throws {
        #expect(try MessageCodec.decode(line.json) == .event(ServerEvent(line.event)))
    }
}
