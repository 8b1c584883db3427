import Foundation
import Testing

/// `popgestured-replay` as a user runs it: the real binary, real files.
@Suite(.enabled(if: SharedRecordings.available, Comment(rawValue: SharedRecordings.absent)))
struct ReplayCommandTests {
    /// The binary sits beside the test bundle in the build folder.
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("popgestured-replay").path
    }

    static func run(_ arguments: [String], binary: String = binary) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test("replay prints the back an RTL client receives, as JSON lines, the same each time")
    func printsBack() throws {
        let arguments = [SharedRecordings.path("synaptics.leftmove.events"),
                         "--desc", SharedRecordings.path("synaptics.desc"), "--pan", "one-finger", "--layout", "rtl"]
        let first = try Self.run(arguments)
        #expect(first.status == 0, "\(first.err)")
        let lines = first.out.split(separator: "\n").map(String.init)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.first?["type"] as? String == "pop-began")
        let back = try #require(objects.first { $0["type"] as? String == "back" })
        #expect(back["popped"] as? String == "page2" && back["top"] as? String == "page1")
        #expect(objects.last?["type"] as? String == "bar")
        #expect(try Self.run(arguments).out == first.out)
    }

    @Test("replay of a headerless events file without --desc fails with a clear message")
    func missingDescription() throws {
        let result = try Self.run([SharedRecordings.path("synaptics.leftmove.events")])
        #expect(result.status != 0)
        #expect(result.err.contains("synaptics.leftmove.events"))
        #expect(result.err.contains(".desc"))
    }

    @Test("--transitioning with only a root page is refused with a clear message")
    func transitioningNeedsTwoPages() throws {
        let result = try Self.run([SharedRecordings.path("dell-canvas-touch.evemu"), "--transitioning",
                                   "--depth", "1"])
        #expect(result.status != 0)
        #expect(result.err.contains("--transitioning"))
    }

    @Test("--depth 1 gives the owner nothing; --observer shows why")
    func observerSeesReasons() throws {
        let path = SharedRecordings.path("synaptics.leftmove.events")
        let desc = SharedRecordings.path("synaptics.desc")
        let owner = try Self.run([path, "--desc", desc, "--pan", "one-finger", "--layout", "rtl", "--depth", "1"])
        #expect(owner.status == 0 && owner.out.isEmpty)
        let observer = try Self.run([path, "--desc", desc, "--pan", "one-finger", "--layout", "rtl",
                                     "--depth", "1", "--observer"])
        #expect(observer.out.contains("\"reason\":\"stack-too-shallow\""))
    }
}

/// `replay` takes the daemon's gesture flags and checks them as the daemon does,
/// before it reads the recording (so these need none).
@Suite struct ReplaySettingsTests {
    @Test("replay --edge-width -3 is refused with the daemon's words")
    func aNegativeEdgeWidthIsRefused() throws {
        let replay = try ReplayCommandTests.run(["/nonexistent.evemu", "--edge-width", "-3"])
        let daemon = try ReplayCommandTests.run(
            ["--edge-width", "-3"],
            binary: URL(fileURLWithPath: ReplayCommandTests.binary).deletingLastPathComponent()
                .appendingPathComponent("popgestured").path)
        let message = #"command line: --edge-width: expected a number of millimetres above 0, got "-3""#
        #expect(replay.status != 0)
        #expect(replay.err.contains(message))
        #expect(daemon.status != 0)
        #expect(daemon.err.contains(message))
    }

    @Test("replay refuses a commit progress of 2 and a rotation of 45, as the file would")
    func outOfRangeValuesAreRefused() throws {
        let progress = try ReplayCommandTests.run(["/nonexistent.evemu", "--commit-progress", "2"])
        #expect(progress.status != 0)
        #expect(progress.err.contains(#"command line: --commit-progress: expected a number between 0 and 1, got "2""#))
        let rotation = try ReplayCommandTests.run(["/nonexistent.evemu", "--rotation", "45"])
        #expect(rotation.err.contains(#"command line: --rotation: expected auto, 0, 90, 180 or 270, got "45""#))
    }
}

/// `popgestured-replay corpus` as a user runs it; the project's own tablets need no recordings.
@Suite struct CorpusCommandTests {
    @Test("corpus prints the old and the new defaults' tables: the old miss edge backs, the new miss none")
    func printsBothTables() throws {
        let result = try ReplayCommandTests.run(
            ["corpus", "--recordings", "/nonexistent", "--defaults", "before-22", "--defaults", "current"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("/nonexistent is absent"))
        let halves = result.out.components(separatedBy: "### Corpus, current defaults")
        try #require(halves.count == 2)
        let (before, now) = (halves[0], halves[1])
        #expect(before.contains("### Corpus, defaults before issue 22"))
        let landscapeEdge = "| tablet (landscape), 217×136 mm | edge | 376 |"
        #expect(before.contains(landscapeEdge) && now.contains(landscapeEdge))
        // 256 thumb arcs per tablet, on two tablets; timed from the landing (issue 27), the
        // old thresholds miss 128 of them (144 timed between reports).
        #expect(before.contains("| thumb arc | edge | 512 | 384 | 128 (cancelled: released 128) |"))
        #expect(now.contains("| thumb arc | edge | 512 | 512 | 0 | 0 | 0 |"))
        #expect(!now.contains("cancelled: released"))
    }

    @Test("corpus --sampled test prints the family × rate table over the five panels")
    func printsTheSampledTable() throws {
        let result = try ReplayCommandTests.run(["corpus", "--sampled", "test", "--per-family", "2", "--rate", "60", "--rate", "240"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("### The test set, 2 per family per panel, current defaults"))
        #expect(result.out.contains("| family | 60 Hz | 240 Hz |"))
        // 2 cases × 5 panels × 2 modes: 20 plays a family, 200 a rate.
        #expect(result.out.contains("| thumb arc | 100.0 % | 100.0 % |"))
        #expect(result.out.contains("of 200 |"))
        #expect(result.out.contains("5-inch phone, portrait") && result.out.contains("24-inch monitor"))
    }

    @Test("corpus --misses lists each case that did not give what it should, with what it gave")
    func listsMisses() throws {
        let result = try ReplayCommandTests.run(["corpus", "--recordings", "/nonexistent", "--defaults", "before-22", "--misses"])
        #expect(result.status == 0)
        #expect(result.out.contains("- tablet (portrait), 136×217 mm, fullscreen: text selection: press"))
        #expect(result.out.contains("expected no back, got back (progress)"))
    }

    @Test("corpus refuses a frame interval of 0 and a device that is no slot touchscreen")
    func refusals() throws {
        let zero = try ReplayCommandTests.run(["corpus", "--frame-interval", "0"])
        #expect(zero.status != 0 && zero.err.contains("--frame-interval"))
        guard SharedRecordings.available else { return }
        let protocolA = try ReplayCommandTests.run(["corpus", "--device", SharedRecordings.path("ntrig-multitouch.desc")])
        #expect(protocolA.status != 0 && protocolA.err.contains("needs a protocol B (slots) touchscreen"))
    }
}
