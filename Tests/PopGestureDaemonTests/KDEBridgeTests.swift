import Foundation
import PopGestureProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `popgesturectl bridge kde` against the real thing: `kwin_wayland --virtual` on a
/// session bus of its own, two GTK windows with known app ids, focus switched by a KWin
/// script of the test's, and a stand-in daemon that records what the bridge sends.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct KDEBridgeTests {
    typealias Background = PopGestureCtlDaemonTests.Background

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.appendingPathComponent("desktop/kwin/popgestured/contents/code/main.js").path

    /// A headless KWin (its virtual backend, no lock screen) on `bus`.
    final class KWin {
        let bus: DesktopSession.Bus
        let process: Process
        let display = "wayland-kde"
        private var scripts = 0

        init(bus: DesktopSession.Bus) throws {
            self.bus = bus
            // Debian's kwin_wayland carries the file capability cap_sys_resource, which a
            // container's bounding set may lack (exec then fails with EPERM); a copy has none.
            let installed = try PopGestureCtlDaemonTests.tool("kwin_wayland", package: "kwin-wayland")
            let copy = bus.directory.appendingPathComponent("kwin_wayland").path
            try FileManager.default.copyItem(atPath: installed, toPath: copy)
            process = try bus.start(copy, ["--virtual", "--no-lockscreen", "--socket", display, "--width", "1280", "--height", "800"],
                                    name: "kwin", environment: ["QT_QPA_PLATFORM": "offscreen", "XDG_CURRENT_DESKTOP": "KDE"])
            guard PopGestureCtlDaemonTests.within(seconds: 30, { bus.hasOwner("org.kde.KWin") || !process.isRunning }),
                  process.isRunning
            else { throw DesktopSession.Failed("kwin_wayland did not start:\n\(bus.logText("kwin"))") }
        }

        /// Activates the window whose resourceClass is `app`, through a script of the test's.
        func activate(_ app: String) throws {
            scripts += 1
            let url = bus.directory.appendingPathComponent("activate-\(scripts).js")
            try Data("""
                const windows = workspace.windowList ? workspace.windowList() : workspace.clientList();
                for (const w of windows) {
                    if (String(w.resourceClass) === "\(app)") {
                        if (workspace.activeWindow !== undefined) workspace.activeWindow = w; else workspace.activeClient = w;
                    }
                }
                """.utf8).write(to: url)
            try bus.call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.loadScript", [url.path, "popgestured-test-\(scripts)"])
            try bus.call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.start")
        }
    }

    /// The focus lines without the "no window" ones (KWin may report none between two
    /// windows), and without repeats: the windows in the order they were active.
    static func windows(_ recorder: DesktopSession.Recorder) -> [String] {
        var order: [String] = []
        for line in recorder.focusLines {
            guard let app = line.app else { continue }
            if order.last != app { order.append(app) }
        }
        return order
    }

    @Test("the script reports the active window's app id and pid, in order; only KWin may call the bridge; it ends with KWin",
          .timeLimit(.minutes(2)))
    func followsTheActiveWindow() throws {
        try DesktopSession.requireGTK()
        let bus = try DesktopSession.Bus()
        let kwin = try KWin(bus: bus)
        let recorder = try DesktopSession.Recorder(in: bus.directory)
        let bridge = try Background(["bridge", "kde", "--verbose", "--script", Self.script, "--socket", recorder.path],
                                    in: bus.directory, name: "bridge", environment: bus.environment)
        #expect(recorder.waitForFocus(nil, pid: nil), "no window at first: \(recorder.requests)\n\(bridge.err)")
        #expect(try bus.call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.isScriptLoaded", ["popgestured"]).contains("true"))

        let one = try DesktopSession.window("test.popgestured.one", on: bus, display: kwin.display)
        #expect(recorder.waitForFocus("test.popgestured.one", pid: one.processIdentifier), "\(recorder.requests)\n\(bridge.err)")
        let two = try DesktopSession.window("test.popgestured.two", on: bus, display: kwin.display)
        #expect(recorder.waitForFocus("test.popgestured.two", pid: two.processIdentifier), "\(recorder.requests)\n\(bridge.err)")
        try kwin.activate("test.popgestured.one")
        #expect(recorder.waitForFocus("test.popgestured.one", pid: one.processIdentifier), "\(recorder.requests)\n\(bridge.err)")
        try kwin.activate("test.popgestured.two")
        #expect(recorder.waitForFocus("test.popgestured.two", pid: two.processIdentifier), "\(recorder.requests)\n\(bridge.err)")

        #expect(Self.windows(recorder) == ["test.popgestured.one", "test.popgestured.two", "test.popgestured.one", "test.popgestured.two"])
        let pids = ["test.popgestured.one": Int64(one.processIdentifier), "test.popgestured.two": Int64(two.processIdentifier)]
        for line in recorder.focusLines {
            #expect(line.app == nil ? line.pid == nil : line.pid == pids[line.app!], "every line's pid is its window's: \(line)")
        }
        // KWin's scripts see no output transform: the bridge says nothing of rotation.
        #expect(recorder.rotations.isEmpty)

        // Another program of the session posing as KWin is refused, and nothing reaches the daemon.
        #expect(throws: DesktopSession.Failed.self) {
            try bus.call("org.popgestured.Bridge", "/org/popgestured/Bridge", "org.popgestured.Bridge1.FocusedWindow", ["evil", "1"])
        }
        #expect(bridge.waitForError(seconds: 10) { $0.contains("refused FocusedWindow from :1.") && $0.contains("only the compositor") })
        #expect(!recorder.focusLines.contains { $0.app == "evil" })

        kill(kwin.process.processIdentifier, SIGKILL)
        PopGestureCtlDaemonTests.waitForExit(bridge.process, seconds: 15)
        #expect(bridge.process.terminationStatus == 0, "\(bridge.err)")
        #expect(bridge.err.contains("KWin left the session bus; done"), "\(bridge.err)")
    }

    @Test("with the real daemon: its status follows KWin's active window, as the shell's word", .timeLimit(.minutes(2)))
    func realDaemon() throws {
        try DesktopSession.requireGTK()
        let bus = try DesktopSession.Bus()
        let kwin = try KWin(bus: bus)
        let daemon = try PopGestureCtlDaemonTests.Daemon()
        let bridge = try Background(["bridge", "kde", "--script", Self.script, "--socket", daemon.socket],
                                    in: bus.directory, name: "bridge", environment: bus.environment)
        let one = try DesktopSession.window("test.popgestured.one", on: bus, display: kwin.display)
        _ = SwayBridgeTests.waitForFocus(daemon, app: "test.popgestured.one", pid: one.processIdentifier)
        let two = try DesktopSession.window("test.popgestured.two", on: bus, display: kwin.display)
        _ = SwayBridgeTests.waitForFocus(daemon, app: "test.popgestured.two", pid: two.processIdentifier)
        try kwin.activate("test.popgestured.one")
        let focus = SwayBridgeTests.waitForFocus(daemon, app: "test.popgestured.one", pid: one.processIdentifier)
        #expect(focus != nil, "\(bridge.err)\n\(daemon.log)")
        #expect(bridge.process.isRunning, "\(bridge.err)")
    }

    @Test("no KWin on the session bus: exit 2, saying so")
    func noKWin() throws {
        let bus = try DesktopSession.Bus()
        let bridge = try Background(["bridge", "kde", "--script", Self.script, "--socket", "/nonexistent/x.sock"],
                                    in: bus.directory, name: "bridge", environment: bus.environment)
        PopGestureCtlDaemonTests.waitForExit(bridge.process, seconds: 10)
        #expect(bridge.process.terminationStatus == 2)
        #expect(bridge.err.contains("KWin is not on the session bus (no owner of org.kde.KWin)"), "\(bridge.err)")
    }
}
