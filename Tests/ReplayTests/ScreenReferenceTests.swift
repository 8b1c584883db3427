import PopGestureCore
import Testing

/// The scenario tests' reference, pinned to numbers worked out by hand on a
/// 217 × 136 mm panel of 2170 × 1360 units (10 units/mm), then checked against the
/// engine's transform.
@Suite("The tests' screen reference")
struct ScreenReferenceTests {
    static let panel = PhysicalSize(width: 217, height: 136)

    struct Case: Sendable, CustomStringConvertible {
        var rotation: Rotation = .none
        var matrix: [Double] = [1, 0, 0, 0, 1, 0]
        /// The screen's size in millimetres.
        var screen: (width: Double, height: Double)
        /// Screen points (fractions) and the device units under them.
        var points: [(screen: (x: Double, y: Double), units: (x: Double, y: Double))]
        var description: String { "\(matrix) + \(rotation.rawValue)°" }
    }

    static let cases: [Case] = [
        // 90°: the screen's top-left is the panel's bottom-left; x' = 1 − y, y' = x.
        Case(rotation: .clockwise90, screen: (136, 217), points: [
            ((0, 0), (0, 1360)), ((1, 0), (0, 0)), ((0, 1), (2170, 1360)), ((0.25, 0.5), (1085, 1020)),
        ]),
        // 180°: everything mirrored.
        Case(rotation: .upsideDown, screen: (217, 136), points: [
            ((0, 0), (2170, 1360)), ((1, 1), (0, 0)), ((0.2, 0.5), (1736, 680)),
        ]),
        // 270°: the screen's top-left is the panel's top-right; x' = y, y' = 1 − x.
        Case(rotation: .clockwise270, screen: (136, 217), points: [
            ((0, 0), (2170, 0)), ((1, 0), (2170, 1360)), ((0, 1), (0, 0)), ((0.25, 0.5), (1085, 340)),
        ]),
        // The swapping matrix alone is the 270° turn.
        Case(matrix: [0, 1, 0, -1, 0, 1], screen: (136, 217), points: [
            ((0, 0), (2170, 0)), ((0.25, 0.5), (1085, 340)),
        ]),
        // The swapping matrix then rotation 90: a full turn, the panel as it is.
        Case(rotation: .clockwise90, matrix: [0, 1, 0, -1, 0, 1], screen: (217, 136), points: [
            ((0, 0), (0, 0)), ((0.2, 0.5), (434, 680)),
        ]),
        // Swapped and scaled: x' = 0.8·y + 0.1, y' = −0.8·x + 0.9. The panel covers
        // 0.8 of each screen axis: 136 / 0.8 = 170 mm wide, 217 / 0.8 = 271.25 mm tall.
        Case(matrix: [0, 0.8, 0.1, -0.8, 0, 0.9], screen: (170, 271.25), points: [
            ((0.1, 0.9), (0, 0)), ((0.5, 0.5), (1085, 680)), ((0.9, 0.1), (2170, 1360)), ((0.3, 0.66), (651, 340)),
        ]),
    ]

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-6 }

    @Test("screen points land on the hand-worked device units", arguments: cases)
    func handWorked(_ c: Case) {
        let reference = ScreenReference(panel: Self.panel, rotation: c.rotation, calibration: c.matrix)
        #expect(Self.close(reference.screenSize.width, c.screen.width)
                && Self.close(reference.screenSize.height, c.screen.height), "\(reference.screenSize)")
        for point in c.points {
            let p = reference.panelFraction(ofScreen: point.screen.x, point.screen.y)
            #expect(Self.close(p.x * 2170, point.units.x) && Self.close(p.y * 1360, point.units.y),
                    "\(point.screen) → (\(p.x * 2170), \(p.y * 1360))")
        }
    }

    @Test("under the swapping matrix, 10 mm right on the screen is 10 mm down the panel, 10 mm down is 10 mm left")
    func swappedMoves() {
        let reference = ScreenReference(panel: Self.panel, calibration: [0, 1, 0, -1, 0, 1])
        let right = reference.panelMillimetres(ofScreen: 10, 0)
        #expect(Self.close(right.x, 0) && Self.close(right.y, 10), "\(right)")
        let down = reference.panelMillimetres(ofScreen: 0, 10)
        #expect(Self.close(down.x, -10) && Self.close(down.y, 0), "\(down)")
    }

    @Test("the engine's transform maps the reference's device units back to the screen point", arguments: cases)
    func transformAgrees(_ c: Case) {
        let device = DeviceDescription(
            name: "217 × 136 mm panel", properties: [InputProperty.direct], keys: [BTN.touch],
            eventTypes: [EV.syn, EV.key, EV.abs],
            axes: [ABS.x: AbsoluteAxis(minimum: 0, maximum: 2170, resolution: 10),
                   ABS.y: AbsoluteAxis(minimum: 0, maximum: 1360, resolution: 10)])
        let m = c.matrix
        let transform = ScreenTransform(
            device: device, rotation: c.rotation, calibration: CalibrationMatrix(m[0], m[1], m[2], m[3], m[4], m[5]))
        for point in c.points {
            let s = transform.screenPoint(x: Int32(point.units.x), y: Int32(point.units.y))
            #expect(Self.close(s.x, point.screen.x) && Self.close(s.y, point.screen.y), "\(point.units) → \(s)")
        }
    }
}
