/// How far the screen is turned clockwise from the touch device's native orientation.
public enum Rotation: Int, Sendable, Hashable, CaseIterable {
    case none = 0
    case clockwise90 = 90
    case upsideDown = 180
    case clockwise270 = 270

    public init?(degrees: Int) { self.init(rawValue: ((degrees % 360) + 360) % 360) }
}

/// libinput's `LIBINPUT_CALIBRATION_MATRIX`: the first two rows of a 3×3 matrix applied
/// to coordinates normalised to 0…1, so `x' = a·x + b·y + c`, `y' = d·x + e·y + f`.
public struct CalibrationMatrix: Hashable, Sendable {
    public var a, b, c, d, e, f: Double

    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    public static let identity = CalibrationMatrix(1, 0, 0, 0, 1, 0)

    /// Parses the udev property's text: six finite numbers separated by spaces. Any other
    /// word makes the whole text invalid (as in libinput), rather than being skipped.
    public init?(udevProperty text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let numbers = words.compactMap { Double($0) }.filter(\.isFinite)
        guard words.count == 6, numbers.count == 6 else { return nil }
        self.init(numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5])
    }

    @inline(__always)
    func apply(_ x: Double, _ y: Double) -> (Double, Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }
}

/// A position on the screen as the user sees it: `x` grows to the right and `y` down,
/// both as a fraction of the screen (0…1, may stray slightly outside for edge touches),
/// plus the same point in millimetres from the top-left corner.
public struct ScreenPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var xMillimetres: Double
    public var yMillimetres: Double

    public init(x: Double, y: Double, xMillimetres: Double, yMillimetres: Double) {
        self.x = x
        self.y = y
        self.xMillimetres = xMillimetres
        self.yMillimetres = yMillimetres
    }
}

/// Maps device units to screen fractions and millimetres: normalise each axis to its
/// range, apply the calibration matrix, then the rotation.
///
/// **Screen size.** A millimetre on the screen is a millimetre the finger travels on
/// the panel, whatever the calibration matrix and rotation. Crossing the calibrated
/// screen along its x axis is the normalised move `L⁻¹·(1, 0)` on the panel (`L` the
/// matrix's linear part `a b; d e`), so the screen is as wide as that move is long in
/// millimetres, and likewise for its height. A matrix that swaps the axes (`b`, `d` ≠ 0,
/// e.g. `0 1 0 -1 0 1`) thus swaps width and height, and one that maps the panel onto
/// 80 % of the screen makes the screen 1/0.8 times the panel. This is exact for
/// matrices that scale, offset, flip and swap axes; for a sheared one it is each
/// screen axis's length, while angles stay as sheared.
///
/// **Millimetres.** The device's size comes from the first of these that gives one
/// (``SizeSource``):
/// 1. each axis's `resolution` (units per mm);
/// 2. when an axis reports 0, as many touchscreens do (the Atmel maXTouch in the
///    recordings), `DeviceDescription.reportedSize` (udev's `ID_INPUT_WIDTH_MM` and
///    `ID_INPUT_HEIGHT_MM`);
/// 3. the display the touchscreen drives: the size the shell reports for its output
///    (`outputSize`), then the one its EDID gives (`displaySize`);
/// 4. ``fallbackSize``: a 10.1-inch 16:10 tablet, 217 × 136 mm.
///
/// A display's size and the fallback are in the panel's native orientation, which
/// need not be the touch axes': the longer side goes on the axis with the larger range
/// (a square range keeps the size as given).
public struct ScreenTransform: Sendable, Hashable {
    /// Where ``ScreenTransform/deviceSize`` came from, as `status` names it (`sizeSource`).
    public enum SizeSource: String, Sendable, Hashable, CaseIterable {
        /// The axes' resolutions.
        case axes
        /// udev's `ID_INPUT_WIDTH_MM` and `ID_INPUT_HEIGHT_MM` (`DeviceDescription.reportedSize`).
        case udev
        /// The physical size the shell reports for the output the touchscreen drives.
        case output
        /// The EDID of the display the touchscreen drives, read from `/sys/class/drm`.
        case display
        /// ``ScreenTransform/fallbackSize``: a guess.
        case assumed
    }

    /// The size assumed when neither the axes, udev nor the display give one:
    /// 217 × 136 mm, the common 10.1-inch 16:10 tablet panel.
    public static let fallbackSize = PhysicalSize(width: 217, height: 136)

    public let rotation: Rotation
    public let calibration: CalibrationMatrix
    /// The device's own size, in its native orientation.
    public let deviceSize: PhysicalSize
    /// Where `deviceSize` came from.
    public let sizeSource: SizeSource
    /// True when `deviceSize` is a guess (no resolution, no udev size, no display's size).
    public var sizeIsAssumed: Bool { sizeSource == .assumed }

    /// The screen's size as the user sees it, after calibration and rotation, in
    /// millimetres of finger travel on the panel (see the type's doc).
    public let screenSize: PhysicalSize

