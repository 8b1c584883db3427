import PopGestureCore
@testable import PopGestureDaemon
import PopGestureInput
import PopGestureProtocol
import Testing

/// A user's `~/.config/popgestured/popgestured.conf` made into their seat's settings
/// over the system's (`user-settings`, issue 32).
@Suite struct UserSettingsFileTests {
    /// The shipped file's table: Alt+Left, KEY_BACK for Waydroid, the touchpad for Firefox.
    static func system() throws -> GestureSettings {
        let text = """
            back-input = alt+left
            [back-input]
            Waydroid = KEY_BACK
            chromium = own-swipe
            firefox = touchpad
            foot = none
            """
        let configuration = try Configuration.parse(text, path: "/etc/popgestured/popgestured.conf")
        var settings = configuration.gesture
        settings.backInput = configuration.backInput
        settings.backInputMode = configuration.backInputMode
        return settings
    }

    static func made(_ text: String, locked: [String] = []) throws -> (settings: GestureSettings, keys: [String]) {
        try UserSettingsFile(locked: locked).settings(from: text, over: system()).get()
    }

    static func refusal(_ text: String, locked: [String] = []) throws -> ProtocolError? {
        if case .failure(let error) = UserSettingsFile(locked: locked).settings(from: text, over: try system()) { error } else { nil }
    }

    @Test("edge mode, a 6 mm edge and a later commit: those keys change, the rest stays the system's")
    func gestureKeys() throws {
        let made = try Self.made("# mine\nmode = edge\nedge-width-mm = 6\ncommit-progress = 0.4\n")
        #expect(made.keys == ["mode", "edge-width-mm", "commit-progress"])
        #expect(made.settings.mode == .edge)
        #expect(made.settings.edgeWidthMillimetres == 6)
        #expect(made.settings.commitProgress == 0.4)
        let system = try Self.system()
        #expect(made.settings.maxAngleDegrees == system.maxAngleDegrees)
        #expect(made.settings.backInput == system.backInput, "no [back-input]: the system's table")
    }

    @Test("per-app entries go over the system's table app by app: nothing for a reader, Alt+Left for Chromium, its own swipe for Files")
    func appEntries() throws {
        let made = try Self.made("[back-input]\norg.example.Reader = none\nchromium = alt+left\norg.gnome.Nautilus = own-swipe\n")
        let map = made.settings.backInput
        #expect(made.keys == ["[back-input] org.example.Reader", "[back-input] chromium", "[back-input] org.gnome.Nautilus"])
        #expect(map.input(forApp: "org.example.Reader") == nil)
        #expect(!map.ownsSwipe("chromium"), "the user's key wins over the system's own-swipe")
        #expect(map.input(forApp: "chromium")?.spelling == "alt+left")
        #expect(map.ownsSwipe("org.gnome.Nautilus"))
        #expect(map.input(forApp: "Waydroid")?.codes == [158], "the system's entries stay: KEY_BACK")
        #expect(map.input(forApp: "firefox")?.touchpad != nil)
    }

    @Test("refused with the line: a key no user may set, a bad value, a locked key, a locked table")
    func refusals() throws {
        let grab = try #require(try Self.refusal("mode = edge\ngrab = on\n"))
        #expect(grab.code == .notPermitted)
        #expect(grab.message.hasPrefix("~/.config/popgestured/popgestured.conf:2: grab is not a user's to set"), "\(grab.message)")
        let width = try #require(try Self.refusal("edge-width-mm = -1\n"))
        #expect(width.code == .invalidValue)
        #expect(width.message.contains("popgestured.conf:1: edge-width-mm"), "\(width.message)")
        let locked = try #require(try Self.refusal("edge-width-mm = 6\n", locked: ["edge-width-mm"]))
        #expect(locked.code == .notPermitted)
        #expect(locked.message == "~/.config/popgestured/popgestured.conf:1: edge-width-mm is locked by the administrator")
        let table = try #require(try Self.refusal("[back-input]\nfoot = alt+left\n", locked: ["back-input"]))
        #expect(table.message == "[back-input] is locked by the administrator")
        let garbage = try #require(try Self.refusal("this is not a setting\n"))
        #expect(garbage.code == .invalidValue)
        #expect(garbage.message.hasPrefix("~/.config/popgestured/popgestured.conf:1:"), "\(garbage.message)")
    }

    @Test("an app entry may send only what the back input device declares, and the touchpad only where the system makes one")
    func entriesWithinTheDevice() throws {
        let side = try #require(try Self.refusal("[back-input]\nfoot = side\n"))
        #expect(side.code == .notPermitted)
        #expect(side.message.contains("the back input device sends only what the system file names"), "\(side.message)")
        #expect(try Self.made("[back-input]\nfoot = KEY_BACK\n").settings.backInput.input(forApp: "foot")?.codes == [158],
                "KEY_BACK is declared: Waydroid's entry")
        var noTouchpad = try Self.system()
        noTouchpad.backInput = BackInputMap(standard: noTouchpad.backInput.standard)
        let result = UserSettingsFile().settings(from: "[back-input]\norg.gnome.Epiphany = touchpad\n", over: noTouchpad)
        guard case .failure(let error) = result else { Issue.record("a touchpad entry with no virtual touchpad was taken"); return }
        #expect(error.message.contains("makes no virtual touchpad"), "\(error.message)")
    }

    @Test("user-locked in the system file: none, or the user's keys by name; anything else is refused")
    func userLockedKey() throws {
        #expect(try Configuration.parse("user-locked = mode, back-input\n", path: "/p").userLocked == ["mode", "back-input"])
        #expect(try Configuration.parse("user-locked = none\n", path: "/p").userLocked == [])
        #expect(try Configuration.parse("", path: "/p").userLocked == [], "default: nothing locked")
        for bad in ["grab", "mode, mode", "mode,", ""] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try Configuration.parse("user-locked = \(bad)\n", path: "/p") }
        }
    }
}
