import Foundation
import PopGestureCore
import PopGestureInput
import PopGestureRecording
import Testing

/// Every real recording through the whole engine, in the default setup: one client,
/// two pages, left to right, fullscreen. None holds a one-finger swipe toward the
/// trailing side, so none may produce a back; each row says what the recording
/// holds and so what the observers must see instead.
@Suite(.enabled(if: SharedRecordings.available, Comment(rawValue: SharedRecordings.absent)))
struct RecordingReplayTests {
    /// What a recording may produce, besides never a back.
    enum Expectation: Sendable {
        /// Several fingers: any pan is rejected or cancelled for the extra finger, or never starts.
        case multiFinger
        /// One finger moving vertically or leftward: rejected for direction or steepness.
        case notTowardTrailingSide
        /// Touches too short to decide, or one-finger touchpad motion (touchpads pan with two).
        case noPan
        /// A mix of touches; rightward drags released slowly are cancelled.
        case mixed
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var file: String
        var desc: String?
        var expectation: Expectation
        var why: String
        var testDescription: String { file }
    }

    static let rows: [Row] = [
        Row(file: "atmel-maxtouch.1-finger-drag-up-down.events", expectation: .notTowardTrailingSide,
            why: "one finger drags up then down"),
        Row(file: "atmel-maxtouch.2-fingers-touch-release.events", expectation: .multiFinger,
            why: "two fingers land and lift"),
        Row(file: "atmel-maxtouch.4-finger-drag-down.events", expectation: .multiFinger,
            why: "four fingers drag down"),
        Row(file: "bcm5974.three-finger-click.events", expectation: .multiFinger,
            why: "a three-finger click on a protocol A touchpad"),
        Row(file: "cypress.two-finger-press.events", expectation: .multiFinger,
            why: "two fingers press a touchpad without moving"),
        Row(file: "egalax-wetab.events", desc: "egalax-wetab.desc", expectation: .noPan,
            why: "short touches that never move the 4 mm needed to decide"),
        Row(file: "ep0430m09.2-finger-scroll-down.events", expectation: .multiFinger,
            why: "a two-finger scroll"),
        Row(file: "ep0430m09.2-fingers-touch-release.events", expectation: .multiFinger,
            why: "two fingers land in one frame: never a single-touch pan"),
        Row(file: "ntrig-dell-xt2.events", desc: "ntrig-dell-xt2.desc", expectation: .multiFinger,
            why: "protocol A: three contacts from the first frame"),
        Row(file: "ntrig-multitouch.2-fingers-touch-release.events", desc: "ntrig-multitouch.desc",
            expectation: .multiFinger, why: "protocol A: two fingers land and lift"),
        Row(file: "quanta-optical.mixed.events", desc: "quanta-optical.desc", expectation: .mixed,
            why: "14 s of mixed touches: scrolls, leftward drags, slow rightward drags"),
        Row(file: "quanta-optical.touch-hover.events", desc: "quanta-optical.desc", expectation: .mixed,
            why: "a slow rightward drag with hovering, released short of the threshold"),
        Row(file: "synaptics-hp8470p.edge-scroll-horizontal.events", desc: "synaptics-hp8470p.desc",
            expectation: .noPan, why: "one-finger edge scroll on a touchpad"),
        Row(file: "synaptics-hp8470p.two-finger-scroll-vertical.events", desc: "synaptics-hp8470p.desc",
            expectation: .noPan,
            why: "named two-finger, but the device reports one tracking id and only BTN_TOOL_FINGER"),
        Row(file: "synaptics.leftmove.events", desc: "synaptics.desc", expectation: .noPan,
            why: "one finger moves left on a touchpad"),
        Row(file: "dell-canvas-touch.evemu", expectation: .mixed,
            why: "a long mixed session with MSC_TIMESTAMP: taps, drags, several fingers"),
    ]

