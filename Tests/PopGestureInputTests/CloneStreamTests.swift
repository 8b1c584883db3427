import PopGestureCore
@testable import PopGestureInput
import Testing

/// What a touch clone writes: forwarded frames, the cancel frame, and the tool-type
/// reset after a cancel. Pure; the VM's scenario 91 shows libinput's reading of it.
@Suite struct CloneStreamTests {
    static let t = Timestamp(microseconds: 5_000_000)

    static func abs(_ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(time: t, type: EV.abs, code: code, value: value)
    }
    static func key(_ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(time: t, type: EV.key, code: code, value: value)
    }
    static let syn = InputEvent(time: t, type: EV.syn, code: SYN.report, value: 0)

    /// A touch beginning in `slot` as the kernel writes it.
    static func begin(_ slot: Int32, id: Int32, x: Int32 = 100) -> [InputEvent] {
        [abs(ABS.mtSlot, slot), abs(ABS.mtTrackingID, id), abs(ABS.mtPositionX, x), abs(ABS.mtPositionY, 50),
         key(BTN.touch, 1), abs(ABS.x, x), abs(ABS.y, 50), syn]
    }

    static func run(_ stream: inout CloneStream, _ frame: [InputEvent]) -> [InputEvent] {
        var out: [InputEvent] = []
        for event in frame { stream.forward(event, into: &out) }
        return out
    }

    @Test func aTapPassesUnchanged() {
        var stream = CloneStream(slotCount: 10)
        let down = Self.begin(0, id: 7)
        let up = [Self.abs(ABS.mtTrackingID, -1), Self.key(BTN.touch, 0), Self.syn]
        // The kernel starts the clone at slot 0: the first ABS_MT_SLOT 0 is left out, as the kernel would.
        #expect(Self.run(&stream, down) == Array(down.dropFirst()))
        #expect(stream.slotsDown == [0])
        #expect(Self.run(&stream, up) == up)
        #expect(stream.slotsDown.isEmpty)
    }

