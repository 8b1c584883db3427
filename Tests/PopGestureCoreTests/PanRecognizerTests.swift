import Logging
@testable import PopGestureCore
import PopGestureSynthesis
import Testing

/// Frames in, pan events out, on the fixture devices.
@Suite struct PanRecognizerTests {
    /// Feeds a script's events through touch state and recognizer; returns the pan events.
    static func pans(_ device: DeviceDescription, source: PanSource? = nil,
                     _ gesture: (inout TouchScript) -> Void) -> [PanEvent] {
        var script = TouchScript(device: device)
        gesture(&script)
        return pans(device, source: source, events: script.events)
    }

    /// Feeds what `talk` wrote through touch state and recognizer.
    static func pans(_ device: DeviceDescription, _ talk: Fixtures.Talk) -> [PanEvent] {
        pans(device, source: nil, events: talk.take())
    }

    static func pans(_ device: DeviceDescription, source: PanSource?, events: [InputEvent]) -> [PanEvent] {
        var touches = TouchState(device: device)
        var recognizer = PanRecognizer(
            device: device, settings: source.map { PanSettings(source: $0) } ?? .defaults(for: device.inferredKind ?? .touchscreen),
            transform: ScreenTransform(device: device), logger: Logger(label: "test"))
        var out: [PanEvent] = []
        for event in events {
            guard case .frame(let resynced) = touches.handle(event) else { continue }
            if let pan = recognizer.process(touches, resynced: resynced, at: event.time) { out.append(pan) }
            touches.endFrame()
        }
        return out
    }

    static func kinds(_ pans: [PanEvent]) -> [String] {
        pans.map {
            switch $0 {
            case .began: "began"
            case .changed: "changed"
            case .ended: "ended"
            case .cancelled(let r, _): "cancelled(\(r.rawValue))"
            case .failed(let r, _): "failed(\(r.rawValue))"
            }
        }
    }

    @Test func oneFingerDownMoveUp() throws {
        let pans = Self.pans(Fixtures.touchscreen) { finger in
            finger.down(at: 0.1, 0.5)
            finger.move(byMillimetres: 30, 0, over: .milliseconds(30))
            finger.up()
        }
        #expect(Self.kinds(pans) == ["began", "changed", "changed", "changed", "ended"])
        guard case .began(let first) = pans.first, case .ended(let last) = pans.last else {
            Issue.record("no began/ended")
            return
        }
        #expect(abs(last.position.xMillimetres - first.position.xMillimetres - 30) < 0.2)
        #expect(last.velocityX > 500, "released while moving 1 m/s: \(last.velocityX)")
    }

    @Test("A flick seen at two scans of a 60 Hz panel, 6 mm apart, and gone at the third releases at 360 mm/s")
    func aFlickGoneAtTheNextScanReleasesAtItsSpeed() throws {
        for (rest, slowest, fastest) in [(0, 350.0, 370.0), (200, 0, 60)] {
            let pans = Self.pans(Fixtures.touchscreen) { finger in
                finger.frameInterval = .microseconds(16_667)
                finger.down(at: 0.02, 0.5)
                finger.move(byMillimetres: 6, 0, over: .microseconds(16_667))
                finger.rest(.milliseconds(rest))
                finger.up()
            }
            let last = try #require(pans.last)
            guard case .ended(let release) = last else { Issue.record("\(pans)"); continue }
            #expect(release.scanInterval == 16_667)
            // Gone at the next scan it lifted moving; gone 200 ms later it rested first.
            #expect((slowest...fastest).contains(release.velocityX), "rest \(rest) ms: \(release.velocityX) mm/s")
        }
    }

    @Test func aSecondFingerCancelsAndTheRestIsIgnored() {
        let pans = Self.pans(Fixtures.touchscreen) { hand in
            hand.down(0, at: 0.1, 0.5)
            hand.move(0, byMillimetres: 10, 0, over: .milliseconds(20))
            hand.down(1, at: 0.5, 0.5)
            hand.move([0, 1], byMillimetres: 10, 0, over: .milliseconds(20))
            hand.up(0)
            hand.up(1)
            hand.down(0, at: 0.1, 0.5)
            hand.up(0)
        }
        #expect(Self.kinds(pans) == ["began", "changed", "changed", "cancelled(extra-finger)", "began", "ended"])
    }

    @Test func fingersLandingTogetherNeverPan() {
        let pans = Self.pans(Fixtures.touchscreen) { hand in
            hand.down(0, at: 0.1, 0.5)
            hand.down(1, at: 0.2, 0.5)
            hand.move([0, 1], byMillimetres: 10, 0, over: .milliseconds(20))
        }
        // The first frame holds one finger (a pan begins), the next adds the second.
        #expect(Self.kinds(pans) == ["began", "cancelled(extra-finger)"])
    }

