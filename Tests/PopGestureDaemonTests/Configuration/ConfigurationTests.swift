import Dispatch
import Logging
import PopGestureCore
@testable import PopGestureDaemon
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

private let path = "/etc/popgestured/popgestured.conf"

/// Every key set away from its default, with the comments, blank lines, odd
/// spacing and Windows line ending a hand-edited file has.
private let everyKey = """
    # popgestured configuration
    mode = edge
    edge-width-mm = 6.5

      decision-distance-mm=3
    max-angle-degrees =  45
    commit-progress = 0.5\r
    fling-velocity-mm-per-s = 250
    edge-max-angle-degrees = 40
    fling-min-distance-mm = 12
    fling-min-duration-ms = 60
    edge-fling-velocity-mm-per-s = 90
    edge-fling-min-distance-mm = 5
    edge-fling-min-duration-ms = 20
    long-press-ms = off
    long-press-slop-mm = 3
    layout = rtl
    transition-timeout-ms = 750
    rotation = 270
    touchpads = off
    screen = eDP-1
    grab = on
    socket = /run/popgestured/other#1.sock
    clients = any
    max-clients = 1024
    log-level = debug
    back-input = KEY_BACK
    back-input-mode = fullscreen
    user-locked = mode, back-input
    """

@Suite struct ConfigurationDefaultsTests {
    @Test func defaultsAreTheCoreDefaults() {
        let configuration = Configuration()
        #expect(configuration.gesture == GestureSettings())
        #expect(configuration.defaultLayout == NavigationState().defaultLayout)
        #expect(configuration.transitionTimeout == NavigationState().transitionTimeout)
        #expect(configuration.rotation == DeviceConfiguration().rotation)
        #expect(configuration.touchpads.panSource == PanSettings.defaults(for: .touchpad).source)
        #expect(configuration.touchpads == .twoFinger)
        #expect(configuration.socketPath == "/run/popgestured/popgestured.sock")
        #expect(configuration.clients == .seat)
        #expect(configuration.logLevel == .info)
    }

    @Test func anEmptyFileGivesTheDefaults() throws {
        #expect(try Configuration.parse("", path: path) == Configuration())
        #expect(try Configuration.parse("# nothing\n\n   \n", path: path) == Configuration())
    }

    @Test func missingDefaultFileGivesTheDefaults() throws {
        let configuration = try Configuration.load(
            file: nil, defaultPath: "/nonexistent/popgestured.conf", overrides: .init())
        #expect(configuration == Configuration())
    }

    @Test func theDefaultFileIsRead() throws {
        let file = try TemporaryFile("commit-progress = 0.6\n")
        defer { file.remove() }
        let configuration = try Configuration.load(file: nil, defaultPath: file.path, overrides: .init())
        #expect(configuration.gesture.commitProgress == 0.6)
    }

    @Test func missingExplicitFileIsAnError() {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.load(file: "/nonexistent/popgestured.conf")
        }
        #expect(error?.code == .missingFile)
        #expect(error?.path == "/nonexistent/popgestured.conf")
        #expect(error?.description == "/nonexistent/popgestured.conf: no such file")
    }

    @Test func aDirectoryIsAnErrorEvenAsTheDefault() {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.load(file: nil, defaultPath: "/tmp", overrides: .init())
        }
        #expect(error?.code == .notRegularFile)
        #expect(error?.description == "/tmp: not a regular file but a directory")
    }
}

