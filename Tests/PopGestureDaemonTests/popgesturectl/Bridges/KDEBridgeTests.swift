import Foundation
import PopGestureProtocol
import Testing
@testable import popgesturectl

#if canImport(Glibc)
import Glibc
#endif

/// `popgesturectl bridge kde` against the real thing: `kwin_wayland --virtual` on a
/// session bus of its own, two GTK windows with known app ids, focus switched by a KWin
/// script of the test's, and a stand-in daemon that records what the bridge sends.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct KDEBridgeTests {
    typealias Background = PopGestureCtlDaemonTests.Background

    static let repository = Repository.root
    static let script = repository.appendingPathComponent("desktop/kwin/popgestured-bridge.js").path

    /// A headless KWin (its virtual backend, no lock screen) on `bus`.
    final class KWin {
        let bus: DesktopSession.Bus
        let process: Process
        let display = "wayland-kde"
        private var scripts = 0

        /// `outputs` virtual outputs of 1280 × 800, `Virtual-0` on.
        init(bus: DesktopSession.Bus, outputs: Int = 1) throws {
            self.bus = bus
            // Debian's kwin_wayland carries the file capability cap_sys_resource, which a
            // container's bounding set may lack (exec then fails with EPERM); a copy has none.
            let installed = try PopGestureCtlDaemonTests.tool("kwin_wayland", package: "kwin-wayland")
            let copy = bus.directory.appendingPathComponent("kwin_wayland").path
            try FileManager.default.copyItem(atPath: installed, toPath: copy)
            process = try bus.start(copy, ["--virtual", "--no-lockscreen", "--socket", display, "--width", "1280", "--height", "800",
                                           "--output-count", "\(outputs)"],
                                    name: "kwin", environment: ["QT_QPA_PLATFORM": "offscreen", "XDG_CURRENT_DESKTOP": "KDE"])
            // KWin owns its name a moment before it serves /Scripting, which the bridge calls first.
            let scripting = { (try? bus.call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.isScriptLoaded", ["none"])) != nil }
            guard PopGestureCtlDaemonTests.within(seconds: 30, { scripting() || !process.isRunning }),
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

        /// The path of KWin's Wayland socket, which libwayland takes as a display name.
        var socketPath: String { bus.directory.appendingPathComponent(display).path }

        /// Turns `output` as System Settings does: `kscreen-doctor output.NAME.rotation.DIRECTION`
        /// (`left`, `right`, `inverted`, `none`), through libkscreen's KWayland backend, which
        /// runs in `kscreen_backend_launcher` on the session bus (the test's bus activates none).
        func rotate(_ output: String, _ direction: String) throws {
            try DesktopSession.require("/usr/bin/kscreen-doctor", package: "libkf5screen-bin")
            // The backend reaches KWin through Qt's Wayland platform plugin.
            try DesktopSession.require("/usr/lib/x86_64-linux-gnu/qt5/plugins/platforms/libqwayland-generic.so", package: "qtwayland5")
            let environment = ["WAYLAND_DISPLAY": display, "QT_QPA_PLATFORM": "wayland"]
            if !bus.hasOwner("org.kde.KScreen") {
                let launcher = "/usr/lib/x86_64-linux-gnu/libexec/kf5/kscreen_backend_launcher"
                // KSCREEN_BACKEND for the launcher only: kscreen-doctor 5.27 crashes with it set.
                try bus.start(launcher, [], name: "kscreen-launcher", environment: environment.merging(["KSCREEN_BACKEND": "KWayland"]) { $1 })
                guard PopGestureCtlDaemonTests.within(seconds: 15, { bus.hasOwner("org.kde.KScreen") }) else {
                    throw DesktopSession.Failed("kscreen_backend_launcher did not start:\n\(bus.logText("kscreen-launcher"))")
                }
            }
            let doctor = try bus.start("/usr/bin/kscreen-doctor", ["output.\(output).rotation.\(direction)"],
                                       name: "kscreen-doctor", environment: environment)
            PopGestureCtlDaemonTests.waitForExit(doctor, seconds: 20)
            guard doctor.terminationStatus == 0 else {
                throw DesktopSession.Failed("kscreen-doctor failed (\(doctor.terminationReason == .uncaughtSignal ? "signal" : "exit") "
                    + "\(doctor.terminationStatus)):\n\(bus.logText("kscreen-doctor"))\nkscreen_backend_launcher:\n\(bus.logText("kscreen-launcher"))")
            }
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
        #expect(try bus.call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.isScriptLoaded", [KWinScript.id]).contains("true"))

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
        // The bridge sends KWin's outputs, never a rotation. Here it has no Wayland display (bus.environment names none, and there is no wayland-0):
        // one line says so, and the focus above came all the same.
        #expect(recorder.rotations.isEmpty)
        #expect(bridge.err.contains("cannot connect to the Wayland display wayland-0") && bridge.err.contains("the outputs are not sent"),
                "\(bridge.err)")

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

    /// Reads KWin's output devices as the bridge does, until `condition` holds for the
    /// outputs last reported or the time is up; returns every list reported.
    static func outputs(
        from devices: KDEOutputDevices, _ tracker: inout KDEOutputTracker, seconds: Double = 20,
        until condition: ([ClientRequest.Output]) -> Bool
    ) -> [[ClientRequest.Output]] {
        var lists: [[ClientRequest.Output]] = []
        _ = PopGestureCtlDaemonTests.within(seconds: seconds) {
            for event in (try? devices.dispatch()) ?? [] {
                for case .outputs(let list) in tracker.handle(event) { lists.append(list.outputs) }
            }
            return lists.last.map(condition) ?? false
        }
        return lists
    }

    static func output(_ name: String, _ rotation: Int64) -> ClientRequest.Output {
        ClientRequest.Output(name: name, rotation: rotation)
    }

    @Test("KWin's outputs through kde-output-device-v2: name, rotation, size; a turn from kscreen-doctor is sent",
          .timeLimit(.minutes(2)))
    func reportsOutputs() throws {
        let bus = try DesktopSession.Bus()
        let kwin = try KWin(bus: bus, outputs: 2)
        // The source the bridge uses, in this process: KWin offers the protocol to any client.
        let devices = try KDEOutputDevices(name: kwin.socketPath)
        #expect(devices.offersDevices)
        var tracker = KDEOutputTracker()
        // KWin 5.27's virtual outputs have no physical size (it says -1 × -1 mm): none is sent.
        let upright = [Self.output("Virtual-0", 0), Self.output("Virtual-1", 0)]
        let first = Self.outputs(from: devices, &tracker) { $0.count == 2 }
        #expect(first.last == upright, "\(first)")

        // And the real bridge, to a stand-in daemon: the same list, as the outputs request.
        let recorder = try DesktopSession.Recorder(in: bus.directory)
        let bridge = try Background(
            ["bridge", "kde", "--verbose", "--script", Self.script, "--socket", recorder.path, "--wayland-display", kwin.display],
            in: bus.directory, name: "bridge", environment: bus.environment)
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) { recorder.outputLists.last == upright },
                "\(recorder.outputLists)\n\(bridge.err)")
        #expect(bridge.err.contains("outputs: Virtual-0 0°, Virtual-1 0°"), "\(bridge.err)")

        // kscreen-doctor's left is KScreen's Left, KWin's transform 90: the daemon's rotation 90.
        try kwin.rotate("Virtual-0", "left")
        let turned = [Self.output("Virtual-0", 90), Self.output("Virtual-1", 0)]
        let seen = Self.outputs(from: devices, &tracker) { $0.first?.rotation != 0 }
        #expect(seen.last == turned, "\(seen)")
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) { recorder.outputLists.last == turned },
                "\(recorder.outputLists)\n\(bridge.err)")
        try kwin.rotate("Virtual-1", "inverted")
        let inverted = Self.outputs(from: devices, &tracker) { $0.last?.rotation != 0 }
        #expect(inverted.last?.map(\.rotation) == [90, 180], "\(inverted)")
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) { recorder.outputLists.last?.map(\.rotation) == [90, 180] },
                "\(recorder.outputLists)\n\(bridge.err)")
        // Each list once: a change is sent, a repeat is not.
        #expect(recorder.outputLists.map { $0.map(\.rotation) } == [[0, 0], [90, 0], [90, 180]], "\(recorder.outputLists)")
        #expect(recorder.rotations.isEmpty)
        #expect(bridge.process.isRunning, "\(bridge.err)")
    }

    /// The compositor's half as installed (`desktop/install`, which the package runs for
    /// /usr/share) in the session's ~/.local/share, there before KWin starts; the KWin
    /// script it installed.
    static func installed(in bus: DesktopSession.Bus) throws -> String {
        let data = bus.directory.appendingPathComponent(".local/share")
        _ = try GNOMEBridgeTests.Shell.output(GNOMEBridgeTests.install, [data.path])
        let files = FileManager.default.enumerator(atPath: data.path)?.compactMap { $0 as? String } ?? []
        guard let script = files.first(where: { $0.hasSuffix(".js") && $0.contains("kwin") }) else {
            throw DesktopSession.Failed("desktop/install installed no KWin script: \(files)")
        }
        return data.appendingPathComponent(script).path
    }

    @Test("as installed (the package's files there before KWin starts): the script stays loaded; unloaded, it is loaded again",
          .timeLimit(.minutes(2)))
    func followsTheActiveWindowAsInstalled() throws {
        try DesktopSession.requireGTK()
        let bus = try DesktopSession.Bus()
        let script = try Self.installed(in: bus)
        let kwin = try KWin(bus: bus)
        let recorder = try DesktopSession.Recorder(in: bus.directory)
        let bridge = try Background(["bridge", "kde", "--verbose", "--script", script, "--socket", recorder.path],
                                    in: bus.directory, name: "bridge", environment: bus.environment)
        let one = try DesktopSession.window("test.popgestured.one", on: bus, display: kwin.display)
        #expect(recorder.waitForFocus("test.popgestured.one", pid: one.processIdentifier), "\(recorder.requests)\n\(bridge.err)")
        #expect(try bus.call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.isScriptLoaded", [KWinScript.id])
            .contains("true"), "KWin unloaded the bridge's script: \(bridge.err)")

        // Unloaded behind the bridge's back (KWin says nothing): the bridge notices, says
        // so, and loads it again; the next window is reported.
        try bus.call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.unloadScript", [KWinScript.id])
        #expect(bridge.waitForError(seconds: 20) { $0.contains("KWin unloaded the script \(KWinScript.id)") && $0.contains("loaded it again") },
                "\(bridge.err)")
        let two = try DesktopSession.window("test.popgestured.two", on: bus, display: kwin.display)
        #expect(recorder.waitForFocus("test.popgestured.two", pid: two.processIdentifier), "\(recorder.requests)\n\(bridge.err)")
        #expect(bridge.process.isRunning, "\(bridge.err)")
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
