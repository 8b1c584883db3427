/// The touch state the kernel holds for a device when it is opened.
///
/// evdev sends only changes: `ABS_MT_SLOT` when the slot changes, a slot's values
/// when they change. So a reader that opens a device with fingers down, or with a
/// current slot other than 0, must start from this state, as libinput does with
/// `libevdev_get_current_slot` and `libevdev_get_slot_value`. `TouchState` seeds
/// itself from it; contacts down at open are held (``Contact/Phase/held``) and never
/// start a pan.
public struct DeviceStateAtOpen: Sendable, Hashable {
    /// One slot's `ABS_MT_*` values.
    public struct Slot: Sendable, Hashable {
        /// -1 when no contact is in the slot.
        public var trackingID: Int32
        public var x: Int32
        public var y: Int32
        public var toolType: Int32
        public var touchMajor: Int32

        public init(
            trackingID: Int32 = -1, x: Int32 = 0, y: Int32 = 0, toolType: Int32 = MTTool.finger,
            touchMajor: Int32 = 0
        ) {
            self.trackingID = trackingID
            self.x = x
            self.y = y
            self.toolType = toolType
            self.touchMajor = touchMajor
        }
    }

    /// Protocol B: the slot that events without `ABS_MT_SLOT` are for. Default 0.
    public var currentSlot: Int
    /// Protocol B: each slot's values, by slot. Default empty (other protocols).
    public var slots: [Slot]
    /// `BTN_TOUCH`: something touches. All that single-touch and protocol A devices
    /// say about contacts at open (the kernel keeps no `ABS_MT_*` state for protocol A).
    /// Default false.
    public var touching: Bool
    /// Single touch: `ABS_X` and `ABS_Y`. Default 0.
    public var x: Int32
    public var y: Int32
    /// Fingers down by `BTN_TOOL_FINGER` … `BTN_TOOL_QUINTTAP`, 0 when none is set. Default 0.
    public var toolFingerCount: Int

    public init(
        currentSlot: Int = 0, slots: [Slot] = [], touching: Bool = false, x: Int32 = 0, y: Int32 = 0,
        toolFingerCount: Int = 0
    ) {
        self.currentSlot = currentSlot
        self.slots = slots
        self.touching = touching
        self.x = x
        self.y = y
        self.toolFingerCount = toolFingerCount
    }

    /// Whether anything is down: a slot with a tracking id, or `BTN_TOUCH`.
    public var hasContactsDown: Bool {
        touching || slots.contains { $0.trackingID >= 0 }
    }
}
