@testable import PopGestureCore
import Testing

/// Grab mode's gate: when the daemon may grab a touchscreen, from udev's
/// announcement, the clone's readers, the frames read and the time, all passed in.
@Suite struct GrabGateTests {
    static let start = Timestamp(seconds: 100, microseconds: 0)

    static func at(_ seconds: Double) -> Timestamp { start + .milliseconds(Int(seconds * 1000)) }
    static func abs(_ code: UInt16, _ value: Int32, _ time: Timestamp = start) -> InputEvent {
        InputEvent(time: time, type: EV.abs, code: code, value: value)
    }
    static func report(_ time: Timestamp = start) -> InputEvent {
        InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0)
    }
    /// A frame in `slot`: a tracking id (a contact lands, or -1 lifts), or a move when nil.
    static func frame(slot: Int32, id: Int32?, at time: Timestamp = start) -> [InputEvent] {
        var events = [abs(ABS.mtSlot, slot, time)]
        if let id { events.append(abs(ABS.mtTrackingID, id, time)) }
        events.append(abs(ABS.mtPositionX, 500, time))
        events.append(report(time))
        return events
    }

    /// A gate that has seen udev's announcement and a reader: only the lift is left.
    static func readyGate(trackingIDs: [Int32] = [-1, -1, -1], currentSlot: Int = 0) -> GrabGate {
        var gate = GrabGate(trackingIDs: trackingIDs, currentSlot: currentSlot, now: start, watchesReaders: true)
        _ = gate.udevAnnounced(at: at(0.5))
        _ = gate.readersChanged(opened: 1, closed: 0, at: at(0.6))
        return gate
    }

    @Test("udev, then a reader, then no finger: grabbed, each step a transition")
    func happyPath() {
        var gate = GrabGate(trackingIDs: [-1, -1], currentSlot: 0, now: Self.start, watchesReaders: true)
        #expect(gate.stage == .waitingForUdev(deadline: Self.at(10)))
        #expect(gate.deadline == Self.at(10))
        #expect(!gate.mayGrab)
        let announced = gate.udevAnnounced(at: Self.at(0.5))
        #expect(announced?.to == .waitingForReader(since: Self.at(0.5)))
        #expect(announced?.description.contains("udev announced the clone") == true)
        #expect(gate.stage.name == "waiting-for-reader")
        #expect(!gate.mayGrab)
        let opened = gate.readersChanged(opened: 1, closed: 0, at: Self.at(1))
        #expect(opened?.to == .waitingForLift)
        #expect(gate.mayGrab)
        #expect(gate.deadline == nil)
        let grabbed = gate.grabbed()
        #expect(grabbed?.from == .waitingForLift)
        #expect(gate.stage == .grabbed)
        #expect(gate.stage.name == "grabbed")
        #expect(!gate.mayGrab)
        #expect(gate.grabbed() == nil)
    }

    @Test("a finger resting at open: no grab on any frame while it rests, one on the frame that lifts it")
    func restingAtOpen() {
        // Slot 2 down at open and current: its moves come without ABS_MT_SLOT.
        var gate = Self.readyGate(trackingIDs: [-1, -1, 200], currentSlot: 2)
        #expect(gate.stage == .waitingForLift)
        #expect(gate.contactDown)
        var tries = 0
        for step in 0..<50 {
            for event in [Self.abs(ABS.mtPositionX, Int32(100 + step)), Self.report()] { gate.observe(event) }
            if gate.mayGrab { tries += 1 }
        }
        #expect(tries == 0)
        gate.observe(Self.abs(ABS.mtTrackingID, -1))
        #expect(!gate.mayGrab)  // within the frame
        gate.observe(Self.report())
        #expect(gate.mayGrab)
    }

    @Test("two fingers: the grab waits for the last lift; a frame split across reads waits for its end")
    func twoFingers() {
        var gate = Self.readyGate()
        for event in Self.frame(slot: 0, id: 10) + Self.frame(slot: 1, id: 11) { gate.observe(event) }
        #expect(!gate.mayGrab)
        for event in Self.frame(slot: 0, id: -1) { gate.observe(event) }
        #expect(!gate.mayGrab)
        let last = Self.frame(slot: 1, id: -1)
        for event in last.dropLast() { gate.observe(event) }
        #expect(!gate.mayGrab)
        gate.observe(last.last!)
        #expect(gate.mayGrab)
    }

    @Test("a finger the kernel had down at the grab, before any frame showed it: no new try until a frame is read")
    func fingerAtTheGrab() {
        var gate = Self.readyGate()
        #expect(gate.mayGrab)
        gate.fingerFoundAtGrab()
        #expect(!gate.mayGrab)
        #expect(gate.stage == .waitingForLift)
        for event in Self.frame(slot: 0, id: 5) { gate.observe(event) }
        #expect(!gate.mayGrab)
        for event in Self.frame(slot: 0, id: -1) { gate.observe(event) }
        #expect(gate.mayGrab)
    }

    @Test("nothing opens the clone: never grabbed, said once after 10 s; a later open still grabs")
    func noReader() {
        var gate = GrabGate(trackingIDs: [-1], currentSlot: 0, now: Self.start, watchesReaders: true)
        _ = gate.udevAnnounced(at: Self.at(1))
        #expect(gate.deadline == Self.at(11))
        #expect(gate.expire(at: Self.at(5)) == .nothing)
        #expect(gate.expire(at: Self.at(11)) == .noReader)
        #expect(gate.reportedNoReader)
        #expect(gate.deadline == nil)
        #expect(gate.expire(at: Self.at(60)) == .nothing)
        for step in 0..<20 {
            for event in Self.frame(slot: 0, id: step % 2 == 0 ? Int32(step) : -1) { gate.observe(event) }
            #expect(!gate.mayGrab)
        }
        _ = gate.readersChanged(opened: 1, closed: 0, at: Self.at(70))
        #expect(gate.mayGrab)
    }

    @Test("an open closed within the same read (udev's workers) is no reader; the last reader closing before the grab sends it back")
    func readersCounted() {
        var gate = GrabGate(trackingIDs: [-1], currentSlot: 0, now: Self.start, watchesReaders: true)
        #expect(gate.readersChanged(opened: 1, closed: 1, at: Self.at(0.2)) == nil)
        _ = gate.udevAnnounced(at: Self.at(0.5))
        #expect(gate.stage == .waitingForReader(since: Self.at(0.5)))
        #expect(gate.readersChanged(opened: 2, closed: 2, at: Self.at(1)) == nil)
        #expect(!gate.mayGrab)
        // A compositor that opened it before the daemon read udev's message.
        var early = GrabGate(trackingIDs: [-1], currentSlot: 0, now: Self.start, watchesReaders: true)
        _ = early.readersChanged(opened: 1, closed: 0, at: Self.at(0.2))
        #expect(early.udevAnnounced(at: Self.at(0.5))?.to == .waitingForLift)
        // Closed before the lift: back to waiting for a reader.
        var closing = Self.readyGate()
        for event in Self.frame(slot: 0, id: 1) { closing.observe(event) }
        let back = closing.readersChanged(opened: 0, closed: 1, at: Self.at(3))
        #expect(back?.to == .waitingForReader(since: Self.at(3)))
        #expect(closing.readers == 0)
        #expect(closing.readersChanged(opened: 0, closed: 5, at: Self.at(4)) == nil)
        #expect(closing.readers == 0)
    }

    @Test("udev never announces: after 10 s the gate goes on; without a reader watch it goes straight to the lift")
    func udevWaitAndNoWatch() {
        var gate = GrabGate(trackingIDs: [-1], currentSlot: 0, now: Self.start, watchesReaders: true)
        #expect(gate.expire(at: Self.at(9.9)) == .nothing)
        guard case .moved(let transition) = gate.expire(at: Self.at(10)) else {
            Issue.record("no transition at the udev deadline")
            return
        }
        #expect(transition.to == .waitingForReader(since: Self.at(10)))
        var blind = GrabGate(trackingIDs: [-1], currentSlot: 0, now: Self.start, watchesReaders: false)
        #expect(blind.udevAnnounced(at: Self.at(1))?.to == .waitingForLift)
        #expect(blind.mayGrab)
        #expect(blind.readersChanged(opened: 0, closed: 1, at: Self.at(2)) == nil)
        #expect(blind.stage == .waitingForLift)
    }

    @Test("SYN_DROPPED opens a frame that the resync's SYN_REPORT ends; the resync's lift counts")
    func dropped() {
        var gate = Self.readyGate()
        for event in Self.frame(slot: 0, id: 3) { gate.observe(event) }
        gate.observe(InputEvent(time: Self.start, type: EV.syn, code: SYN.dropped, value: 0))
        #expect(!gate.mayGrab)
        gate.observe(Self.abs(ABS.mtTrackingID, -1))
        gate.observe(Self.report())
        #expect(gate.mayGrab)
    }

    @Test("stage names for status")
    func names() {
        #expect(GrabGate.Stage.waitingForUdev(deadline: .zero).name == "waiting-for-udev")
        #expect(GrabGate.Stage.waitingForReader(since: .zero).name == "waiting-for-reader")
        #expect(GrabGate.Stage.waitingForLift.name == "waiting-for-lift")
        #expect(GrabGate.Stage.grabbed.name == "grabbed")
    }
}
