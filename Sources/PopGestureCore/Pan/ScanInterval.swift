/// How often a device scans its fingers, estimated from the timestamps of its frames.
///
/// A panel reports once per scan while a finger moves, 60 to 240 times a second, and
/// sends nothing for a scan that saw no change, so the intervals between its frames
/// are the scan interval or a few of them (a slow finger, a rest); jitter makes a few
/// a little shorter. The estimate is the lower quartile of the last ``capacity``
/// intervals up to ``longestGap``, clamped to ``shortest``…``longest``: rests and slow
/// moves lengthen the upper intervals, and one split or early frame moves only the
/// lowest. Before any interval is known it is ``assumed``.
///
/// The intervals live in a ring of fixed size, allocated once: a frame never allocates.
public struct ScanInterval: Sendable {
    /// 4 ms, a 250 Hz panel: the fastest touchscreens report at 240 Hz. Two frames closer
    /// than that are one scan written in two frames, not a faster panel.
    public static let shortest: Int64 = 4_000
    /// 20 ms, a 50 Hz panel: slower than any touchscreen reports a moving finger (60 Hz
    /// is the slowest common rate).
    public static let longest: Int64 = 20_000
    /// 10 ms until the device's frames say otherwise: a 100 Hz panel, the commonest
    /// rate, and the corpus's and the test scripts' default.
    public static let assumed: Int64 = 10_000
    /// An interval longer than 30 ms is a rest or the gap between two touches, not a scan.
    public static let longestGap: Int64 = 30_000
    /// The intervals kept: 8, a third of a second of frames at 240 Hz.
    public static let capacity = 8

    private var intervals: ContiguousArray<Int64>
    private var newest = -1
    private var count = 0
    private var lastFrame: Timestamp?
    /// The estimate, in microseconds.
    public private(set) var microseconds: Int64 = assumed

    public init() {
        intervals = ContiguousArray(repeating: 0, count: Self.capacity)
    }

    /// A frame of the device ended at `time`.
    public mutating func frame(at time: Timestamp) {
        defer { lastFrame = time }
        guard let last = lastFrame else { return }
        let interval = time.microseconds.saturatingSubtracting(last.microseconds)
        // A clock that went back, or a rest: says nothing about the scan.
        guard interval > 0 && interval <= Self.longestGap else { return }
        newest = (newest + 1) % intervals.count
        intervals[newest] = interval
        count = min(count + 1, intervals.count)
        microseconds = min(Self.longest, max(Self.shortest, lowerQuartile()))
    }

    /// The interval with a quarter of the others below it; counted in place, since
    /// sorting would copy.
    private func lowerQuartile() -> Int64 {
        let rank = count / 4
        for i in 0..<count {
            let candidate = intervals[i]
            var below = 0, equal = 0
            for j in 0..<count {
                if intervals[j] < candidate { below += 1 } else if intervals[j] == candidate { equal += 1 }
            }
            if below <= rank && rank < below + equal { return candidate }
        }
        return intervals[newest]  // Unreachable: some interval has the rank.
    }
}
