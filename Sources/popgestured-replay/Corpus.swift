import ArgumentParser
import Foundation
import PopGestureCore
import PopGestureRecording
import PopGestureSynthesis

/// `popgestured-replay corpus`: the gesture corpus (``GestureCorpus``) on each device,
/// in both modes, as a confusion table. A report, not a tuning: it prints what the
/// defaults (current or before issue 22) make of how hands move.
struct Corpus: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gesture corpus and print its confusion table per device and mode.",
        discussion: """
            Generates the corpus (thumb arcs, edge flicks, slow and diagonal drags, scrolls,
            map pans, text selection, taps, zooms) on the project's own tablet descriptions
            and on each recorded touchscreen found in --recordings, plays every case in edge
            and fullscreen mode, and prints Markdown tables: backs expected, given, missed
            (with what happened instead) and false backs. docs/GESTURE-CORPUS.md explains
            the cases and records the tables.
            """)

    enum Defaults: String, ExpressibleByArgument, CaseIterable {
        case current
        case before22 = "before-22"

        var settings: GestureSettings { self == .current ? GestureSettings() : .before22 }
        var title: String { self == .current ? "current defaults" : "defaults before issue 22" }
    }

    @Option(help: "Which defaults: current, before-22, or both (repeat the flag).")
    var defaults: [Defaults] = [.current]

    @Option(help: "The folder of recorded device descriptions; absent: only the project's own tablets.")
    var recordings = "../shared/recordings"

    @Option(help: "A device description (.desc, .evemu, .yml) to run instead of the default set. Repeatable.")
    var device: [String] = []

    @Flag(help: "List every case that did not give what it should.")
    var misses = false

    @Option(help: "Milliseconds between frames while a finger moves (10: a 100 Hz touchscreen; 17: 60 Hz).")
    var frameInterval = 10

    @Option(help: ArgumentHelp(
        "Play a sampled set instead of the grid: tuning or test, on panels from a 5-inch phone to a 24-inch monitor at each --rate, and print the family × rate table.",
        valueName: "set"))
    var sampled: GestureCorpus.SampleSet?

    @Option(help: "Cases of each family per panel in a sampled set.")
    var perFamily = 40

    @Option(help: "Report rates in Hz for a sampled set. Repeatable; default 60, 72, 90, 120 and 240.")
    var rate: [Int] = []

    func validate() throws {
        guard (1...100).contains(frameInterval) else { throw ValidationError("--frame-interval must be 1 to 100 ms") }
        guard (1...1000).contains(perFamily) else { throw ValidationError("--per-family must be 1 to 1000") }
        guard rate.allSatisfy({ (30...1000).contains($0) }) else { throw ValidationError("--rate must be 30 to 1000 Hz") }
    }

    func run() throws {
        if let sampled { return try runSampled(sampled) }
        let players = try loadPlayers()
        for choice in defaults {
            var report = CorpusReport()
            for (name, player) in players { report.add(player, named: name, settings: choice.settings) }
            print(report.markdown(title: "Corpus, \(choice.title)"))
            guard misses else { continue }
            for miss in report.misses {
                let expected = miss.corpusCase.expected[miss.mode]?.rawValue ?? "?"
                print("- \(miss.device), \(miss.mode.rawValue): \(miss.corpusCase.name): expected \(expected), got \(miss.outcome)")
            }
            print("")
        }
    }

    private func runSampled(_ set: GestureCorpus.SampleSet) throws {
        for choice in defaults {
            let table = try RateTable.run(
                set, perFamily: perFamily, rates: rate.isEmpty ? GestureCorpus.reportRates : rate,
                settings: choice.settings)
            print(table.markdown(title: "The \(set.rawValue) set, \(perFamily) per family per panel, \(choice.title)"))
            print("Panels: " + table.panels.joined(separator: "; ") + ".\n")
            guard misses else { continue }
            for miss in table.misses {
                let expected = miss.corpusCase.expected[miss.mode]?.rawValue ?? "?"
                print("- \(miss.device), \(miss.mode.rawValue): \(miss.corpusCase.name): expected \(expected), got \(miss.outcome)")
            }
            print("")
        }
    }

    /// Each device named with the screen the corpus was generated for.
    private func loadPlayers() throws -> [(String, CorpusPlayer)] {
        try devicePlayers().map { name, player in
            var player = player
            player.frameInterval = .milliseconds(frameInterval)
            let size = player.screen
            return ("\(name), \(Int(size.width.rounded()))×\(Int(size.height.rounded())) mm", player)
        }
    }

    private func devicePlayers() throws -> [(String, CorpusPlayer)] {
        var players: [(String, CorpusPlayer)] = []
        if device.isEmpty {
            for (name, description) in CorpusDevices.ownTablets {
                players.append((name, try CorpusPlayer(device: description)))
            }
            if FileManager.default.fileExists(atPath: recordings) {
                for file in CorpusDevices.recorded {
                    players.append((file, try player(recordingsPath(file))))
                }
            } else {
                FileHandle.standardError.write(Data("\(recordings) is absent: the project's own tablets only\n".utf8))
            }
        } else {
            for path in device { players.append((URL(fileURLWithPath: path).lastPathComponent, try player(path))) }
        }
        return players
    }

    private func recordingsPath(_ file: String) -> String { recordings + "/" + file }

    private func player(_ path: String) throws -> CorpusPlayer {
        do {
            return try CorpusPlayer(device: try Recording(contentsOf: path).device)
        } catch {
            throw ValidationError("\(path): \(error)")
        }
    }
}

extension GestureCorpus.SampleSet: ExpressibleByArgument {}
