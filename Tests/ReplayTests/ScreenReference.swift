import PopGestureCore
import PopGestureSynthesis

/// Where a point or move on the rotated, calibrated screen is on the panel: the
/// reference the scenario tests write their gestures with, worked out apart from
/// ``ScreenTransform``, so that the tests check the transform instead of mirroring it.
///
/// It takes the definitions, not the code's formulas: libinput's calibration matrix
/// maps the panel's normalised coordinates to the screen's, each rotation is the
/// matrix libinput's documentation gives for it, applied after the calibration, and
/// the whole is inverted as one plain 3 × 3 matrix. A millimetre on the screen is a
/// millimetre of finger travel on the panel. `ScreenReferenceTests` pins it to
/// hand-worked device units.
struct ScreenReference: Sendable {
    /// A 3 × 3 matrix, row by row.
    struct Matrix: Sendable, Equatable {
        var m: [[Double]]

        static func affine(_ six: [Double]) -> Matrix {
            Matrix(m: [[six[0], six[1], six[2]], [six[3], six[4], six[5]], [0, 0, 1]])
        }

        static func * (l: Matrix, r: Matrix) -> Matrix {
            Matrix(m: (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + l.m[i][$1] * r.m[$1][j] } } })
        }

        /// The inverse by cofactors; nil for a singular matrix.
        var inverse: Matrix? {
            func c(_ i: Int, _ j: Int) -> Double {
                let rows = (0..<3).filter { $0 != i }, cols = (0..<3).filter { $0 != j }
                let minor = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
                return (i + j) % 2 == 0 ? minor : -minor
            }
            let det = (0..<3).reduce(0) { $0 + m[0][$1] * c(0, $1) }
            guard abs(det) > 1e-12 else { return nil }
            // The inverse is the transposed cofactor matrix over the determinant.
            return Matrix(m: (0..<3).map { i in (0..<3).map { j in c(j, i) / det } })
        }

        func apply(_ x: Double, _ y: Double, translate: Bool = true) -> (x: Double, y: Double) {
            let w = translate ? 1.0 : 0.0
            return (m[0][0] * x + m[0][1] * y + m[0][2] * w, m[1][0] * x + m[1][1] * y + m[1][2] * w)
        }
    }

    /// libinput's rotation matrices, as its udev documentation lists them.
    static func libinputMatrix(_ rotation: Rotation) -> [Double] {
        switch rotation {
        case .none: [1, 0, 0, 0, 1, 0]
        case .clockwise90: [0, -1, 1, 1, 0, 0]
        case .upsideDown: [-1, 0, 1, 0, -1, 1]
        case .clockwise270: [0, 1, 0, -1, 0, 1]
        }
    }

    /// The panel's own size in millimetres.
    let panel: PhysicalSize
    /// Panel fractions to screen fractions, and back.
    let toScreen: Matrix
    let toPanel: Matrix

    init(panel: PhysicalSize, rotation: Rotation = .none, calibration: [Double] = [1, 0, 0, 0, 1, 0]) {
        self.panel = panel
        toScreen = .affine(Self.libinputMatrix(rotation)) * .affine(calibration)
        guard let inverse = toScreen.inverse else { preconditionFailure("a singular calibration has no reference") }
        toPanel = inverse
    }

    init(panel: PhysicalSize, rotation: Rotation, calibration: CalibrationMatrix) {
        let c = calibration
        self.init(panel: panel, rotation: rotation, calibration: [c.a, c.b, c.c, c.d, c.e, c.f])
    }

    /// The point on the panel, as fractions of its width and height, under a screen point.
    func panelFraction(ofScreen x: Double, _ y: Double) -> (x: Double, y: Double) {
        toPanel.apply(x, y)
    }

    /// The finger's move on the panel, in millimetres, for a move on the screen.
    func panelMillimetres(ofScreen dx: Double, _ dy: Double) -> (x: Double, y: Double) {
        let size = screenSize
        let move = toPanel.apply(dx / size.width, dy / size.height, translate: false)
        return (move.x * panel.width, move.y * panel.height)
    }

    /// The screen's size: how far the finger travels on the panel to cross it.
    var screenSize: PhysicalSize {
        func length(_ x: Double, _ y: Double) -> Double {
            let move = toPanel.apply(x, y, translate: false)
            let (mx, my) = (move.x * panel.width, move.y * panel.height)
            return (mx * mx + my * my).squareRoot()
        }
        return PhysicalSize(width: length(1, 0), height: length(0, 1))
    }
}

/// A gesture written in screen terms, played onto the panel through a
/// ``ScreenReference``: what scenario tests write. Fingers are numbered as in
/// ``TouchScript``.
struct ScreenGesture {
    var script: TouchScript
    let reference: ScreenReference

    mutating func down(_ finger: Int = 0, at x: Double, _ y: Double) {
        let p = reference.panelFraction(ofScreen: x, y)
        script.down(finger, at: p.x, p.y)
    }

    mutating func move(_ finger: Int = 0, byMillimetres dx: Double, _ dy: Double, over duration: Duration) {
        move([finger], byMillimetres: dx, dy, over: duration)
    }

    mutating func move(_ fingers: [Int], byMillimetres dx: Double, _ dy: Double, over duration: Duration) {
        let p = reference.panelMillimetres(ofScreen: dx, dy)
        script.move(fingers, byMillimetres: p.x, p.y, over: duration)
    }

    mutating func up(_ finger: Int = 0) { script.up(finger) }
    mutating func becomePalm(_ finger: Int = 0) { script.becomePalm(finger) }
    mutating func rest(_ duration: Duration) { script.rest(duration) }
    mutating func dropEvents(lost: [Int]) { script.dropEvents(lost: lost) }
}
