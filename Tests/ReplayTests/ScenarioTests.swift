import PopGestureCore
import PopGestureSynthesis
import Testing

/// Gestures generated on the real device descriptions in ../shared/recordings, each
/// run through the whole engine (protocol A through mtdev). Every scenario runs on
/// every touchscreen description, as libinput's litest runs one test over many devices.
@Suite(.enabled(if: SharedRecordings.available, Comment(rawValue: SharedRecordings.absent)))
struct ScenarioTests {
    static let touchscreens = SharedRecordings.touchscreens
    /// Devices whose kernel driver reports slots, for scenarios that need a slot to turn into a palm or vanish.
    static let slotTouchscreens = touchscreens.filter { $0 != "ntrig-multitouch.desc" }

    @Test("A swipe from 2 % of the width, 60 mm to the right in 150 ms, goes back", arguments: touchscreens)
    func leftEdgeSwipe(desc: String) throws {
        let scenario = Scenario(on: try SharedRecordings.description(desc))
        let events = try scenario.play { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(events.outcome == .back(popped: "detail", top: "root", by: .fling))
        #expect(events.kinds == ["pop-began", "pop-progress", "pop-finished", "back", "bar"])
        let progress = events.progressValues
        #expect(progress == progress.sorted() && progress.allSatisfy { (0...1).contains($0) })
        // Progress is the distance travelled over the screen's width, reported in thousandths.
        #expect(abs((progress.last ?? 0) - 60 / scenario.screenWidth) < 0.002)
    }

    @Test("In a right-to-left layout, back is a swipe to the left", arguments: touchscreens)
    func rightToLeft(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        scenario.layout = .rightToLeft
        let leftward = try scenario.play { finger in
            finger.down(at: 0.98, 0.5)
            finger.move(byMillimetres: -60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(leftward.outcome == .back(popped: "detail", top: "root", by: .fling))
        let rightward = try scenario.play { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(rightward.outcome == .rejected(.wrongDirection))
    }

    @Test("On a screen turned 90°, right is the screen's right, not the panel's", arguments: touchscreens)
    func rotated(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        scenario.rotation = .clockwise90
        let right = try scenario.play { finger in
            finger.down(at: 0.05, 0.5)
            finger.move(byMillimetres: 50, 0, over: .milliseconds(120))
            finger.up()
        }
        #expect(right.outcome == .back(popped: "detail", top: "root", by: .fling))
        let down = try scenario.play { finger in
            finger.down(at: 0.5, 0.1)
            finger.move(byMillimetres: 3, 50, over: .milliseconds(120))
            finger.up()
        }
        #expect(down.outcome == .rejected(.tooSteep))
        // The same panel events read without the rotation are a vertical move: no back.
        scenario.rotation = .none
        scenario.scriptRotation = .clockwise90
        let unrotated = try scenario.play { finger in
            finger.down(at: 0.05, 0.5)
            finger.move(byMillimetres: 50, 0, over: .milliseconds(120))
            finger.up()
        }
        #expect(!unrotated.kinds.contains("back"))
        #expect(unrotated.kinds == ["rejected"])
    }

    @Test("Under a calibration that swaps the axes, a swipe from the screen's left edge goes back and a 40° one does not",
          arguments: touchscreens)
    func swappedCalibration(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        scenario.calibration = CalibrationMatrix(0, 1, 0, -1, 0, 1)  // libinput's 270°
        let leftEdge = try scenario.play { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(leftEdge.outcome == .back(popped: "detail", top: "root", by: .fling))
        #expect(abs((leftEdge.progressValues.last ?? 0) - 60 / scenario.screenWidth) < 0.002)
        // 60 mm at 40° below the horizontal from 30 % in: past the 30° limit of a start
        // outside the edge zone, whatever the panel's aspect.
        let steep = try scenario.play { finger in
            finger.down(at: 0.3, 0.3)
            finger.move(byMillimetres: 60 * Self.cos40, 60 * Self.sin40, over: .milliseconds(150))
            finger.up()
        }
        #expect(steep.outcome == .rejected(.tooSteep))
        // The same panel events read without the calibration are a vertical move: no back.
        scenario.scriptCalibration = scenario.calibration
        scenario.calibration = .identity
        let uncalibrated = try scenario.play { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(uncalibrated.kinds == ["rejected"])
    }

    /// cos 40° and sin 40°, to four places.
    static let (cos40, sin40) = (0.7660, 0.6428)

    @Test("With only the root page, nothing pops", arguments: touchscreens)
    func onlyRoot(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        scenario.pages = [Page(id: "root")]
        let events = try scenario.play(Self.swipeRight)
        #expect(events.outcome == .rejected(.stackTooShallow))
        #expect(events.allSatisfy { $0.owner == nil }, "the owner hears nothing of a rejected pan")
    }

    @Test("A page that disables the gesture is not popped", arguments: touchscreens)
    func disabledPage(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        scenario.pages = [Page(id: "root"), Page(id: "form", popDisabled: true)]
        #expect(try scenario.play(Self.swipeRight).outcome == .rejected(.popDisabled))
    }

    @Test("A start farther from the leading edge than the page allows is refused", arguments: touchscreens)
    func tooFarFromEdge(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        scenario.pages = [Page(id: "root"), Page(id: "map", maxStartDistanceMillimetres: 20)]
        let middle = try scenario.play { finger in
            finger.down(at: 0.5, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(middle.outcome == .rejected(.tooFarFromEdge))
        #expect(try scenario.play(Self.swipeRight).outcome == .back(popped: "map", top: "root", by: .fling))
        // In RTL the distance is measured from the right edge (the iOS library measured from the left).
        scenario.layout = .rightToLeft
        let fromRight = try scenario.play { finger in
            finger.down(at: 0.97, 0.5)
            finger.move(byMillimetres: -60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(fromRight.outcome == .back(popped: "map", top: "root", by: .fling))
    }

    @Test("During a push animation the gesture waits until the client settles or the timeout passes",
          arguments: touchscreens)
    func duringTransition(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        scenario.pages = [Page(id: "root")]
        scenario.setup = { engine, now in
            try engine.perform(.push(navigator: "main", page: Page(id: "detail"), animated: true),
                               from: Scenario.client, at: now)
        }
        #expect(try scenario.play(Self.swipeRight).outcome == .rejected(.transitioning))

        let afterTimeout = try scenario.play { finger in
            finger.rest(.milliseconds(1100))
            Self.swipeRight(&finger)
        }
        #expect(afterTimeout.outcome == .back(popped: "detail", top: "root", by: .fling))

        let pushed = scenario.setup
        scenario.setup = { engine, now in
            try pushed(&engine, now)
            try engine.perform(.settle(navigator: "main"), from: Scenario.client, at: now)
        }
        #expect(try scenario.play(Self.swipeRight).outcome == .back(popped: "detail", top: "root", by: .fling))
    }

    @Test("A steep swipe is a scroll, never a back", arguments: touchscreens)
    func tooSteep(desc: String) throws {
        let events = try Scenario(on: SharedRecordings.description(desc)).play { finger in
            finger.down(at: 0.3, 0.2)
            finger.move(byMillimetres: 12, 50, over: .milliseconds(150))
            finger.up()
        }
        #expect(events.outcome == .rejected(.tooSteep))
    }

    @Test("A second finger before the decision disqualifies the pan; after it, cancels the pop",
          arguments: touchscreens)
    func secondFinger(desc: String) throws {
        let scenario = Scenario(on: try SharedRecordings.description(desc))
        let early = try scenario.play { hand in
            hand.down(0, at: 0.1, 0.5)
            hand.down(1, at: 0.4, 0.5)
            hand.move([0, 1], byMillimetres: 60, 0, over: .milliseconds(150))
            hand.up(1)
            hand.up(0)
        }
        #expect(early.outcome == .rejected(.extraFinger))

        let late = try scenario.play { hand in
            hand.down(0, at: 0.1, 0.5)
            hand.move(0, byMillimetres: 30, 0, over: .milliseconds(80))
            hand.down(1, at: 0.6, 0.5)
            hand.move([0, 1], byMillimetres: 40, 0, over: .milliseconds(80))
            hand.up(0)
            hand.up(1)
        }
        #expect(late.outcome == .cancelled(.extraFinger))
        #expect(!late.kinds.contains("back"))
    }

    @Test("A finger that turns out to be a palm cancels the pop", arguments: slotTouchscreens)
    func palm(desc: String) throws {
        let events = try Scenario(on: SharedRecordings.description(desc)).play { hand in
            hand.down(at: 0.1, 0.5)
            hand.move(byMillimetres: 30, 0, over: .milliseconds(80))
            hand.becomePalm()
            hand.move(byMillimetres: 40, 0, over: .milliseconds(80))
            hand.up()
        }
        #expect(events.outcome == .cancelled(.palm))
        #expect(events.kinds.last == "bar", "the bar follows the page that stays")
    }

    @Test("A short fast flick anywhere commits on velocity", arguments: touchscreens)
    func fling(desc: String) throws {
        let events = try Scenario(on: SharedRecordings.description(desc)).play { finger in
            finger.down(at: 0.5, 0.5)
            finger.move(byMillimetres: 20, 0, over: .milliseconds(40))
            finger.up()
        }
        #expect(events.outcome == .back(popped: "detail", top: "root", by: .fling))
        #expect(events.progressValues.last ?? 1 < 0.3, "committed below the progress threshold")
    }

    @Test("A slow drag that rests below the threshold is cancelled on release", arguments: touchscreens)
    func slowReleaseBelowThreshold(desc: String) throws {
        let events = try Scenario(on: SharedRecordings.description(desc)).play { finger in
            finger.down(at: 0.2, 0.5)
            finger.move(byMillimetres: 30, 0, over: .milliseconds(600))
            finger.rest(.milliseconds(200))
            finger.up()
        }
        #expect(events.outcome == .cancelled(.released))
    }

    @Test("A slow drag past the threshold commits on progress", arguments: touchscreens)
    func slowReleasePastThreshold(desc: String) throws {
        let scenario = Scenario(on: try SharedRecordings.description(desc))
        let events = try scenario.play { finger in
            finger.down(at: 0.1, 0.5)
            finger.move(byMillimetres: 0.4 * scenario.screenWidth, 0, over: .milliseconds(1500))
            finger.rest(.milliseconds(200))
            finger.up()
        }
        #expect(events.outcome == .back(popped: "detail", top: "root", by: .progress))
    }

    @Test("Flung back toward the leading edge cancels even past the threshold", arguments: touchscreens)
    func flungBack(desc: String) throws {
        let scenario = Scenario(on: try SharedRecordings.description(desc))
        let events = try scenario.play { finger in
            finger.down(at: 0.1, 0.5)
            finger.move(byMillimetres: 0.4 * scenario.screenWidth, 0, over: .milliseconds(1000))
            finger.move(byMillimetres: -25, 0, over: .milliseconds(40))
            finger.up()
        }
        #expect(events.outcome == .cancelled(.flungBack))
    }

    @Test("Edge mode takes swipes from the leading edge only", arguments: touchscreens)
    func edgeMode(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        scenario.settings.mode = .edge
        let inside = try scenario.play { finger in
            finger.down(at: 0.3, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(inside.outcome == .rejected(.outsideEdgeZone))
        let fromEdge = try scenario.play { finger in
            finger.down(at: 0.005, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(fromEdge.outcome == .back(popped: "detail", top: "root", by: .fling))
    }

    @Test("A swipe that starts in the page's exclusion zone is left to the page", arguments: touchscreens)
    func exclusionZone(desc: String) throws {
        var scenario = Scenario(on: try SharedRecordings.description(desc))
        let slider = NormalizedRect(x: 0, y: 0.8, width: 1, height: 0.2)
        scenario.pages = [Page(id: "root"), Page(id: "player", exclusionZones: [slider])]
        let onSlider = try scenario.play { finger in
            finger.down(at: 0.1, 0.9)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        }
        #expect(onSlider.outcome == .rejected(.excluded))
        #expect(try scenario.play(Self.swipeRight).outcome == .back(popped: "player", top: "root", by: .fling))
    }

    @Test("Events lost mid-swipe cancel the pop; the finger that stayed down pops nothing",
          arguments: slotTouchscreens)
    func eventsDroppedFingerStays(desc: String) throws {
        let events = try Scenario(on: SharedRecordings.description(desc)).play { finger in
            finger.down(at: 0.1, 0.5)
            finger.move(byMillimetres: 40, 0, over: .milliseconds(80))
            finger.dropEvents(lost: [])
            finger.move(byMillimetres: 40, 0, over: .milliseconds(80))
            finger.up()
        }
        #expect(events.outcome == .cancelled(.eventsDropped))
        #expect(!events.kinds.contains("back"))
    }

    @Test("A finger that vanished in lost events is cancelled, not stuck: the next swipe works",
          arguments: slotTouchscreens)
    func eventsDroppedFingerGone(desc: String) throws {
        let scenario = Scenario(on: try SharedRecordings.description(desc))
        let events = try scenario.play { finger in
            finger.down(at: 0.1, 0.5)
            finger.move(byMillimetres: 40, 0, over: .milliseconds(80))
            finger.dropEvents(lost: [0])
        }
        #expect(events.outcome == .cancelled(.eventsDropped))
        #expect(!events.kinds.contains("back"))
        let next = try scenario.play { finger in
            finger.down(at: 0.1, 0.5)
            finger.move(byMillimetres: 40, 0, over: .milliseconds(80))
            finger.dropEvents(lost: [0])
            Self.swipeRight(&finger)
        }
        #expect(next.outcome == .back(popped: "detail", top: "root", by: .fling))
    }

    static func swipeRight(_ finger: inout ScreenGesture) {
        finger.down(at: 0.02, 0.5)
        finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
        finger.up()
    }
}
