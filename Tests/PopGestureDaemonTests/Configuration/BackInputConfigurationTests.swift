import Foundation
import PopGestureCore
@testable import PopGestureDaemon
import Testing

private let path = "/etc/popgestured/popgestured.conf"

/// `back-input`, `back-input-mode` and the `[back-input]` section.
@Suite struct BackInputConfigurationTests {
    /// Key codes from linux/input-event-codes.h.
    static let leftAlt: UInt16 = 56, left: UInt16 = 105, back: UInt16 = 158, side: UInt16 = 0x113

    @Test func theDefaultIsAltLeftInEdgeModeWithNoTable() {
        let configuration = Configuration()
        #expect(configuration.backInput.standard?.codes == [Self.leftAlt, Self.left])
        #expect(configuration.value(of: .backInput) == "alt+left")
        #expect(configuration.backInput.apps.isEmpty)
        #expect(configuration.backInputMode == .edge)
        #expect(configuration.value(of: .backInputMode) == "edge")
    }

    @Test func noneTurnsItOff() throws {
        let configuration = try Configuration.parse("back-input = none", path: path)
        #expect(configuration.backInput.standard == nil)
        #expect(configuration.backInput.allCodes.isEmpty)
        #expect(configuration.value(of: .backInput) == "none")
    }

    @Test func theSectionOverridesByApp() throws {
        let configuration = try Configuration.parse(
            """
            back-input = back
            # apps that want something else
            [back-input]
            org.gnome.Nautilus = alt+left
              firefox=side
            org.qt-project.qtcreator = none
            """, path: path)
        let map = configuration.backInput
        #expect(map.standard?.codes == [Self.back])
        #expect(map.input(forApp: "org.gnome.Nautilus")?.codes == [Self.leftAlt, Self.left])
        #expect(map.input(forApp: "firefox")?.codes == [Self.side])
        #expect(map.apps.keys.contains("org.qt-project.qtcreator"))
        #expect(map.input(forApp: "org.qt-project.qtcreator") == nil)
        #expect(map.input(forApp: "unknown")?.codes == [Self.back])
        #expect(map.allCodes == [Self.leftAlt, Self.left, Self.back, Self.side])
    }

    @Test func ownSwipeLeavesAnAppAloneAndAReloadNamesItAsChanged() throws {
        let configuration = try Configuration.parse(
            """
            [back-input]
            org.gnome.Settings = own-swipe
            org.kde.* = Own-Swipe
            firefox = side
            """, path: path)
        let map = configuration.backInput
        #expect(map.ownSwipe == ["org.gnome.Settings", "org.kde.*"])
        #expect(map.apps.keys.sorted() == ["firefox"], "own-swipe is no key")
        #expect(map.ownsSwipe("org.kde.kclock"))
        #expect(map.allCodes == [Self.leftAlt, Self.left, Self.side])
        let before = try Configuration.parse("[back-input]\nfirefox = side\n", path: path)
        #expect(configuration.changedKeys(since: before).contains(.backInput))
        #expect(configuration.changedBackInputApps(since: before) == ["org.gnome.Settings", "org.kde.*"])
    }

