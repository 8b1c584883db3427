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
        // The 200 × 100 mm panel covers half of each screen axis, so the screen is
        // 400 × 200 mm, and corner to corner is the finger's 200 × 100 mm of travel.
        #expect(t.screenSize == PhysicalSize(width: 400, height: 200))
        #expect(Self.close(topLeft.xMillimetres, 100) && Self.close(topLeft.yMillimetres, 50))
        #expect(Self.close(bottomRight.xMillimetres, 300))
        #expect(Self.close(bottomRight.yMillimetres, 150))
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

    @Test("each size source in turn: axes, then udev, then the shell's output, then the display's EDID, then the guess")
    func sizeSources() {
        let udev = PhysicalSize(width: 150, height: 94)
        let output = PhysicalSize(width: 154, height: 86)
        let display = PhysicalSize(width: 95, height: 54)
        let bare = Fixtures.device(x: 0...4095, y: 0...2559)
        let reported = Fixtures.device(x: 0...4095, y: 0...2559, reportedSize: udev)
        let resolved = Fixtures.device(x: 0...3200, y: 0...1600, resolutionX: 16, resolutionY: 16, reportedSize: udev)

        let axes = ScreenTransform(device: resolved, outputSize: output, displaySize: display)
        #expect(axes.sizeSource == .axes && axes.deviceSize == PhysicalSize(width: 200, height: 100))
        let fromUdev = ScreenTransform(device: reported, outputSize: output, displaySize: display)
        #expect(fromUdev.sizeSource == .udev && fromUdev.deviceSize == udev)
        let fromOutput = ScreenTransform(device: bare, outputSize: output, displaySize: display)
        #expect(fromOutput.sizeSource == .output && fromOutput.deviceSize == output)
        let fromDisplay = ScreenTransform(device: bare, displaySize: display)
        #expect(fromDisplay.sizeSource == .display && fromDisplay.deviceSize == display)
        #expect(!fromDisplay.sizeIsAssumed)
        let assumed = ScreenTransform(device: bare)
        #expect(assumed.sizeSource == .assumed && assumed.sizeIsAssumed)
        #expect(assumed.deviceSize == ScreenTransform.fallbackSize)
        #expect(ScreenTransform.SizeSource.allCases.map(\.rawValue) == ["axes", "udev", "output", "display", "assumed"])
    }

    @Test("the display's size is measured in millimetres: a 4.3-inch panel's 4.8 mm is 4.8 mm, not 2.1")
    func displaySizeMillimetres() {
        // 800 × 480 pixels of touch, no resolution: the 4.3-inch panel of the issue.
        let device = Fixtures.device(x: 0...799, y: 0...479)
        let t = ScreenTransform(device: device, displaySize: PhysicalSize(width: 95, height: 54))
        let edge = t.screenPoint(x: Int32((4.8 / 95 * 799).rounded()), y: 240)
        #expect(abs(edge.xMillimetres - 4.8) < 0.1)
        let guessed = ScreenTransform(device: device).screenPoint(x: Int32((4.8 / 95 * 799).rounded()), y: 240)
        #expect(guessed.xMillimetres > 10, "on the guessed 217 mm panel the same spot is over 10 mm in")
    }

    @Test("a display's size turns to the touch axes: the longer side on the larger range, as given when square")
    func displaySizeOrientation() {
        let landscapePanel = PhysicalSize(width: 136, height: 68)
        let portraitTouch = Fixtures.device(x: 0...719, y: 0...1439)
        #expect(ScreenTransform(device: portraitTouch, displaySize: landscapePanel).deviceSize
                == PhysicalSize(width: 68, height: 136))
        let portraitPanel = PhysicalSize(width: 68, height: 136)
        let landscapeTouch = Fixtures.device(x: 0...1439, y: 0...719)
        #expect(ScreenTransform(device: landscapeTouch, displaySize: portraitPanel).deviceSize
                == PhysicalSize(width: 136, height: 68))
        // Many HID panels report 0…4095 on both axes: the panel's own orientation stands.
        let square = Fixtures.device(x: 0...4095, y: 0...4095)
        #expect(ScreenTransform(device: square, displaySize: portraitPanel).deviceSize == portraitPanel)
        #expect(ScreenTransform(device: square, outputSize: landscapePanel).deviceSize == landscapePanel)
    }

    @Test("a display's size of 0, below 0 or not finite is no size", arguments: [
        PhysicalSize(width: 0, height: 54), PhysicalSize(width: 95, height: -1),
        PhysicalSize(width: .infinity, height: 54), PhysicalSize(width: 95, height: .nan),
    ])
    func unusableDisplaySize(size: PhysicalSize) {
        let device = Fixtures.device(x: 0...4095, y: 0...2559)
        let display = ScreenTransform(device: device, displaySize: size)
        #expect(display.sizeSource == .assumed)
        #expect(display.deviceSize == ScreenTransform.fallbackSize)
        let output = ScreenTransform(device: device, outputSize: size, displaySize: PhysicalSize(width: 95, height: 54))
        #expect(output.sizeSource == .display, "an unusable output size leaves the display's")
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

    // MARK: - Millimetres under calibration (issue 8, defect 4)

    /// A 217 × 136 mm panel at 10 units/mm: device units are tenths of a millimetre.
    static let panel = Fixtures.slotTouchscreen(x: 0...2170, y: 0...1360, resolution: 10)

    /// A point on `panel` and where it lands, worked out by hand from the matrix's
    /// meaning (which device axis feeds which screen axis, and at what scale), not
    /// from `ScreenTransform`'s formulas.
    struct CalibratedPoint: Sendable, CustomStringConvertible {
        var matrix: String
        var rotation: Rotation = .none
        var screen: PhysicalSize
        var millimetres: (x: Double, y: Double)
        var description: String { "\"\(matrix)\" + \(rotation.rawValue)°" }
    }

    /// All for the device point (651, 340): 65.1 mm across and 34 mm down the panel,
    /// 0.3 of its width and 0.25 of its height.
    static let calibratedPoints: [CalibratedPoint] = [
        .init(matrix: "1 0 0 0 1 0", screen: PhysicalSize(width: 217, height: 136), millimetres: (65.1, 34)),
        // 90°: screen x is 1 − device y, on a screen 136 mm wide: 0.75 × 136 = 102;
        // screen y is device x, on a screen 217 mm tall: 0.3 × 217 = 65.1.
        .init(matrix: "0 -1 1 1 0 0", screen: PhysicalSize(width: 136, height: 217), millimetres: (102, 65.1)),
        // 180°: 0.7 × 217 = 151.9 across, 0.75 × 136 = 102 down.
        .init(matrix: "-1 0 1 0 -1 1", screen: PhysicalSize(width: 217, height: 136), millimetres: (151.9, 102)),
        // 270°: screen x is device y, 0.25 × 136 = 34; screen y is 1 − device x, 0.7 × 217 = 151.9.
        .init(matrix: "0 1 0 -1 0 1", screen: PhysicalSize(width: 136, height: 217), millimetres: (34, 151.9)),
        // Swapped and scaled: x' = 0.8·y + 0.1, y' = −0.8·x + 0.9. The panel's 136 mm
        // height covers 0.8 of the screen's width, so the screen is 136 / 0.8 = 170 mm
        // wide and 217 / 0.8 = 271.25 mm tall. x' = 0.3 → 51 mm; y' = 0.66 → 179.025 mm.
        .init(matrix: "0 0.8 0.1 -0.8 0 0.9", screen: PhysicalSize(width: 170, height: 271.25), millimetres: (51, 179.025)),
        // The rotation setting alone, and after a 90° matrix (90 + 90 = 180).
        .init(matrix: "1 0 0 0 1 0", rotation: .clockwise90,
              screen: PhysicalSize(width: 136, height: 217), millimetres: (102, 65.1)),
        .init(matrix: "0 -1 1 1 0 0", rotation: .clockwise90,
              screen: PhysicalSize(width: 217, height: 136), millimetres: (151.9, 102)),
    ]

    @Test("millimetres under a calibration matrix and rotation match the hand-worked values",
          arguments: calibratedPoints)
    func calibratedMillimetres(_ point: CalibratedPoint) throws {
        let matrix = try #require(CalibrationMatrix(udevProperty: point.matrix))
        let t = ScreenTransform(device: Self.panel, rotation: point.rotation, calibration: matrix)
        #expect(Self.close(t.screenSize.width, point.screen.width) && Self.close(t.screenSize.height, point.screen.height),
                "screen \(t.screenSize)")
        let p = t.screenPoint(x: 651, y: 340)
        #expect(Self.close(p.xMillimetres, point.millimetres.x), "x \(p.xMillimetres) mm")
        #expect(Self.close(p.yMillimetres, point.millimetres.y), "y \(p.yMillimetres) mm")
    }

    @Test("a move on the screen is as long as the finger's move on the panel, for any rotation or swap",
          arguments: ["1 0 0 0 1 0", "0 -1 1 1 0 0", "-1 0 1 0 -1 1", "0 1 0 -1 0 1", "0 0.8 0.1 -0.8 0 0.9"],
          Rotation.allCases)
    func distancesArePhysical(matrix text: String, rotation: Rotation) throws {
        let matrix = try #require(CalibrationMatrix(udevProperty: text))
        let t = ScreenTransform(device: Self.panel, rotation: rotation, calibration: matrix)
        // Pairs of device points; the reference length is Pythagoras on the panel in
        // tenths of a millimetre.
        let pairs: [((Int32, Int32), (Int32, Int32))] = [
            ((0, 0), (2170, 0)), ((0, 0), (0, 1360)), ((651, 340), (951, 740)), ((2000, 100), (300, 1300)),
        ]
        for (a, b) in pairs {
            let dx = Double(b.0 - a.0) / 10, dy = Double(b.1 - a.1) / 10
            let panel = (dx * dx + dy * dy).squareRoot()
            let pa = t.screenPoint(x: a.0, y: a.1), pb = t.screenPoint(x: b.0, y: b.1)
            let sx = pb.xMillimetres - pa.xMillimetres, sy = pb.yMillimetres - pa.yMillimetres
            let screen = (sx * sx + sy * sy).squareRoot()
            #expect(Self.close(screen, panel, tolerance: 1e-6), "\(a) → \(b): \(screen) mm on screen, \(panel) mm on the panel")
        }
    }

    @Test("the issue's case: under 0 1 0 -1 0 1, 10 mm along the panel's y is 10 mm across the screen, not 16")
    func swapDoesNotStretch() throws {
        let t = ScreenTransform(device: Self.panel, calibration: try #require(CalibrationMatrix(udevProperty: "0 1 0 -1 0 1")))
        let a = t.screenPoint(x: 1000, y: 500), b = t.screenPoint(x: 1000, y: 600)
        // Before the fix: 10 × 217 / 136 = 15.96 mm.
        #expect(Self.close(b.xMillimetres - a.xMillimetres, 10))
        #expect(Self.close(b.yMillimetres - a.yMillimetres, 0))
        // And 10 mm along the panel's x is 10 mm up the screen (before: 6.27 mm).
        let c = t.screenPoint(x: 1100, y: 500)
        #expect(Self.close(a.yMillimetres - c.yMillimetres, 10))
    }

    @Test("a matrix that flattens the panel keeps the device's own size", arguments: ["0 0 0 0 0 0", "1 1 0 1 1 0"])
    func singularMatrixKeepsDeviceSize(text: String) throws {
        let t = ScreenTransform(device: Self.panel, calibration: try #require(CalibrationMatrix(udevProperty: text)))
        #expect(t.screenSize == PhysicalSize(width: 217, height: 136))
    }

    // MARK: - The arbiter's angle under a swapping matrix

    /// Plays one straight swipe on `panel` under the 270° matrix "0 1 0 -1 0 1" (screen
    /// x is the panel's y; screen y is 217 mm minus the panel's x) and returns what the
    /// engine said. The swipe starts at device (1500, 200), screen (20 mm, 67 mm), and
    /// moves by `dx`, `dy` device units in 12 frames of 10 ms.
    static func swipeUnderSwap(dx: Int32, dy: Int32) throws -> [EngineEvent] {
        let talk = Fixtures.Talk()
        var engine = GestureEngine()
        try engine.perform(.create(navigator: "main", pages: [Page(id: "root"), Page(id: "detail")], layout: nil,
                                   barFollowsTopPage: true), from: ClientID(1), at: talk.time)
        engine.drainEvents { _ in }
        let matrix = try #require(CalibrationMatrix(udevProperty: "0 1 0 -1 0 1"))
        let id = engine.addDevice(panel, configuration: DeviceConfiguration(calibration: matrix))
        var events: [EngineEvent] = []
        func send() {
            for event in talk.take() { engine.handle(event, from: id) }
            engine.drainEvents { events.append($0) }
        }
        let start: (x: Int32, y: Int32) = (1500, 200)
        talk.slot(0); talk.trackingID(1); talk.position(x: start.x, y: start.y); talk.touchMajor(20); talk.touch(true)
        talk.report()
        send()
        let steps: Int32 = 12
        for step in 1...steps {
            talk.position(x: start.x + dx * step / steps, y: start.y + dy * step / steps)
            talk.report()
            send()
        }
        talk.lift(); talk.touch(false); talk.report()
        send()
        return events
    }

    static func rejections(_ events: [EngineEvent]) -> [RejectionReason] {
        events.compactMap { if case .rejected(let reason, _, _) = $0 { reason } else { nil } }
    }

    @Test("under a swapping matrix, a 40° move is too steep and a 20° move starts a back")
    func angleUnderSwap() throws {
        // 40 mm at 40° below horizontal, rightward on the screen: 40·cos 40° = 30.64 mm
        // across, 40·sin 40° = 25.71 mm down. Screen x is the panel's y, so +306 units
        // of y; screen y down is the panel's x decreasing, so −257 units of x.
        // Before the fix the engine saw 48.9 mm across and 16.1 mm down: 18°, accepted.
        let steep = try Self.swipeUnderSwap(dx: -257, dy: 306)
        #expect(Self.rejections(steep) == [.tooSteep], "\(steep)")
        #expect(!steep.contains { if case .popBegan = $0 { true } else { false } })

        // 40 mm at 20°: 37.59 mm across (+376 units of y), 13.68 mm down (−137 units of x).
        let shallow = try Self.swipeUnderSwap(dx: -137, dy: 376)
        #expect(Self.rejections(shallow).isEmpty, "\(shallow)")
        #expect(shallow.contains { if case .popBegan = $0 { true } else { false } })
    }
}
