import Glibc
import PopGestureCore
@testable import PopGestureDaemon
import Testing

/// What the daemon does with its back input when the device can or cannot be made.
@Suite struct BackInputSetupTests {
    static let hasUinput = access("/dev/uinput", F_OK) == 0

    @Test func noneMakesNoDeviceAndNoWarning() throws {
        let configuration = try Configuration.parse("back-input = none\nback-input-mode = fullscreen", path: "test")
        let setup = BackInputSetup(configuration)
        #expect(setup.device == nil)
        #expect(setup.map == .none)
        #expect(setup.mode == .fullscreen)
        #expect(setup.warning == nil)
        #expect(setup.summary == "back input: off")
    }

    @Test func withoutUinputTheDaemonGoesOnWithTheBackInputOff() {
        guard !Self.hasUinput else { return }  // this host's kernel has no uinput; the VM's has
        let setup = BackInputSetup(Configuration())
        #expect(setup.device == nil)
        #expect(setup.map == .none)
        #expect(setup.mode == .edge)
        let warning = setup.warning ?? ""
        #expect(warning.hasPrefix("back input off: cannot create the back input device on /dev/uinput: "))
        #expect(warning.contains("modprobe uinput"))
    }

    @Test func withoutUinputOwnSwipeAppsAreStillLeftAlone() throws {
        guard !Self.hasUinput else { return }
        let configuration = try Configuration.parse("[back-input]\norg.gnome.Settings = own-swipe\n", path: "test")
        let setup = BackInputSetup(configuration)
        #expect(setup.map.standard == nil)
        #expect(setup.map.ownsSwipe("org.gnome.Settings"))
    }

    @Test func withoutUinputTheEventPipeKeepsTheTableAndSendsNothing() throws {
        guard !Self.hasUinput else { return }
        let configuration = try Configuration.parse("[back-input]\nfoot = none\n", path: "test")
        let setup = BackInputSetup(configuration, keepingTable: true)
        #expect(setup.device == nil, "nothing to send through")
        #expect(setup.map == configuration.backInput)
        #expect(setup.warning?.hasSuffix("--event-pipe keeps the [back-input] table: swipes go to it, nothing is sent") == true)
    }

    @Test(.enabled(if: hasUinput, "needs /dev/uinput; this kernel has none (the VM tier covers it)"))
    func aReloadWithTheSameCodesKeepsTheDevice() throws {
        let first = BackInputSetup(Configuration())
        let device = try #require(first.device)
        #expect(first.summary.hasPrefix("back input: alt+left, edge mode, on "))
        let modeOnly = try Configuration.parse("back-input-mode = fullscreen", path: "test")
        #expect(BackInputSetup(modeOnly, reusing: first).device === device)
        let other = try Configuration.parse("back-input = side", path: "test")
        #expect(BackInputSetup(other, reusing: first).device !== device)
    }
}
