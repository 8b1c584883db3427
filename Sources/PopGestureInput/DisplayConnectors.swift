import Glibc
import PopGestureCore
import SystemPackage

/// One display connector as the kernel's DRM lists it in `/sys/class/drm/card*-*/`.
public struct DisplayConnector: Sendable, Hashable {
    /// The compositor's name for the output: the folder's name without its `cardN-`
    /// prefix (`card0-eDP-1` is `eDP-1`), as udev's `WL_OUTPUT` names it.
    public var name: String
    /// A panel built into the machine: an `eDP`, `LVDS` or `DSI` connector.
    public var isBuiltIn: Bool
    /// The `status` file says `connected`.
    public var isConnected: Bool
    /// The `enabled` file says `enabled` (a CRTC drives it); false when it says
    /// anything else or is missing.
    public var isEnabled: Bool
    /// The size its EDID gives (``EDID/physicalSize``); nil when there is no EDID, it
    /// is not one, or it gives no size that passes EDID's checks (`sizeProblem`).
    public var size: PhysicalSize?
    /// Why `size` is nil, for the log: "no EDID", the EDID's error, its refused fields.
    public var sizeProblem: String?

    public init(
        name: String, isBuiltIn: Bool, isConnected: Bool, isEnabled: Bool = false, size: PhysicalSize? = nil,
        sizeProblem: String? = nil
    ) {
        self.name = name
        self.isBuiltIn = isBuiltIn
        self.isConnected = isConnected
        self.isEnabled = isEnabled
        self.size = size
        self.sizeProblem = sizeProblem
    }

    /// The connector types of panels built into the machine, as the output names
    /// begin: embedded DisplayPort, LVDS and MIPI DSI (mutter's `meta_output_is_laptop`).
    public static let builtInPrefixes = ["eDP", "LVDS", "DSI"]

    /// Whether an output of this name is a built-in panel (`eDP-1`, `LVDS-1`, `DSI-1`).
    public static func isBuiltIn(name: String) -> Bool {
        builtInPrefixes.contains { name.hasPrefix($0 + "-") }
    }
}

/// The display connectors of `/sys/class/drm`, and which one a touchscreen drives.
///
/// Limits: the first ``maximumFolderEntries`` entries of the folder are looked at and
/// ``maximumConnectors`` connectors read, ``maximumEDIDBytes`` of each `edid` file and
/// ``maximumTextBytes`` of `status` and `enabled`; past them a connector is left out,
/// counts as disconnected, or is given no size with the reason
/// (``DisplayConnector/sizeProblem``). Nothing here traps or grows without bound.
public enum DisplayConnectors {
    /// Where the kernel lists them.
    public static let defaultRoot = "/sys/class/drm"
    /// The most of an `edid` file read: 32 KiB, a base block and its 255 extension
    /// blocks (128 bytes each), the most EDID can have. A longer file gives no size.
    public static let maximumEDIDBytes = 32 << 10
    /// The most of a `status` or `enabled` file read: 64 bytes (the kernel writes
    /// `connected`, `disconnected`, `unknown`, `enabled`, `disabled`).
    public static let maximumTextBytes = 64
    /// The most connectors read: 64, in name order. A machine has a handful per card.
    public static let maximumConnectors = 64

    /// The connectors under `root` (the folder holding `card0-eDP-1` and the like), in
    /// name order. A folder that cannot be read gives none; a connector whose files
    /// cannot be read counts as disconnected, with no size.
    public static func read(root: String = defaultRoot) -> [DisplayConnector] {
        connectorFolders(root).sorted().prefix(maximumConnectors).compactMap { folder in
            guard let name = connectorName(folder: folder) else { return nil }
            let path = root + "/" + folder
            let status = readText(path + "/status")
            let enabled = readText(path + "/enabled")
            var connector = DisplayConnector(
                name: name, isBuiltIn: DisplayConnector.isBuiltIn(name: name), isConnected: status == "connected",
                isEnabled: enabled == "enabled")
            (connector.size, connector.sizeProblem) = size(ofEDIDAt: path + "/edid")
            return connector
        }
    }

    /// The output name of a connector's folder: `card0-eDP-1` → `eDP-1`. Nil for the
    /// cards themselves (`card0`), render nodes (`renderD128`), `version` and the like.
    public static func connectorName(folder: String) -> String? {
        guard folder.hasPrefix("card") else { return nil }
        let afterCard = folder.dropFirst(4)
        let digits = afterCard.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, afterCard.dropFirst(digits.count).first == "-" else { return nil }
        let name = afterCard.dropFirst(digits.count + 1)
        return name.isEmpty ? nil : String(name)
    }

    /// The size in an `edid` file, or why there is none.
    static func size(ofEDIDAt path: String) -> (PhysicalSize?, String?) {
        let bytes: [UInt8]
        switch readBytes(path, limit: maximumEDIDBytes) {
        case .failure(let errno): return (nil, "no EDID (\(errno))")
        case .success(nil): return (nil, "its EDID is longer than \(maximumEDIDBytes) bytes")
        case .success(let read?): bytes = read
        }
        guard !bytes.isEmpty else { return (nil, "no EDID") }
        let edid: EDID
        do {
            edid = try EDID(bytes)
        } catch {
            return (nil, "its EDID is not one: \(error.message)")
        }
        guard let size = edid.physicalSize else {
            let refused = edid.sizeRefusals.map(\.description).joined(separator: "; ")
            return (nil, refused.isEmpty ? "its EDID gives no size" : "its EDID's \(refused)")
        }
        return (size, nil)
    }