    @Test("The default setup never goes back on a recording without a one-finger trailing swipe", arguments: rows)
    func noBack(row: Row) throws {
        let events = try Self.replay(row.file, desc: row.desc)
        #expect(!events.kinds.contains("back"), "\(row.why)")
        #expect(!events.kinds.contains("pop-finished"), "\(row.why)")

        let rejections = events.compactMap { if case .rejected(let r, _, _) = $0 { r } else { nil } }
        let cancellations = events.compactMap { if case .popCancelled(_, let r, _) = $0 { r } else { nil } }
        switch row.expectation {
        case .multiFinger:
            #expect(rejections.allSatisfy { $0 == .extraFinger }, "\(row.why): \(rejections)")
            #expect(cancellations.allSatisfy { $0 == .extraFinger }, "\(row.why)")
        case .notTowardTrailingSide:
            #expect(!rejections.isEmpty, "\(row.why)")
            #expect(rejections.allSatisfy { $0 == .wrongDirection || $0 == .tooSteep }, "\(row.why): \(rejections)")
            #expect(!events.kinds.contains("pop-began"), "\(row.why)")
        case .noPan:
            #expect(events.isEmpty, "\(row.why): \(events.kinds)")
        case .mixed:
            #expect(cancellations.allSatisfy { $0 == .released || $0 == .extraFinger }, "\(row.why)")
        }
    }

    @Test("Every recording in the folder has a row, so none escapes the check")
    func everyRecordingListed() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: SharedRecordings.folder)
            .filter { $0.hasSuffix(".events") || $0.hasSuffix(".evemu") || $0.hasSuffix(".yml") }
        #expect(Set(files) == Set(Self.rows.map(\.file)))
    }

    @Test("One finger moving left on a touchpad is a back in a right-to-left layout with one-finger pans")
    func leftMoveIsBackInRightToLeft() throws {
        let configuration = DeviceConfiguration(kind: .touchpad, pan: PanSettings(source: .oneFinger))
        let ltr = try Self.replay("synaptics.leftmove.events", desc: "synaptics.desc", configuration: configuration)
        #expect(ltr.outcome == .rejected(.wrongDirection))
        let rtl = try Self.replay("synaptics.leftmove.events", desc: "synaptics.desc", layout: .rightToLeft,
                                  configuration: configuration)
        #expect(rtl.kinds.filter { $0 == "back" }.count == 1)
        #expect(rtl.outcome == .back(popped: "detail", top: "root", by: .progress)
                || rtl.outcome == .back(popped: "detail", top: "root", by: .fling))
    }

    @Test("A replay gives the same events every time")
    func deterministic() throws {
        let first = try Self.replay("quanta-optical.mixed.events", desc: "quanta-optical.desc")
        let second = try Self.replay("quanta-optical.mixed.events", desc: "quanta-optical.desc")
        #expect(!first.isEmpty)
        #expect(first == second)
    }

    /// Replays a recording as the client of a two-page navigator in front; the device is
    /// configured as a recording is (its kind from its bits) unless `configuration` says.
    static func replay(
        _ file: String, desc: String? = nil, layout: LayoutDirection = .leftToRight,
        configuration: DeviceConfiguration? = nil
    ) throws -> [EngineEvent] {
        let recording = try SharedRecordings.recording(file, desc: desc)
        let start = recording.events.first?.time ?? .zero
        var engine = GestureEngine()
        engine.defaultLayout = layout
        try engine.perform(.create(navigator: "main", pages: [Page(id: "root"), Page(id: "detail")], layout: nil,
                                   barFollowsTopPage: true), from: Scenario.client, at: start)
        engine.drainEvents { _ in }
        var feed = EngineFeed(engine: engine)
        let device = try feed.addDevice(
            recording.device, configuration: configuration ?? DeviceConfiguration(recorded: recording.device))
        var events: [EngineEvent] = []
        for event in recording.events {
            feed.handle(event, from: device)
            feed.engine.drainEvents { events.append($0) }
        }
        return events
    }
}