    /// Two fingers land in one frame on the fixture touchscreen, 50 mm apart, move
    /// right together for `steps` frames of about 4 mm, and lift in one frame.
    static func twoFingersLandTogether(_ talk: Fixtures.Talk, steps: Int) {
        talk.slot(0); talk.trackingID(1); talk.position(x: 100, y: 2000)
        talk.slot(1); talk.trackingID(2); talk.position(x: 900, y: 2000)
        talk.report()
        for step in 1...steps {
            talk.slot(0); talk.positionX(100 + Int32(step) * 60)
            talk.slot(1); talk.positionX(900 + Int32(step) * 60)
            talk.report()
        }
        talk.slot(0); talk.lift(); talk.slot(1); talk.lift(); talk.report()
    }

    @Test("Two fingers landing in one frame fail as extra-finger; nothing pans until both lift")
    func fingersLandingInOneFrameFail() {
        let talk = Fixtures.Talk()
        Self.twoFingersLandTogether(talk, steps: 5)
        talk.slot(0); talk.trackingID(3); talk.position(x: 400, y: 2000); talk.report()
        #expect(Self.kinds(Self.pans(Fixtures.touchscreen, talk)) == ["failed(extra-finger)", "began"])
    }

    @Test("A palm resting at the left bezel, a finger down at 2 % of the width, a move of 40 mm to the right, then up: a pan")
    func aRestingPalmExcludesOnlyItself() throws {
        let pans = Self.pans(Fixtures.touchscreen) { hand in
            hand.down(0, at: 0.005, 0.5, palm: true)
            hand.down(1, at: 0.02, 0.5)
            hand.move(1, byMillimetres: 40, 0, over: .milliseconds(200))
            hand.up(1)
            hand.up(0)
        }
        let kinds = Self.kinds(pans)
        #expect(kinds.first == "began")
        #expect(kinds.last == "ended")
        #expect(kinds.filter { $0 == "changed" }.count == 20)
        guard case .began(let first) = pans.first, case .ended(let last) = pans.last else { return }
        #expect(abs(last.position.xMillimetres - first.position.xMillimetres - 40) < 0.2, "the finger's pan, not the palm's")
    }

    @Test("A palm landing beside a panning finger does not cancel the pan")
    func aPalmLandingBesideThePanIsIgnored() {
        let pans = Self.pans(Fixtures.touchscreen) { hand in
            hand.down(0, at: 0.1, 0.5)
            hand.move(0, byMillimetres: 10, 0, over: .milliseconds(50))
            hand.down(1, at: 0.01, 0.8, palm: true)
            hand.move(0, byMillimetres: 30, 0, over: .milliseconds(100))
            hand.up(0)
            hand.up(1)
        }
        #expect(Self.kinds(pans) == ["began"] + Array(repeating: "changed", count: 15) + ["ended"])
    }

    @Test("The pan's own finger turning into a palm cancels it; a new finger beside the resting palm pans")
    func thePanningFingerTurningIntoAPalmCancels() {
        let pans = Self.pans(Fixtures.touchscreen) { hand in
            hand.down(0, at: 0.1, 0.5)
            hand.move(0, byMillimetres: 10, 0, over: .milliseconds(20))
            hand.becomePalm(0)
            hand.move(0, byMillimetres: 10, 0, over: .milliseconds(20))
            hand.down(1, at: 0.3, 0.5)
            hand.move(1, byMillimetres: 10, 0, over: .milliseconds(20))
            hand.up(1)
            hand.up(0)
        }
        #expect(Self.kinds(pans) == ["began", "changed", "changed", "cancelled(palm)", "began", "changed", "changed", "ended"])
    }

    @Test("A palm stays a palm until it lifts, even when the device calls it a finger again")
    func aPalmStaysAPalm() {
        let talk = Fixtures.Talk()
        talk.slot(0); talk.trackingID(1); talk.toolType(MTTool.palm); talk.position(x: 100, y: 2000); talk.report()
        talk.toolType(MTTool.finger); talk.report()
        for step in 1...5 { talk.positionX(100 + Int32(step) * 100); talk.report() }
        talk.lift(); talk.report()
        #expect(Self.pans(Fixtures.touchscreen, talk).isEmpty)
    }

    @Test("A touch as large as a palm (25 mm major axis) excludes only itself; the pan's finger growing to one cancels")
    func largeTouchesArePalms() {
        var device = Fixtures.touchscreen
        device.axes[ABS.mtTouchMajor] = AbsoluteAxis(minimum: 0, maximum: 255, resolution: 4)  // 25 mm = 100 units
        let talk = Fixtures.Talk()
        // A 30 mm touch rests at the bezel; a 10 mm fingertip swipes 4 frames and lifts.
        talk.slot(1); talk.trackingID(1); talk.touchMajor(120); talk.position(x: 20, y: 2000); talk.report()
        talk.slot(0); talk.trackingID(2); talk.touchMajor(40); talk.position(x: 80, y: 1800); talk.report()
        for step in 1...4 { talk.positionX(80 + Int32(step) * 80); talk.report() }
        talk.lift(); talk.report()
        // The next fingertip flattens to 26 mm mid-pan.
        talk.trackingID(3); talk.touchMajor(40); talk.position(x: 80, y: 1800); talk.report()
        talk.positionX(160); talk.report()
        talk.touchMajor(104); talk.positionX(240); talk.report()
        talk.lift(); talk.report()
        let kinds = Self.kinds(Self.pans(device, talk))
        #expect(kinds == ["began", "changed", "changed", "changed", "changed", "ended", "began", "changed", "cancelled(palm)"])
    }

