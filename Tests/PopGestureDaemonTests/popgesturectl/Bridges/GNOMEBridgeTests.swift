import Foundation
import PopGestureProtocol
import Testing
@testable import popgesturectl

#if canImport(Glibc)
import Glibc
#endif

/// `popgesturectl bridge gnome` against the real thing: `gnome-shell --headless` with a
/// virtual monitor, on a session bus of its own, with the extension built for its
/// version; two GTK windows with known app ids; focus switched through a second, test-only
/// extension (org.gnome.Shell.Eval is closed outside unsafe mode); the monitor turned
/// through org.gnome.Mutter.DisplayConfig; a stand-in daemon records what the bridge sends.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct GNOMEBridgeTests {
    typealias Background = PopGestureCtlDaemonTests.Background

    /// What the package runs to put the extension in place (for /usr/share); here for
    /// the session's ~/.local/share, before the Shell starts.
    static let install = KDEBridgeTests.repository.appendingPathComponent("desktop/install").path
    static let hookUUID = "popgestured-test@popgestured"

    /// The test's hook: Activate(s wmClass) on org.popgestured.Test activates that window.
    static let hookBody = """
        const HOOK_XML = '<node><interface name="org.popgestured.Test"><method name="Activate">' +
            '<arg type="s" direction="in"/><arg type="b" direction="out"/></method>' +
            '<method name="NaturalScroll"><arg type="b" direction="in"/></method></interface></node>';
        class TestHook {
            enable() {
                this._object = Gio.DBusExportedObject.wrapJSObject(HOOK_XML, this);
                this._object.export(Gio.DBus.session, '/org/popgestured/Test');
                this._owner = Gio.bus_own_name_on_connection(Gio.DBus.session, 'org.popgestured.Test',
                    Gio.BusNameOwnerFlags.NONE, null, null);
            }
            disable() {
                this._object.unexport();
                Gio.bus_unown_name(this._owner);
            }
            Activate(wmClass) {
                const window = global.get_window_actors().map(a => a.meta_window).find(w => w.get_wm_class() === wmClass);
                if (window)
                    window.activate(global.get_current_time());
                return window !== undefined;
            }
            NaturalScroll(natural) {
                new Gio.Settings({schema_id: 'org.gnome.desktop.peripherals.touchpad'}).set_boolean('natural-scroll', natural);
            }
        }
        """

    /// A headless GNOME Shell with one virtual monitor, Meta-0, on `bus`; a second bus
    /// stands in for the system bus (the Shell will not start without one).
    final class Shell {
        let bus: DesktopSession.Bus
        let systemBus: DesktopSession.Bus
        let process: Process
        let display = "wayland-gnome"
        let version: Int

        init(bus: DesktopSession.Bus) throws {
            self.bus = bus
            let shell = try PopGestureCtlDaemonTests.tool("gnome-shell", package: "gnome-shell")
            let versionLine = try Self.output(shell, ["--version"])  // "GNOME Shell 43.9"
            guard let major = versionLine.split(separator: " ").last?.split(separator: ".").first.flatMap({ Int($0) }) else {
                throw DesktopSession.Failed("cannot read gnome-shell --version: \(versionLine)")
            }
            version = major
            let data = bus.directory.appendingPathComponent(".local/share")
            _ = try Self.output(GNOMEBridgeTests.install, [data.path, String(major)])
            let extensions = data.appendingPathComponent("gnome-shell/extensions")
            let hook = extensions.appendingPathComponent(GNOMEBridgeTests.hookUUID)
            try FileManager.default.createDirectory(at: hook, withIntermediateDirectories: true)
            let script = major < 45
                ? "const {Gio} = imports.gi;\n\(GNOMEBridgeTests.hookBody)\nfunction init() { return new TestHook(); }\n"
                : """
                    import Gio from 'gi://Gio';
                    import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
                    \(GNOMEBridgeTests.hookBody)
                    export default class extends Extension {
                        enable() { this._hook = new TestHook(); this._hook.enable(); }
                        disable() { this._hook.disable(); }
                    }

                    """
            try Data(script.utf8).write(to: hook.appendingPathComponent("extension.js"))
            try Data(#"{"uuid": "\#(GNOMEBridgeTests.hookUUID)", "name": "popgestured test hook", "description": "Activates a window by WM class for popgestured's tests.", "shell-version": ["\#(major)"]}"#.utf8)
                .write(to: hook.appendingPathComponent("metadata.json"))

            systemBus = try DesktopSession.Bus()
            DesktopSession.ensureX11SocketDirectory()
            process = try bus.start(
                shell, ["--headless", "--virtual-monitor", "1280x800", "--wayland-display", display], name: "gnome-shell",
                environment: [
                    "DBUS_SYSTEM_BUS_ADDRESS": systemBus.address, "GSETTINGS_BACKEND": "memory",
                    "XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_TYPE": "wayland",
                ])
            // The Shell owns its name before its extension system is up: enabling the hook says when it is.
            let started = PopGestureCtlDaemonTests.within(seconds: 60) {
                guard process.isRunning, bus.hasOwner("org.gnome.Shell") else { return !process.isRunning }
                return (try? bus.call("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions.EnableExtension",
                                      [GNOMEBridgeTests.hookUUID]))?.contains("true") == true
                    && bus.hasOwner("org.popgestured.Test")
            }
            guard started, process.isRunning else {
                throw DesktopSession.Failed("gnome-shell --headless did not start:\n\(bus.logText("gnome-shell"))")
            }
        }

        func activate(_ app: String) throws {
            let result = try bus.call("org.popgestured.Test", "/org/popgestured/Test", "org.popgestured.Test.Activate", [app])
            guard result.contains("true") else { throw DesktopSession.Failed("no window \(app) to activate") }
        }

        /// Turns Meta-0 to `transform` (wl_output's numbering) for this session (method 1, temporary).
        func turn(_ transform: Int) throws {
            let state = try bus.call("org.gnome.Mutter.DisplayConfig", "/org/gnome/Mutter/DisplayConfig",
                                     "org.gnome.Mutter.DisplayConfig.GetCurrentState")
            guard let serial = state.split(separator: ",").first?.split(separator: " ").last else {
                throw DesktopSession.Failed("GetCurrentState: \(state)")
            }
            try bus.call("org.gnome.Mutter.DisplayConfig", "/org/gnome/Mutter/DisplayConfig",
                         "org.gnome.Mutter.DisplayConfig.ApplyMonitorsConfig",
                         [String(serial), "1", "[(0, 0, 1.0, uint32 \(transform), true, [('Meta-0', '1280x800@60.000', @a{sv} {})])]",
                          "@a{sv} {}"])
        }

        static func output(_ executable: String, _ arguments: [String]) throws -> String {
            let run = Process()
            run.executableURL = URL(fileURLWithPath: executable)
            run.arguments = arguments
            let out = Pipe()
            run.standardOutput = out
            run.standardError = out
            try run.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.waitUntilExit()
            guard run.terminationStatus == 0 else { throw DesktopSession.Failed("\(executable) \(arguments): \(text)") }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("the extension reports the focus window's app id and pid in order, the monitor's turns as degrees clockwise, ltr, and the touchpads' natural scrolling",
          .timeLimit(.minutes(3)))
    func followsFocusAndRotation() throws {
        try DesktopSession.requireGTK()
        let bus = try DesktopSession.Bus()
        let shell = try Shell(bus: bus)
        let recorder = try DesktopSession.Recorder(in: bus.directory)
        let bridge = try Background(["bridge", "gnome", "--verbose", "--socket", recorder.path],
                                    in: bus.directory, name: "bridge", environment: bus.environment)
        #expect(recorder.waitForFocus(nil, pid: nil), "no window at first: \(recorder.requests)\n\(bridge.err)")
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) { recorder.rotations.count == 1 }, "\(recorder.requests)")
        #expect(recorder.requests.contains(.textDirection(.leftToRight)), "\(recorder.requests)")
        // GNOME's default; and no touchpad bridge here: its pointer devices would end mutter's touch mode.
        #expect(recorder.requests.contains(.touchpadScrolling(natural: true, bridge: false)), "\(recorder.requests)")
        try bus.call("org.popgestured.Test", "/org/popgestured/Test", "org.popgestured.Test.NaturalScroll", ["false"])
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) {
            recorder.requests.last { if case .touchpadScrolling = $0 { true } else { false } } == .touchpadScrolling(natural: false, bridge: false)
        },
                "the setting changed: \(recorder.requests)")

        let one = try DesktopSession.window("test.popgestured.one", on: bus, display: shell.display)
        let two = try DesktopSession.window("test.popgestured.two", on: bus, display: shell.display)
        for (app, window) in [("test.popgestured.one", one), ("test.popgestured.two", two), ("test.popgestured.one", one)] {
            // A window not mapped yet is not found, or not given focus: ask again until it has it.
            let focused = PopGestureCtlDaemonTests.within(seconds: 20) {
                (try? shell.activate(app)) != nil && recorder.waitForFocus(app, pid: window.processIdentifier, seconds: 1)
            }
            #expect(focused, "\(recorder.requests)\n\(bridge.err)")
        }
        #expect(Array(KDEBridgeTests.windows(recorder).suffix(3)) == ["test.popgestured.one", "test.popgestured.two", "test.popgestured.one"])
        let pids = ["test.popgestured.one": Int64(one.processIdentifier), "test.popgestured.two": Int64(two.processIdentifier)]
        for line in recorder.focusLines {
            #expect(line.app == nil ? line.pid == nil : line.pid == pids[line.app!], "every line's pid is its window's: \(line)")
        }

        try shell.turn(1)  // META_MONITOR_TRANSFORM_90: what mutter applies for iio-sensor-proxy's left-up
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) { recorder.rotations.last?.degrees == 90 }, "\(recorder.requests)")
        try shell.turn(3)
        #expect(PopGestureCtlDaemonTests.within(seconds: 20) { recorder.rotations.last?.degrees == 270 }, "\(recorder.requests)")
        #expect(recorder.rotations.map(\.degrees) == [0, 90, 270])
        #expect(recorder.rotations.allSatisfy { $0.output == "Meta-0" }, "\(recorder.rotations)")

        kill(shell.process.processIdentifier, SIGKILL)
        PopGestureCtlDaemonTests.waitForExit(bridge.process, seconds: 15)
        #expect(bridge.process.terminationStatus == 0, "\(bridge.err)")
        #expect(bridge.err.contains("GNOME Shell left the session bus; done"), "\(bridge.err)")
    }

    @Test("extensions switched off: the bridge says what to do; a second bridge ends with 2, the name being taken",
          .timeLimit(.minutes(2)))
    func extensionsSwitchedOff() throws {
        let bus = try DesktopSession.Bus()
        let shell = try Shell(bus: bus)  // held to the end: its stand-in system bus goes with it
        defer { withExtendedLifetime(shell) {} }
        try bus.call("org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Properties.Set",
                     ["org.gnome.Shell.Extensions", "UserExtensionsEnabled", "<false>"])
        let bridge = try Background(["bridge", "gnome", "--socket", "/nonexistent/x.sock"],
                                    in: bus.directory, name: "bridge", environment: bus.environment)
        #expect(bridge.waitForError(seconds: 15) { $0.contains("extensions are switched off in this session") }, "\(bridge.err)")
        #expect(bridge.process.isRunning, "it waits for the extension: \(bridge.err)")

        let second = try Background(["bridge", "gnome", "--socket", "/nonexistent/x.sock"],
                                    in: bus.directory, name: "second", environment: bus.environment)
        PopGestureCtlDaemonTests.waitForExit(second.process, seconds: 15)
        #expect(second.process.terminationStatus == 2)
        #expect(second.err.contains("another process owns org.popgestured.Bridge on the session bus"), "\(second.err)")
    }
}
