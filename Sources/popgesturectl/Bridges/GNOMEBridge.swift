import ArgumentParser

/// `popgesturectl bridge gnome`: GNOME Shell's focus window and the built-in monitor's
/// transform, through a GNOME Shell extension, to popgestured.
struct GNOMEBridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gnome",
        abstract: "Tell popgestured which window has focus in GNOME, and how the screen is turned, through a GNOME Shell extension.",
        discussion: """
            Owns org.popgestured.Bridge on the session bus and enables the GNOME Shell \
            extension \(GNOMEBridge.uuid) (org.gnome.Shell.Extensions EnableExtension), \
            which the package installs. The extension calls the bridge at every focus \
            change with the window's app id (Meta.Window's WM class: Wayland app_id, X11 \
            WM_CLASS class) and pid, at every monitor change with the built-in (else \
            primary) monitor's transform, and once with the session's text direction. \
            Ends with 0 when GNOME Shell leaves the session bus. See docs/BRIDGES.md.
            """)

    @OptionGroup var options: BridgeOptions

    static let name = "popgesturectl bridge gnome"
    /// The extension's uuid: its folder's name in /usr/share/gnome-shell/extensions.
    static let uuid = "popgestured-bridge@popgestured"

    func run() throws {
        try Self.run(options: options)
    }

    /// Runs the bridge: for `bridge gnome` and `bridge auto`.
    static func run(options: BridgeOptions) throws {
        let source = try DesktopBusSource(compositorName: "org.gnome.Shell", shownName: "GNOME Shell") {
            standardError("\(name): \($0)")
        }
        // Enabled already, the extension sees the bridge's name appear and reports at once.
        let howTo = "enable it with `gnome-extensions enable \(uuid)` (the popgestured package installs it "
            + "in /usr/share/gnome-shell/extensions; a Shell started before the install needs a new login)"
        do {
            let enabled = try source.bus.call(
                "org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions", "EnableExtension", [uuid]).first
            if enabled != .bool(true) {
                standardError("\(name): GNOME Shell did not enable the extension \(uuid): \(howTo); waiting for it")
            }
        } catch {
            standardError("\(name): cannot enable the extension \(uuid) (\(error)): \(howTo); waiting for it")
        }
        // Switched off, GNOME Shell runs no extension from enabled-extensions, yet EnableExtension says true.
        let switched = try? source.bus.call(
            "org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Properties", "Get",
            ["org.gnome.Shell.Extensions", "UserExtensionsEnabled"]).first
        if switched == .bool(false) {
            standardError("\(name): extensions are switched off in this session (the Extensions app's switch, "
                + "org.gnome.shell disable-user-extensions), so the extension \(uuid) does not run: "
                + "switch them on (gnome-extensions enable runs nothing while they are off); waiting for it")
        }
        try Bridge.run(source, name: name, options: options)
    }
}