    /// The smallest |a·e − b·d| for which a calibration matrix's size is used: 1e-6.
    /// Below it the matrix squeezes the whole panel onto (nearly) a line or a point,
    /// less than a millionth of the screen's area, and the size it implies is
    /// meaningless or infinite; the device's own size is used instead.
    static let minimumCalibrationDeterminant = 1e-6

    private let minX, minY, spanX, spanY: Double

    /// - Parameters:
    ///   - outputSize: the physical size the shell reports for the output the device
    ///     drives, in the panel's native orientation; used when neither the axes nor
    ///     udev give a size. Nil when there is none.
    ///   - displaySize: the size the EDID of the display the device drives gives, in
    ///     its native orientation; used when nothing above gives one. Nil when there is none.
    public init(
        device: DeviceDescription, rotation: Rotation = .none, calibration: CalibrationMatrix = .identity,
        outputSize: PhysicalSize? = nil, displaySize: PhysicalSize? = nil
    ) {
        let axes = device.positionAxes ?? (AbsoluteAxis(minimum: 0, maximum: 1), AbsoluteAxis(minimum: 0, maximum: 1))
        self.rotation = rotation
        self.calibration = calibration
        minX = Double(axes.x.minimum)
        minY = Double(axes.y.minimum)
        spanX = Double(max(1, axes.x.span))
        spanY = Double(max(1, axes.y.span))

        if axes.x.resolution > 0 && axes.y.resolution > 0 {
            deviceSize = PhysicalSize(width: spanX / Double(axes.x.resolution), height: spanY / Double(axes.y.resolution))
            sizeSource = .axes
        } else if let reported = Self.usable(device.reportedSize) {
            deviceSize = reported
            sizeSource = .udev
        } else if let output = Self.usable(outputSize) {
            deviceSize = Self.oriented(output, spanX: spanX, spanY: spanY)
            sizeSource = .output
        } else if let display = Self.usable(displaySize) {
            deviceSize = Self.oriented(display, spanX: spanX, spanY: spanY)
            sizeSource = .display
        } else {
            deviceSize = Self.oriented(Self.fallbackSize, spanX: spanX, spanY: spanY)
            sizeSource = .assumed
        }
        let calibrated = Self.calibratedSize(of: deviceSize, through: calibration)
        switch rotation {
        case .none, .upsideDown: screenSize = calibrated
        case .clockwise90, .clockwise270: screenSize = PhysicalSize(width: calibrated.height, height: calibrated.width)
        }
    }

    /// `size` when both sides are finite and above 0, else nil: no size at all.
    static func usable(_ size: PhysicalSize?) -> PhysicalSize? {
        guard let size, size.width > 0, size.height > 0, size.width.isFinite, size.height.isFinite else { return nil }
        return size
    }

    /// A panel's size given in its own orientation, turned so that its longer side lies
    /// along the touch axis with the larger range; as given when the ranges are equal.
    static func oriented(_ size: PhysicalSize, spanX: Double, spanY: Double) -> PhysicalSize {
        let long = max(size.width, size.height), short = min(size.width, size.height)
        if spanX > spanY { return PhysicalSize(width: long, height: short) }
        if spanY > spanX { return PhysicalSize(width: short, height: long) }
        return size
    }

    /// The size of the screen that `matrix` maps a panel of `size` onto, before rotation:
    /// the lengths in millimetres of the panel moves `D·L⁻¹·(1, 0)` and `D·L⁻¹·(0, 1)`,
    /// with `D = diag(width, height)` and `L` the matrix's linear part. Falls back to
    /// `size` when `L` is (nearly) singular.
    static func calibratedSize(of size: PhysicalSize, through matrix: CalibrationMatrix) -> PhysicalSize {
        let determinant = matrix.a * matrix.e - matrix.b * matrix.d
        guard abs(determinant) >= minimumCalibrationDeterminant else { return size }
        // L⁻¹ = (e, −b; −d, a) / det: its columns, scaled by the panel's millimetres.
        func length(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() / abs(determinant) }
        let width = length(size.width * matrix.e, size.height * matrix.d)
        let height = length(size.width * matrix.b, size.height * matrix.a)
        guard width.isFinite, height.isFinite, width > 0, height > 0 else { return size }
        return PhysicalSize(width: width, height: height)
    }

    /// Maps a device position to the screen.
    @inline(__always)
    public func screenPoint(x rawX: Int32, y rawY: Int32) -> ScreenPoint {
        let nx = (Double(rawX) - minX) / spanX
        let ny = (Double(rawY) - minY) / spanY
        let (cx, cy) = calibration.apply(nx, ny)
        let sx, sy: Double
        switch rotation {
        case .none: (sx, sy) = (cx, cy)
        case .clockwise90: (sx, sy) = (1 - cy, cx)
        case .upsideDown: (sx, sy) = (1 - cx, 1 - cy)
        case .clockwise270: (sx, sy) = (cy, 1 - cx)
        }
        return ScreenPoint(x: sx, y: sy, xMillimetres: sx * screenSize.width, yMillimetres: sy * screenSize.height)
    }

}
