@testable import popgestured
@testable import popgestured_replay
import PopGestureDaemon
import Testing

/// The flags are the table's: every key has its flag, and a flag's text reaches its key untouched.
@Suite struct SettingFlagsTests {
    @Test("popgestured run has a flag for every key, and passes its text on as typed")
    func runHasEveryKey() throws {
        for key in Configuration.Key.allCases {
            let run = try Run.parse(["--\(key.flag)", "as-typed"])
            #expect(run.overrides[key] == "as-typed", "--\(key.flag)")
        }
    }

    @Test("popgestured-replay has a flag for every gesture key")
    func replayHasEveryGestureKey() throws {
        // replay checks its flags as it parses them, so each gets a valid value: its default.
        for key in Configuration.Key.gestureKeys {
            let value = Configuration().value(of: key)
            let replay = try Replay.parse(["recording.evemu", "--\(key.flag)", value])
            #expect(replay.options.gesture.overrides[key] == value, "--\(key.flag)")
        }
    }

    @Test("a negative number is a flag's value, not another flag")
    func negativeNumbersAreValues() throws {
        let run = try Run.parse(["--edge-width", "-3", "--rotation", "-90"])
        #expect(run.overrides[.edgeWidth] == "-3")
        #expect(run.overrides[.rotation] == "-90")
    }

    @Test("a flag's refused text is quoted short and escaped in the error")
    func refusedFlagsAreQuotedShort() throws {
        let long = try Run.parse(["--rotation", String(repeating: "9", count: 65_000)])
        let error = #expect(throws: ConfigurationError.self) { try Configuration(overrides: long.overrides) }
        let nines = String(repeating: "9", count: 64)
        #expect(error?.description == #"command line: --rotation: expected auto, 0, 90, 180 or 270, got "\#(nines)…" (65000 bytes)"#)
        let nul = try Run.parse(["--mode", "edge\u{0}"])
        let escaped = #expect(throws: ConfigurationError.self) { try Configuration(overrides: nul.overrides) }
        #expect(escaped?.description == #"command line: --mode: expected fullscreen or edge, got "edge\u{0}""#)
    }

    @Test("-v is --log-level debug")
    func verboseIsDebug() throws {
        #expect(try Run.parse(["-v"]).overrides[.logLevel] == "debug")
    }
}
