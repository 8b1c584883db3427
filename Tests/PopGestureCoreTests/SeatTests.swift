import PopGestureProtocol
@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// Two seats on one machine, each with its own touchscreen: a swipe acts on its own
/// seat's focus, navigators and back input only.
@Suite struct SeatTests {
    static let seat1 = Seat(rawValue: "seat1")!
    static let altLeft = BackInput(codes: [56, 105], spelling: "alt+left")!
    static let onSeat0 = ClientID(1)
    static let onSeat1 = ClientID(2)
    static let shell0 = ClientID(8)
    static let shell1 = ClientID(9)

    struct Rig {
        var engine: GestureEngine
        var screens: [Seat: DeviceID] = [:]
        var scripts: [Seat: TouchScript] = [:]
        var fed: [Seat: Int] = [:]

        init() {
            var settings = GestureSettings()
            settings.backInput = BackInputMap(standard: SeatTests.altLeft)
            engine = GestureEngine(settings: settings)
            for seat in [Seat.seat0, SeatTests.seat1] {
                screens[seat] = engine.addDevice(Fixtures.touchscreen, configuration: DeviceConfiguration(seat: seat))
                scripts[seat] = TouchScript(device: Fixtures.touchscreen)
            }
        }

        mutating func navigator(_ id: String, of client: ClientID, on seat: Seat, app: String? = nil) throws {
            engine.identify(client, app: app, pid: Int32(client.rawValue) + 100, seat: seat, isShell: false)
            try engine.perform(
                .create(navigator: id, pages: [Page(id: "root"), Page(id: "detail")], layout: nil, barFollowsTopPage: false),
                from: client, at: scripts[seat]!.time)
            engine.drainEvents { _ in }
        }

        /// On `seat`'s screen: a finger down at `x` of the width (1 %), 40 mm to the right
        /// in 100 ms, then up.
        mutating func swipe(on seat: Seat, from x: Double = 0.01) -> [EngineEvent] {
            scripts[seat]!.down(at: x, 0.5)
            scripts[seat]!.move(byMillimetres: 40, 0, over: .milliseconds(100))
            scripts[seat]!.up()
            let events = scripts[seat]!.events
            for event in events.dropFirst(fed[seat] ?? 0) { engine.handle(event, from: screens[seat]!) }
            fed[seat] = events.count
            var out: [EngineEvent] = []
            engine.drainEvents { out.append($0) }
            return out
        }
    }

    /// The events cut into frames, each ending at its `SYN_REPORT`.
    static func framed(_ events: [InputEvent]) -> [[InputEvent]] {
        var frames: [[InputEvent]] = [[]]
        for event in events {
            frames[frames.count - 1].append(event)
            if event.isFrameEnd { frames.append([]) }
        }
        return frames.filter { !$0.isEmpty }
    }

    static func backs(_ events: [EngineEvent]) -> [String] {
        events.compactMap {
            switch $0 {
            case .back(let navigator, _, _, _, _): "navigator \(navigator)"
            case .backInput(let input, _, let seat, _, _): "input \(input) on \(seat)"
            default: nil
            }
        }
    }

    @Test("a swipe on each seat pops that seat's navigator, whichever came to the front last")
    func eachSeatItsNavigator() throws {
        var rig = Rig()
        try rig.navigator("zero", of: Self.onSeat0, on: .seat0)
        try rig.navigator("one", of: Self.onSeat1, on: Self.seat1)
        #expect(rig.engine.navigation.front(on: .seat0)?.id == "zero")
        #expect(rig.engine.navigation.front(on: Self.seat1)?.id == "one")
        #expect(Self.backs(rig.swipe(on: .seat0)) == ["navigator zero"])
        #expect(Self.backs(rig.swipe(on: Self.seat1)) == ["navigator one"])
    }

