@testable import PopGestureCore
import Testing

@Suite("VelocityTracker")
struct VelocityTrackerTests {
    static let start = Timestamp(seconds: 500, microseconds: 0)

    static func point(_ xMillimetres: Double, _ yMillimetres: Double) -> ScreenPoint {
        ScreenPoint(x: xMillimetres / 200, y: yMillimetres / 100, xMillimetres: xMillimetres, yMillimetres: yMillimetres)
    }

    /// Feeds samples of steady motion every `interval` µs, starting at `start`, and
    /// returns the time of the last one.
    @discardableResult
    static func steady(
        _ tracker: inout VelocityTracker, vx: Double, vy: Double, interval: Int64, count: Int
    ) -> Timestamp {
        var time = start
        for i in 0..<count {
            time = Timestamp(microseconds: start.microseconds + Int64(i) * interval)
            let seconds = Double(Int64(i) * interval) / 1_000_000
            tracker.add(point(10 + vx * seconds, 20 + vy * seconds), at: time)
        }
        return time
    }

    @Test("steady motion at 100 mm/s (sampled at 100 Hz) measures 100 mm/s")
    func steadyMotion() {
        var tracker = VelocityTracker()
        let last = Self.steady(&tracker, vx: 100, vy: 0, interval: 10_000, count: 20)
        let v = tracker.velocity(at: last)
        #expect(abs(v.x - 100) < 1e-6, "\(v)")
        #expect(abs(v.y) < 1e-6)
    }

    @Test("direction and sign are kept: left and down")
    func direction() {
        var tracker = VelocityTracker()
        let last = Self.steady(&tracker, vx: -60, vy: 80, interval: 10_000, count: 12)
        let v = tracker.velocity(at: last)
        #expect(abs(v.x + 60) < 1e-6, "\(v)")
        #expect(abs(v.y - 80) < 1e-6, "\(v)")
    }

    @Test("steady motion at 120 Hz reads the true speed although frames do not divide the window")
    func steadyMotionUnalignedRate() {
        // 8 333 µs between frames does not divide the 100 ms window.
        var tracker = VelocityTracker()
        let last = Self.steady(&tracker, vx: 100, vy: 0, interval: 8_333, count: 30)
        let v = tracker.velocity(at: last)
        #expect(abs(v.x - 100) < 1e-6, "\(v)")
    }

    @Test("a 100 ms rest before the query gives 0")
    func restBeforeQuery() {
        var tracker = VelocityTracker()
        let last = Self.steady(&tracker, vx: 300, vy: 50, interval: 10_000, count: 20)
        let v = tracker.velocity(at: last + .milliseconds(100))
        #expect(v.x == 0)
        #expect(v.y == 0)
    }

    @Test("a rest shorter than the window slows the estimate without zeroing it")
    func shortRest() {
        var tracker = VelocityTracker()
        let last = Self.steady(&tracker, vx: 100, vy: 0, interval: 10_000, count: 20)
        let v = tracker.velocity(at: last + .milliseconds(25))
        #expect(v.x > 0)
        #expect(v.x < 100)
    }

    @Test("one sample gives 0; so does none, and a reset")
    func oneSample() {
        var tracker = VelocityTracker()
        let none = tracker.velocity(at: Self.start)
        #expect(none.x == 0 && none.y == 0)
        tracker.add(Self.point(10, 10), at: Self.start)
        let v = tracker.velocity(at: Self.start + .milliseconds(5))
        #expect(v.x == 0 && v.y == 0)

        tracker.add(Self.point(20, 10), at: Self.start + .milliseconds(10))
        #expect(tracker.velocity(at: Self.start + .milliseconds(10)).x > 0)
        tracker.reset()
        let afterReset = tracker.velocity(at: Self.start + .milliseconds(10))
        #expect(afterReset.x == 0 && afterReset.y == 0)
    }

    @Test("a history shorter than the window uses its oldest sample, also after the ring wraps")
    func shortHistory() {
        // 4 samples 10 ms apart cover 30 ms; 50 samples wrap the ring many times.
        var tracker = VelocityTracker(capacity: 4)
        let last = Self.steady(&tracker, vx: 100, vy: -40, interval: 10_000, count: 50)
        let v = tracker.velocity(at: last)
        #expect(abs(v.x - 100) < 1e-6, "\(v)")
        #expect(abs(v.y + 40) < 1e-6, "\(v)")
    }

    @Test("a release stamped before the newest sample reads the motion, not 1 mm over 1 µs")
    func releaseStampedBeforeTheNewestSample() {
        var tracker = VelocityTracker()
        tracker.add(Self.point(10, 20), at: Self.start)
        tracker.add(Self.point(11, 20), at: Self.start + .milliseconds(10))
        let v = tracker.velocity(at: Self.start)
        #expect(abs(v.x - 100) < 1e-6, "1 mm in 10 ms: \(v)")
    }

    @Test("a sample stamped before the newest one (a clock gone back) starts over: no velocity across the jump")
    func timeGoingBackwards() {
        var tracker = VelocityTracker()
        tracker.add(Self.point(0, 20), at: Self.start)
        tracker.add(Self.point(1, 20), at: Self.start + .milliseconds(10))
        tracker.add(Self.point(50, 20), at: Self.start + .milliseconds(9))
        let v = tracker.velocity(at: Self.start + .milliseconds(9))
        #expect(v.x == 0 && v.y == 0, "\(v)")
    }

    @Test("one frame's 2 mm jitter at the end of steady 100 mm/s motion moves the estimate by less than 15 %")
    func jitterIsOnePointAmongSeveral() {
        var tracker = VelocityTracker()
        let last = Self.steady(&tracker, vx: 100, vy: 0, interval: 10_000, count: 20)
        tracker.add(Self.point(10 + 100 * 0.2 + 2, 20), at: last + .milliseconds(10))
        let v = tracker.velocity(at: last + .milliseconds(10))
        #expect(abs(v.x - 100) < 15, "\(v)")
    }

    @Test("a swipe forward at 240 mm/s, then a flick back of 25 mm in 40 ms, releases with the flick's velocity")
    func aFlickBackIsNotAveragedAway() {
        var tracker = VelocityTracker()
        let last = Self.steady(&tracker, vx: 240, vy: 0, interval: 10_000, count: 30)
        let turn = 10 + 240 * 0.29
        for step in 1...4 {
            tracker.add(Self.point(turn - 6.25 * Double(step), 20), at: last + .milliseconds(Int64(step) * 10))
        }
        let v = tracker.velocity(at: last + .milliseconds(50))
        #expect(v.x < -400, "the last 40 ms moved back at 625 mm/s: \(v)")
    }
}
