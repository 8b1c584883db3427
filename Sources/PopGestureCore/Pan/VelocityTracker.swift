/// Velocity of a pan from its recent samples, in millimetres per second on the screen.
///
/// The estimate at time `t` is the displacement over the last ``window`` divided by
/// that interval; the position at the window's start is interpolated between the two
/// samples around it. A finger that rests before it lifts therefore releases with a
/// velocity near 0, so a slow release is never taken for a fling (the kernel sends
/// nothing while a finger rests).
public struct VelocityTracker: Sendable {
    /// 50 ms: long enough to span several frames at 60–200 Hz, short enough that
    /// a pause before the release cancels a fling (libinput's pointer velocity uses
    /// a similar few-frame window).
    public static let window: Int64 = 50_000

    struct Sample: Sendable {
        var time: Timestamp
        var x: Double
        var y: Double
    }

    private var samples: ContiguousArray<Sample>
    private var newest = -1
    private var count = 0

    public init(capacity: Int = 32) {
        samples = ContiguousArray(repeating: Sample(time: .zero, x: 0, y: 0), count: capacity)
    }

    public mutating func reset() {
        newest = -1
        count = 0
    }

    public mutating func add(_ point: ScreenPoint, at time: Timestamp) {
        newest = (newest + 1) % samples.count
        samples[newest] = Sample(time: time, x: point.xMillimetres, y: point.yMillimetres)
        count = min(count + 1, samples.count)
    }

    /// Velocity at `time` (mm/s), x to the right and y down.
    public func velocity(at time: Timestamp) -> (x: Double, y: Double) {
        guard count > 1 else { return (0, 0) }
        let latest = samples[newest]
        let horizon = time.microseconds.saturatingSubtracting(Self.window)
        // Walk back to the newest sample at or before the window's start, keeping the one after it.
        var after = latest
        var index = newest
        var base: Sample? = nil
        for _ in 0..<count {
            let sample = samples[index]
            if sample.time.microseconds <= horizon {
                base = sample
                break
            }
            after = sample
            index = (index - 1 + samples.count) % samples.count
        }
        let start: (x: Double, y: Double, time: Int64)
        if let base, base.time != after.time, after.time.microseconds > horizon {
            // The finger was somewhere between `base` and `after` at the window's start.
            let f = Double(horizon.saturatingSubtracting(base.time.microseconds)) / Double(after.time - base.time)
            start = (base.x + (after.x - base.x) * f, base.y + (after.y - base.y) * f, horizon)
        } else if let base {
            start = (base.x, base.y, horizon)  // It rested since `base`.
        } else {
            start = (after.x, after.y, after.time.microseconds)  // History is younger than the window.
        }
        let interval = Double(max(time.microseconds.saturatingSubtracting(start.time), 1)) / 1_000_000
        return ((latest.x - start.x) / interval, (latest.y - start.y) / interval)
    }
}