    // MARK: - Which display

    /// The display a touchscreen drives, and by which rule it was chosen.
    public struct Choice: Sendable, Hashable {
        public enum Rule: String, Sendable, Hashable {
            /// udev's `WL_OUTPUT` names it.
            case wlOutput = "WL_OUTPUT"
            /// The touchscreen is built in, and this is the one connected built-in panel.
            case builtIn = "built-in"
            /// It is the only connected display.
            case onlyConnected = "only connected"
        }

        public var connector: DisplayConnector
        public var rule: Rule

        public init(connector: DisplayConnector, rule: Rule) {
            self.connector = connector
            self.rule = rule
        }
    }

    /// The display a touchscreen drives, in this order:
    /// 1. the connector `output` (udev's `WL_OUTPUT`) names;
    /// 2. for a built-in touchscreen, the connected built-in panel, if exactly one;
    /// 3. the only connected connector;
    /// 4. none: the touchscreen's display cannot be told.
    ///
    /// An `output` that names no connector (a name of X11's, `HDMI-1` for `HDMI-A-1`) is
    /// passed over for the rules below it.
    public static func display(
        output: String?, touchscreenIsBuiltIn: Bool, among connectors: [DisplayConnector]
    ) -> Choice? {
        if let output, let named = connectors.first(where: { $0.name == output }) {
            return Choice(connector: named, rule: .wlOutput)
        }
        let connected = connectors.filter(\.isConnected)
        if touchscreenIsBuiltIn {
            let panels = connected.filter(\.isBuiltIn)
            if panels.count == 1 { return Choice(connector: panels[0], rule: .builtIn) }
        }
        if connected.count == 1 { return Choice(connector: connected[0], rule: .onlyConnected) }
        return nil
    }

    /// udev's `ID_BUS` values of buses inside the machine: I²C (and HID over I²C), SPI,
    /// the platform bus. A touchscreen on them is the built-in panel's.
    public static let builtInBuses: Set<String> = ["i2c", "spi", "platform", "host", "rmi"]

    /// evdev's `BUS_I2C`, `BUS_SPI` and `BUS_HOST` (`linux/input.h`): what an I²C-HID,
    /// SPI or SoC touchscreen reports when udev sets no `ID_BUS`.
    public static let builtInBustypes: Set<UInt16> = [0x18, 0x1C, 0x19]

    /// Whether a touchscreen is built into the machine: systemd's `ID_INTEGRATION` when
    /// set (`internal`: a 2-in-1's USB touchscreen on a fixed port), else udev's `ID_BUS` when it is set
    /// (`usb`, `bluetooth` and the rest are external; ``builtInBuses`` are not), else
    /// evdev's bus type (``builtInBustypes``). `ID_BUS` is set for USB devices by udev's
    /// `usb_id`, and often missing for I²C-HID ones, hence the bus type.
    public static func touchscreenIsBuiltIn(udevBus: String?, bustype: UInt16, integration: String? = nil) -> Bool {
        switch integration?.lowercased() {
        case "internal"?: return true
        case "external"?: return false
        default: break
        }
        if let udevBus, !udevBus.isEmpty { return builtInBuses.contains(udevBus.lowercased()) }
        return builtInBustypes.contains(bustype)
    }

    // MARK: - Files

    /// A small text file's first word (the kernel writes one and a newline); nil when
    /// it cannot be read or is longer than ``maximumTextBytes``.
    static func readText(_ path: String) -> String? {
        guard case .success(let bytes?) = readBytes(path, limit: maximumTextBytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init)
    }

    /// The file's bytes: nil inside success when it holds more than `limit`. Opened
    /// non-blocking, so that a FIFO where a file should be reads as empty, not forever.
    static func readBytes(_ path: String, limit: Int) -> Result<[UInt8]?, Errno> {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec, .nonBlocking])
        } catch {
            return .failure(error as? Errno ?? .ioError)
        }
        defer { try? fd.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try fd.read(into: $0, retryOnInterrupt: true) }
            } catch {
                return .failure(error as? Errno ?? .ioError)
            }
            guard count > 0 else { return .success(bytes) }
            bytes += chunk[..<min(count, limit + 1 - bytes.count)]
        }
        return .success(nil)
    }

    /// The most entries of the root folder looked at: 1024. `/sys/class/drm` holds the
    /// cards, their connectors and render nodes, a few dozen at most.
    public static let maximumFolderEntries = 1024

    /// The connector folders' names (`card0-eDP-1`) among the first
    /// ``maximumFolderEntries`` entries of a folder; empty when it cannot be read.
    static func connectorFolders(_ path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        var seen = 0
        while seen < maximumFolderEntries, let entry = readdir(folder) {
            seen += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if connectorName(folder: name) != nil { names.append(name) }
        }
        return names
    }
}
