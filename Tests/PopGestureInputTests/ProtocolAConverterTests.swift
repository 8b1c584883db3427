import Foundation
import PopGestureCore
@testable import PopGestureInput
import PopGestureSynthesis
import Testing

/// Real mtdev: protocol A frames in, protocol B slots out.
@Suite struct ProtocolAConverterTests {
    /// A protocol A touchscreen (like the N-Trig): positions and touch size, no slots.
    static let protocolA = DeviceDescription(
        name: "protocol A fixture", bustype: 0x03, keys: [BTN.touch], eventTypes: [EV.syn, EV.key, EV.abs],
        axes: [
            ABS.x: AbsoluteAxis(minimum: 0, maximum: 9600),
            ABS.y: AbsoluteAxis(minimum: 0, maximum: 7200),
            ABS.mtTouchMajor: AbsoluteAxis(minimum: 0, maximum: 9600),
            ABS.mtPositionX: AbsoluteAxis(minimum: 0, maximum: 9600),
            ABS.mtPositionY: AbsoluteAxis(minimum: 0, maximum: 7200),
        ])

    static func convert(_ script: TouchScript) throws -> (ProtocolAConverter, [InputEvent]) {
        let converter = try ProtocolAConverter(device: script.device)
        var out: [InputEvent] = []
        for event in script.events { converter.convert(event) { out.append($0) } }
        return (converter, out)
    }

    @Test func theDescriptionGainsSlots() throws {
        #expect(Self.protocolA.touchProtocol == .anonymousContacts)
        let converter = try ProtocolAConverter(device: Self.protocolA)
        #expect(converter.convertedDescription.touchProtocol == .slots)
        #expect(converter.convertedDescription.slotCount == Self.protocolA.slotCount)
    }

    @Test func twoAnonymousContactsBecomeTwoTrackedSlots() throws {
        var script = TouchScript(device: Self.protocolA)
        script.down(0, at: 0.1, 0.5)
        script.down(1, at: 0.6, 0.5)
        script.move([0, 1], byMillimetres: 5, 0, over: .milliseconds(20))
        script.up(1)
        script.up(0)
        let (converter, events) = try Self.convert(script)

        #expect(!events.contains { $0.type == EV.syn && $0.code == SYN.mtReport }, "no protocol A left")
        var touches = TouchState(device: converter.convertedDescription)
        var downCounts: [Int] = []
        var endings = 0
        for event in events {
            guard case .frame = touches.handle(event) else { continue }
            downCounts.append(touches.fingerCount)
            endings += touches.contacts.filter { $0.phase == .ended }.count
            touches.endFrame()
        }
        #expect(downCounts == [1, 2, 2, 2, 1, 0])
        #expect(endings == 2)
    }

    @Test func eventsComeOutOnlyOnceTheirFrameIsComplete() throws {
        let converter = try ProtocolAConverter(device: Self.protocolA)
        var out: [InputEvent] = []
        let t = Timestamp(seconds: 10, microseconds: 500)
        for (code, value) in [(ABS.mtPositionX, Int32(100)), (ABS.mtPositionY, 200), (ABS.mtTouchMajor, 300)] {
            converter.convert(InputEvent(time: t, type: EV.abs, code: code, value: value)) { out.append($0) }
        }
        converter.convert(InputEvent(time: t, type: EV.syn, code: SYN.mtReport, value: 0)) { out.append($0) }
        #expect(out.isEmpty)
        converter.convert(InputEvent(time: t, type: EV.syn, code: SYN.report, value: 0)) { out.append($0) }
        #expect(out.last?.isFrameEnd == true)
        #expect(out.contains { $0.code == ABS.mtTrackingID && $0.value >= 0 })
        #expect(out.contains { $0.code == ABS.mtPositionX && $0.value == 100 })
        #expect(out.allSatisfy { $0.time == t }, "the kernel timestamp survives the conversion")
    }

    /// Backs from the feed for `before` and then a finger down at 2 % of the width,
    /// moved 60 mm to the right in 150 ms and lifted, with navigator `main` two pages deep.
    static func backsFromAnEdgeSwipe(after before: (Timestamp) -> [InputEvent] = { _ in [] }) throws -> Int {
        var engine = GestureEngine()
        var script = TouchScript(device: Self.protocolA)
        try engine.perform(.create(navigator: "main", pages: [Page(id: "root"), Page(id: "detail")], layout: nil,
                                   barFollowsTopPage: true), from: ClientID(1), at: script.time)
        engine.drainEvents { _ in }
        var feed = EngineFeed(engine: engine)
        let device = try feed.addDevice(Self.protocolA)
        let first = before(script.time)
        script.rest(.milliseconds(500))
        script.down(at: 0.02, 0.5)
        script.move(byMillimetres: 60, 0, over: .milliseconds(150))
        script.up()
        var backs = 0
        for event in first + script.events {
            feed.handle(event, from: device)
            feed.engine.drainEvents { if case .back = $0 { backs += 1 } }
        }
        return backs
    }

