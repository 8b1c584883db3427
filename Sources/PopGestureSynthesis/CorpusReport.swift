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

/// The sampled sets' table: per family and report rate, the share of plays (each case in
/// both modes, on every panel) that gave what they should, with the backs missed and the
/// false backs. A back the panel saw at fewer than two scans (a flick between them) is
/// counted apart, as unseen: no rule can tell it from a tap, since nothing moved.
public struct RateTable: Sendable {
    public struct Cell: Sendable, Hashable {
        /// Plays counted: every play but the unseen ones.
        public var plays = 0
        public var right = 0
        public var missedBacks = 0
        public var falseBacks = 0
        public var unseen = 0

        /// Right ÷ plays; 1 with no plays.
        public var share: Double { plays == 0 ? 1 : Double(right) / Double(plays) }
    }

    public struct Key: Sendable, Hashable {
        public var family: GestureCorpus.Family
        public var rate: Int

        public init(family: GestureCorpus.Family, rate: Int) {
            self.family = family
            self.rate = rate
        }
    }

    public private(set) var cells: [Key: Cell] = [:]
    public private(set) var rates: [Int] = []
    public private(set) var panels: [String] = []
    /// Every play that did not give what it should, unseen ones left out; `device` names
    /// the panel and rate.
    public private(set) var misses: [CorpusReport.Miss] = []

    public init() {}

    /// Plays `cases` on `player`'s panel at `rate` Hz in both modes and adds the results.
    public mutating func add(
        _ player: CorpusPlayer, named name: String, rate: Int, cases: [GestureCorpus.Case], settings: GestureSettings
    ) {
        var player = player
        player.frameInterval = .microseconds((1_000_000.0 / Double(rate)).rounded())
        if !rates.contains(rate) { rates.append(rate) }
        if !panels.contains(name) { panels.append(name) }
        for corpusCase in cases {
            let unseen = player.scansSeeingFirstFinger(corpusCase) < 2
            for mode in GestureMode.allCases {
                let outcome = player.play(corpusCase, settings: settings, mode: mode)
                let expected = corpusCase.expected[mode] ?? .noBack
                var cell = cells[Key(family: corpusCase.family, rate: rate), default: Cell()]
                switch (expected, outcome.isBack) {
                case (.back, false) where unseen: cell.unseen += 1
                case (.back, false): cell.missedBacks += 1
                case (.noBack, true): cell.falseBacks += 1
                case (.back, true), (.noBack, false): cell.right += 1
                }
                if !(expected == .back && !outcome.isBack && unseen) { cell.plays += 1 }
                cells[Key(family: corpusCase.family, rate: rate)] = cell
                if outcome.isBack != (expected == .back) && !(expected == .back && unseen) {
                    misses.append(CorpusReport.Miss(device: "\(name), \(rate) Hz", mode: mode, corpusCase: corpusCase,
                                                    outcome: outcome))
                }
            }
        }
    }

    /// The family × rate table in Markdown.
    public func markdown(title: String) -> String {
        var out = "### \(title)\n\n"
        out += "| family | " + rates.map { "\($0) Hz" }.joined(separator: " | ") + " |\n"
        out += "|---|" + String(repeating: "---:|", count: rates.count) + "\n"
        for family in GestureCorpus.Family.allCases {
            let row = rates.map { cells[Key(family: family, rate: $0)] }
            guard row.contains(where: { $0 != nil }) else { continue }
            out += "| \(family.rawValue) | " + row.map { Self.text($0 ?? Cell()) }.joined(separator: " | ") + " |\n"
        }
        let totals = rates.map { rate in
            cells.filter { $0.key.rate == rate }.values.reduce(into: Cell()) { sum, cell in
                sum.plays += cell.plays
                sum.right += cell.right
                sum.missedBacks += cell.missedBacks
                sum.falseBacks += cell.falseBacks
                sum.unseen += cell.unseen
            }
        }
        out += "| **all** | " + totals.map { Self.text($0) + " of \($0.plays)" }.joined(separator: " | ") + " |\n"
        return out
    }

    private static func text(_ cell: Cell) -> String {
        let percent = (cell.share * 1000).rounded(.down) / 10
        var parts: [String] = []
        if cell.missedBacks > 0 { parts.append("\(cell.missedBacks) missed") }
        if cell.falseBacks > 0 { parts.append("\(cell.falseBacks) false") }
        if cell.unseen > 0 { parts.append("\(cell.unseen) unseen") }
        return "\(percent) %" + (parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")")
    }
}

extension RateTable {
    /// Plays the sampled set `set`, `perFamily` cases of each family per panel, on each
    /// of `panels` at each of `rates` (Hz). Each panel draws its cases once, from the
    /// set's seed and its place in the list, so every rate plays the same gestures.
    public static func run(
        _ set: GestureCorpus.SampleSet, perFamily: Int, rates: [Int] = GestureCorpus.reportRates,
        panels: [(name: String, description: DeviceDescription)] = CorpusDevices.panels,
        settings: GestureSettings = GestureSettings()
    ) throws(CorpusPlayer.PlayerError) -> RateTable {
        var table = RateTable()
        for (index, panel) in panels.enumerated() {
            let player = try CorpusPlayer(device: panel.description)
            let cases = GestureCorpus.sample(for: player.screen, seed: set.seed &+ UInt64(index), perFamily: perFamily)
            for rate in rates { table.add(player, named: panel.name, rate: rate, cases: cases, settings: settings) }
        }
        return table
    }
}