@Suite struct ConfigurationParsingTests {
    @Test func everyKeyIsRead() throws {
        let configuration = try Configuration.parse(everyKey, path: path)
        #expect(configuration.gesture.mode == .edge)
        #expect(configuration.gesture.edgeWidthMillimetres == 6.5)
        #expect(configuration.gesture.decisionDistanceMillimetres == 3)
        #expect(configuration.gesture.maxAngleDegrees == 45)
        #expect(configuration.gesture.commitProgress == 0.5)
        #expect(configuration.gesture.flingVelocityMillimetresPerSecond == 250)
        #expect(configuration.gesture.edgeMaxAngleDegrees == 40)
        #expect(configuration.gesture.flingMinimumDistanceMillimetres == 12)
        #expect(configuration.gesture.flingMinimumDuration == .milliseconds(60))
        #expect(configuration.gesture.edgeFlingVelocityMillimetresPerSecond == 90)
        #expect(configuration.gesture.edgeFlingMinimumDistanceMillimetres == 5)
        #expect(configuration.gesture.edgeFlingMinimumDuration == .milliseconds(20))
        #expect(configuration.gesture.longPressDuration == nil)
        #expect(configuration.gesture.longPressSlopMillimetres == 3)
        #expect(configuration.defaultLayout == .rightToLeft)
        #expect(configuration.transitionTimeout == .milliseconds(750))
        #expect(configuration.rotation == .clockwise270)
        #expect(configuration.touchpads == .off)
        #expect(configuration.screen == .named("eDP-1"))
        #expect(configuration.grab == .on)
        #expect(configuration.socketPath == "/run/popgestured/other#1.sock")
        #expect(configuration.clients == .any)
        #expect(configuration.maximumClients == 1024)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.backInput.standard?.spelling == "back")
        #expect(configuration.backInputMode == .fullscreen)
        #expect(configuration.userLocked == ["mode", "back-input"])
        // The sample really covers every key: none is left at its default.
        #expect(configuration.changedKeys(since: Configuration()) == Set(Configuration.Key.allCases))
    }

    @Test(arguments: [
        ("mode", "fullscreen"), ("mode", "edge"), ("layout", "ltr"), ("layout", "rtl"),
        ("rotation", "0"), ("rotation", "90"), ("rotation", "180"), ("rotation", "270"),
        ("touchpads", "off"), ("touchpads", "two-finger"), ("touchpads", "one-finger"),
        ("grab", "off"), ("grab", "on"), ("max-clients", "1"), ("max-clients", "2048"), ("screen", "all"), ("screen", "HDMI-A-1"), ("screen", "ELAN Touchscreen"),
        ("clients", "seat"), ("clients", "any"), ("log-level", "trace"), ("log-level", "notice"), ("log-level", "critical"),
        ("commit-progress", "0"), ("commit-progress", "1"), ("max-angle-degrees", "90"),
        ("transition-timeout-ms", "0"), ("transition-timeout-ms", "60000"), ("edge-width-mm", "1e1"),
        ("back-input", "none"), ("back-input", "side"), ("back-input", "Ctrl+BTN_EXTRA"),
        ("back-input-mode", "fullscreen"), ("back-input-mode", "edge"),
        ("long-press-ms", "off"), ("long-press-ms", "1"), ("long-press-ms", "10000"), ("fling-min-duration-ms", "0"),
        ("edge-fling-min-duration-ms", "1000"), ("edge-fling-min-distance-mm", "0"), ("edge-max-angle-degrees", "90"),
    ])
    func everyAllowedValueIsTaken(key: String, value: String) throws {
        let configuration = try Configuration.parse("\(key) = \(value)", path: path)
        let parsedKey = try #require(Configuration.Key(rawValue: key))
        #expect(try Configuration.parse("\(key) = \(configuration.value(of: parsedKey))", path: path) == configuration)
    }

    @Test func aValueRunsFromTheFirstEqualsSignToTheEndOfTheLine() throws {
        let configuration = try Configuration.parse("socket = /run/a=b # c.sock  ", path: path)
        #expect(configuration.socketPath == "/run/a=b # c.sock")
    }

    @Test func theFileContentsParseBackToTheSameConfiguration() throws {
        let configuration = try Configuration.parse(everyKey, path: path)
        #expect(try Configuration.parse(Self.file(of: configuration), path: path) == configuration)
        #expect(try Configuration.parse(Self.file(of: Configuration()), path: path) == Configuration())
    }

    /// Every key with its value, one line each, as a hand-written file would have them.
    static func file(of configuration: Configuration) -> String {
        Configuration.Key.allCases.map { "\($0.rawValue) = \(configuration.value(of: $0))\n" }.joined()
    }

    @Test func aRealFileIsRead() throws {
        let file = try TemporaryFile(everyKey)
        defer { file.remove() }
        #expect(try Configuration.load(file: file.path) == Configuration.parse(everyKey, path: path))
    }
}

