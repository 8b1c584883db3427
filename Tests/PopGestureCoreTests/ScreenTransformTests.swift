@testable import PopGestureCore
import Testing

/// Conventions checked here:
///
/// - Screen coordinates have the origin at the top-left, `x` to the right and `y` down,
///   as fractions 0…1 of the screen as the user sees it.
/// - `Rotation` is how far the screen is turned clockwise from the device's native
///   orientation. Rotation 90 is libinput's calibration matrix "0 -1 1 1 0 0"
///   (`x' = 1 - y`, `y' = x`): the device's top-left corner maps to the screen's
///   top-right. 180 is "-1 0 1 0 -1 1", 270 is "0 1 0 -1 0 1".
@Suite("ScreenTransform")
struct ScreenTransformTests {
    /// 200 × 100 mm at 16 units/mm, so millimetres and swaps are easy to read.
    static let wide = Fixtures.device(x: 0...3200, y: 0...1600, resolutionX: 16, resolutionY: 16)

    enum Corner: CaseIterable, Sendable, CustomStringConvertible {
        case topLeft, topRight, bottomLeft, bottomRight
        var fraction: (x: Double, y: Double) {
            switch self {
            case .topLeft: (0, 0)
            case .topRight: (1, 0)
            case .bottomLeft: (0, 1)
            case .bottomRight: (1, 1)
            }
        }
        var description: String {
            switch self {
            case .topLeft: "top-left"
            case .topRight: "top-right"
            case .bottomLeft: "bottom-left"
            case .bottomRight: "bottom-right"
            }
        }
        /// The device units of this corner on `wide`.
        var wideUnits: (x: Int32, y: Int32) {
            (Int32(fraction.x * 3200), Int32(fraction.y * 1600))
        }
    }

