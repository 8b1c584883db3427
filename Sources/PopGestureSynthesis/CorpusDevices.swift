import PopGestureCore

/// The touchscreens the gesture corpus runs on.
public enum CorpusDevices {
    /// The project's own: a 10.1-inch 16:10 tablet panel (217 × 136 mm, the size
    /// ``ScreenTransform/fallbackSize`` assumes), protocol B with 10 slots and
    /// 10 units per mm, held in landscape and in portrait (the same panel, native
    /// the other way). The corpus runs on these wherever the recordings are absent.
    public static let ownTablets: [(name: String, description: DeviceDescription)] = [
        ("tablet (landscape)", tablet(width: 217, height: 136)),
        ("tablet (portrait)", tablet(width: 136, height: 217)),
    ]

    /// Panels from a phone to a desktop monitor, in their real millimetres (16:9 or
    /// 16:10 at the stated diagonal), held as they are used: the sampled sets run on
    /// these (``GestureCorpus/sample(for:seed:perFamily:)``), so that the screen's width
    /// (progress, the share of a slow drag) and its height (where scrolls start) vary.
    public static let panels: [(name: String, description: DeviceDescription)] = [
        ("5-inch phone, portrait", tablet(width: 62, height: 110)),
        ("8-inch tablet, portrait", tablet(width: 108, height: 172)),
        ("10.1-inch tablet, landscape", tablet(width: 217, height: 136)),
        ("13.3-inch laptop", tablet(width: 294, height: 166)),
        ("24-inch monitor", tablet(width: 531, height: 299)),
    ]

    /// Descriptions in `../shared/recordings` with slots (the corpus writes slots): a
    /// 27-inch panel with resolution, panels without (their udev or assumed size),
    /// two slots, infrared and optical frames.
    public static let recorded = [
        "atmel-maxtouch.desc", "dell-canvas-touch.evemu", "egalax-wetab.desc", "elan-touchscreen.desc",
        "irtouch-infrared.desc", "quanta-optical.desc", "ep0430m09.desc",
    ]

    static func tablet(width: Double, height: Double) -> DeviceDescription {
        let x = AbsoluteAxis(minimum: 0, maximum: Int32(width * 10) - 1, resolution: 10)
        let y = AbsoluteAxis(minimum: 0, maximum: Int32(height * 10) - 1, resolution: 10)
        return DeviceDescription(
            name: "popgestured corpus tablet \(Int(width))×\(Int(height)) mm",
            properties: [InputProperty.direct], keys: [BTN.touch], eventTypes: [EV.syn, EV.key, EV.abs],
            axes: [
                ABS.x: x, ABS.y: y, ABS.mtPositionX: x, ABS.mtPositionY: y,
                ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
                ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
            ])
    }
}
