import PopGestureCore

/// What a ``TouchClone`` is created with: the real touchscreen's description, changed
/// only where a clone must differ. Pure, so every decision is testable without uinput.
///
/// - **Name**: the real name (cut on a character boundary to uinput's 79 bytes, should
///   it be longer), so that the compositor's settings keyed on the name (sway's
///   `input "vid:pid:name"`, libinput quirks, udev rules matching `ATTRS{name}`) apply
///   to the clone as they did to the real device.
/// - **phys** `popgestured/<real sysname>`: what tells a clone apart, never its name.
///   The daemon's udev monitor skips its own clones by it, the shipped udev rules
///   find the real node by it (and 71 sets `POPGESTURED_CLONE=1` on the clone).
/// - **Ids** (bus, vendor, product, version): the real ones, so that quirks and
///   settings keyed by vid/pid still apply.
/// - **Properties**: the real ones plus `INPUT_PROP_DIRECT`.
/// - **Keys**: the real ones.
/// - **Axes**: every real axis with its range, flat and resolution, with three changes:
///   - `fuzz` is 0: the kernel already filtered the events the clone gets, and its
///     fuzz filter is not idempotent (with fuzz 4, a reading 100 → 105 comes out as
///     102, and 102 filtered again against 100 comes out as 100), so filtering twice
///     would move every contact;
///   - an axis with `minimum == maximum` is widened to `minimum…minimum + 1` (libinput
///     refuses a device with an empty axis); an inverted axis is left out, as uinput
///     refuses it; `flat` is cut to the range;
///   - `ABS_MT_TOOL_TYPE` is always there, `MT_TOOL_FINGER…MT_TOOL_MAX`: libinput
///     turns a contact into `TOUCH_CANCEL` only on a device that declares it (with
///     `MT_TOOL_PALM` in range), and ``TouchClone/cancel(slot:at:)`` depends on it.
///   - `ABS_MT_SLOT` ends at ``DeviceDescription/maximumTrackedSlots`` − 1.
/// - **`EV_MSC` codes** (such as `MSC_TIMESTAMP`): the real ones. `EV_FF`, `EV_LED`,
///   `EV_SND`, `EV_REP`, `EV_SW` and `EV_REL` are left out: a touchscreen's clone
///   carries touches only.
public struct CloneTemplate: Hashable, Sendable {
    /// Starts the clone's `phys`: how a clone is told apart from the real device.
    public static let physPrefix = "popgestured/"
    /// uinput's name limit (`UINPUT_MAX_NAME_SIZE`, 80) without the terminating NUL.
    public static let maximumNameBytes = 79
    /// The longest real sysname carried into `phys`; longer ones are cut.
    public static let maximumSysnameBytes = 64
    /// `MT_TOOL_MAX`.
    public static let maximumToolType: Int32 = 0x0f

    /// The clone's capabilities: name, ids, properties, keys and axes (its event
    /// types are `EV_SYN`, plus `EV_KEY`, `EV_ABS` and `EV_MSC` when it has codes of them).
    public var description: DeviceDescription
    public var phys: String
    public var miscCodes: Set<UInt16>

    /// The clone of `real`, the device at `/dev/input/<sysname>`.
    /// `miscCodes` are its `EV_MSC` codes (a ``DeviceDescription`` has only the type).
    public init(cloning real: DeviceDescription, sysname: String, miscCodes: Set<UInt16> = []) {
        var axes: [UInt16: AbsoluteAxis] = [:]
        for (code, axis) in real.axes where code <= ABS.max {
            if let cloned = Self.clonedAxis(axis) { axes[code] = cloned }
        }
        axes[ABS.mtToolType] = Self.toolTypeAxis(cloning: axes[ABS.mtToolType])
        if let slot = axes[ABS.mtSlot] {
            axes[ABS.mtSlot] = AbsoluteAxis(
                minimum: 0, maximum: min(slot.maximum, Int32(DeviceDescription.maximumTrackedSlots - 1)))
        }
        self.miscCodes = real.eventTypes.contains(EV.msc) ? miscCodes : []
        var types: Set<UInt16> = [EV.syn, EV.abs]
        if !real.keys.isEmpty { types.insert(EV.key) }
        if !self.miscCodes.isEmpty { types.insert(EV.msc) }
        description = DeviceDescription(
            name: Self.cloneName(of: real.name), bustype: real.bustype, vendor: real.vendor, product: real.product,
            version: real.version, properties: real.properties.union([InputProperty.direct]), keys: real.keys,
            eventTypes: types, axes: axes)
        phys = Self.physPrefix + Self.prefix(of: sysname, bytes: Self.maximumSysnameBytes)
    }

    /// Whether a device with this `phys` is a touch clone (of any popgestured).
    public static func isClone(phys: String) -> Bool { phys.hasPrefix(physPrefix) }

    /// How many slots the clone has (0 without `ABS_MT_SLOT`).
    public var slotCount: Int { description.axes[ABS.mtSlot].map { Int($0.maximum) + 1 } ?? 0 }

    /// The real name, cut so that it is at most ``maximumNameBytes`` bytes of UTF-8.
    public static func cloneName(of name: String) -> String {
        prefix(of: name, bytes: maximumNameBytes)
    }

    /// The clone's axis for a real one; nil when uinput would refuse it (inverted).
    public static func clonedAxis(_ axis: AbsoluteAxis) -> AbsoluteAxis? {
        guard axis.maximum >= axis.minimum else { return nil }
        var cloned = axis
        cloned.fuzz = 0
        if cloned.maximum == cloned.minimum {
            if cloned.maximum < .max { cloned.maximum += 1 } else { cloned.minimum -= 1 }
        }
        cloned.flat = max(0, Int32(clamping: min(Int64(cloned.flat), cloned.span)))
        return cloned
    }

    /// The clone's `ABS_MT_TOOL_TYPE`: the real axis when it reaches `MT_TOOL_PALM`,
    /// else (missing, or too short for a palm) `MT_TOOL_FINGER…MT_TOOL_MAX`.
    public static func toolTypeAxis(cloning real: AbsoluteAxis?) -> AbsoluteAxis {
        if let real, real.minimum <= MTTool.finger, real.maximum >= MTTool.palm { return real }
        return AbsoluteAxis(minimum: MTTool.finger, maximum: maximumToolType)
    }

    /// The longest prefix of `string` that is at most `bytes` bytes of UTF-8 and ends on
    /// a character boundary.
    static func prefix(of string: String, bytes: Int) -> String {
        guard string.utf8.count > bytes else { return string }
        var result = ""
        var used = 0
        for character in string {
            let size = character.utf8.count
            guard used + size <= bytes else { break }
            result.append(character)
            used += size
        }
        return result
    }
}
