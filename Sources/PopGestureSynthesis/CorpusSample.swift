import PopGestureCore

extension GestureCorpus {
    /// A set of cases drawn at random from the grid's ranges. The tuning set is the one
    /// the defaults and the report-rate fix of issue 27 were checked against while they
    /// were made; the test set, drawn from another seed, was run only after, and is what
    /// `GestureCorpusTests` holds them to (docs/GESTURE-CORPUS.md).
    public enum SampleSet: String, Sendable, Hashable, CaseIterable {
        case tuning
        case test

        /// Fixed, so each set is the same on every run and machine.
        public var seed: UInt64 {
            switch self {
            case .tuning: 0x2700_0001
            case .test: 0x2700_7e57
            }
        }
    }

    /// The report rates the sampled sets run at, in Hz: the slowest common touchscreen
    /// (60), the rates of issue 27's misses (72, 90), and fast panels (120, 240).
    public static let reportRates = [60, 72, 90, 120, 240]

    /// `perFamily` cases of each family for a screen of `screen` millimetres, each with
    /// its parameters, hand and ``Case/scanPhase`` drawn from `seed`. The ranges are the
    /// grid's (``cases(for:)``), drawn across rather than at their ends; every family
    /// keeps its expectation rules.
    public static func sample(for screen: PhysicalSize, seed: UInt64, perFamily: Int) -> [Case] {
        var random = SplitMix64(seed: seed)
        var all: [Case] = []
        for family in Family.allCases {
            for index in 0..<perFamily {
                let hand: Hand = random.chance() ? .left : .right
                var drawn = draw(family, screen, hand, &random)
                drawn.scanPhase = random.uniform(0, 1)
                drawn.name = "#\(index + 1) " + drawn.name + ", first scan \(Int(drawn.scanPhase * 100)) % of an interval in"
                all.append(drawn)
            }
        }
        return all
    }

    private static func draw(_ family: Family, _ screen: PhysicalSize, _ hand: Hand, _ r: inout SplitMix64) -> Case {
        switch family {
        case .thumbArc:
            return thumbArc(
                screen, hand, radius: r.uniform(40, 90), beyond: r.uniform(0, 10), landing: r.uniform(1, 4),
                bendsDown: r.chance(), sweep: r.uniform(30, 40), ms: r.whole(120, 200))
        case .edgeFlick:
            return edgeFlick(
                screen, hand, length: r.uniform(8, 20), ms: r.whole(30, 80), degrees: r.uniform(0, 20),
                landing: r.uniform(1, 3.5))
        case .slowDrag:
            return slowDrag(
                screen, hand, fromEdge: r.chance(), share: r.uniform(0.4, 0.6), speed: r.uniform(80, 150),
                degrees: r.uniform(0, 10))
        case .diagonalDrag:
            // Shallow from mid-screen, steep from the edge, or steep from mid-screen.
            let (fromEdge, low, high) = [(false, 15.0, 25.0), (true, 35, 40), (false, 35, 40)][r.whole(0, 2)]
            return diagonalDrag(screen, hand, fromEdge: fromEdge, degrees: r.uniform(low, high), down: r.chance())
        case .verticalScroll:
            let flung = r.chance()
            return verticalScroll(
                screen, hand, degrees: r.uniform(70, 100), down: r.chance(), fromEdge: r.chance(), flung: flung,
                ms: flung ? r.whole(120, 180) : r.whole(350, 450))
        case .diagonalScroll:
            return diagonalScroll(screen, hand, degrees: r.uniform(50, 60), down: r.chance(), fromEdge: r.chance())
        case .mapPan:
            let flung = r.chance()
            return mapPan(screen, hand, degrees: r.uniform(0, 360), flung: flung,
                          ms: flung ? r.whole(120, 180) : r.whole(300, 400))
        case .textSelection:
            let x = r.chance() ? 10 : screen.width * r.uniform(0.3, 0.5)
            return textSelection(
                screen, hand, press: r.whole(500, 800), x: x, length: r.uniform(30, 60), degrees: r.uniform(0, 5))
        case .tap:
            let x = r.chance() ? r.uniform(1, 3) : screen.width * 0.5
            return tap(screen, hand, x: x, ms: r.whole(60, 120), slide: r.uniform(0, 2))
        case .twoFingerZoom:
            return zoom(screen, hand, delay: r.whole(0, 80), spread: r.chance(), x: r.chance() ? 3 : screen.width * 0.35)
        }
    }
}

/// Steele, Lea and Flood's SplitMix64 (the seeding generator of Java's
/// `SplittableRandom`): small, fast, and the same sequence everywhere for one seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `low ..< high`.
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }

    /// A whole number in `low ... high`.
    mutating func whole(_ low: Int, _ high: Int) -> Int {
        low + Int(next() % UInt64(high - low + 1))
    }

    mutating func chance() -> Bool { next() & 1 == 1 }
}
