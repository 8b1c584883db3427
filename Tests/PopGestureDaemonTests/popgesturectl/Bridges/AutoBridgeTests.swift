import Foundation
import Testing
@testable import popgesturectl

/// `popgesturectl bridge auto`: which bridge a session's environment picks, and the
/// command's message and exit status when none fits.
@Suite struct AutoBridgeTests {
    static let noBridge = "apps report their own focus; see docs/BRIDGES.md"
    static let sway = "SWAYSOCK is set: running bridge sway"
    static let x11 = "XDG_SESSION_TYPE=x11: running bridge x11"
    static let display = "DISPLAY is set, WAYLAND_DISPLAY is not: running bridge x11"
    static func none(_ desktop: String) -> String { "no focus bridge for \(desktop) yet: \(noBridge)" }

    static func choose(_ environment: [String: String]) -> AutoBridgeDecision {
        AutoBridge.choose(SessionEnvironment(environment))
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var session: String
        var environment: [String: String]
        var choice: BridgeChoice
        var reason: String
        var testDescription: String { session }
    }

    static let cases: [Case] = [
        Case(session: "sway from a display manager, Xwayland running",
             environment: ["SWAYSOCK": "/run/user/1000/sway-ipc.1000.812.sock", "WAYLAND_DISPLAY": "wayland-1",
                           "DISPLAY": ":0", "XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "sway"],
             choice: .sway(socket: "/run/user/1000/sway-ipc.1000.812.sock"), reason: sway),
        Case(session: "sway from a tty on Debian 12 (XDG_SESSION_TYPE=tty, no XDG_CURRENT_DESKTOP)",
             environment: ["SWAYSOCK": "/run/user/1000/sway-ipc.sock", "WAYLAND_DISPLAY": "wayland-1", "XDG_SESSION_TYPE": "tty"],
             choice: .sway(socket: "/run/user/1000/sway-ipc.sock"), reason: sway),
        Case(session: "startx with a plain window manager (no XDG_SESSION_TYPE)",
             environment: ["DISPLAY": ":0"],
             choice: .x11(display: ":0"), reason: display),
        Case(session: "XDG_SESSION_TYPE=x11 wins over a nested compositor's WAYLAND_DISPLAY",
             environment: ["DISPLAY": ":0", "XDG_SESSION_TYPE": "X11", "WAYLAND_DISPLAY": "wayland-0"],
             choice: .x11(display: ":0"), reason: x11),
        Case(session: "GNOME on Wayland, with Xwayland's DISPLAY",
             environment: ["XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0",
                           "DISPLAY": ":0"],
             choice: .gnome, reason: "XDG_CURRENT_DESKTOP names GNOME on Wayland: running bridge gnome"),
        Case(session: "Ubuntu's GNOME (ubuntu:GNOME)",
             environment: ["XDG_CURRENT_DESKTOP": "ubuntu:GNOME", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"],
             choice: .gnome, reason: "XDG_CURRENT_DESKTOP names GNOME on Wayland: running bridge gnome"),
        Case(session: "KDE Plasma on Wayland",
             environment: ["XDG_CURRENT_DESKTOP": "KDE", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"],
             choice: .kde, reason: "XDG_CURRENT_DESKTOP names KDE on Wayland: running bridge kde"),
        Case(session: "Phosh (Phosh:GNOME): phoc is a wlroots compositor",
             environment: ["XDG_CURRENT_DESKTOP": "Phosh:GNOME", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"],
             choice: .wlroots(display: "wayland-0"), reason: "Phosh on Wayland: running bridge wlroots"),
        Case(session: "another Wayland compositor, by its name",
             environment: ["XDG_CURRENT_DESKTOP": "Hyprland", "WAYLAND_DISPLAY": "wayland-1"],
             choice: .wlroots(display: "wayland-1"), reason: "Hyprland on Wayland: running bridge wlroots"),
        Case(session: "a Wayland compositor that names no desktop",
             environment: ["WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"],
             choice: .wlroots(display: "wayland-1"), reason: "a Wayland compositor that names no desktop: running bridge wlroots"),
        Case(session: "a Wayland session whose WAYLAND_DISPLAY never reached systemd",
             environment: ["XDG_CURRENT_DESKTOP": "labwc:wlroots", "XDG_SESSION_TYPE": "wayland"],
             choice: .none,
             reason: "a Wayland session without WAYLAND_DISPLAY: the session has not given it to systemd "
                 + "(systemctl --user import-environment WAYLAND_DISPLAY); see docs/BRIDGES.md"),
        Case(session: "sway's session whose SWAYSOCK never reached systemd",
             environment: ["XDG_CURRENT_DESKTOP": "sway", "WAYLAND_DISPLAY": "wayland-1"],
             choice: .none,
             reason: "sway's session without SWAYSOCK: sway has not given it to systemd "
                 + "(systemctl --user import-environment SWAYSOCK); see docs/BRIDGES.md"),
        Case(session: "an X11 session whose DISPLAY never reached systemd",
             environment: ["XDG_SESSION_TYPE": "x11", "XDG_CURRENT_DESKTOP": "openbox"],
             choice: .none,
             reason: "an X11 session without DISPLAY: the session has not given it to systemd "
                 + "(systemctl --user import-environment DISPLAY XAUTHORITY); see docs/BRIDGES.md"),
        Case(session: "no graphical session (a tty, ssh)",
             environment: ["XDG_SESSION_TYPE": "tty"],
             choice: .none,
             reason: "no graphical session: none of SWAYSOCK, WAYLAND_DISPLAY and DISPLAY is set; "
                 + "run it in the session, or start popgesturectl-bridge.service from it; see docs/BRIDGES.md"),
        Case(session: "an empty value counts as unset",
             environment: ["SWAYSOCK": "", "WAYLAND_DISPLAY": "", "DISPLAY": ":2", "XDG_SESSION_TYPE": ""],
             choice: .x11(display: ":2"), reason: display),
    ]

    @Test("the session's environment picks the bridge, and says why", arguments: cases)
    func choice(_ example: Case) {
        #expect(Self.choose(example.environment) == AutoBridgeDecision(choice: example.choice, reason: example.reason))
    }

    @Test("an X11 session from a display manager is the X11 bridge's, whatever the desktop: xfwm4, Mutter and KWin are EWMH window managers",
          arguments: ["XFCE", "GNOME", "KDE", "ubuntu:GNOME"])
    func x11Desktops(desktop: String) {
        #expect(Self.choose(["DISPLAY": ":1", "XDG_SESSION_TYPE": "x11", "XDG_CURRENT_DESKTOP": desktop])
                    == AutoBridgeDecision(choice: .x11(display: ":1"), reason: Self.x11))
    }

    @Test("the session is shown variable by variable, unset ones too, odd values quoted")
    func sessionDescription() {
        let session = SessionEnvironment([
            "XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "Evil\u{1b}[2J", "HOME": "/root",
            "SWAYSOCK": "",
        ])
        #expect(session.description == #"""
            XDG_CURRENT_DESKTOP="Evil\u{1b}[2J", XDG_SESSION_TYPE=wayland, WAYLAND_DISPLAY unset, SWAYSOCK unset, DISPLAY=:0
            """#)
        #expect(Self.choose(["XDG_CURRENT_DESKTOP": "a\nb", "WAYLAND_DISPLAY": "w"]).reason
                    == #""a\nb" on Wayland: running bridge wlroots"#)
    }

    /// Every variable the choice reads, empty: the developer's own session must not leak in.
    static let noSession = Dictionary(uniqueKeysWithValues: SessionEnvironment.variables.map { ($0, "") })

    @Test("no bridge fits: the message names the session, exit 3, nothing on stdout")
    func noneFits() throws {
        let environment = Self.noSession.merging(
            ["XDG_CURRENT_DESKTOP": "sway", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"]
        ) { $1 }
        let result = try PopGestureCtlCommandTests.run(["bridge", "auto", "--socket", "/nonexistent/popgestured.sock"],
                                                       environment: environment)
        #expect(result.status == ExitStatus.noBridge.rawValue)
        #expect(result.status == 3)
        #expect(result.err == """
            popgesturectl: bridge auto: sway's session without SWAYSOCK: sway has not given it to systemd \
            (systemctl --user import-environment SWAYSOCK); see docs/BRIDGES.md \
            (the session: XDG_CURRENT_DESKTOP=sway, XDG_SESSION_TYPE=wayland, WAYLAND_DISPLAY=wayland-0, SWAYSOCK unset, \
            DISPLAY=:0)

            """)
        #expect(result.out.isEmpty)
    }

    @Test("the bridge picked runs, as if named: sway's, on $SWAYSOCK")
    func runsSway() throws {
        let environment = Self.noSession.merging(["SWAYSOCK": "/nonexistent/sway.sock"]) { $1 }
        let result = try PopGestureCtlCommandTests.run(["bridge", "auto", "--socket", "/nonexistent/popgestured.sock"],
                                                       environment: environment)
        #expect(result.status == 2)
        #expect(result.err.hasPrefix("""
            popgesturectl bridge auto: SWAYSOCK is set: running bridge sway (the session: XDG_CURRENT_DESKTOP unset, \
            XDG_SESSION_TYPE unset, WAYLAND_DISPLAY unset, SWAYSOCK=/nonexistent/sway.sock, DISPLAY unset)
            popgesturectl: cannot connect to sway at /nonexistent/sway.sock: 
            """), "\(result.err)")
    }

    @Test("the bridge picked runs, as if named: X11's, on $DISPLAY")
    func runsX11() throws {
        let environment = Self.noSession.merging(["XDG_SESSION_TYPE": "x11", "DISPLAY": ":4711"]) { $1 }
        let result = try PopGestureCtlCommandTests.run(["bridge", "auto", "--socket", "/nonexistent/popgestured.sock"],
                                                       environment: environment)
        #expect(result.status == 2)
        #expect(result.err.hasPrefix("""
            popgesturectl bridge auto: XDG_SESSION_TYPE=x11: running bridge x11 (the session: XDG_CURRENT_DESKTOP unset, \
            XDG_SESSION_TYPE=x11, WAYLAND_DISPLAY unset, SWAYSOCK unset, DISPLAY=:4711)
            popgesturectl: cannot open the X display :4711
            """), "\(result.err)")
    }

    @Test("in sway's session it is sway's bridge: the shell, under that name, following sway's focus",
          .timeLimit(.minutes(1)))
    func inSway() throws {
        let sway = try SwayBridgeTests.HeadlessSway()
        let one = try sway.openWindow(appID: "one")
        let daemon = try PopGestureCtlDaemonTests.Daemon()
        let bridge = try PopGestureCtlDaemonTests.Background(
            ["bridge", "auto", "--socket", daemon.socket], in: daemon.directory, name: "bridge",
            environment: Self.noSession.merging(["SWAYSOCK": sway.ipcSocket, "WAYLAND_DISPLAY": "wayland-1"]) { $1 })
        let focus = SwayBridgeTests.waitForFocus(daemon, app: "one", pid: one)
        #expect(bridge.err.hasPrefix("popgesturectl bridge auto: SWAYSOCK is set: running bridge sway ("), "\(bridge.err)")
        let status = try PopGestureCtlCommandTests.run(["status", "--json", "--socket", daemon.socket])
        let reply = try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any]
        let shell = (reply?["clients"] as? [[String: Any]])?.first { ($0["client"] as? NSNumber) == (focus?["shell"] as? NSNumber) }
        #expect(shell?["name"] as? String == "popgesturectl bridge sway", "\(status.out)")
        #expect(bridge.interrupt() == 0)
    }

    @Test("the user unit takes exit 3 as nothing to do, and restarts only on failure")
    func unit() throws {
        let root = Repository.root
        let unit = try String(contentsOf: root.appendingPathComponent("systemd/popgesturectl-bridge.service"), encoding: .utf8)
        let lines = Set(unit.split(separator: "\n").map(String.init))
        #expect(lines.contains("ExecStart=/usr/local/bin/popgesturectl bridge auto"))
        #expect(lines.contains("SuccessExitStatus=\(ExitStatus.noBridge.rawValue)"))
        #expect(lines.contains("Restart=on-failure"))
        #expect(lines.contains("WantedBy=graphical-session.target"))
    }
}