    /// Issue 28: one arbiter for every seat made the second seat's finger `busy`.
    @Test("two seats swipe at once, frame by frame interleaved: both go back, each on its own seat; neither is busy")
    func twoSeatsSwipeAtOnce() throws {
        var rig = Rig()
        try rig.navigator("zero", of: Self.onSeat0, on: .seat0)
        try rig.navigator("one", of: Self.onSeat1, on: Self.seat1)
        for seat in [Seat.seat0, Self.seat1] {
            rig.scripts[seat]!.down(at: 0.01, 0.5)
            rig.scripts[seat]!.move(byMillimetres: 40, 0, over: .milliseconds(100))
            rig.scripts[seat]!.up()
        }
        // Each seat's frames, one after the other's: the two fingers are down together.
        let frames = [Seat.seat0, Self.seat1].map { seat in Self.framed(rig.scripts[seat]!.events).map { (seat, $0) } }
        var events: [EngineEvent] = []
        let count = max(frames[0].count, frames[1].count)
        for index in 0..<count {
            for lane in frames where index < lane.count {
                let (seat, frame) = lane[index]
                for event in frame { rig.engine.handle(event, from: rig.screens[seat]!) }
            }
            if index == count / 2 {
                #expect(rig.engine.arbiterState(on: .seat0) != .idle && rig.engine.arbiterState(on: Self.seat1) != .idle,
                        "both seats follow their finger at once")
            }
        }
        rig.engine.drainEvents { events.append($0) }
        #expect(Self.backs(events).sorted() == ["navigator one", "navigator zero"])
        #expect(!events.contains { if case .rejected(.busy, _, _) = $0 { true } else { false } })
        #expect(rig.engine.arbiterState == .idle)
    }

    @Test("seat 1 with no navigator types on seat 1's back input, though seat 0 has a navigator")
    func backInputOfItsSeat() throws {
        var rig = Rig()
        try rig.navigator("zero", of: Self.onSeat0, on: .seat0)
        #expect(Self.backs(rig.swipe(on: Self.seat1)) == ["input alt+left on seat1"])
        #expect(Self.backs(rig.swipe(on: .seat0)) == ["navigator zero"])
    }

    @Test("each seat has its own shell: seat 0's focused window decides nothing on seat 1")
    func shellPerSeat() throws {
        var rig = Rig()
        try rig.navigator("zero", of: Self.onSeat0, on: .seat0, app: "files")
        try rig.navigator("one", of: Self.onSeat1, on: Self.seat1, app: "files")
        rig.engine.identify(Self.shell0, app: nil, pid: 300, seat: .seat0, isShell: true)
        rig.engine.identify(Self.shell1, app: nil, pid: 301, seat: Self.seat1, isShell: true)
        #expect(rig.engine.navigation.focus.shell(on: .seat0) == Self.shell0)
        #expect(rig.engine.navigation.focus.shell(on: Self.seat1) == Self.shell1)

        try rig.engine.shellReports(.init(app: "maps", pid: nil), by: Self.shell0, at: rig.scripts[.seat0]!.time)
        try rig.engine.shellReports(.init(app: nil, pid: 102), by: Self.shell1, at: rig.scripts[.seat0]!.time)
        #expect(Self.backs(rig.swipe(on: .seat0)) == ["input alt+left on seat0"], "seat 0's window is maps")
        #expect(Self.backs(rig.swipe(on: Self.seat1)) == ["navigator one"], "seat 1's window is client 2's")

        // Seat 0's shell leaves: the clients' own reports decide there again; seat 1 keeps its shell.
        rig.engine.clientDisconnected(Self.shell0, at: rig.scripts[.seat0]!.time)
        #expect(rig.engine.navigation.focus.source(on: .seat0) == .clients)
        #expect(rig.engine.navigation.focus.source(on: Self.seat1) == .shell)
        #expect(Self.backs(rig.swipe(on: .seat0)) == ["navigator zero"])
    }

    @Test("a focus change is told once, for the seat it changed on")
    func focusChangesCarryTheirSeat() throws {
        var rig = Rig()
        try rig.navigator("one", of: Self.onSeat1, on: Self.seat1)
        rig.engine.identify(Self.shell1, app: nil, pid: 301, seat: Self.seat1, isShell: true)
        var changes: [FocusSummary] = []
        rig.engine.drainEvents { if case .focusChanged(let summary) = $0 { changes.append(summary) } }
        try rig.engine.shellReports(.init(app: nil, pid: 102), by: Self.shell1, at: rig.scripts[.seat0]!.time)
        rig.engine.drainEvents { if case .focusChanged(let summary) = $0 { changes.append(summary) } }
        #expect(changes.map(\.seat) == [Self.seat1, Self.seat1])
        #expect(changes.last?.navigator == "one")
        #expect(changes.last?.pid == 102)
    }

    @Test("the screen turns on seat0 only: seat0's shell turns seat0's panel; seat1's shell may not, and seat1's panel stays")
    func rotationIsSeat0s() throws {
        var rig = Rig()
        rig.engine.identify(Self.shell0, app: nil, pid: 300, seat: .seat0, isShell: true)
        rig.engine.identify(Self.shell1, app: nil, pid: 301, seat: Self.seat1, isShell: true)
        let time = rig.scripts[.seat0]!.time
        #expect(throws: NavigationError.self) {
            try rig.engine.reportRotation(.clockwise90, output: nil, by: Self.shell1, at: time)
        }
        try rig.engine.reportRotation(.clockwise90, output: "DSI-1", by: Self.shell0, at: time)
        #expect(rig.engine.screenTransform(of: rig.screens[.seat0]!)?.rotation == .clockwise90)
        #expect(rig.engine.screenTransform(of: rig.screens[Self.seat1]!)?.rotation == Rotation.none)
    }

    @Test("seat names as logind takes them: seat and letters, digits, - and _, at most 64 bytes",
          arguments: [
            ("seat0", true), ("seat1", true), ("seat-usb_2", true), ("seat", false), ("seat1/../x", false),
            ("seat 1", false), ("Seat1", false), ("s", false), ("seat" + String(repeating: "x", count: 60), true),
            ("seat" + String(repeating: "x", count: 61), false),
          ])
    func seatNames(name: String, valid: Bool) {
        #expect((Seat(rawValue: name) != nil) == valid, "\(name)")
    }

    @Test("udev's ID_SEAT: none or empty is seat0; a bad one is no seat")
    func udevSeat() {
        #expect(Seat(udevProperty: nil) == .seat0)
        #expect(Seat(udevProperty: "") == .seat0)
        #expect(Seat(udevProperty: "seat1") == Self.seat1)
        #expect(Seat(udevProperty: "seat1;rm") == nil)
    }
}
