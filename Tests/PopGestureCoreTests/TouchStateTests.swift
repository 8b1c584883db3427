@testable import PopGestureCore
import Testing

@Suite("TouchState")
struct TouchStateTests {
    // MARK: - Protocol B

    @Test("protocol B: a finger begins, moves and ends across frames")
    func beginMoveEnd() throws {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        #expect(touches.touchProtocol == .slots)
        #expect(touches.contacts.count == 10)

        // Frame 1: the finger lands.
        device.slot(0); device.trackingID(5); device.position(x: 100, y: 200); device.report()
        let results = Fixtures.feed(device, to: &touches)
        #expect(results.dropLast().allSatisfy { $0 == .pending })
        #expect(results.last == .frame(resynced: false))
        var c = touches.contacts[0]
        #expect(c.phase == .began)
        #expect(c.isDown)
        #expect(c.trackingID == 5)
        #expect((c.x, c.y) == (100, 200))
        #expect(c.moved)
        #expect(touches.fingerCount == 1)
        touches.endFrame()
        #expect(touches.contacts[0].phase == .down)
        #expect(!touches.contacts[0].moved)

        // Frame 2: it moves along x only (the kernel sends only what changed).
        device.positionX(150); device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        c = touches.contacts[0]
        #expect(c.phase == .down)
        #expect((c.x, c.y) == (150, 200))
        #expect(c.moved)
        touches.endFrame()

        // Frame 3: nothing for this slot (another axis only); not moved.
        device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        #expect(touches.contacts[0].phase == .down)
        #expect(!touches.contacts[0].moved)
        touches.endFrame()

        // Frame 4: it lifts.
        device.lift(); device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        #expect(touches.contacts[0].phase == .ended)
        #expect(!touches.contacts[0].isDown)
        #expect(touches.fingerCount == 0)
        touches.endFrame()
        #expect(touches.contacts[0].phase == .inactive)
    }

    @Test("protocol B: two slots are tracked independently, and the slot persists across frames")
    func twoSlots() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(1); device.position(x: 10, y: 10)
        device.slot(3); device.trackingID(2); device.position(x: 30, y: 30)
        device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        #expect(touches.fingerCount == 2)
        #expect(touches.contacts[3].trackingID == 2)
        touches.endFrame()