    @Test func aProtocolASwipeGoesBackThroughTheFeed() throws {
        #expect(try Self.backsFromAnEdgeSwipe() == 1)
    }

    @Test("40 contacts at once, lifted, then a finger down at 2 % of the width and 60 mm right: back")
    func aSwipeAfterACrowdOfContactsGoesBack() throws {
        let backs = try Self.backsFromAnEdgeSwipe { time in
            Self.frame(ofContacts: 40, at: time) + Self.liftFrame(at: time + .milliseconds(10))
        }
        #expect(backs == 1)
    }

    /// The protocol A frame of every contact lifted: one empty contact.
    static func liftFrame(at time: Timestamp) -> [InputEvent] {
        [InputEvent(time: time, type: EV.syn, code: SYN.mtReport, value: 0),
         InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0)]
    }

    /// One protocol A frame of `count` contacts in a row across the panel, `shift` units
    /// right of the first frame's, then `SYN_REPORT`. (mtdev reports only what changed.)
    /// Each contact has its touch size, as the fixture declares it: mtdev takes an axis
    /// it was given for every contact.
    static func frame(ofContacts count: Int, at time: Timestamp, shift: Int32 = 0) -> [InputEvent] {
        var events: [InputEvent] = []
        for contact in 0..<count {
            events.append(InputEvent(time: time, type: EV.abs, code: ABS.mtPositionX, value: Int32(100 + contact * 140) + shift))
            events.append(InputEvent(time: time, type: EV.abs, code: ABS.mtPositionY, value: 3600))
            events.append(InputEvent(time: time, type: EV.abs, code: ABS.mtTouchMajor, value: 300))
            events.append(InputEvent(time: time, type: EV.syn, code: SYN.mtReport, value: 0))
        }
        events.append(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0))
        return events
    }

    @Test("A frame of 64 contacts (libmtdev 1.1.6 never returns from 32) keeps its first 31 and ends")
    func aFrameOfManyContactsKeepsTheFirst31() throws {
        let converter = try ProtocolAConverter(device: Self.protocolA)
        var out: [InputEvent] = []
        let t = Timestamp(seconds: 1, microseconds: 0)
        for event in Self.frame(ofContacts: 64, at: t) { converter.convert(event) { out.append($0) } }
        #expect(out.last?.isFrameEnd == true)
        #expect(converter.droppedContacts == 64 - ProtocolAConverter.maximumContactsPerFrame)
        // The next frame, one finger, is whole again: nothing of the limit carries over.
        out.removeAll()
        for event in Self.liftFrame(at: t + .milliseconds(10)) + Self.frame(ofContacts: 1, at: t + .milliseconds(20)) {
            converter.convert(event) { out.append($0) }
        }
        #expect(out.last?.isFrameEnd == true)
        #expect(converter.droppedContacts == 33)
        #expect(out.filter { $0.code == ABS.mtTrackingID && $0.value == -1 }.count == 31, "the 31 kept contacts lift")
        #expect(out.contains { $0.code == ABS.mtTrackingID && $0.value >= 0 }, "the new finger lands")
    }

    @Test("31 contacts in a frame, frame after frame, all reach mtdev")
    func thirtyOneContactsAreAllKept() throws {
        let converter = try ProtocolAConverter(device: Self.protocolA)
        var frameEnds = 0
        var positionsOfLastFrame: Set<Int32> = []
        for index in 0..<5 {
            let t = Timestamp(seconds: 1, microseconds: Int64(index) * 10_000)
            for event in Self.frame(ofContacts: 31, at: t, shift: Int32(index) * 20) {
                converter.convert(event) {
                    if $0.isFrameEnd { frameEnds += 1 }
                    if index == 4, $0.code == ABS.mtPositionX { positionsOfLastFrame.insert($0.value) }
                }
            }
        }
        #expect(frameEnds == 5)
        #expect(converter.droppedContacts == 0)
        #expect(positionsOfLastFrame.contains(100 + 30 * 140 + 80), "the 31st contact came through")
    }

    /// Resident memory in bytes, from /proc/self/statm.
    static func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test("Converters free all of mtdev's memory: 2000 of them leave resident memory as it was")
    func convertersDoNotLeak() throws {
        func make(_ count: Int) throws {
            for _ in 0..<count { _ = try ProtocolAConverter(device: Self.protocolA) }
        }
        try make(10)  // warm up whatever is allocated once
        let before = try Self.residentBytes()
        try make(2000)
        let grown = try Self.residentBytes() - before
        // mtdev's state is about 20 KB: leaking it would grow resident memory by ~40 MB.
        #expect(grown < 8_000_000, "resident memory grew by \(grown) bytes")
    }
}
