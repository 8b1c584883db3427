import ArgumentParser
import Glibc
import PopGestureProtocol

/// `popgesturectl bridge auto`: the bridge that fits the session it runs in, run as if
/// named; or, when none fits, a message naming the session and exit 3, which
/// popgesturectl-bridge.service takes as "nothing to do" (`SuccessExitStatus=3`).
struct AutoBridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auto",
        abstract: "Run the focus bridge that fits this session, or say that none does (exit 3).",
        discussion: """
            Reads the session from the environment: SWAYSOCK set is sway (bridge sway); \
            an X11 session (XDG_SESSION_TYPE=x11, or DISPLAY set without WAYLAND_DISPLAY) \
            is bridge x11. On Wayland, XDG_CURRENT_DESKTOP naming KDE is bridge kde, naming \
            GNOME (not Phosh) bridge gnome; Phosh, and any other Wayland compositor but \
            sway, is bridge wlroots when the compositor offers wlr-foreign-toplevel-management; \
            a compositor without that protocol has no bridge: it says so, naming what it \
            saw, and exits with 3. The user unit popgesturectl-bridge.service runs it in every \
            graphical session. An empty variable counts as unset. See docs/BRIDGES.md.
            """)

    @OptionGroup var options: BridgeOptions

    static let name = "popgesturectl bridge auto"

    func run() throws {
        let session = SessionEnvironment.current
        let decision = Self.choose(session)
        let message = "\(decision.reason) (the session: \(session))"
        switch decision.choice {
        case .sway(let socket):
            standardError("\(Self.name): \(message)")
            try SwayBridge.run(swaySocket: socket, options: options)
        case .x11(let display):
            standardError("\(Self.name): \(message)")
            try X11Bridge.run(display: display, options: options)
        case .wlroots(let display):
            standardError("\(Self.name): \(message)")
            let source: WlrootsSource
            do {
                source = try WlrootsSource(display: display)
            } catch where error.kind == .noToplevelProtocol {
                throw CtlFailure("bridge auto: \(error); apps report their own focus; see docs/BRIDGES.md "
                    + "(the session: \(session))", exitCode: .noBridge)
            } catch {
                throw CtlFailure("\(WlrootsBridge.name): \(error)", exitCode: .cannotConnect)
            }
            try WlrootsBridge.run(source, options: options)
        case .kde:
            standardError("\(Self.name): \(message)")
            try KDEBridge.run(script: nil, options: options)
        case .gnome:
            standardError("\(Self.name): \(message)")
            try GNOMEBridge.run(options: options)
        case .none:
            throw CtlFailure("bridge auto: \(message)", exitCode: .noBridge)
        }
    }
}