    static func close(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

    struct CornerCase: Sendable, CustomStringConvertible {
        var rotation: Rotation
        var device: Corner
        var screen: Corner
        init(_ rotation: Rotation, _ device: Corner, _ screen: Corner) {
            (self.rotation, self.device, self.screen) = (rotation, device, screen)
        }
        var description: String { "\(rotation.rawValue)°: device \(device) → screen \(screen)" }
    }

    static let cornerCases: [CornerCase] = [
        .init(.none, .topLeft, .topLeft), .init(.none, .topRight, .topRight),
        .init(.none, .bottomLeft, .bottomLeft), .init(.none, .bottomRight, .bottomRight),
        // 90: device top-left → screen top-right.
        .init(.clockwise90, .topLeft, .topRight), .init(.clockwise90, .topRight, .bottomRight),
        .init(.clockwise90, .bottomRight, .bottomLeft), .init(.clockwise90, .bottomLeft, .topLeft),
        .init(.upsideDown, .topLeft, .bottomRight), .init(.upsideDown, .topRight, .bottomLeft),
        .init(.upsideDown, .bottomRight, .topLeft), .init(.upsideDown, .bottomLeft, .topRight),
        .init(.clockwise270, .topLeft, .bottomLeft), .init(.clockwise270, .topRight, .topLeft),
        .init(.clockwise270, .bottomRight, .topRight), .init(.clockwise270, .bottomLeft, .bottomRight),
    ]

    @Test("device corners land on the screen corners the rotation says", arguments: cornerCases)
    func corners(_ corner: CornerCase) {
        let (rotation, device, screen) = (corner.rotation, corner.device, corner.screen)
        let transform = ScreenTransform(device: Self.wide, rotation: rotation)
        let units = device.wideUnits
        let p = transform.screenPoint(x: units.x, y: units.y)
        #expect(Self.close(p.x, screen.fraction.x), "\(rotation) \(device) → x \(p.x)")
        #expect(Self.close(p.y, screen.fraction.y), "\(rotation) \(device) → y \(p.y)")
        let size = transform.screenSize
        #expect(Self.close(p.xMillimetres, screen.fraction.x * size.width))
        #expect(Self.close(p.yMillimetres, screen.fraction.y * size.height))
    }

    static let libinputMatrices: [(Rotation, String)] = [
        (.clockwise90, "0 -1 1 1 0 0"),
        (.upsideDown, "-1 0 1 0 -1 1"),
        (.clockwise270, "0 1 0 -1 0 1"),
    ]

    @Test("each rotation equals libinput's rotation matrix given as a calibration", arguments: libinputMatrices)
    func rotationMatchesLibinputMatrix(rotation: Rotation, matrix: String) throws {
        let calibration = try #require(CalibrationMatrix(udevProperty: matrix))
        let rotated = ScreenTransform(device: Fixtures.touchscreen, rotation: rotation)
        let calibrated = ScreenTransform(device: Fixtures.touchscreen, calibration: calibration)
        for (x, y) in [(0, 0), (4095, 0), (0, 4095), (4095, 4095), (1000, 3000), (2047, 512)] as [(Int32, Int32)] {
            let a = rotated.screenPoint(x: x, y: y), b = calibrated.screenPoint(x: x, y: y)
            #expect(Self.close(a.x, b.x) && Self.close(a.y, b.y), "(\(x), \(y)): \(a) vs \(b)")
        }
    }

    @Test("an interior point under rotation 90 (x' = 1 - y, y' = x)")
    func interiorPointRotated() {
        let transform = ScreenTransform(device: Self.wide, rotation: .clockwise90)
        // Device: 25 % across, 75 % down.
        let p = transform.screenPoint(x: 800, y: 1200)
        #expect(Self.close(p.x, 0.25))
        #expect(Self.close(p.y, 0.25))
        // The rotated screen is 100 mm wide and 200 mm tall.
        #expect(Self.close(p.xMillimetres, 25))
        #expect(Self.close(p.yMillimetres, 50))
    }

    @Test("Rotation(degrees:) normalises to the four quarter turns")
    func rotationFromDegrees() {
        #expect(Rotation(degrees: 0) == Rotation.none)
        #expect(Rotation(degrees: 90) == .clockwise90)
        #expect(Rotation(degrees: 450) == .clockwise90)
        #expect(Rotation(degrees: -90) == .clockwise270)
        #expect(Rotation(degrees: 180) == .upsideDown)
        #expect(Rotation(degrees: 45) == nil)
    }

    // MARK: - Calibration

    @Test("the udev calibration property parses into the matrix's six numbers")
    func parseCalibration() throws {
        let m = try #require(CalibrationMatrix(udevProperty: "0 -1 1 1 0 0"))
        #expect(m == CalibrationMatrix(0, -1, 1, 1, 0, 0))
        #expect(CalibrationMatrix(udevProperty: "1 0 0 0 1 0") == .identity)
        #expect(CalibrationMatrix(udevProperty: "  1.5\t0 -0.25  0 1 0.125 ") == CalibrationMatrix(1.5, 0, -0.25, 0, 1, 0.125))
    }

    @Test("bad calibration strings give nil", arguments: [
        "", "   ", "1 0 0 0 1", "1 0 0 0 1 0 0", "1 0 0 0 1 x", "a b c d e f",
        // Seven words of which six are numbers: not a matrix, however it is read.
        "1 0 0 x 0 1 0",
        // Not finite: every point would become NaN.
        "nan 0 0 0 1 0", "1 0 inf 0 1 0",
        "1,0,0,0,1,0",
    ])
    func badCalibration(text: String) {
        #expect(CalibrationMatrix(udevProperty: text) == nil)
    }

    @Test("a calibration matrix applies to normalised coordinates")
    func calibrationApplied() throws {
        // Maps the whole device onto the middle half of the screen.
        let m = try #require(CalibrationMatrix(udevProperty: "0.5 0 0.25 0 0.5 0.25"))
        let t = ScreenTransform(device: Self.wide, calibration: m)
        let topLeft = t.screenPoint(x: 0, y: 0), bottomRight = t.screenPoint(x: 3200, y: 1600)
        #expect(Self.close(topLeft.x, 0.25) && Self.close(topLeft.y, 0.25))
        #expect(Self.close(bottomRight.x, 0.75) && Self.close(bottomRight.y, 0.75))
        #expect(Self.close(bottomRight.xMillimetres, 150))
        #expect(Self.close(bottomRight.yMillimetres, 75))
    }

    @Test("calibration comes before rotation: a 90° matrix plus rotation 180 is rotation 270")
    func calibrationThenRotation() throws {
        let m = try #require(CalibrationMatrix(udevProperty: "0 -1 1 1 0 0"))
        let combined = ScreenTransform(device: Fixtures.touchscreen, rotation: .upsideDown, calibration: m)
        let direct = ScreenTransform(device: Fixtures.touchscreen, rotation: .clockwise270)
        for (x, y) in [(0, 0), (4095, 0), (1000, 3000)] as [(Int32, Int32)] {
            let a = combined.screenPoint(x: x, y: y), b = direct.screenPoint(x: x, y: y)
            #expect(Self.close(a.x, b.x) && Self.close(a.y, b.y))
        }
    }

    // MARK: - Size

    @Test("millimetres come from each axis's resolution and range, minimum included")
    func millimetresFromResolution() {
        let device = Fixtures.device(x: 100...3300, y: -800...800, resolutionX: 16, resolutionY: 8)
        let t = ScreenTransform(device: device)
        #expect(t.deviceSize == PhysicalSize(width: 200, height: 200))
        #expect(!t.sizeIsAssumed)
        let p = t.screenPoint(x: 1700, y: 0)
        #expect(Self.close(p.x, 0.5) && Self.close(p.y, 0.5))
        #expect(Self.close(p.xMillimetres, 100) && Self.close(p.yMillimetres, 100))

        let fixture = ScreenTransform(device: Fixtures.touchscreen)
        #expect(fixture.deviceSize == PhysicalSize(width: 4095.0 / 16, height: 4095.0 / 16))
    }

    @Test("a reported size is used when the axes have no resolution, and only then")
    func reportedSize() {
        let size = PhysicalSize(width: 150, height: 94)
        let noResolution = Fixtures.device(x: 0...4095, y: 0...4095, reportedSize: size)
        let t = ScreenTransform(device: noResolution)
        #expect(t.deviceSize == size)
        #expect(!t.sizeIsAssumed)
        let corner = t.screenPoint(x: 4095, y: 4095)
        #expect(Self.close(corner.xMillimetres, 150) && Self.close(corner.yMillimetres, 94))

        // One axis without a resolution is enough to need the reported size.
        let oneAxis = Fixtures.device(x: 0...3200, y: 0...1600, resolutionX: 16, reportedSize: size)
        #expect(ScreenTransform(device: oneAxis).deviceSize == size)

        // When the axes have a resolution, it wins.
        let both = Fixtures.device(x: 0...3200, y: 0...1600, resolutionX: 16, resolutionY: 16, reportedSize: size)
        #expect(ScreenTransform(device: both).deviceSize == PhysicalSize(width: 200, height: 100))
    }

    @Test("without resolution or reported size, 217 × 136 mm with the long side on the larger range")
    func fallbackSize() {
        #expect(ScreenTransform.fallbackSize == PhysicalSize(width: 217, height: 136))

        let landscape = ScreenTransform(device: Fixtures.noResolutionTouchscreen)
        #expect(landscape.deviceSize == PhysicalSize(width: 217, height: 136))
        #expect(landscape.sizeIsAssumed)

        let portrait = ScreenTransform(device: Fixtures.device(x: 0...1199, y: 0...1919))
        #expect(portrait.deviceSize == PhysicalSize(width: 136, height: 217))
        #expect(portrait.sizeIsAssumed)

        let square = ScreenTransform(device: Fixtures.device(x: 0...4095, y: 0...4095))
        #expect(square.deviceSize == PhysicalSize(width: 217, height: 136))

        // A reported size of zero is no size at all.
        let zero = Fixtures.device(x: 0...4095, y: 0...2559, reportedSize: PhysicalSize(width: 0, height: 0))
        #expect(ScreenTransform(device: zero).deviceSize == PhysicalSize(width: 217, height: 136))
        #expect(ScreenTransform(device: zero).sizeIsAssumed)
    }

    @Test("the screen size swaps width and height at 90 and 270, not at 180", arguments: Rotation.allCases)
    func screenSizeSwaps(rotation: Rotation) {
        let t = ScreenTransform(device: Self.wide, rotation: rotation)
        #expect(t.deviceSize == PhysicalSize(width: 200, height: 100))
        switch rotation {
        case .none, .upsideDown: #expect(t.screenSize == PhysicalSize(width: 200, height: 100))
        case .clockwise90, .clockwise270: #expect(t.screenSize == PhysicalSize(width: 100, height: 200))
        }
    }
}
