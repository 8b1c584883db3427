import Foundation
import PopGestureCore
import PopGestureInput
import PopGestureRecording
import PopGestureSynthesis
import Testing

/// The inputs the fuzz targets (`Fuzz/`) once crashed on, minimized, run through the
/// same code as the targets (`ArbitraryInput` + `EngineCheck`, `Recording(parsing:)`),
/// and the real recordings through the engine's invariant.
@Suite struct FuzzRegressionTests {
    /// `Tests/Fixtures/fuzz-regressions/<target>/`, or with `seeds`, `Fuzz/Corpus/<target>/`.
    static func inputs(_ target: String, seeds: Bool = false) -> [(name: String, bytes: [UInt8])] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let folder = seeds
            ? root.deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/\(target)")
            : root.appendingPathComponent("Fixtures/fuzz-regressions/\(target)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().compactMap { name in
            (try? Data(contentsOf: folder.appendingPathComponent(name))).map { (name, Array($0)) }
        }
    }

    @Test("FuzzEngine's crashing inputs run without a trap and keep the invariant")
    func engineRegressions() throws {
        let inputs = Self.inputs("FuzzEngine")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            let input = ArbitraryInput(bytes)
            #expect(throws: Never.self, "\(name)") { _ = try EngineCheck.run(device: input.device, events: input.events) }
        }
    }

    @Test("FuzzEngine's seeds decode to swipes that reach the engine's output (pops, not only refusals)")
    func engineSeedsReachPops() throws {
        let seeds = Self.inputs("FuzzEngine", seeds: true)
        #expect(seeds.count >= 4)
        for (name, bytes) in seeds {
            let input = ArbitraryInput(bytes)
            let outcome = try EngineCheck.run(device: input.device, events: input.events)
            guard case .ran(let frames, let events) = outcome else {
                Issue.record("\(name): \(outcome)")
                continue
            }
            #expect(frames >= 10, "\(name)")
            #expect(events >= 3, "\(name): a swipe that pops produces began, progress, finished, back")
        }
    }

    @Test("FuzzRecordings' crashing inputs give a recording or an error, and recordings keep the invariant")
    func recordingRegressions() throws {
        for (name, bytes) in Self.inputs("FuzzRecordings") {
            guard let recording = try? Recording(parsing: bytes) else { continue }
            #expect(throws: Never.self, "\(name)") {
                _ = try EngineCheck.run(device: recording.device, events: recording.events)
            }
        }
    }

    @Test("FuzzEDID's seeds are EDID base blocks that give the sizes their names say")
    func edidSeeds() throws {
        let seeds = Dictionary(uniqueKeysWithValues: Self.inputs("FuzzEDID", seeds: true).map { ($0.name, $0.bytes) })
        let expected: [String: PhysicalSize?] = [
            "tablet-217x136": PhysicalSize(width: 217, height: 136), "dsi-4.3-inch": PhysicalSize(width: 95, height: 54),
            "portrait-phone": PhysicalSize(width: 68, height: 136), "hdmi-bridge-1600x900": nil, "projector-no-size": nil,
            "name-first": PhysicalSize(width: 260, height: 160), "with-extension": PhysicalSize(width: 344, height: 194),
        ]
        #expect(Set(seeds.keys) == Set(expected.keys))
        for (name, size) in expected {
            let bytes = try #require(seeds[name], "\(name)")
            #expect(try EDID(bytes).physicalSize == size, "\(name)")
        }
        // Every input, kept ones and the seeds: a size, when one is taken, within the parser's bounds.
        for (name, bytes) in Self.inputs("FuzzEDID") {
            guard let edid = try? EDID(bytes), let size = edid.physicalSize else { continue }
            let sides = Double(EDID.minimumSideMillimetres)...Double(EDID.maximumSideMillimetres)
            #expect(sides.contains(size.width) && sides.contains(size.height), "\(name): \(size)")
        }
    }

    @Test("Every shared recording runs through the engine keeping its invariant",
          .enabled(if: SharedRecordings.available, Comment(rawValue: SharedRecordings.absent)))
    func sharedRecordings() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: SharedRecordings.folder)
        var ran = 0
        for name in names.sorted() where name.hasSuffix(".events") || name.hasSuffix(".evemu") || name.hasSuffix(".yml")
            || name.hasSuffix(".yaml") {
            let desc = String(name.prefix { $0 != "." }) + ".desc"
            let recording = try SharedRecordings.recording(
                name, desc: names.contains(desc) && name.hasSuffix(".events") ? desc : nil)
            let outcome = try EngineCheck.run(device: recording.device, events: recording.events)
            guard case .ran(let frames, _) = outcome else {
                Issue.record("\(name): refused: \(outcome)")
                continue
            }
            #expect(frames > 0, "\(name)")
            ran += 1
        }
        #expect(ran >= 10)
    }
}
