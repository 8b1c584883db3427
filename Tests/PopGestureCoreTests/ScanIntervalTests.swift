@testable import PopGestureCore
import Testing

/// The scan interval from frame times: a panel's frames, with its rests and jitter.
@Suite struct ScanIntervalTests {
    /// Frames at the given times in microseconds.
    static func estimate(_ times: [Int64]) -> Int64 {
        var scan = ScanInterval()
        for t in times { scan.frame(at: Timestamp(microseconds: 1_000_000 + t)) }
        return scan.microseconds
    }

    @Test("Before any two frames, 10 ms is assumed")
    func assumedUntilKnown() {
        #expect(Self.estimate([]) == 10_000)
        #expect(Self.estimate([0]) == 10_000)
    }

    @Test("A finger moving on a 60 Hz panel, and on a 240 Hz one")
    func steadyRates() {
        #expect(Self.estimate((0..<10).map { $0 * 16_667 }) == 16_667)
        #expect(Self.estimate((0..<10).map { $0 * 4_167 }) == 4_167)
    }

    @Test("Scans that saw no change (a slow finger at 120 Hz) leave the estimate at one scan")
    func scansWithoutChangeDoNotLengthenIt() {
        // 8.3 ms scans; five of the eight intervals skip one or two scans that saw no change.
        let times: [Int64] = [0, 8_333, 25_000, 33_333, 50_000, 75_000, 83_333, 100_000, 116_667]
        #expect(Self.estimate(times) == 8_333)
    }

    @Test("One frame split in two (1 ms apart) or a jittered one moves the lower quartile little")
    func oneOddFrameIsOutvoted() {
        var times: [Int64] = (0..<9).map { $0 * 10_000 }
        times.insert(40_500, at: 5)  // A second frame for the scan at 40 ms.
        #expect(Self.estimate(times) == 10_000)
    }

    @Test("Rests and gaps between touches are no scans; odd panels are clamped to 4–20 ms")
    func gapsAndClamps() {
        // Two touches half a second apart, each seen at 100 Hz.
        #expect(Self.estimate([0, 10_000, 20_000, 520_000, 530_000]) == 10_000)
        #expect(Self.estimate((0..<10).map { $0 * 1_000 }) == 4_000, "a 1 kHz stream")
        #expect(Self.estimate((0..<10).map { $0 * 25_000 }) == 20_000, "a 40 Hz panel")
        #expect(Self.estimate([0, 10_000, 5_000, 15_000]) == 10_000, "a clock that went back counts nothing")
    }
}