    @Test func theCancelFrameIsPalmThenMinusOne() {
        var stream = CloneStream(slotCount: 10)
        _ = Self.run(&stream, Self.begin(0, id: 1))
        _ = Self.run(&stream, Self.begin(3, id: 2))
        var out: [InputEvent] = []
        #expect(stream.cancel(slot: 3, at: Self.t, into: &out))
        #expect(out == [
            Self.abs(ABS.mtSlot, 3), Self.abs(ABS.mtToolType, MTTool.palm), Self.abs(ABS.mtTrackingID, -1), Self.syn,
        ])
        #expect(stream.slotsDown == [0])
        #expect(stream.isCancelled(3))
    }

    @Test func theLastCancelReleasesTheTouchKeys() {
        var stream = CloneStream(slotCount: 10)
        _ = Self.run(&stream, Self.begin(2, id: 1) + [Self.key(BTN.toolFinger, 1), Self.syn])
        var out: [InputEvent] = []
        #expect(stream.cancel(slot: 2, at: Self.t, into: &out))
        #expect(out == [
            Self.abs(ABS.mtSlot, 2), Self.abs(ABS.mtToolType, MTTool.palm), Self.abs(ABS.mtTrackingID, -1),
            Self.key(BTN.touch, 0), Self.key(BTN.toolFinger, 0), Self.syn,
        ])
    }

    @Test func aSlotThatIsNotDownIsNotCancelled() {
        var stream = CloneStream(slotCount: 4)
        var out: [InputEvent] = []
        #expect(!stream.cancel(slot: 1, at: Self.t, into: &out))
        #expect(!stream.cancel(slot: 9, at: Self.t, into: &out))
        #expect(!stream.cancel(slot: -1, at: Self.t, into: &out))
        _ = Self.run(&stream, Self.begin(1, id: 4))
        #expect(stream.cancel(slot: 1, at: Self.t, into: &out))
        out.removeAll()
        #expect(!stream.cancel(slot: 1, at: Self.t, into: &out))  // already cancelled
        #expect(out.isEmpty)
    }

    /// libinput reads the tool type when a touch begins: a slot left at palm would
    /// swallow the next touch.
    @Test func theNextTouchInACancelledSlotResetsTheToolTypeFirst() {
        var stream = CloneStream(slotCount: 10)
        _ = Self.run(&stream, Self.begin(0, id: 1))
        var out: [InputEvent] = []
        stream.cancel(slot: 0, at: Self.t, into: &out)
        // The real lift of the cancelled touch: nothing left to lift on the clone.
        #expect(Self.run(&stream, [Self.abs(ABS.mtTrackingID, -1), Self.syn]) == [Self.syn])
        let next = Self.run(&stream, Self.begin(0, id: 2))
        #expect(next == [
            Self.abs(ABS.mtToolType, MTTool.finger), Self.abs(ABS.mtTrackingID, 2),
            Self.abs(ABS.mtPositionX, 100), Self.abs(ABS.mtPositionY, 50), Self.key(BTN.touch, 1),
            Self.abs(ABS.x, 100), Self.abs(ABS.y, 50), Self.syn,
        ])
        #expect(!stream.isCancelled(0))
        // Only once: the touch after that begins as it came.
        _ = Self.run(&stream, [Self.abs(ABS.mtTrackingID, -1), Self.syn])
        #expect(Self.run(&stream, [Self.abs(ABS.mtTrackingID, 3), Self.syn]) == [Self.abs(ABS.mtTrackingID, 3), Self.syn])
    }

    @Test func aToolTypeFromTheStreamReplacesTheReset() {
        var stream = CloneStream(slotCount: 10)
        _ = Self.run(&stream, Self.begin(0, id: 1))
        var out: [InputEvent] = []
        stream.cancel(slot: 0, at: Self.t, into: &out)
        let pen = [Self.abs(ABS.mtToolType, MTTool.pen), Self.abs(ABS.mtTrackingID, 2), Self.syn]
        #expect(Self.run(&stream, pen) == pen)
    }

    /// After a cancel the clone is at the cancelled slot; a frame of another slot that
    /// does not name it (the real device is still there) must get its slot back.
    @Test func theSlotIsWrittenAgainAfterACancelMovedTheClone() {
        var stream = CloneStream(slotCount: 10)
        _ = Self.run(&stream, Self.begin(0, id: 1))
        _ = Self.run(&stream, Self.begin(1, id: 2))  // the stream is at slot 1 now
        var out: [InputEvent] = []
        stream.cancel(slot: 0, at: Self.t, into: &out)
        let move = [Self.abs(ABS.mtPositionX, 300), Self.syn]
        #expect(Self.run(&stream, move) == [Self.abs(ABS.mtSlot, 1)] + move)
        #expect(stream.cloneSlot == 1)
    }

    @Test func aCloneMadeMidStreamStartsAtTheRealSlot() {
        var stream = CloneStream(slotCount: 10, currentSlot: 4)
        let begin = [Self.abs(ABS.mtTrackingID, 9), Self.syn]
        #expect(Self.run(&stream, begin) == [Self.abs(ABS.mtSlot, 4)] + begin)
        #expect(stream.slotsDown == [4])
    }

    @Test func aGrabAfterTheRealSlotMovedFollowsIt() {
        // Made while the real device was at slot 0; frames read before the grab were
        // never forwarded and left it at slot 3.
        var stream = CloneStream(slotCount: 10, currentSlot: 0)
        stream.follow(sourceSlot: 3)
        let begin = [Self.abs(ABS.mtTrackingID, 12), Self.syn]
        #expect(Self.run(&stream, begin) == [Self.abs(ABS.mtSlot, 3)] + begin)
        #expect(stream.slotsDown == [3])
    }

    @Test func aTouchLandingWhereAnUnforwardedOneLeftGetsItsPositionFromTheSource() {
        var stream = CloneStream(slotCount: 10)
        // A claimed swipe in slot 0: seen, never forwarded, it ends at x 700.
        let claimed = Self.begin(0, id: 7, x: 100) + [Self.abs(ABS.mtPositionX, 700), Self.syn,
                                                      Self.abs(ABS.mtTrackingID, -1), Self.syn]
        for event in claimed { stream.observe(event) }
        // The next touch lands at x 700, y 50: the kernel sends no position, only the id.
        let landing = [Self.abs(ABS.mtSlot, 0), Self.abs(ABS.mtTrackingID, 8), Self.syn]
        for event in landing { stream.observe(event) }
        #expect(Self.run(&stream, landing) == [
            Self.abs(ABS.mtTrackingID, 8), Self.abs(ABS.mtPositionX, 700), Self.abs(ABS.mtPositionY, 50), Self.syn,
        ])
        // Once the clone has them, nothing is repeated.
        let up = [Self.abs(ABS.mtTrackingID, -1), Self.syn]
        for event in up { stream.observe(event) }
        _ = Self.run(&stream, up)
        let again = [Self.abs(ABS.mtTrackingID, 9), Self.syn]
        for event in again { stream.observe(event) }
        #expect(Self.run(&stream, again) == again)
    }

    @Test func theStateFrameGivesTheCloneTheSourceValues() {
        var stream = CloneStream(slotCount: 2, currentSlot: 0)
        var out: [InputEvent] = []
        stream.appendState(
            axes: [(ABS.x, 1656), (ABS.y, 900)],
            slots: [[(ABS.mtPositionX, 1656), (ABS.mtPositionY, 900), (ABS.mtTrackingID, -1)],
                    [(ABS.mtPositionX, 10), (ABS.mtPositionY, 20)],
                    [(ABS.mtPositionX, 99)]],  // a slot the clone lacks
            at: Self.t, into: &out)
        #expect(out == [
            Self.abs(ABS.x, 1656), Self.abs(ABS.y, 900),
            Self.abs(ABS.mtSlot, 0), Self.abs(ABS.mtPositionX, 1656), Self.abs(ABS.mtPositionY, 900),
            Self.abs(ABS.mtSlot, 1), Self.abs(ABS.mtPositionX, 10), Self.abs(ABS.mtPositionY, 20),
            Self.syn,
        ])
        #expect(stream.cloneSlot == 1)
        // A touch in slot 0 at the same place needs nothing more.
        let landing = [Self.abs(ABS.mtSlot, 0), Self.abs(ABS.mtTrackingID, 3), Self.syn]
        for event in landing { stream.observe(event) }
        #expect(Self.run(&stream, landing) == landing)
    }

    @Test func untrackedSlotsDroppedAndSynDroppedLeftOut() {
        var stream = CloneStream(slotCount: 2)
        let frame = [
            Self.abs(ABS.mtSlot, 5), Self.abs(ABS.mtTrackingID, 1), Self.abs(ABS.mtPositionX, 1),
            Self.key(BTN.touch, 1), Self.syn,
        ]
        #expect(Self.run(&stream, frame) == [Self.key(BTN.touch, 1), Self.syn])
        #expect(stream.slotsDown.isEmpty)
        let dropped = InputEvent(time: Self.t, type: EV.syn, code: SYN.dropped, value: 0)
        let mtReport = InputEvent(time: Self.t, type: EV.syn, code: SYN.mtReport, value: 0)
        #expect(Self.run(&stream, [dropped, mtReport, Self.syn]) == [Self.syn])
        let timestamp = InputEvent(time: Self.t, type: EV.msc, code: MSC.timestamp, value: 42)
        #expect(Self.run(&stream, [timestamp, Self.syn]) == [timestamp, Self.syn])
    }

    @Test func cancelAllIsOneFrame() {
        var stream = CloneStream(slotCount: 10)
        _ = Self.run(&stream, Self.begin(0, id: 1))
        _ = Self.run(&stream, Self.begin(5, id: 2))
        var out: [InputEvent] = []
        #expect(stream.cancelAll(at: Self.t, into: &out))
        #expect(out == [
            Self.abs(ABS.mtSlot, 0), Self.abs(ABS.mtToolType, MTTool.palm), Self.abs(ABS.mtTrackingID, -1),
            Self.abs(ABS.mtSlot, 5), Self.abs(ABS.mtToolType, MTTool.palm), Self.abs(ABS.mtTrackingID, -1),
            Self.key(BTN.touch, 0), Self.syn,
        ])
        #expect(stream.slotsDown.isEmpty)
        out.removeAll()
        #expect(!stream.cancelAll(at: Self.t, into: &out))
        #expect(out.isEmpty)
    }

    @Test func slotCountIsBounded() {
        #expect(CloneStream(slotCount: 1 << 20).slotCount == DeviceDescription.maximumTrackedSlots)
        #expect(CloneStream(slotCount: -3).slotCount == 0)
    }
}
