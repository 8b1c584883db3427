import Foundation
import PopGestureCore
import PopGestureSynthesis
import Testing

/// The gesture corpus (docs/GESTURE-CORPUS.md) on the project's own tablet descriptions,
/// so that it runs wherever the recordings are absent; ReplayTests runs it on those.
@Suite struct GestureCorpusTests {
    static let tablets = CorpusDevices.ownTablets.map(\.name)

    static func report(_ name: String, settings: GestureSettings) throws -> CorpusReport {
        let description = try #require(CorpusDevices.ownTablets.first { $0.name == name }).description
        var report = CorpusReport()
        report.add(try CorpusPlayer(device: description), named: name, settings: settings)
        return report
    }

    @Test("Every thumb arc and edge flick goes back, and no scroll, pan, selection, tap or zoom does",
          arguments: tablets)
    func everyCaseGivesWhatItShould(tablet: String) throws {
        let report = try Self.report(tablet, settings: GestureSettings())
        let misses = report.misses.map { "\($0.mode.rawValue): \($0.corpusCase.name): \($0.outcome)" }
        #expect(misses.isEmpty, "\(misses.count) misses, first: \(misses.prefix(5))")
        for row in report.devices {
            #expect(row.backsExpected > 300 && row.backsGiven == row.backsExpected, "\(row.mode)")
            #expect(row.noBacksExpected >= 200 && row.falseBackCount == 0, "\(row.mode)")
        }
    }

    @Test("At 60 Hz too, every case gives what it should on the landscape tablet")
    func sixtyHertz() throws {
        let description = try #require(CorpusDevices.ownTablets.first).description
        var player = try CorpusPlayer(device: description)
        player.frameInterval = .milliseconds(17)
        var report = CorpusReport()
        report.add(player, named: "60 Hz", settings: GestureSettings())
        #expect(report.misses.isEmpty, "\(report.misses.prefix(5).map { "\($0.corpusCase.name): \($0.outcome)" })")
    }

    @Test("Before issue 22 the defaults missed thumb arcs, edge flicks and diagonal drags from the edge")
    func theOldDefaultsMissedThumbsAndFlicks() throws {
        let report = try Self.report("tablet (landscape)", settings: .before22)
        let missed = Set(report.misses.filter { $0.corpusCase.expected[$0.mode] == .back }.map(\.corpusCase.family))
        #expect(missed == [.thumbArc, .edgeFlick, .diagonalDrag])
        // Each thumb arc missed was released too slowly across the screen, not refused.
        let arcs = report.misses.filter { $0.corpusCase.family == .thumbArc }
        #expect(!arcs.isEmpty && arcs.allSatisfy { $0.outcome == .cancelled(.released) })
    }

    @Test("Before issue 22 a long text selection on the portrait tablet went back in fullscreen mode")
    func theOldDefaultsTookTextSelectionsForBacks() throws {
        let report = try Self.report("tablet (portrait)", settings: .before22)
        let falseBacks = report.misses.filter { $0.corpusCase.expected[$0.mode] == .noBack }
        #expect(!falseBacks.isEmpty)
        #expect(falseBacks.allSatisfy { $0.corpusCase.family == .textSelection && $0.mode == .fullscreen })
    }

    @Test("The corpus has every family, unique names, a why for each case, and its edge swipes land in the edge zone")
    func theCorpusIsWellFormed() {
        let cases = GestureCorpus.cases(for: PhysicalSize(width: 217, height: 136))
        #expect(Set(cases.map(\.family)) == Set(GestureCorpus.Family.allCases))
        #expect(Set(cases.map(\.name)).count == cases.count)
        #expect(cases.allSatisfy { !$0.why.isEmpty && $0.expected.count == GestureMode.allCases.count })
        let settings = GestureSettings()
        for edgeSwipe in cases where [.thumbArc, .edgeFlick].contains(edgeSwipe.family) {
            #expect(edgeSwipe.startsAtEdge(settings) && edgeSwipe.expected == [.edge: .back, .fullscreen: .back])
        }
        // Nothing that must never go back is expected to in either mode.
        let never: Set<GestureCorpus.Family> = [.verticalScroll, .diagonalScroll, .mapPan, .textSelection, .tap, .twoFingerZoom]
        #expect(cases.filter { never.contains($0.family) }.allSatisfy { !$0.expected.values.contains(.back) })
    }

    @Test("A thumb arc stays on its circle about the pivot and moves toward the trailing side")
    func aThumbArcStaysOnItsCircle() {
        let path = GestureCorpus.Path.arc(pivotX: -12, pivotY: 50, length: 30, clockwise: true)
        let radius = (12.0 * 12 + 50 * 50).squareRoot()
        var last = -1.0
        for step in 0...10 {
            let (dx, dy) = path.offset(Double(step) / 10)
            let fromPivot = ((dx + 12) * (dx + 12) + (dy - 50) * (dy - 50)).squareRoot()
            #expect(abs(fromPivot - radius) < 1e-9)
            #expect(dx > last && dy >= 0, "inward and, the joint below, downward")
            last = dx
        }
        // 30 mm along the circle, not across it.
        let end = path.offset(1)
        #expect(abs(atan2(50 - end.dy, end.dx + 12) - atan2(50, 12) + 30 / radius) < 1e-9)
    }
}