@Suite struct ConfigurationErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let code: ConfigurationError.Code
        let line: Int
        let key: String?
        let description: String
        var testDescription: String { description }
    }

    static let cases: [Case] = [
        Case(text: "# comment\nmode = edge\n\n\n\n\ncommit-progress = lots", code: .invalidValue, line: 7,
             key: "commit-progress",
             description: #"\#(path):7: commit-progress: expected a number between 0 and 1, got "lots""#),
        Case(text: "commit-progress = 1.5", code: .invalidValue, line: 1, key: "commit-progress",
             description: #"\#(path):1: commit-progress: expected a number between 0 and 1, got "1.5""#),
        Case(text: "\nmax-angle-degrees = 120", code: .invalidValue, line: 2, key: "max-angle-degrees",
             description: #"\#(path):2: max-angle-degrees: expected a number of degrees above 0 and at most 90, got "120""#),
        Case(text: "edge-width-mm = 0", code: .invalidValue, line: 1, key: "edge-width-mm",
             description: #"\#(path):1: edge-width-mm: expected a number of millimetres above 0, got "0""#),
        Case(text: "decision-distance-mm = nan", code: .invalidValue, line: 1, key: "decision-distance-mm",
             description: #"\#(path):1: decision-distance-mm: expected a number of millimetres above 0, got "nan""#),
        Case(text: "fling-velocity-mm-per-s = fast", code: .invalidValue, line: 1, key: "fling-velocity-mm-per-s",
             description: #"\#(path):1: fling-velocity-mm-per-s: expected a number of millimetres per second above 0, got "fast""#),
        Case(text: "transition-timeout-ms = 1.5", code: .invalidValue, line: 1, key: "transition-timeout-ms",
             description: #"\#(path):1: transition-timeout-ms: expected a whole number of milliseconds between 0 and 60000, got "1.5""#),
        Case(text: "rotation = 45", code: .invalidValue, line: 1, key: "rotation",
             description: #"\#(path):1: rotation: expected auto, 0, 90, 180 or 270, got "45""#),
        Case(text: "rotation = -90", code: .invalidValue, line: 1, key: "rotation",
             description: #"\#(path):1: rotation: expected auto, 0, 90, 180 or 270, got "-90""#),
        Case(text: "mode = Edge", code: .invalidValue, line: 1, key: "mode",
             description: #"\#(path):1: mode: expected fullscreen or edge, got "Edge""#),
        Case(text: "layout =", code: .invalidValue, line: 1, key: "layout",
             description: #"\#(path):1: layout: expected ltr or rtl, got """#),
        Case(text: "touchpads = two-fingers", code: .invalidValue, line: 1, key: "touchpads",
             description: #"\#(path):1: touchpads: expected off, two-finger or one-finger, got "two-fingers""#),
        Case(text: "screen =", code: .invalidValue, line: 1, key: "screen",
             description: #"\#(path):1: screen: expected all, or the WL_OUTPUT or name of a touchscreen (no control characters), got """#),
        Case(text: "socket = run/popgestured.sock", code: .invalidValue, line: 1, key: "socket",
             description: #"\#(path):1: socket: expected an absolute path of at most 107 bytes, got "run/popgestured.sock""#),
        Case(text: "clients = nobody", code: .invalidValue, line: 1, key: "clients",
             description: #"\#(path):1: clients: expected seat or any, got "nobody""#),
        Case(text: "log-level = verbose", code: .invalidValue, line: 1, key: "log-level",
             description: #"\#(path):1: log-level: expected trace, debug, info, notice, warning, error or critical, got "verbose""#),
        Case(text: "commit-progress = 0.4 # a bit easier", code: .invalidValue, line: 1, key: "commit-progress",
             description: #"\#(path):1: commit-progress: expected a number between 0 and 1, got "0.4 # a bit easier" (comments must be on a line of their own)"#),
        Case(text: "mode = edge\nedge-width = 6", code: .unknownKey, line: 2, key: "edge-width",
             description: "\(path):2: edge-width: unknown key (did you mean edge-width-mm?)"),
        Case(text: "log_level = debug", code: .unknownKey, line: 1, key: "log_level",
             description: "\(path):1: log_level: unknown key (did you mean log-level?)"),
        Case(text: "colour = blue", code: .unknownKey, line: 1, key: "colour",
             description: "\(path):1: colour: unknown key"),
        Case(text: "mode = edge\n# again\nmode = fullscreen", code: .duplicateKey, line: 3, key: "mode",
             description: "\(path):3: mode: set again; first set on line 1"),
        Case(text: "mode = edge\ncommit-progress 0.3", code: .notKeyValue, line: 2, key: "commit-progress",
             description: #"\#(path):2: commit-progress: expected "key = value", got "commit-progress 0.3""#),
        Case(text: "[gesture]", code: .unknownSection, line: 1, key: nil,
             description: #"\#(path):1: unknown section "[gesture]"; the only one is [back-input]"#),
        Case(text: "[back-input]\nfirefox = alt+lft", code: .invalidValue, line: 2, key: "[back-input] firefox",
             description: #"\#(path):2: [back-input] firefox: "lft" is no key or button name (such as left, back, side or KEY_BACK)"#),
        Case(text: "mode = edge\r\nrotation = 45\r\n", code: .invalidValue, line: 2, key: "rotation",
             description: #"\#(path):2: rotation: expected auto, 0, 90, 180 or 270, got "45""#),
        Case(text: "= 0.3", code: .notKeyValue, line: 1, key: nil,
             description: #"\#(path):1: expected "key = value", got "= 0.3""#),
    ]

    @Test(arguments: cases)
    func errorsNameTheFileLineAndKey(_ testCase: Case) {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.parse(testCase.text, path: path)
        }
        #expect(error?.code == testCase.code)
        #expect(error?.path == path)
        #expect(error?.line == testCase.line)
        #expect(error?.key == testCase.key)
        #expect(error?.description == testCase.description)
    }

    @Test func anErrorInARealFileNamesThatFile() throws {
        let file = try TemporaryFile("mode = edge\nrotation = 45\n")
        defer { file.remove() }
        let error = #expect(throws: ConfigurationError.self) { try Configuration.load(file: file.path) }
        #expect(error?.description == #"\#(file.path):2: rotation: expected auto, 0, 90, 180 or 270, got "45""#)
    }
}

/// What the file says is quoted short and escaped in an error (`quoted(_:limit:)`): a
/// 65,000-byte line or a NUL cannot make a long or broken log line.
@Suite struct ConfigurationErrorBoundsTests {
    static let long = String(repeating: "x", count: 65_000)
    static let excerpt = "\"" + String(repeating: "x", count: 64) + "…\" (65000 bytes)"

    @Test("a 65,000-byte key in a real file: a message under 200 bytes; the error keeps the key")
    func aLongKeyInARealFile() throws {
        let file = try TemporaryFile("mode = edge\n\(Self.long) = 1\n")
        defer { file.remove() }
        let error = #expect(throws: ConfigurationError.self) { try Configuration.load(file: file.path) }
        #expect(error?.code == .unknownKey)
        #expect(error?.key == Self.long)
        #expect(error?.description == "\(file.path):2: \(Self.excerpt): unknown key")
        #expect((error?.description.utf8.count ?? .max) < 200)
    }

    @Test("a NUL and other control characters are escaped, in a value and in a key")
    func controlCharactersAreEscaped() throws {
        let file = try TemporaryFile(bytes: Array("mode = ed\u{0}ge\n".utf8))
        defer { file.remove() }
        let error = #expect(throws: ConfigurationError.self) { try Configuration.load(file: file.path) }
        #expect(error?.description == #"\#(file.path):1: mode: expected fullscreen or edge, got "ed\u{0}ge""#)
        let key = #expect(throws: ConfigurationError.self) { try Configuration.parse("mo\u{1B}[2Jde = edge", path: path) }
        #expect(key?.description == #"\#(path):1: "mo\u{1b}[2Jde": unknown key"#)
        let input = #expect(throws: ConfigurationError.self) { try Configuration.parse("back-input = alt+\u{7}", path: path) }
        #expect(input?.message.hasSuffix(#"got "alt+\u{7}": "\u{7}" is no key or button name (such as left, back, side or KEY_BACK)"#) == true)
    }

    @Test(arguments: [
        ("mode = \(long)", ConfigurationError.Code.invalidValue),
        ("\(long)", .notKeyValue),
        ("[\(long)]", .unknownSection),
        ("[back-input]\n\(long) = side", .invalidAppID),
        ("[back-input]\nfire\u{0}fox = side", .invalidAppID),
        ("back-input = \(long)", .invalidValue),
    ])
    func everyErrorIsShort(text: String, code: ConfigurationError.Code) {
        let error = #expect(throws: ConfigurationError.self) { try Configuration.parse(text, path: path) }
        #expect(error?.code == code)
        let description = error?.description ?? ""
        // At most two quotes of 64 bytes each, and words around them.
        #expect(description.utf8.count < 300, "\(description.utf8.count) bytes")
        #expect(!description.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(description)")
    }

    @Test("a quoted value is the same on the command line")
    func commandLine() {
        let error = #expect(throws: ConfigurationError.self) { try Configuration(overrides: [.commitProgress: Self.long]) }
        #expect(error?.description == "command line: --commit-progress: expected a number between 0 and 1, got \(Self.excerpt)")
    }
}

@Suite struct ConfigurationOverrideTests {
    @Test func overridesBeatTheFile() throws {
        let file = try TemporaryFile("commit-progress = 0.5\nmode = edge\nrotation = 90\n")
        defer { file.remove() }
        let configuration = try Configuration.load(
            file: file.path, overrides: [.commitProgress: "0.4", .rotation: "180"])
        #expect(configuration.gesture.commitProgress == 0.4)
        #expect(configuration.rotation == .upsideDown)
        #expect(configuration.gesture.mode == .edge)  // not overridden: the file's
        #expect(configuration.gesture.maxAngleDegrees == GestureSettings().maxAngleDegrees)  // in neither
    }

    @Test func everyOverrideIsApplied() throws {
        let overrides: ConfigurationOverrides = [
            .mode: "edge", .edgeWidth: "7", .decisionDistance: "5", .maxAngle: "20",
            .commitProgress: "0.6", .flingVelocity: "300", .layout: "rtl",
            .transitionTimeout: "500", .rotation: "90", .touchpads: "one-finger",
            .socket: "/tmp/pg.sock", .clients: "any", .logLevel: "trace", .screen: "DSI-1",
            .backInput: "none", .backInputMode: "fullscreen", .grab: "on", .maximumClients: "5",
            .edgeMaxAngle: "35", .flingMinimumDistance: "8", .flingMinimumDuration: "40", .edgeFlingVelocity: "100",
            .edgeFlingMinimumDistance: "6", .edgeFlingMinimumDuration: "25", .longPress: "600", .longPressSlop: "1.5",
            .userLocked: "edge-width-mm",
        ]
        let configuration = try Configuration.parse("", path: path, overrides: overrides)
        #expect(configuration.changedKeys(since: Configuration()) == Set(Configuration.Key.allCases))
        #expect(configuration.transitionTimeout == .milliseconds(500))
        #expect(configuration.socketPath == "/tmp/pg.sock")
        #expect(configuration.touchpads == .oneFinger)
        #expect(configuration.clients == .any)
        #expect(configuration.gesture.longPressDuration == .milliseconds(600))
        #expect(configuration.gesture.edgeFlingMinimumDuration == .milliseconds(25))
    }

    @Test func aBadOverrideIsRefusedWithTheFilesWords() {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.parse("", path: path, overrides: [.commitProgress: "2"])
        }
        #expect(error?.origin == .commandLine)
        #expect(error?.key == "commit-progress")
        #expect(error?.description == #"command line: --commit-progress: expected a number between 0 and 1, got "2""#)

        let rotation = #expect(throws: ConfigurationError.self) {
            try Configuration.parse("", path: path, overrides: [.rotation: "45"])
        }
        #expect(rotation?.description == #"command line: --rotation: expected auto, 0, 90, 180 or 270, got "45""#)
    }

    /// One table reads both: a value the file refuses, the flag refuses with the same
    /// words, naming the flag as typed (`--edge-width`, not the file's `edge-width-mm`).
    @Test(arguments: [
        ("edge-width-mm", "-3"), ("decision-distance-mm", "0"), ("max-angle-degrees", "91"),
        ("commit-progress", "1.5"), ("fling-velocity-mm-per-s", "nan"), ("transition-timeout-ms", "60001"),
        ("rotation", "-90"), ("mode", "sideways"), ("layout", "up"), ("touchpads", "three-finger"),
        ("socket", "relative.sock"), ("clients", "nobody"), ("log-level", "loud"),
        ("back-input", "alt+leftt"), ("back-input", "alt+alt"), ("back-input", ""), ("back-input-mode", "anywhere"),
        ("grab", "yes"), ("max-clients", "0"), ("max-clients", "2049"), ("max-clients", "lots"),
        ("edge-max-angle-degrees", "0"), ("fling-min-distance-mm", "-1"), ("fling-min-duration-ms", "1001"),
        ("edge-fling-velocity-mm-per-s", "0"), ("edge-fling-min-distance-mm", "inf"), ("edge-fling-min-duration-ms", "2.5"),
        ("long-press-ms", "0"), ("long-press-ms", "never"), ("long-press-ms", ""), ("long-press-slop-mm", "0"),
    ])
    func aFlagIsRefusedWithTheFilesWords(name: String, text: String) throws {
        let key = try #require(Configuration.Key(rawValue: name))
        let file = #expect(throws: ConfigurationError.self) { try Configuration.parse("\(name) = \(text)", path: path) }
        let flag = #expect(throws: ConfigurationError.self) { try Configuration(overrides: [key: text]) }
        #expect(flag?.message == file?.message)
        #expect(flag?.description == "command line: --\(key.flag): \(file?.message ?? "")")
    }

    @Test func aSocketPathLongerThanSunPathIsRefused() {
        let longest = "/" + String(repeating: "s", count: 106)
        #expect((try? Configuration(overrides: [.socket: longest]))?.socketPath == longest)
        let error = #expect(throws: ConfigurationError.self) { try Configuration(overrides: [.socket: longest + "s"]) }
        #expect(error?.message.hasPrefix("expected an absolute path of at most 107 bytes") == true)
    }

    @Test func everyKeysFlagIsItsNameWithoutItsUnit() {
        #expect(Configuration.Key.allCases.map(\.flag) == [
            "mode", "edge-width", "decision-distance", "max-angle", "edge-max-angle", "commit-progress",
            "fling-velocity", "fling-min-distance", "fling-min-duration", "edge-fling-velocity",
            "edge-fling-min-distance", "edge-fling-min-duration", "long-press", "long-press-slop", "layout",
            "transition-timeout", "rotation", "touchpads", "screen", "grab", "socket", "clients", "max-clients", "log-level",
            "back-input", "back-input-mode", "user-locked",
        ])
    }

    @Test func anOverrideDoesNotExcuseABadFile() {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.parse("commit-progress = lots", path: path, overrides: [.commitProgress: "0.4"])
        }
        #expect(error?.line == 1)
    }
}

@Suite struct ConfigurationReloadTests {
    @Test func aGoodReloadReplacesAndNamesWhatChanged() throws {
        let file = try TemporaryFile("commit-progress = 0.5\n")
        defer { file.remove() }
        var configuration = try Configuration.load(file: file.path)
        try file.write("commit-progress = 0.5\nlayout = rtl\nsocket = /tmp/other.sock\n")
        let result = configuration.reload(file: file.path)
        #expect(try result.get() == [.layout, .socket])
        #expect(configuration.defaultLayout == .rightToLeft)
    }

    @Test func aBadReloadKeepsTheOldConfiguration() throws {
        let file = try TemporaryFile("commit-progress = 0.5\n")
        defer { file.remove() }
        var configuration = try Configuration.load(file: file.path)
        let before = configuration
        try file.write("commit-progress = 0.5\nmode = sideways\n")
        guard case .failure(let error) = configuration.reload(file: file.path) else {
            Issue.record("a bad file reloaded")
            return
        }
        #expect(error.line == 2)
        #expect(error.key == "mode")
        #expect(configuration == before)
    }

    @Test func overridesStillWinAfterAReload() throws {
        let file = try TemporaryFile("commit-progress = 0.5\n")
        defer { file.remove() }
        let overrides: ConfigurationOverrides = [.commitProgress: "0.4"]
        var configuration = try Configuration.load(file: file.path, overrides: overrides)
        try file.write("commit-progress = 0.7\nmode = edge\n")
        #expect(try configuration.reload(file: file.path, overrides: overrides).get() == [.mode])
        #expect(configuration.gesture.commitProgress == 0.4)
    }
}

@Suite struct ConfigurationMappingTests {
    @Test func touchscreensGetTheRotation() throws {
        var configuration = Configuration()
        configuration.rotation = .clockwise90
        let calibration = CalibrationMatrix(0, 1, 0, 1, 0, 0)
        let device = try #require(configuration.deviceConfiguration(for: .touchscreen, calibration: calibration))
        #expect(device.rotation == .clockwise90)
        #expect(device.calibration == calibration)
        #expect(device.pan == nil)  // the engine's one-finger default
    }

    @Test(arguments: [(TouchpadMode.off, PanSource?.none), (.twoFinger, .twoFingerCentroid), (.oneFinger, .oneFinger)])
    func touchpadsFollowTheirSetting(mode: TouchpadMode, source: PanSource?) {
        var configuration = Configuration()
        configuration.touchpads = mode
        let device = configuration.deviceConfiguration(for: .touchpad)
        #expect((device == nil) == (mode == .off))
        #expect(device?.pan?.source == source)
    }

    @Test func applyingSetsTheEngine() throws {
        let configuration = try Configuration.parse(everyKey, path: path)
        var engine = GestureEngine()
        configuration.apply(to: &engine)
        #expect(engine.settings == configuration.gesture)
        #expect(engine.transitionTimeout == .milliseconds(750))
        #expect(engine.defaultLayout == .rightToLeft)
    }
}

/// Only a regular UTF-8 file of at most 64 KiB is read (issue 7: `--config /dev/zero`
/// read until memory ran out, and a FIFO blocked the start for ever).
@Suite struct ConfigurationFileLimitTests {
    /// A valid file of exactly `size` bytes: one key, then a comment filling the rest.
    static func file(ofSize size: Int) -> [UInt8] {
        let key = Array("mode = edge\n#".utf8)
        return key + [UInt8](repeating: UInt8(ascii: "x"), count: size - key.count - 1) + [UInt8(ascii: "\n")]
    }

    @Test func exactly64KiBIsRead() throws {
        #expect(ConfigurationFile.maximumSize == 65_536)
        let file = try TemporaryFile(bytes: Self.file(ofSize: 65_536))
        defer { file.remove() }
        #expect(try Configuration.load(file: file.path).gesture.mode == .edge)
    }

    @Test func oneByteMoreIsRefused() throws {
        let file = try TemporaryFile(bytes: Self.file(ofSize: 65_537))
        defer { file.remove() }
        let error = #expect(throws: ConfigurationError.self) { try Configuration.load(file: file.path) }
        #expect(error?.code == .fileTooLarge)
        #expect(error?.line == nil)
        #expect(error?.description == "\(file.path): a configuration file may have at most 65536 bytes; this one has 65537 bytes")
    }

    @Test func devZeroIsRefusedUnread() {
        let error = #expect(throws: ConfigurationError.self) { try Configuration.load(file: "/dev/zero") }
        #expect(error?.code == .notRegularFile)
        #expect(error?.description == "/dev/zero: not a regular file but a character device")
    }

    @Test func aDirectoryIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = #expect(throws: ConfigurationError.self) { try Configuration.load(file: directory.path) }
        #expect(error?.code == .notRegularFile)
        #expect(error?.description == "\(directory.path): not a regular file but a directory")
    }

    /// If the open ever blocked, the test opens the FIFO's other end after 5 s so
    /// that it fails instead of hanging.
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path + "/popgestured.conf"
        guard mkfifo(fifo, 0o600) == 0 else { throw SystemCallError(errno) }
        let finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Configuration, ConfigurationError>?>(nil)
        DispatchQueue.global().async {
            let result = Result { () throws(ConfigurationError) in try Configuration.load(file: fifo) }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        if finished.wait(timeout: .now() + 5) == .timedOut {
            Issue.record("reading a FIFO blocked for 5 s")
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            finished.wait()
        }
        guard case .failure(let error) = outcome.withLock({ $0 }) else {
            Issue.record("a FIFO was read as a configuration")
            return
        }
        #expect(error.code == .notRegularFile)
        #expect(error.description == "\(fifo): not a regular file but a FIFO")
    }

    @Test func invalidUTF8NamesItsLine() throws {
        // Line 3 holds a lone continuation byte; line 2 has valid multi-byte text.
        let bytes = Array("mode = edge\r\n# r\u{e9}glages \u{1F44B}\n# caf".utf8) + [0xE9] + Array("\nrotation = 90\n".utf8)
        let file = try TemporaryFile(bytes: bytes)
        defer { file.remove() }
        let error = #expect(throws: ConfigurationError.self) { try Configuration.load(file: file.path) }
        #expect(error?.code == .invalidUTF8)
        #expect(error?.line == 3)
        #expect(error?.description == "\(file.path):3: not valid UTF-8")
    }

    @Test(arguments: [
        ([0xFF] as [UInt8], 1), (Array("a\n\nb".utf8) + [0xC3], 3), (Array("a\rb\n".utf8) + [0x80], 3),
    ])
    func theFirstInvalidLineIsCountedAsTheParserCounts(bytes: [UInt8], line: Int) {
        #expect(ConfigurationFile.firstInvalidLine(bytes) == line)
    }

    @Test func validUTF8HasNoInvalidLine() {
        #expect(ConfigurationFile.firstInvalidLine(Array("mode = edge\n# \u{e9}\n".utf8)) == nil)
    }
}

/// A directory under /tmp; `defer { directory.remove() }` after making one.
private struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/popgestured-config-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw SystemCallError(errno) }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    func remove() {
        // At most one FIFO or file inside; rmdir refuses anything more.
        if let entries = opendir(path) {
            while let entry = readdir(entries) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(entries)
        }
        rmdir(path)
    }
}

/// A file under /tmp; `defer { file.remove() }` after making one.
private struct TemporaryFile {
    let path: String

    init(_ text: String) throws {
        try self.init(bytes: Array(text.utf8))
    }

    init(bytes: [UInt8]) throws {
        var template = Array("/tmp/popgestured-config-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw SystemCallError(errno) }
        close(fd)
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        try write(bytes: bytes)
    }

    func write(_ text: String) throws {
        try write(bytes: Array(text.utf8))
    }

    func write(bytes: [UInt8]) throws {
        guard let file = fopen(path, "w") else { throw SystemCallError(errno) }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw SystemCallError(errno) }
    }

    func remove() { unlink(path) }
}

private struct SystemCallError: Error, CustomStringConvertible {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { String(cString: strerror(code)) }
}

/// docs/CONFIGURATION.md stays true: its sample file is the defaults, and its
/// table lists exactly the keys there are.
@Suite struct ConfigurationDocumentationTests {
    static let documentPath = Repository.path("docs/CONFIGURATION.md")

    static func document() throws -> String {
        guard let file = fopen(documentPath, "r") else { throw SystemCallError(errno) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 {
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func theSampleFileIsTheDefaults() throws {
        let text = try Self.document()
        let sample = try #require(text.firstRange(of: "```ini\n").map { text[$0.upperBound...] })
        let end = try #require(sample.firstRange(of: "```"))
        #expect(try Configuration.parse(String(sample[..<end.lowerBound]), path: "sample") == Configuration())
    }

    @Test func theTableListsEveryKey() throws {
        let text = try Self.document()
        let section = try #require(text.firstRange(of: "\n## Keys\n").map { text[$0.upperBound...] })
        let keys = section.prefix { $0 != "#" }.split(separator: "\n")
            .filter { $0.hasPrefix("| `") }
            .compactMap { line in line.dropFirst(3).split(separator: "`").first.map(String.init) }
        #expect(Set(keys) == Set(Configuration.Key.allCases.map(\.rawValue)))
    }
}
