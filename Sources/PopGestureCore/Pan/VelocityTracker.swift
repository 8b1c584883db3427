/// Velocity of a pan from its recent samples, in millimetres per second on the screen.
///
/// The estimate at time `t` is the displacement over the last ``window`` divided by
/// that interval. A finger that rests before it lifts therefore releases with a
/// velocity near 0, so a slow release is never taken for a fling. The kernel sends
/// nothing while a finger rests, so the position is taken as constant between samples.
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
        let horizon = time.microseconds - Self.window
        // The position at the start of the window is the newest sample at or before it,
        // or the oldest kept sample when the whole history is younger than the window.
        var base = latest
        var index = newest
        for _ in 0..<count {
            base = samples[index]
            if base.time.microseconds <= horizon { break }
            index = (index - 1 + samples.count) % samples.count
        }
        let interval = Double(max(time.microseconds - max(base.time.microseconds, horizon), 1)) / 1_000_000
        guard base.time != latest.time || base.x != latest.x || base.y != latest.y else { return (0, 0) }
        return ((latest.x - base.x) / interval, (latest.y - base.y) / interval)
    }
}
