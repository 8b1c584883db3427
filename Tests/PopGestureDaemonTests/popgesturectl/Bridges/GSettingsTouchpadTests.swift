import Foundation
import Testing
@testable import popgesturectl

/// GNOME's touchpad natural-scroll for the wlroots bridge in a Phosh session: the real
/// `gsettings`, on a keyfile backend of the test's own (no dconf service here).
@Suite struct GSettingsTouchpadTests {
    @Test("get's and monitor's lines; anything else is no value")
    func lines() {
        #expect(GSettingsTouchpadScrolling.parse(Array("true\n".utf8)) == true)
        #expect(GSettingsTouchpadScrolling.parse(Array("natural-scroll: false\n".utf8)) == false)
        #expect(GSettingsTouchpadScrolling.parse(Array("tap-to-click: true\n".utf8)) == nil)
        #expect(GSettingsTouchpadScrolling.parse(Array("true false".utf8)) == nil)
        #expect(GSettingsTouchpadScrolling.parse(Array("".utf8)) == nil)
    }

    @Test("only a Phosh session wants it")
    func wanted() {
        #expect(GSettingsTouchpadScrolling.wanted(desktop: "Phosh:GNOME"))
        #expect(GSettingsTouchpadScrolling.wanted(desktop: "phosh"))
        #expect(!GSettingsTouchpadScrolling.wanted(desktop: "GNOME"))
        #expect(!GSettingsTouchpadScrolling.wanted(desktop: "sway"))
        #expect(!GSettingsTouchpadScrolling.wanted(desktop: nil))
    }

    @Test("the value at start, then each change gsettings set makes", .timeLimit(.minutes(1)))
    func followsChanges() throws {
        let gsettings = try PopGestureCtlDaemonTests.tool("gsettings", package: "libglib2.0-bin")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("gsettings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME=\(home.path)", "HOME=\(home.path)", "PATH=/usr/bin:/bin"]
        func set(_ value: String) throws {
            let run = Process()
            run.executableURL = URL(fileURLWithPath: gsettings)
            run.arguments = ["set", GSettingsTouchpadScrolling.schema, GSettingsTouchpadScrolling.key, value]
            run.environment = Dictionary(uniqueKeysWithValues: environment.map {
                let parts = $0.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            })
            try run.run()
            run.waitUntilExit()
            #expect(run.terminationStatus == 0)
        }
        let following = try GSettingsTouchpadScrolling.start(environment: environment).get()
        #expect(following.natural == true, "GNOME's default")
        Thread.sleep(forTimeInterval: 0.5)  // the monitor is up
        try set("false")
        var events: [FocusSourceEvent] = []
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) {
            events += following.read()
            return events.contains(.touchpadScrolling(natural: false))
        }, "\(events)")
        try set("true")
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) {
            events += following.read()
            return events.last == .touchpadScrolling(natural: true)
        }, "\(events)")
    }
}
