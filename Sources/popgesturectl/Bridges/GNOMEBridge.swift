import ArgumentParser
import SystemPackage

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
        var reporter = GNOMESource(bus: source)
        if let why = reporter.enable() { standardError("\(name): \(why); waiting for it") }
        // Switched off, GNOME Shell runs no extension from enabled-extensions, yet EnableExtension says true.
        let switched = try? source.bus.call(
            "org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Properties", "Get",
            ["org.gnome.Shell.Extensions", "UserExtensionsEnabled"]).first
        if switched == .bool(false) {
            standardError("\(name): extensions are switched off in this session (the Extensions app's switch, "
                + "org.gnome.shell disable-user-extensions), so the extension \(uuid) does not run: "
                + "switch them on (gnome-extensions enable runs nothing while they are off); waiting for it")
        }
        try Bridge.run(reporter, name: name, options: options)
    }
}

/// GNOME Shell as a `FocusSource`: the extension's calls on the session bus. A Shell
/// that owns its name before its extension system is up (a bridge started with the
/// session) refuses EnableExtension, and says nothing once it is up: until the
/// extension first reports, the bridge enables it again every `retryInterval`.
struct GNOMESource: FocusSource {
    let bus: DesktopBusSource
    /// Mutter leaves touch mode while any pointer or touchpad device is there (on a tablet
    /// without a tablet-mode switch), and GNOME Shell then shows no on-screen keyboard for
    /// a tapped text field: no virtual touchpad and pointer here.
    var takesTouchpadBridge: Bool { false }
    private(set) var checkAt: ContinuousClock.Instant? = .now + GNOMESource.retryInterval
    /// Whether the last try failed, so that a success after it is told.
    private var lastTryFailed = false

    static let retryInterval = Duration.seconds(2)

    init(bus: DesktopBusSource) {
        self.bus = bus
    }

    var descriptor: FileDescriptor { bus.descriptor }
    var hasBufferedEvents: Bool { bus.hasBufferedEvents }

    /// Asks GNOME Shell to enable the extension; why it did not, or nil.
    mutating func enable() -> String? {
        let uuid = GNOMEBridge.uuid
        let howTo = "enable it with `gnome-extensions enable \(uuid)` (the popgestured package installs it "
            + "in /usr/share/gnome-shell/extensions; a Shell started before the install needs a new login)"
        var why: String?
        do {
            let enabled = try bus.bus.call(
                "org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions", "EnableExtension", [uuid]).first
            if enabled != .bool(true) { why = "GNOME Shell did not enable the extension \(uuid): \(howTo)" }
        } catch {
            why = "cannot enable the extension \(uuid) (\(error)): \(howTo)"
        }
        lastTryFailed = why != nil
        return why
    }

    mutating func readAvailable() throws -> [FocusSourceEvent] {
        let events = try bus.readAvailable()
        if events.contains(where: { if case .log = $0 { false } else { true } }) { checkAt = nil }  // it reports
        return events
    }

    mutating func check() throws -> [FocusSourceEvent] {
        checkAt = .now + Self.retryInterval
        let failedBefore = lastTryFailed
        return enable() == nil && failedBefore ? [.log("GNOME Shell enabled the extension \(GNOMEBridge.uuid) now")] : []
    }
}