/// What `bridge auto` reads of the session: the variables that the display manager,
/// logind and the compositor set, and that a session hands to the systemd user manager.
/// An empty value counts as unset, as `systemctl --user unset-environment` leaves none.
struct SessionEnvironment: Equatable, CustomStringConvertible {
    /// In the order `description` shows them.
    static let variables = ["XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "WAYLAND_DISPLAY", "SWAYSOCK", "DISPLAY"]

    /// The set, non-empty ones among `variables`.
    let values: [String: String]

    init(_ environment: [String: String]) {
        values = environment.filter { Self.variables.contains($0.key) && !$0.value.isEmpty }
    }

    /// This process's session.
    static var current: SessionEnvironment {
        SessionEnvironment(Dictionary(uniqueKeysWithValues: variables.compactMap { name in
            getenv(name).map { (name, String(cString: $0)) }
        }))
    }

    subscript(_ name: String) -> String? { values[name] }

    /// `XDG_CURRENT_DESKTOP`'s names, most specific first: `Phosh:GNOME` is Phosh, then GNOME.
    var desktops: [String] {
        (self["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map(String.init)
    }

    /// `XDG_SESSION_TYPE=wayland, SWAYSOCK unset, …`: each variable, in `variables`' order,
    /// its value quoted when it holds anything odd.
    var description: String {
        Self.variables.map { name in
            values[name].map { "\(name)=\(quotedIfNeeded($0, limit: ProtocolLimits.maximumIdentifierBytes))" }
                ?? "\(name) unset"
        }.joined(separator: ", ")
    }
}

/// The bridge `bridge auto` runs, with what it needs from the session.
enum BridgeChoice: Equatable {
    case sway(socket: String)
    case x11(display: String)
    /// A wlroots compositor's Wayland protocols, on this display; when the compositor
    /// turns out not to offer them, none (exit 3).
    case wlroots(display: String)
    /// KDE Plasma's KWin on Wayland, through its script.
    case kde
    /// GNOME Shell on Wayland, through its extension.
    case gnome
    /// No bridge fits: nothing to do.
    case none
}

struct AutoBridgeDecision: Equatable {
    var choice: BridgeChoice
    /// Why, in a line: which variables decided, and for `.none` what the user can do.
    var reason: String
}

extension AutoBridge {
    /// Desktops with a compositor and a bridge of their own, by the name they give in
    /// `XDG_CURRENT_DESKTOP`, the name a message shows, and their bridge. Phosh's
    /// sessions say `Phosh:GNOME`, and phoc is not GNOME Shell: it is looked for first.
    static let desktops: [(name: String, shown: String, bridge: BridgeChoice)] = [
        ("GNOME", "GNOME", .gnome), ("KDE", "KDE Plasma", .kde),
    ]

    /// The bridge for `session`, from its environment alone:
    /// 1. `SWAYSOCK` set: sway's bridge, on that socket.
    /// 2. An X11 session (`XDG_SESSION_TYPE=x11`, or `DISPLAY` set and neither
    ///    `WAYLAND_DISPLAY` nor `XDG_SESSION_TYPE=wayland`): the X11 bridge, which follows
    ///    any EWMH window manager (GNOME's and KDE's on Xorg too). Without `DISPLAY`, none.
    /// 3. A Wayland session (under it the X11 bridge would see Xwayland's windows only):
    ///    - KDE Plasma (`XDG_CURRENT_DESKTOP` names KDE): bridge kde; GNOME (names GNOME,
    ///      and not Phosh): bridge gnome. Whether KWin or GNOME Shell is on the session
    ///      bus, the bridge checks: not there, it ends with 2 and the unit tries again;
    ///    - Phosh (`Phosh:GNOME`: before GNOME), or any desktop but GNOME, KDE Plasma and
    ///      sway: the wlroots bridge on `WAYLAND_DISPLAY`, which phoc, labwc, Wayfire and
    ///      Hyprland serve; when the compositor turns out not to offer
    ///      wlr-foreign-toplevel-management, none (`run` says so, exit 3);
    ///    - sway without `SWAYSOCK`: none, naming the variable (its IPC bridge has pids,
    ///      the wlroots bridge would not);
    ///    - no `WAYLAND_DISPLAY`: none, naming it.
    /// 4. Nothing graphical: none.
    static func choose(_ session: SessionEnvironment) -> AutoBridgeDecision {
        let seeBridges = "see docs/BRIDGES.md"
        if let socket = session["SWAYSOCK"] {
            return AutoBridgeDecision(choice: .sway(socket: socket), reason: "SWAYSOCK is set: running bridge sway")
        }
        let type = session["XDG_SESSION_TYPE"]?.lowercased()
        let isWayland = type == "wayland" || (type != "x11" && session["WAYLAND_DISPLAY"] != nil)
        if type == "x11" || (!isWayland && session["DISPLAY"] != nil) {
            guard let display = session["DISPLAY"] else {
                return AutoBridgeDecision(
                    choice: .none,
                    reason: "an X11 session without DISPLAY: the session has not given it to systemd "
                        + "(systemctl --user import-environment DISPLAY XAUTHORITY); \(seeBridges)")
            }
            let why = type == "x11" ? "XDG_SESSION_TYPE=x11" : "DISPLAY is set, WAYLAND_DISPLAY is not"
            return AutoBridgeDecision(choice: .x11(display: display), reason: "\(why): running bridge x11")
        }
        guard isWayland else {
            return AutoBridgeDecision(
                choice: .none,
                reason: "no graphical session: none of SWAYSOCK, WAYLAND_DISPLAY and DISPLAY is set; "
                    + "run it in the session, or start popgesturectl-bridge.service from it; \(seeBridges)")
        }
        let desktops = session.desktops
        let isPhosh = desktops.contains { $0.equalsIgnoringCase("Phosh") }
        let known = isPhosh ? nil : Self.desktops.first { known in desktops.contains { $0.equalsIgnoringCase(known.name) } }
        if let known {
            return AutoBridgeDecision(
                choice: known.bridge,
                reason: "XDG_CURRENT_DESKTOP names \(known.name) on Wayland: running bridge \(known.bridge)")
        }
        if !isPhosh, desktops.contains(where: { $0.equalsIgnoringCase("sway") }) {
            return AutoBridgeDecision(
                choice: .none,
                reason: "sway's session without SWAYSOCK: sway has not given it to systemd "
                    + "(systemctl --user import-environment SWAYSOCK); \(seeBridges)")
        }
        let desktop = isPhosh ? "Phosh" : desktops.first.map { quotedIfNeeded($0) }
        guard let display = session["WAYLAND_DISPLAY"] else {
            return AutoBridgeDecision(
                choice: .none,
                reason: "a Wayland session without WAYLAND_DISPLAY: the session has not given it to systemd "
                    + "(systemctl --user import-environment WAYLAND_DISPLAY); \(seeBridges)")
        }
        return AutoBridgeDecision(
            choice: .wlroots(display: display),
            reason: (desktop.map { "\($0) on Wayland" } ?? "a Wayland compositor that names no desktop")
                + ": running bridge wlroots")
    }
}

extension StringProtocol {
    /// Equal to `other` but for case (ASCII): desktop names are written both ways.
    fileprivate func equalsIgnoringCase(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
