/// What the daemon knows of the output a touchscreen drives, before any shell speaks:
/// udev's `WL_OUTPUT`, whether the touchscreen is built in, and the names a compositor's
/// mapping may use for it.
public struct OutputHints: Sendable, Hashable {
    /// udev's `WL_OUTPUT` (a rule or hwdb names the output); nil when unset.
    public var wlOutput: String?
    /// Built into the machine (not on USB or Bluetooth): it drives the built-in panel.
    public var isBuiltIn: Bool
    /// The names a compositor's `map_to_output` may give it: the evdev name, and sway's
    /// identifier `vendor:product:name` (decimal ids, spaces as underscores).
    public var names: [String]

    public init(wlOutput: String? = nil, isBuiltIn: Bool = false, names: [String] = []) {
        self.wlOutput = wlOutput
        self.isBuiltIn = isBuiltIn
        self.names = names
    }

    /// The hints of a device described by `description`: its evdev name and sway's
    /// identifier for it. `isBuiltIn`: the daemon decides it from udev's `ID_BUS`,
    /// else the bus type (``DisplayConnectors``); without udev, built in unless on USB
    /// or Bluetooth (a built-in panel's touchscreen sits on I²C, SPI or the platform).
    public init(wlOutput: String?, description: DeviceDescription, isBuiltIn: Bool? = nil) {
        let identifier = "\(description.vendor):\(description.product):"
            + String(description.name.map { $0 == " " ? "_" : $0 })
        let external: Set<UInt16> = [Self.busUSB, Self.busBluetooth]
        self.init(
            wlOutput: wlOutput, isBuiltIn: isBuiltIn ?? !external.contains(description.bustype),
            names: [description.name, identifier])
    }

    /// `BUS_USB` and `BUS_BLUETOOTH` of linux/input.h.
    static let busUSB: UInt16 = 0x03, busBluetooth: UInt16 = 0x05

    /// The output among `outputs` that this touchscreen drives, first that fits:
    /// 1. the one udev's `WL_OUTPUT` names (the system's own word, as libinput reads it),
    ///    else none: an output the shell does not list (disabled) is not guessed at;
    /// 2. the one whose `inputs` name this device (the compositor maps it there);
    /// 3. for a built-in touchscreen, the built-in panel;
    /// 4. the only output.
    /// Nil when none fits: an external touchscreen among several outputs, unmapped.
    public func output(among outputs: [OutputReport]) -> OutputReport? {
        // udev names the output: that one or none, never a guess over the system's word.
        if let wlOutput { return outputs.first(where: { $0.name == wlOutput }) }
        if let mapped = outputs.first(where: { !Set($0.inputs).isDisjoint(with: names) }) { return mapped }
        if isBuiltIn, let builtIn = outputs.first(where: \.isBuiltIn) { return builtIn }
        return outputs.count == 1 ? outputs[0] : nil
    }
}

/// One touchscreen's rotation in force, who says it and, from the shell, the output.
public struct DeviceRotation: Sendable, Hashable {
    public var rotation: Rotation
    public var source: RotationSource
    /// The output the shell reported it for; nil from any other source.
    public var output: String?

    public init(_ rotation: Rotation, source: RotationSource, output: String? = nil) {
        self.rotation = rotation
        self.source = source
        self.output = output
    }
}

extension SessionOrientation {
    /// Whether the shell says how the screen is turned: it listed its outputs, or sent
    /// the older single `rotation`. While it does, nothing else turns the touchscreens.
    public var shellReportsScreen: Bool { shellOutputs != nil || shellRotation != nil }

    /// The rotation of a seat0 touchscreen with these hints, first that speaks:
    /// 1. the shell's report of the output it drives, 0 included: the compositor draws
    ///    the picture, so its transform is the truth (it respects the rotation lock, and
    ///    sway never turns on its own);
    /// 2. the shell's older single `rotation`, for a touchscreen none of its outputs fits;
    /// 3. the configuration's `rotation`, when set: the administrator's fixed word;
    /// 4. the accelerometer, only while no shell reports the screen;
    /// 5. 0, the panel's own orientation.
    public func rotation(for hints: OutputHints, configured: Rotation?) -> DeviceRotation {
        if let outputs = shellOutputs, let output = hints.output(among: outputs) {
            return DeviceRotation(output.rotation, source: .shell, output: output.name)
        }
        if let shellRotation { return DeviceRotation(shellRotation, source: .shell, output: shellOutput) }
        if let configured { return DeviceRotation(configured, source: .configuration) }
        if !shellReportsScreen, let sensorRotation { return DeviceRotation(sensorRotation, source: .sensor) }
        return DeviceRotation(.none, source: .configuration)
    }

    /// The physical size the shell reported for the output a touchscreen with these
    /// hints drives; nil when it named none, or no size for it.
    public func outputSize(for hints: OutputHints) -> PhysicalSize? {
        shellOutputs.flatMap { hints.output(among: $0) }?.size
    }

    /// Whether the accelerometer would decide a touchscreen configured `configured`: no
    /// explicit rotation and no shell that reports the screen. The daemon claims the
    /// sensor only while some seat0 touchscreen needs it.
    public func needsSensor(configured: Rotation?) -> Bool {
        configured == nil && !shellReportsScreen
    }
}
