/// The range and resolution of one absolute axis (`struct input_absinfo`).
public struct AbsoluteAxis: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre. 0 means the device did not report one (many do not).
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    public var span: Int32 { maximum - minimum }
}

/// What kind of surface a device is; decides how its touches become a pan.
public enum DeviceKind: String, Sendable, Hashable, CaseIterable {
    /// Direct touch: the finger is where the screen shows it.
    case touchscreen
    /// Indirect touch: a pad beside the screen.
    case touchpad
}

/// Everything the core needs to know about a device: what evdev reports in its
/// capabilities, whether it comes from a live fd or a recording's header.
public struct DeviceDescription: Hashable, Sendable {
    public var name: String
    public var bustype: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    /// Bit numbers of the `INPUT_PROP_*` properties that are set.
    public var properties: Set<Int>
    /// Key codes the device can send (`EV_KEY`).
    public var keys: Set<UInt16>
    /// Event types the device can send.
    public var eventTypes: Set<UInt16>
    /// Absolute axes by code.
    public var axes: [UInt16: AbsoluteAxis]
    /// Physical size from outside the device (udev `ID_INPUT_WIDTH_MM` / `ID_INPUT_HEIGHT_MM`),
    /// used only when the axes report no resolution. Nil when unknown.
    public var reportedSize: PhysicalSize?

    public init(
        name: String, bustype: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
        properties: Set<Int> = [], keys: Set<UInt16> = [], eventTypes: Set<UInt16> = [],
        axes: [UInt16: AbsoluteAxis] = [:]
    ) {
        self.name = name
        self.bustype = bustype
        self.vendor = vendor
        self.product = product
        self.version = version
        self.properties = properties
        self.keys = keys
        self.eventTypes = eventTypes
        self.axes = axes
    }

    public func has(axis code: UInt16) -> Bool { axes[code] != nil }
    public func has(key code: UInt16) -> Bool { keys.contains(code) }
    public func has(property bit: Int) -> Bool { properties.contains(bit) }

    /// How the device reports touches.
    public var touchProtocol: TouchProtocol {
        if has(axis: ABS.mtSlot) { return .slots }
        if has(axis: ABS.mtPositionX) && has(axis: ABS.mtPositionY) { return .anonymousContacts }
        return .singleTouch
    }

    /// Classifies the device the way udev's `input_id` builtin sets `ID_INPUT_TOUCHSCREEN`
    /// and `ID_INPUT_TOUCHPAD`. Returns nil for anything else (mice, keyboards, tablets' pens).
    public var kind: DeviceKind? {
        let hasCoordinates = (has(axis: ABS.x) && has(axis: ABS.y))
            || (has(axis: ABS.mtPositionX) && has(axis: ABS.mtPositionY))
        guard hasCoordinates, !has(key: BTN.toolPen) else { return nil }
        if has(property: InputProperty.direct) { return .touchscreen }
        if has(key: BTN.toolFinger) { return .touchpad }
        if has(key: BTN.touch) { return .touchscreen }
        return nil
    }

    /// The axes that carry positions for this device's protocol.
    public var positionAxes: (x: AbsoluteAxis, y: AbsoluteAxis)? {
        if touchProtocol != .singleTouch,
           let x = axes[ABS.mtPositionX], let y = axes[ABS.mtPositionY] {
            return (x, y)
        }
        if let x = axes[ABS.x], let y = axes[ABS.y] { return (x, y) }
        return nil
    }

    /// Number of slots (protocol B), or the number of contacts tracked for the others.
    public var slotCount: Int {
        if let slot = axes[ABS.mtSlot] { return max(1, Int(slot.maximum) + 1) }
        // Protocol A contacts are given slots by mtdev, which tracks at most 32.
        return touchProtocol == .singleTouch ? 1 : 32
    }
}

/// The three ways evdev reports touches.
public enum TouchProtocol: String, Sendable, Hashable {
    /// Multitouch protocol B: `ABS_MT_SLOT` and tracking ids.
    case slots
    /// Multitouch protocol A: anonymous contacts separated by `SYN_MT_REPORT`;
    /// converted to slots by mtdev before the core sees them.
    case anonymousContacts
    /// `ABS_X`/`ABS_Y` with `BTN_TOUCH`.
    case singleTouch
}

/// A width and height in millimetres.
public struct PhysicalSize: Hashable, Sendable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}