    @Test("A pen touching the screen neither pans nor counts as an extra finger")
    func pensAreNotFingers() {
        let talk = Fixtures.Talk()
        // The pen lands first and draws; a finger lands and swipes 30 mm; both lift.
        talk.slot(1); talk.trackingID(7); talk.toolType(MTTool.pen); talk.position(x: 2000, y: 1000); talk.report()
        for step in 1...5 { talk.positionX(2000 + Int32(step) * 80); talk.report() }
        talk.slot(0); talk.trackingID(8); talk.toolType(MTTool.finger); talk.position(x: 100, y: 2000); talk.report()
        for step in 1...6 { talk.positionX(100 + Int32(step) * 80); talk.report() }
        talk.lift(); talk.report()
        talk.slot(1); talk.lift(); talk.report()
        let kinds = Self.kinds(Self.pans(Fixtures.touchscreen, talk))
        #expect(kinds == ["began"] + Array(repeating: "changed", count: 6) + ["ended"])
    }

    @Test("A stylus on a single-touch screen (BTN_TOOL_PEN) never pans")
    func aSingleTouchStylusNeverPans() {
        let talk = Fixtures.Talk()
        talk.key(BTN.toolPen, true); talk.touch(true); talk.absolute(x: 40, y: 300); talk.report()
        for step in 1...8 { talk.absolute(x: 40 + Int32(step) * 20, y: 300); talk.report() }
        talk.touch(false); talk.key(BTN.toolPen, false); talk.report()
        talk.touch(true); talk.absolute(x: 40, y: 300); talk.report()
        talk.touch(false); talk.report()
        #expect(Self.kinds(Self.pans(Fixtures.singleTouch, talk)) == ["began", "ended"], "only the finger after the pen")
    }

    @Test func aPalmCancels() {
        let pans = Self.pans(Fixtures.touchscreen) { hand in
            hand.down(at: 0.1, 0.5)
            hand.becomePalm()
            hand.move(byMillimetres: 10, 0, over: .milliseconds(20))
            hand.up()
        }
        #expect(Self.kinds(pans) == ["began", "cancelled(palm)"])
    }

    @Test func lostEventsCancel() {
        let pans = Self.pans(Fixtures.touchscreen) { hand in
            hand.down(at: 0.1, 0.5)
            hand.move(byMillimetres: 10, 0, over: .milliseconds(20))
            hand.dropEvents(lost: [])
            hand.move(byMillimetres: 10, 0, over: .milliseconds(20))
            hand.up()
        }
        #expect(Self.kinds(pans) == ["began", "changed", "changed", "cancelled(events-dropped)"])
    }

    @Test func lostEventsWithNothingDownDoNotSpoilTheNextSwipe() {
        let pans = Self.pans(Fixtures.touchscreen) { hand in
            hand.dropEvents(lost: [])
            hand.down(at: 0.1, 0.5)
            hand.move(byMillimetres: 10, 0, over: .milliseconds(20))
            hand.up()
        }
        #expect(Self.kinds(pans) == ["began", "changed", "changed", "ended"])
    }

    @Test func aTouchpadPansWithTheCentroidOfTwoFingers() throws {
        let pans = Self.pans(Fixtures.touchpad) { hand in
            hand.down(0, at: 0.2, 0.4)
            hand.move(0, byMillimetres: 5, 0, over: .milliseconds(20))
            hand.down(1, at: 0.4, 0.6)
            hand.move([0, 1], byMillimetres: 20, 0, over: .milliseconds(20))
            hand.up(1)
            hand.up(0)
        }
        #expect(Self.kinds(pans) == ["began", "changed", "changed", "ended"])
        guard case .began(let first) = pans.first else {
            Issue.record("no began")
            return
        }
        // Finger 0 moved 5 mm before finger 1 landed; the centroid is between them.
        let width = ScreenTransform(device: Fixtures.touchpad).screenSize.width
        #expect(abs(first.position.x - (0.2 + 5 / width + 0.4) / 2) < 0.005)
    }

    @Test func singleTouchDevices() {
        let pans = Self.pans(Fixtures.singleTouch) { finger in
            finger.down(at: 0.1, 0.5)
            finger.move(byMillimetres: 20, 0, over: .milliseconds(20))
            finger.up()
        }
        #expect(Self.kinds(pans) == ["began", "changed", "changed", "ended"])
    }
}