        // No ABS_MT_SLOT: the events go to slot 3, the last one selected.
        device.positionX(40); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[3].x == 40)
        #expect(touches.contacts[3].moved)
        #expect(touches.contacts[0].x == 10)
        #expect(!touches.contacts[0].moved)
        touches.endFrame()

        device.slot(0); device.lift(); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].phase == .ended)
        #expect(touches.contacts[3].phase == .down)
        #expect(touches.fingerCount == 1)
    }

    @Test("a repeated tracking id for a finger already down changes nothing")
    func repeatedTrackingID() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(5); device.position(x: 1, y: 1); device.report()
        Fixtures.feed(device, to: &touches)
        touches.endFrame()

        device.slot(0); device.trackingID(5); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].phase == .down)
        #expect(touches.contacts[0].trackingID == 5)
    }

    @Test("a slot reused with a new tracking id in one frame begins the new finger")
    func slotReusedInOneFrame() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(5); device.position(x: 100, y: 100); device.report()
        Fixtures.feed(device, to: &touches)
        touches.endFrame()

        // The old finger lifts and a new one lands in the same slot within one frame.
        device.slot(0); device.lift(); device.trackingID(6); device.position(x: 900, y: 900); device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        let c = touches.contacts[0]
        #expect(c.phase == .began)
        #expect(c.trackingID == 6)
        #expect((c.x, c.y) == (900, 900))
        #expect(touches.fingerCount == 1)
        touches.endFrame()
        #expect(touches.contacts[0].phase == .down)
        #expect(touches.contacts[0].trackingID == 6)

        // Without the -1 in between, a new id also replaces the finger.
        device.slot(0); device.trackingID(7); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].phase == .began)
        #expect(touches.contacts[0].trackingID == 7)
    }

    // MARK: - SYN_DROPPED

    @Test("after SYN_DROPPED, a finger whose id goes to -1 in the resync is cancelled, not ended")
    func droppedThenResync() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(5); device.position(x: 100, y: 100)
        device.slot(1); device.trackingID(6); device.position(x: 500, y: 500)
        device.report()
        Fixtures.feed(device, to: &touches)
        touches.endFrame()

        // The buffer overflowed; libevdev's resync says slot 0 is gone and slot 1 moved.
        device.dropped()
        device.slot(0); device.lift()
        device.slot(1); device.position(x: 520, y: 510)
        device.report()
        let results = Fixtures.feed(device, to: &touches)
        #expect(results.dropLast().allSatisfy { $0 == .pending })
        #expect(results.last == .frame(resynced: true))
        #expect(touches.contacts[0].phase == .cancelled)
        #expect(!touches.contacts[0].isDown)
        #expect(touches.contacts[1].phase == .down)
        #expect(touches.contacts[1].moved)
        #expect(touches.fingerCount == 1)
        touches.endFrame()
        #expect(touches.contacts[0].phase == .inactive)

        // The next frame is an ordinary one again, and a lift there is a real release.
        device.slot(1); device.lift(); device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        #expect(touches.contacts[1].phase == .ended)
    }

    @Test("a resync that starts a new finger reports it as began in the resynced frame")
    func resyncWithNewFinger() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.dropped()
        device.slot(2); device.trackingID(40); device.position(x: 7, y: 8)
        device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: true))
        #expect(touches.contacts[2].phase == .began)
        #expect(touches.contacts[2].trackingID == 40)
    }

    @Test("a single-touch release during a resync is cancelled")
    func singleTouchResync() {
        var touches = TouchState(device: Fixtures.singleTouch)
        let device = Fixtures.Talk()
        device.absolute(x: 10, y: 10); device.touch(true); device.report()
        Fixtures.feed(device, to: &touches)
        touches.endFrame()

        device.dropped(); device.touch(false); device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: true))
        #expect(touches.contacts[0].phase == .cancelled)
    }

    // MARK: - Single touch

    @Test("single touch: BTN_TOUCH and ABS_X/ABS_Y make one contact with made-up tracking ids")
    func singleTouch() {
        var touches = TouchState(device: Fixtures.singleTouch)
        let device = Fixtures.Talk()
        #expect(touches.touchProtocol == .singleTouch)
        #expect(touches.contacts.count == 1)

        device.absolute(x: 300, y: 400); device.touch(true); device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        let first = touches.contacts[0]
        #expect(first.phase == .began)
        #expect((first.x, first.y) == (300, 400))
        #expect(first.trackingID >= 0)
        #expect(touches.fingerCount == 1)
        touches.endFrame()

        device.absolute(x: 310, y: 400); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].phase == .down)
        #expect(touches.contacts[0].x == 310)
        #expect(touches.contacts[0].moved)
        touches.endFrame()

        device.touch(false); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].phase == .ended)
        touches.endFrame()
        #expect(touches.contacts[0].phase == .inactive)

        // The next touch gets a different tracking id, so it reads as a new finger.
        device.absolute(x: 50, y: 60); device.touch(true); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].phase == .began)
        #expect(touches.contacts[0].trackingID != first.trackingID)
    }

    @Test("single touch ignores multitouch axes; slot devices ignore BTN_TOUCH and ABS_X")
    func protocolsIgnoreEachOthersEvents() {
        var single = TouchState(device: Fixtures.singleTouch)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(9); device.position(x: 5, y: 5); device.report()
        Fixtures.feed(device, to: &single)
        #expect(single.contacts[0].phase == .inactive)
        #expect(single.fingerCount == 0)

        var slots = TouchState(device: Fixtures.touchscreen)
        device.absolute(x: 77, y: 88); device.touch(true); device.report()
        Fixtures.feed(device, to: &slots)
        #expect(slots.fingerCount == 0)
        #expect(slots.contacts.allSatisfy { $0.phase == .inactive && $0.x == 0 })
    }

    // MARK: - Odd events

    @Test("MSC_TIMESTAMP and other misc events are tolerated")
    func mscTimestamp() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(5); device.position(x: 100, y: 200)
        device.mscTimestamp(123_456)
        device.report()
        let results = Fixtures.feed(device, to: &touches)
        #expect(results.dropLast().allSatisfy { $0 == .pending })
        #expect(results.last == .frame(resynced: false))
        #expect(touches.contacts[0].phase == .began)
        #expect((touches.contacts[0].x, touches.contacts[0].y) == (100, 200))

        // A frame made only of MSC_TIMESTAMP is still a frame, and changes nothing.
        touches.endFrame()
        device.mscTimestamp(133_456); device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        #expect(touches.contacts[0].phase == .down)
        #expect(!touches.contacts[0].moved)
    }

    @Test("MT_TOOL_PALM marks a palm, which fingerCount leaves out")
    func palm() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(1); device.position(x: 100, y: 100)
        device.slot(1); device.trackingID(2); device.position(x: 2000, y: 2000); device.toolType(MTTool.palm)
        device.report()
        Fixtures.feed(device, to: &touches)
        #expect(!touches.contacts[0].isPalm)
        #expect(touches.contacts[1].isPalm)
        #expect(touches.contacts[1].isDown)
        #expect(touches.fingerCount == 1)
        touches.endFrame()

        // The palm turns back into a finger.
        device.slot(1); device.toolType(MTTool.finger); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(!touches.contacts[1].isPalm)
        #expect(touches.fingerCount == 2)
    }

    @Test("a palm landing again in a slot whose tool type the kernel does not resend is still a palm")
    func palmToolTypeCarriesOver() {
        // The kernel drops ABS_MT_* values that equal the slot's stored value, so a
        // second palm in the same slot arrives without ABS_MT_TOOL_TYPE (libinput reads
        // the slot's stored tool type on a new tracking id for this reason).
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(1); device.position(x: 100, y: 100); device.toolType(MTTool.palm)
        device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].isPalm)
        touches.endFrame()
        device.slot(0); device.lift(); device.report()
        Fixtures.feed(device, to: &touches)
        touches.endFrame()

        device.slot(0); device.trackingID(2); device.position(x: 300, y: 300); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].phase == .began)
        #expect(touches.contacts[0].isPalm)
        #expect(touches.fingerCount == 0)
    }

    @Test("a palm in a resync keeps its tool type, which libevdev sends before the tracking id")
    func palmInResync() {
        // libevdev's resync writes a slot's axes in code order: ABS_MT_TOOL_TYPE (0x37)
        // comes before ABS_MT_TRACKING_ID (0x39).
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.dropped()
        device.slot(0); device.position(x: 100, y: 100); device.toolType(MTTool.palm); device.trackingID(3)
        device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: true))
        #expect(touches.contacts[0].phase == .began)
        #expect(touches.contacts[0].isPalm)
        #expect(touches.fingerCount == 0)
    }

    @Test("touch major is kept per slot, as the kernel only sends it when it changes")
    func touchMajorCarriesOver() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(1); device.position(x: 1, y: 1); device.touchMajor(200); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].touchMajor == 200)
        touches.endFrame()
        device.slot(0); device.lift(); device.report()
        Fixtures.feed(device, to: &touches)
        touches.endFrame()
        device.slot(0); device.trackingID(2); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[0].touchMajor == 200)
    }

    @Test("ABS_MT_SLOT beyond the slot count: its events are ignored and counted")
    func slotBeyondCount() {
        var touches = TouchState(device: Fixtures.touchscreen)
        let device = Fixtures.Talk()
        device.slot(0); device.trackingID(1); device.position(x: 10, y: 20)
        device.slot(12); device.trackingID(2); device.position(x: 30, y: 40)
        device.slot(-1); device.trackingID(3)
        device.report()
        #expect(Fixtures.frame(device, to: &touches) == .frame(resynced: false))
        #expect(touches.ignoredSlotEvents == 4)
        #expect(touches.fingerCount == 1)
        #expect(touches.contacts.count == 10)
        #expect(touches.contacts[0].x == 10)
        touches.endFrame()

        // Back in range, events apply again.
        device.slot(9); device.trackingID(4); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.contacts[9].phase == .began)
        #expect(touches.ignoredSlotEvents == 4)
    }

    @Test("BTN_TOOL_* report how many fingers a touchpad sees")
    func toolFingers() {
        var touches = TouchState(device: Fixtures.touchpad)
        let device = Fixtures.Talk()
        #expect(touches.toolFingerCount == 0)

        device.key(BTN.toolFinger, true); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.toolFingerCount == 1)
        touches.endFrame()

        // The kernel switches tools: the old one goes up, the new one down.
        device.key(BTN.toolFinger, false); device.key(BTN.toolTripleTap, true); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.toolFingerCount == 3)
        touches.endFrame()

        // In the other order too: the release of a tool that is not current changes nothing.
        device.key(BTN.toolDoubleTap, true); device.key(BTN.toolTripleTap, false); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.toolFingerCount == 2)
        touches.endFrame()

        device.key(BTN.toolDoubleTap, false); device.report()
        Fixtures.feed(device, to: &touches)
        #expect(touches.toolFingerCount == 0)
    }
}
