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

    @Test func aProtocolASwipeGoesBackThroughTheFeed() throws {
        var engine = GestureEngine()
        var script = TouchScript(device: Self.protocolA)
        try engine.perform(.create(navigator: "main", pages: [Page(id: "root"), Page(id: "detail")], layout: nil,
                                   barFollowsTopPage: true), from: ClientID(1), at: script.time)
        engine.drainEvents { _ in }
        var feed = EngineFeed(engine: engine)
        let device = try feed.addDevice(Self.protocolA)
        script.down(at: 0.02, 0.5)
        script.move(byMillimetres: 60, 0, over: .milliseconds(150))
        script.up()
        var backs = 0
        for event in script.events {
            feed.handle(event, from: device)
            feed.engine.drainEvents { if case .back = $0 { backs += 1 } }
        }
        #expect(backs == 1)
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
