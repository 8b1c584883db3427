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
        var touches = TouchState(device: device)
        var recognizer = PanRecognizer(
            device: device, settings: source.map { PanSettings(source: $0) } ?? .defaults(for: device.kind ?? .touchscreen),
            transform: ScreenTransform(device: device), logger: Logger(label: "test"))
        var out: [PanEvent] = []
        for event in script.events {
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
