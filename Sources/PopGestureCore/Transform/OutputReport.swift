/// One output (a screen) as the shell reports it (`outputs`): its name, how it is
/// turned, its physical size and which input devices the compositor maps to it.
public struct OutputReport: Sendable, Hashable {
    /// The compositor's name for it (`eDP-1`, `DSI-1`, `HDMI-A-1`), as udev's
    /// `WL_OUTPUT` and sway's `map_to_output` name it.
    public var name: String
    /// How far the picture is turned clockwise on the panel, as the daemon's `rotation`
    /// counts it (a `wl_output` transform of 90 is 90; a flipped one gives its turn).
    public var rotation: Rotation
    /// The panel's size in millimetres in its native (untransformed) orientation, as
    /// `wl_output.geometry`, wlr-output-management's `physical_size`, RandR's
    /// `mm_width`/`mm_height` and EDID give it; nil when the compositor does not know.
    public var size: PhysicalSize?
    /// A built-in panel (eDP, LVDS, DSI): a built-in touchscreen drives it.
    public var isBuiltIn: Bool
    /// Input devices the compositor maps to this output (sway's `map_to_output`): the
    /// evdev name, or sway's identifier `vendor:product:name` (spaces as underscores).
    public var inputs: [String]

    public init(name: String, rotation: Rotation, size: PhysicalSize? = nil, isBuiltIn: Bool = false, inputs: [String] = []) {
        self.name = name
        self.rotation = rotation
        self.size = size
        self.isBuiltIn = isBuiltIn
        self.inputs = inputs
    }

    /// The most outputs one report may list: 16, more than any seat drives.
    public static let maximumOutputs = 16
    /// The most inputs one output may list: 16.
    public static let maximumInputs = 16
    /// The largest physical side taken as real: 10 m. Anything larger (or 0, or not
    /// finite) is a compositor that does not know, and counts as no size.
    public static let maximumSideMillimetres = 10_000.0
}
