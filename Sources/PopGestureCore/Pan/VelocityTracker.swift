/// Velocity of a pan from its recent samples, in millimetres per second on the screen.
///
/// The estimate at time `t` is, on each axis, the least-squares slope of position over
/// time through the samples of the last ``window`` since that axis last reversed
/// (Android's `VelocityTracker` fits over a window too; libinput's tracker also stops
/// at a change of direction). One frame's jitter is one point among several, so it
/// cannot make a fling alone, and a flick back after a long swipe is not averaged away.
///
/// When `t` is after the newest sample, the finger is taken to have rested there until
/// `t` (the kernel sends nothing while a finger rests): that point joins the fit. A
/// finger that rests before it lifts therefore releases with a velocity near 0, and
/// one that rests for a whole window with exactly 0.
///
/// Timestamps must increase. A sample stamped at the newest sample's time replaces
/// it; one stamped earlier (a clock that went backwards) starts the history again,
/// since no interval to the older samples can be trusted. Nothing is ever divided by
/// an interval of 0: a window whose points share one time gives 0.
///
/// The samples live in a ring of fixed size, allocated once: adding and asking never
/// allocate.
public struct VelocityTracker: Sendable {
    /// 100 ms: Android's `VelocityTracker` horizon. Long enough to span 6 frames at
    /// 60 Hz and 10 at 100 Hz, short enough that the velocity is that of the release,
    /// not of the whole swipe.
    public static let window: Int64 = 100_000

    struct Sample: Sendable {
        var time: Timestamp
        var x: Double
        var y: Double
    }

    private var samples: ContiguousArray<Sample>
    private var newest = -1
    private var count = 0

    /// `capacity` samples are kept: 32 covers the window up to 310 Hz; past that the
    /// fit uses the newest 32.
    public init(capacity: Int = 32) {
        samples = ContiguousArray(repeating: Sample(time: .zero, x: 0, y: 0), count: max(2, capacity))
    }

    public mutating func reset() {
        newest = -1
        count = 0
    }

    public mutating func add(_ point: ScreenPoint, at time: Timestamp) {
        let sample = Sample(time: time, x: point.xMillimetres, y: point.yMillimetres)
        if count > 0 {
            let last = samples[newest].time
            if time == last {
                samples[newest] = sample  // The same instant, newer news.
                return
            }
            if time < last { reset() }  // The clock went back: older intervals mean nothing.
        }
        newest = (newest + 1) % samples.count
        samples[newest] = sample
        count = min(count + 1, samples.count)
    }

    /// Velocity at `time` (mm/s), x to the right and y down. A `time` at or before the
    /// newest sample asks for the velocity at that sample.
    public func velocity(at time: Timestamp) -> (x: Double, y: Double) {
        guard count > 0 else { return (0, 0) }
        let latest = samples[newest]
        let now = max(time.microseconds, latest.time.microseconds)
        let horizon = now.saturatingSubtracting(Self.window)

        // Times in seconds before `now` and positions from the newest one keep the sums
        // small and precise, and make a rest give exactly 0.
        var x = AxisFit(), y = AxisFit()
        if now > latest.time.microseconds {  // Resting since the newest sample.
            x.add(0, 0)
            y.add(0, 0)
        }
        var newer = latest
        var index = newest
        for _ in 0..<count {
            let sample = samples[index]
            guard sample.time.microseconds >= horizon else { break }
            let t = Double(sample.time.microseconds.saturatingSubtracting(now)) / 1_000_000
            x.add(t, sample.x - latest.x, stepToNewer: newer.x - sample.x)
            y.add(t, sample.y - latest.y, stepToNewer: newer.y - sample.y)
            newer = sample
            index = (index - 1 + samples.count) % samples.count
        }
        return (x.slope, y.slope)
    }

    /// The least-squares line through one axis's points, added newest first. The line
    /// covers the motion since the axis last reversed: a finger that swipes forward
    /// then flicks back releases with the flick's velocity, not an average of both.
    private struct AxisFit {
        var n = 0.0, st = 0.0, sv = 0.0, stt = 0.0, stv = 0.0
        /// The sign of the newest motion seen, 0 while the points have not moved.
        var direction = 0.0
        var reversed = false

        /// Adds a point at `t` s with value `v`; `stepToNewer` is how far the axis moved
        /// from it to the point added before.
        mutating func add(_ t: Double, _ v: Double, stepToNewer step: Double = 0) {
            if step != 0 {
                if direction == 0 { direction = step < 0 ? -1 : 1 }
                if (step < 0) != (direction < 0) { reversed = true }
            }
            guard !reversed else { return }
            n += 1
            st += t
            sv += v
            stt += t * t
            stv += t * v
        }

        /// Σ(t − t̄)(v − v̄) / Σ(t − t̄)²; 0 when every point has one time.
        var slope: Double {
            guard n > 1 else { return 0 }
            let spread = stt - st * st / n
            guard spread > 1e-12 else { return 0 }
            return (stv - st * sv / n) / spread
        }
    }
}
