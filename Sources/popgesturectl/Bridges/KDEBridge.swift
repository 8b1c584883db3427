import ArgumentParser
import Glibc

/// `popgesturectl bridge kde`: KWin's active window, through a KWin script that the
/// bridge loads, to popgestured.
struct KDEBridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kde",
        abstract: "Tell popgestured which window has focus in KDE Plasma (KWin), through a KWin script.",
        discussion: """
            Owns org.popgestured.Bridge on the session bus, then loads the KWin script \
            popgestured (--script) through KWin's org.kde.kwin.Scripting interface and \
            starts it. The script calls the bridge at every activation with the window's \
            resourceClass (its app id: Wayland app_id, X11 WM_CLASS class) and pid. It \
            works with KWin 5.27 (Plasma 5) and KWin 6. KWin's scripts cannot see an \
            output's rotation: popgestured follows iio-sensor-proxy, as KWin's own \
            auto-rotation does. Ends with 0 when KWin leaves the session bus, and unloads \
            the script when it ends. See docs/BRIDGES.md.
            """)

    @Option(help: ArgumentHelp(
        "The KWin script's main.js.",
        discussion: "Default: the first of \(KDEBridge.scriptPaths.joined(separator: ", ")) that exists.",
        valueName: "path"))
    var script: String?

    @OptionGroup var options: BridgeOptions

    static let name = "popgesturectl bridge kde"
    /// The name KWin knows the script by: the package's plugin id (metadata.json).
    static let pluginName = "popgestured"
    /// Where the Debian package and a source install put the script.
    static let scriptPaths = [
        "/usr/share/kwin/scripts/popgestured/contents/code/main.js",
        "/usr/local/share/kwin/scripts/popgestured/contents/code/main.js",
    ]

    func run() throws {
        try Self.run(script: script, options: options)
    }

    /// Runs the bridge: for `bridge kde` and `bridge auto`.
    static func run(script: String?, options: BridgeOptions) throws {
        guard let path = script ?? scriptPaths.first(where: { access($0, R_OK) == 0 }) else {
            throw CtlFailure("\(name): the KWin script is not installed (\(scriptPaths.joined(separator: " or "))): "
                + "install the popgestured package, or give --script", exitCode: .usage)
        }
        let source = try DesktopBusSource(compositorName: "org.kde.KWin", shownName: "KWin") { standardError("\(name): \($0)") }
        let scripting = ("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting")
        do {
            // A script left loaded by a bridge that died reported to it, not to this one: start afresh.
            if case .bool(true)? = try source.bus.call(scripting.0, scripting.1, scripting.2, "isScriptLoaded", [pluginName]).first {
                try source.bus.call(scripting.0, scripting.1, scripting.2, "unloadScript", [pluginName])
            }
            let id = try source.bus.call(scripting.0, scripting.1, scripting.2, "loadScript", [path, pluginName]).first
            guard case .integer(let number)? = id, number >= 0 else {
                throw DBusError(name: "", message: "KWin did not load \(path) (loadScript answered \(String(describing: id)))")
            }
            try source.bus.call(scripting.0, scripting.1, scripting.2, "start")
        } catch let error as DBusError {
            throw CtlFailure("\(name): cannot load the KWin script: \(error)", exitCode: .cannotConnect)
        }
        defer { _ = try? source.bus.call(scripting.0, scripting.1, scripting.2, "unloadScript", [pluginName]) }
        try Bridge.run(source, name: name, options: options)
    }
}
