import PopGestureCore

/// The corpus's confusion table: per device and mode, the backs it should give, given
/// and missed (with the reasons of the misses), and the backs it gave that it should not.
public struct CorpusReport: Sendable {
    /// One device in one mode, or one family summed over devices.
    public struct Row: Sendable, Hashable {
        public var label: String
        public var mode: GestureMode
        public var backsExpected = 0
        public var backsGiven = 0
        /// Misses by what happened instead.
        public var missed: [String: Int] = [:]
        public var noBacksExpected = 0
        /// False backs by family.
        public var falseBacks: [String: Int] = [:]

        public var missedCount: Int { missed.values.reduce(0, +) }
        public var falseBackCount: Int { falseBacks.values.reduce(0, +) }
    }

    /// A case that did not give what it should.
    public struct Miss: Sendable, Hashable {
        public var device: String
        public var mode: GestureMode
        public var corpusCase: GestureCorpus.Case
        public var outcome: CorpusPlayer.Outcome
    }

    public private(set) var devices: [Row] = []
    public private(set) var families: [Row] = []
    public private(set) var misses: [Miss] = []

    public init() {}

    /// Plays every case of `player`'s device in both modes and adds the results.
    public mutating func add(_ player: CorpusPlayer, named name: String, settings: GestureSettings) {
        for mode in [GestureMode.edge, .fullscreen] {
            var row = Row(label: name, mode: mode)
            for corpusCase in player.cases {
                let outcome = player.play(corpusCase, settings: settings, mode: mode)
                let expected = corpusCase.expected[mode] ?? .noBack
                count(&row, expected, outcome, family: corpusCase.family)
                let index = families.firstIndex { $0.label == corpusCase.family.rawValue && $0.mode == mode }
                    ?? { families.append(Row(label: corpusCase.family.rawValue, mode: mode)); return families.count - 1 }()
                count(&families[index], expected, outcome, family: corpusCase.family)
                if outcome.isBack != (expected == .back) {
                    misses.append(Miss(device: name, mode: mode, corpusCase: corpusCase, outcome: outcome))
                }
            }
            devices.append(row)
        }
    }

    private func count(_ row: inout Row, _ expected: GestureCorpus.Expectation, _ outcome: CorpusPlayer.Outcome,
                       family: GestureCorpus.Family) {
        switch (expected, outcome.isBack) {
        case (.back, true): row.backsExpected += 1; row.backsGiven += 1
        case (.back, false): row.backsExpected += 1; row.missed[outcome.reason, default: 0] += 1
        case (.noBack, true): row.noBacksExpected += 1; row.falseBacks[family.rawValue, default: 0] += 1
        case (.noBack, false): row.noBacksExpected += 1
        }
    }

    /// The two tables in Markdown: per device and mode, then per family and mode.
    public func markdown(title: String) -> String {
        var out = "### \(title)\n\n"
        out += table(devices, first: "device")
        out += "\n"
        out += table(families.sorted { ($0.mode.rawValue, order($0.label)) < ($1.mode.rawValue, order($1.label)) },
                     first: "family (all devices)")
        return out
    }

    private func order(_ family: String) -> Int {
        GestureCorpus.Family.allCases.firstIndex { $0.rawValue == family } ?? .max
    }

    private func table(_ rows: [Row], first: String) -> String {
        var out = "| \(first) | mode | backs expected | given | missed (why) | no-backs expected | false backs (what) |\n"
        out += "|---|---|---:|---:|---|---:|---|\n"
        for row in rows {
            out += "| \(row.label) | \(row.mode.rawValue) | \(row.backsExpected) | \(row.backsGiven) | "
            out += "\(row.missedCount)\(Self.breakdown(row.missed)) | \(row.noBacksExpected) | "
            out += "\(row.falseBackCount)\(Self.breakdown(row.falseBacks)) |\n"
        }
        return out
    }

    private static func breakdown(_ counts: [String: Int]) -> String {
        guard !counts.isEmpty else { return "" }
        let parts = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }
        return " (" + parts.joined(separator: ", ") + ")"
    }
}
