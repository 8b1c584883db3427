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

    /// `maximum - minimum`, in Int64: an axis from −2³¹ to 2³¹−1 spans more than Int32 holds.
    public var span: Int64 { Int64(maximum) - Int64(minimum) }
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

    /// Classifies the device from its bits, roughly as udev's `input_id` builtin sets
    /// `ID_INPUT_TOUCHSCREEN` and `ID_INPUT_TOUCHPAD`. Returns nil for anything else
    /// (mice, keyboards, tablets' pens). Only for where there is no udev, a recording:
    /// a live device's kind is udev's (hwdb and rules can say otherwise than the bits),
    /// and reaches the engine as ``DeviceConfiguration/kind``.
    public var inferredKind: DeviceKind? {
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

    /// The most multitouch slots the core tracks for one device: 64. Slots beyond it are
    /// ignored (their events are dropped, logged once per device). Real panels declare 10
    /// to 20; a device that declares 2³¹ would otherwise make the core allocate gigabytes
    /// and walk every slot on every frame.
    public static let maximumTrackedSlots = 64

    /// How many slots the device declares: `ABS_MT_SLOT`'s maximum + 1, which may be far
    /// more than are tracked (see ``slotCount``). Int64, so no declared range overflows.
    public var declaredSlotCount: Int64 {
        if let slot = axes[ABS.mtSlot] { return max(1, Int64(slot.maximum) + 1) }
        // Protocol A contacts are given slots by mtdev, which tracks at most 32.
        return touchProtocol == .singleTouch ? 1 : 32
    }

    /// Number of slots tracked (protocol B), or the number of contacts tracked for the
    /// others: the declared count, at most ``maximumTrackedSlots``.
    public var slotCount: Int { Int(min(declaredSlotCount, Int64(Self.maximumTrackedSlots))) }

    /// Whether the core can use this description, and if not why. Checks the axes the
    /// core computes with: the position axes in use need a range (`maximum > minimum`),
    /// and `ABS_MT_SLOT` must not be inverted or start below 0. Other axes are not read
    /// for arithmetic and may hold anything. Call it where a description enters (a device
    /// opened, a recording read) and refuse the device when it throws.
    public func validate() throws(DeviceDescriptionError) {
        if let (x, y) = positionAxes {
            let (codeX, codeY) = touchProtocol != .singleTouch && has(axis: ABS.mtPositionX)
                ? (ABS.mtPositionX, ABS.mtPositionY) : (ABS.x, ABS.y)
            for (code, axis) in [(codeX, x), (codeY, y)] where axis.span <= 0 {
                throw DeviceDescriptionError(
                    .invalidAxisRange, axis: code,
                    "axis 0x\(String(code, radix: 16)) has \(axis.span == 0 ? "an empty" : "an inverted") range "
                        + "\(axis.minimum)…\(axis.maximum)")
            }
        }
        if let slot = axes[ABS.mtSlot], slot.minimum < 0 || slot.maximum < slot.minimum {
            throw DeviceDescriptionError(
                .invalidSlotRange, axis: ABS.mtSlot, "ABS_MT_SLOT range \(slot.minimum)…\(slot.maximum) is not a slot range")
        }
    }
}

/// Why a device description was refused: the device is logged and skipped.
public struct DeviceDescriptionError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// A position axis has `maximum <= minimum`.
        case invalidAxisRange = "invalid-axis-range"
        /// `ABS_MT_SLOT` is inverted or starts below 0.
        case invalidSlotRange = "invalid-slot-range"
    }

    public var code: Code
    /// The `ABS_*` code of the axis at fault.
    public var axis: UInt16
    public var message: String

    public init(_ code: Code, axis: UInt16, _ message: String) {
        self.code = code
        self.axis = axis
        self.message = message
    }

    public var description: String { message }
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
