import PopGestureCore
import PopGestureInput

/// A touchscreen's size from the display it drives, for one that gives none of its own.
///
/// A touchscreen with no resolution and no udev size would be measured on the
/// 217 × 136 mm guess (``ScreenTransform/fallbackSize``): on a 4.3-inch panel the
/// 4.8 mm edge zone would be 2.1 mm of glass. Its display's EDID usually knows the
/// panel's size, so when the device is opened the daemon reads `/sys/class/drm`, picks
/// the display the touchscreen drives (``DisplayConnectors/display(output:touchscreenIsBuiltIn:among:)``)
/// and hands its size to the engine (``DeviceConfiguration/displaySize``). The
/// connectors are read once per device opened, and only for such a touchscreen.
enum DisplaySize {
    /// What was found for one touchscreen: the size to use, and a line for the log.
    struct Lookup: Sendable, Equatable {
        var size: PhysicalSize?
        var message: String
    }

    /// Whether the device needs a display's size: a touchscreen whose axes have no
    /// resolution and for which udev gives no size, as ``ScreenTransform`` decides.
    static func isNeeded(kind: DeviceKind, description: DeviceDescription) -> Bool {
        kind == .touchscreen && ScreenTransform(device: description).sizeIsAssumed
    }

    /// The display's size for the touchscreen `info`, among `connectors`
    /// (``DisplayConnectors/read(root:)``'s). Pure, so that tests give it connectors.
    static func lookUp(for info: InputDeviceInfo, bustype: UInt16, among connectors: [DisplayConnector]) -> Lookup {
        let builtIn = DisplayConnectors.touchscreenIsBuiltIn(
            udevBus: info.bus, bustype: bustype, integration: info.integration)
        guard let choice = DisplayConnectors.display(output: info.output, touchscreenIsBuiltIn: builtIn, among: connectors)
        else {
            let connected = connectors.filter(\.isConnected).map(\.name)
            let why = connected.isEmpty
                ? "no connected display in /sys/class/drm"
                : "cannot tell which of \(connected.joined(separator: ", ")) it drives (set WL_OUTPUT)"
            return Lookup(size: nil, message: "no size of its own, and \(why): assuming \(Self.fallback)")
        }
        let display = "display \(choice.connector.name) (\(choice.rule.rawValue))"
        guard let size = choice.connector.size else {
            let why = choice.connector.sizeProblem ?? "no size"
            return Lookup(size: nil, message: "no size of its own, and its \(display) gives none (\(why)): assuming \(Self.fallback)")
        }
        return Lookup(
            size: size,
            message: "no size of its own: using its \(display)'s, \(millimetres(size.width)) × \(millimetres(size.height)) mm from its EDID")
    }

    private static var fallback: String {
        "\(millimetres(ScreenTransform.fallbackSize.width)) × \(millimetres(ScreenTransform.fallbackSize.height)) mm"
    }

    /// `95.0` → `95`: EDID's sizes are whole millimetres.
    private static func millimetres(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }
}