    @Test("touchpad entries: the touchpad bridge, with its distance and scrolling; no key")
    func touchpadEntries() throws {
        let configuration = try Configuration.parse(
            """
            back-input = none
            [back-input]
            firefox = touchpad
            org.gnome.Nautilus = Touchpad:40:natural
            org.gnome.Epiphany = touchpad:traditional
            """, path: path)
        let map = configuration.backInput
        #expect(map.input(forApp: "firefox")?.touchpad == .standard)
        #expect(map.input(forApp: "org.gnome.Nautilus")?.touchpad == TouchpadScroll(millimetresPerWidth: 40, scrolling: .natural))
        #expect(map.input(forApp: "org.gnome.Nautilus")?.spelling == "touchpad:40:natural")
        #expect(map.input(forApp: "org.gnome.Epiphany")?.touchpad?.scrolling == .traditional)
        #expect(map.allCodes.isEmpty && map.usesTouchpad)
        // No key anywhere, yet the table stays: the touchpad needs no key device.
        #expect(BackInputSetup(configuration).map == map)
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse("[back-input]\nfirefox = touchpad:2\n", path: path)
        }
    }

    @Test("the shipped file parses; Firefox and Firefox ESR get the touchpad in the session's direction, the key until it says")
    func theShippedFile() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../systemd/popgestured.conf").standardized
        let text = try String(contentsOf: shipped, encoding: .utf8)
        let map = try Configuration.parse(text, path: path).backInput
        #expect(map.usesTouchpad)
        #expect(map.input(forApp: "foot") == nil, "terminals get nothing")
        for app in ["firefox", "firefox-esr"] {
            #expect(map.input(forApp: app)?.touchpad == .standard, "\(app)")
            #expect(map.input(forApp: app, touchpadScrolling: nil)?.codes == [Self.leftAlt, Self.left],
                    "\(app): Alt+Left until the session says how it scrolls")
            #expect(map.input(forApp: app, touchpadScrolling: true)?.touchpad?.scrolling == .natural)
            #expect(map.input(forApp: app, touchpadScrolling: false)?.touchpad?.scrolling == .traditional)
        }
    }

    @Test func theCommandLineSetsOnlyTheStandardInput() throws {
        let configuration = try Configuration.parse(
            "[back-input]\nfirefox = side\n", path: path, overrides: [.backInput: "none", .backInputMode: "fullscreen"])
        #expect(configuration.backInput.standard == nil)
        #expect(configuration.backInput.input(forApp: "firefox")?.codes == [Self.side])
        #expect(configuration.backInputMode == .fullscreen)
    }

    @Test(arguments: [
        ("mode = edge\n[back-input]\nfirefox = side\n[keys]\n", 4, ConfigurationError.Code.unknownSection, nil as String?,
         #"unknown section "[keys]"; the only one is [back-input]"#),
        ("[back-input\n", 1, .unknownSection, nil, #"unknown section "[back-input"; the only one is [back-input]"#),
        ("[back-input]\n[back-input]\n", 2, .duplicateSection, nil, "section [back-input] again; first on line 1"),
        ("[back-input]\nfirefox = side\n\nfirefox = back\n", 4, .duplicateApp, "[back-input] firefox",
         "set again; first set on line 2"),
        ("[back-input]\nfirefox = alt+leftt\n", 2, .invalidValue, "[back-input] firefox",
         #""leftt" is no key or button name (such as left, back, side or KEY_BACK)"#),
        ("[back-input]\nfirefox = \n", 2, .invalidValue, "[back-input] firefox",
         #"expected key names joined by "+" (such as alt+left), got """#),
        ("[back-input]\nmy app = side\n", 2, .invalidAppID, "[back-input] my app",
         #"an app id has no spaces or control characters, got "my app""#),
        ("[back-input]\nfirefox side\n", 2, .notKeyValue, "firefox", #"expected "key = value", got "firefox side""#),
        ("[back-input]\nmode = edge\n", 2, .invalidValue, "[back-input] mode",
         #""edge" is no key or button name (such as left, back, side or KEY_BACK)"#),
    ])
    func sectionErrorsNameTheFileAndLine(
        text: String, line: Int, code: ConfigurationError.Code, key: String?, message: String
    ) {
        let error = #expect(throws: ConfigurationError.self) { try Configuration.parse(text, path: path) }
        #expect(error?.code == code)
        #expect(error?.line == line)
        #expect(error?.path == path)
        #expect(error?.key == key)
        #expect(error?.message == message)
    }

    @Test func aBadStandardInputNamesTheToken() {
        let error = #expect(throws: ConfigurationError.self) { try Configuration.parse("back-input = alt+lft", path: path) }
        #expect(error?.description == """
            \(path):1: back-input: expected key or button names joined by + (such as alt+left, back or side), \
            or none, got "alt+lft": "lft" is no key or button name (such as left, back, side or KEY_BACK)
            """)
    }

    @Test func anAppIDIsBounded() throws {
        let longest = String(repeating: "a", count: ConfigurationFile.maximumAppIDBytes)
        let configuration = try Configuration.parse("[back-input]\n\(longest) = side\n", path: path)
        #expect(configuration.backInput.apps.keys.contains(longest))
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.parse("[back-input]\n\(longest)a = side\n", path: path)
        }
        #expect(error?.code == .invalidAppID)
        #expect(error?.message == "an app id has at most 256 bytes; this one has 257")
        let control = #expect(throws: ConfigurationError.self) {
            try Configuration.parse("[back-input]\nfire\u{7}fox = side\n", path: path)
        }
        #expect(control?.code == .invalidAppID)
    }

    @Test func theTableIsBounded() throws {
        func table(_ count: Int) -> String {
            "[back-input]\n" + (0..<count).map { "app\($0) = side\n" }.joined()
        }
        let full = try Configuration.parse(table(BackInputMap.maximumApps), path: path)
        #expect(full.backInput.apps.count == BackInputMap.maximumApps)
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.parse(table(BackInputMap.maximumApps + 1), path: path)
        }
        #expect(error?.code == .tooManyApps)
        #expect(error?.line == BackInputMap.maximumApps + 2)
        #expect(error?.message == "[back-input] may name at most 256 apps")
    }

    @Test func aChangedTableIsAChangedBackInput() throws {
        let before = try Configuration.parse("[back-input]\nfirefox = side\nfoot = none\nkeep = back\n", path: path)
        let after = try Configuration.parse("[back-input]\nfirefox = back\nkeep = back\nnew = side\n", path: path)
        #expect(after.changedKeys(since: before) == [.backInput])
        #expect(after.changedBackInputApps(since: before) == ["firefox", "foot", "new"])
        #expect(before.changedKeys(since: before).isEmpty)
        #expect(before.changedBackInputApps(since: before).isEmpty)
        let modeOnly = try Configuration.parse("back-input-mode = fullscreen", path: path)
        #expect(modeOnly.changedKeys(since: Configuration()) == [.backInputMode])
    }

    @Test func anEmptySectionIsAnEmptyTable() throws {
        let configuration = try Configuration.parse("back-input = side\n[back-input]\n# nothing yet\n", path: path)
        #expect(configuration.backInput == BackInputMap(standard: configuration.backInput.standard))
        #expect(configuration.changedKeys(since: Configuration()) == [.backInput])
    }
}
