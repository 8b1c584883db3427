import PopGestureCore
import PopGestureDaemon
import Testing

/// Two touchscreens (issue 8, defect 10): the `screen` key says which touchscreens
/// show the apps; by default every one does.
@Suite("Which touchscreens are the screen")
struct ScreenSelectionTests {
    @Test("by default every touchscreen takes part, whatever its output")
    func everyTouchscreenByDefault() {
        let configuration = Configuration()
        #expect(configuration.screen == .all)
        for output in ["eDP-1", "HDMI-A-1", nil] {
            #expect(configuration.deviceConfiguration(for: .touchscreen, name: "ELAN", output: output) != nil)
        }
    }

    @Test("screen = eDP-1: the touchscreen on eDP-1 takes part, the one on HDMI-A-1 and one with no output are left alone")
    func onlyTheNamedOutput() throws {
        let configuration = try Configuration.parse("screen = eDP-1", path: "test.conf")
        #expect(configuration.deviceConfiguration(for: .touchscreen, name: "ELAN", output: "eDP-1")?.kind == .touchscreen)
        #expect(configuration.deviceConfiguration(for: .touchscreen, name: "Wacom", output: "HDMI-A-1") == nil)
        #expect(configuration.deviceConfiguration(for: .touchscreen, name: "Wacom", output: nil) == nil)
    }

    @Test("a touchscreen with no WL_OUTPUT is named by its kernel name")
    func byName() throws {
        let configuration = try Configuration.parse("screen = ELAN Touchscreen", path: "test.conf")
        #expect(configuration.deviceConfiguration(for: .touchscreen, name: "ELAN Touchscreen") != nil)
        #expect(configuration.deviceConfiguration(for: .touchscreen, name: "ELAN Touchscreen Pen") == nil)
    }

    @Test("touchpads follow `touchpads`, not `screen`")
    func touchpadsAreNotScreens() throws {
        let configuration = try Configuration.parse("screen = eDP-1", path: "test.conf")
        #expect(configuration.deviceConfiguration(for: .touchpad, name: "Synaptics", output: nil)?.kind == .touchpad)
    }

    @Test("a value with a control character is refused", arguments: ["eDP-1\u{7}", "\u{1B}[31m"])
    func controlCharactersRefused(text: String) {
        #expect(ScreenSelection(text) == nil)
    }
}
