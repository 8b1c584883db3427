import PopGestureCore
import PopGestureSynthesis
import Testing

/// The gesture corpus on the recorded touchscreens of ../shared/recordings: panels with
/// and without resolution, from 2 slots to 10, from a 27-inch screen down.
@Suite(.enabled(if: SharedRecordings.available, Comment(rawValue: SharedRecordings.absent)))
struct RecordedCorpusTests {
    @Test("On every recorded touchscreen, the corpus gives what it should in both modes",
          arguments: CorpusDevices.recorded)
    func corpusOnRecordedTouchscreens(desc: String) throws {
        var report = CorpusReport()
        report.add(try CorpusPlayer(device: try SharedRecordings.description(desc)), named: desc, settings: GestureSettings())
        let misses = report.misses.map { "\($0.mode.rawValue): \($0.corpusCase.name): \($0.outcome)" }
        #expect(misses.isEmpty, "\(misses.count) misses, first: \(misses.prefix(5))")
        #expect(report.devices.count == 2 && report.devices.allSatisfy { $0.backsGiven > 300 })
    }
}
