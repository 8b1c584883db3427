@testable import popgestured_replay
import PopGestureDaemon
import Testing

/// The flags are the table's: every key has its flag, and a flag's text reaches its key untouched.
@Suite struct SettingFlagsTests {
    @Test("popgestured run has a flag for every key, and passes its text on as typed")
    func runHasEveryKey() throws {
        for key in Configuration.Key.allCases {
            let run = try parse(["--\(key.flag)", "as-typed"])
            #expect(run.overrides[key] == "as-typed", "--\(key.flag)")
            let joined = try parse(["run", "--\(key.flag)=as=typed"])
            #expect(joined.overrides[key] == "as=typed", "--\(key.flag)=")
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
        let run = try parse(["--edge-width", "-3", "--rotation", "-90"])
        #expect(run.overrides[.edgeWidth] == "-3")
        #expect(run.overrides[.rotation] == "-90")
    }

    @Test("a flag's refused text is quoted short and escaped in the error")
    func refusedFlagsAreQuotedShort() throws {
        let long = try parse(["--rotation", String(repeating: "9", count: 65_000)])
        let error = #expect(throws: ConfigurationError.self) { try Configuration(overrides: long.overrides) }
        let nines = String(repeating: "9", count: 64)
        #expect(error?.description == #"command line: --rotation: expected auto, 0, 90, 180 or 270, got "\#(nines)…" (65000 bytes)"#)
        let nul = try parse(["--mode", "edge\u{0}"])
        let escaped = #expect(throws: ConfigurationError.self) { try Configuration(overrides: nul.overrides) }
        #expect(escaped?.description == #"command line: --mode: expected fullscreen or edge, got "edge\u{0}""#)
    }

    @Test("-v is --log-level debug")
    func verboseIsDebug() throws {
        #expect(try parse(["-v"]).overrides[.logLevel] == "debug")
        #expect(try parse(["--log-level", "info", "--verbose"]).overrides[.logLevel] == "debug")
    }

    @Test("--config and --event-pipe are kept; nothing else is a setting")
    func configurationAndEventPipe() throws {
        let run = try parse(["--config", "/etc/x.conf", "--event-pipe=/tmp/fifo"])
        #expect(run.configurationPath == "/etc/x.conf" && run.eventPipe == "/tmp/fifo")
        #expect(run.overrides == ConfigurationOverrides())
    }

    @Test("an unknown flag, a missing value, a stray word and the old demo are refused with what to do")
    func refusals() {
        for (arguments, message) in [
            (["--edge-widht", "3"], "unknown option '--edge-widht' (popgestured --help lists the flags)"),
            (["--edge-width"], "--edge-width needs a value"),
            (["run", "extra"], "unexpected argument 'extra' (popgestured --help lists the flags)"),
            (["demo"], "the demo is its own program now: popgestured-demo (swift run popgestured-demo)"),
            (["debug-clone"], "debug-clone needs the touchscreen's event node"),
            (["debug-clone", "/dev/input/event3", "--cancel-after", "-1"],
             "debug-clone: --cancel-after needs a number of frames, 0 or more"),
        ] {
            let error = #expect(throws: DaemonArgumentError.self) { try DaemonCommand.parse(arguments) }
            #expect(error?.description == message, "\(arguments)")
        }
    }

    @Test("--help anywhere is the help, which lists every key's flag with its default")
    func help() throws {
        #expect(try DaemonCommand.parse(["--edge-width", "3", "--help"]) == .help)
        #expect(try DaemonCommand.parse(["run", "-h"]) == .help)
        for key in Configuration.Key.allCases {
            #expect(DaemonArguments.usage.contains("  --\(key.flag) VALUE"))
            #expect(DaemonArguments.usage.contains("\n      \(key.summary) Default: \(Configuration().value(of: key)).\n"))
        }
    }

    @Test("debug-clone takes its node, --grab and --cancel-after")
    func debugClone() throws {
        #expect(try DaemonCommand.parse(["debug-clone", "/dev/input/event3", "--grab", "--cancel-after", "8"])
                == .debugClone(devnode: "/dev/input/event3", grab: true, cancelAfter: 8))
        #expect(try DaemonCommand.parse(["debug-clone", "/dev/input/event3"])
                == .debugClone(devnode: "/dev/input/event3", grab: false, cancelAfter: 0))
    }

    private func parse(_ arguments: [String]) throws -> DaemonArguments {
        guard case .run(let run) = try DaemonCommand.parse(arguments) else {
            Issue.record("\(arguments) is not a run")
            return DaemonArguments()
        }
        return run
    }
}
