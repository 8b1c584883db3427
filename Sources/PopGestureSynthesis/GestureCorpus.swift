import PopGestureCore
import RealModule

/// How hands move on a tablet, generated from parameters rather than tuned to pass:
/// the swipes meant as a back (thumb arcs, edge flicks, slow and diagonal drags) and
/// the touches that must never be one (scrolls, map pans, text selection, taps,
/// zooms). Each case says, per ``GestureMode``, whether it should go back and why.
///
/// Positions are in millimetres from the **leading edge** (inward) and from the top;
/// a case for the right hand is the mirror image in a right-to-left layout, so every
/// back moves toward the trailing side. Times are in milliseconds.
///
/// Where a parameter comes from:
/// - **Thumb arcs.** A thumb moves on an arc about its carpometacarpal joint; its
///   functional area on a touchscreen is bounded by such arcs (Bergstrom-Lehtovirta &
///   Oulasvirta, "Modeling the functional area of the thumb on mobile touchscreen
///   surfaces", CHI 2014). Tablets are held at the sides, one or two hands, with the
///   thumbs doing the touching near the edges (Hoober, "How do users really hold mobile
///   devices?", UXmatters 2013, and "Design for fingers, touch, and people", 2017).
///   Radii 40–90 mm (the issue's range, thumb tip to joint); the pivot on the glass's
///   edge or on a 10 mm bezel beyond it (assumed). The thumb turns 30–40° about its
///   joint (assumed: the joint's flexion and abduction span about 50°), in 120–200 ms,
///   and lifts still moving, as a swipe meant to go back does (assumed).
/// - **Landing.** A finger coming off the bezel lands 1–4 mm in (assumed: within
///   Android's back-gesture edge of 18–40 dp, 2.9–6.4 mm, set by the user; the edge
///   zone here is 4.8 mm).
/// - **Edge flicks.** 8–20 mm in 30–80 ms (the issue's figures), at constant speed
///   from landing to lift (assumed), horizontal or 20° off.
/// - **Slow drags.** 40–60 % of the screen's width at 80–150 mm/s with a
///   minimum-jerk profile (Flash & Hogan 1985, the smooth point-to-point movement of a
///   hand), so the finger comes to rest before it lifts and only progress commits.
/// - **Scrolls.** Vertical within 20° (assumed; a thumb's scroll bends along its arc),
///   diagonal at 50–60° (assumed), released moving (a fling) or at rest.
/// - **Text selection.** A long press (500–800 ms; UIKit's and GTK's 500 ms, Android's
///   400–500 ms) then a drag along the line.
/// - **Taps.** 60–120 ms with 0–2 mm of slide (assumed; 2 mm is more than Android's
///   8 dp touch slop, about 1.3 mm, as a finger that rolls while it taps slides).
/// - **Zooms.** The second finger 0–80 ms after the first (assumed), spreading or
///   pinching 30 mm each.
/// - **Frames.** 10 ms apart: a 100 Hz touchscreen, as ``TouchScript``'s default; the
///   player takes any interval (``CorpusPlayer/frameInterval``). A finger is reported at
///   each scan it is down for, the first one ``Case/scanPhase`` of an interval after it
///   lands, and its lift at the first scan after it lifted.
public enum GestureCorpus {
    public enum Family: String, Sendable, Hashable, CaseIterable {
        case thumbArc = "thumb arc"
        case edgeFlick = "edge flick"
        case slowDrag = "slow drag"
        case diagonalDrag = "diagonal drag"
        case verticalScroll = "vertical scroll"
        case diagonalScroll = "diagonal scroll"
        case mapPan = "map pan"
        case textSelection = "text selection"
        case tap
        case twoFingerZoom = "two-finger zoom"
    }

    /// The hand that swipes: the left one from the left edge in a left-to-right layout,
    /// the right one from the right edge in a right-to-left layout (its mirror image).
    public enum Hand: String, Sendable, Hashable, CaseIterable {
        case left, right

        public var layout: LayoutDirection { self == .left ? .leftToRight : .rightToLeft }
    }

    /// How the finger's speed runs over a movement.
    public enum Profile: String, Sendable, Hashable {
        /// The same speed from landing to lift: a flick.
        case constant
        /// Speeds up over the first third, then keeps its speed and lifts moving.
        case ramp
        /// Minimum jerk: starts and ends at rest (Flash & Hogan 1985).
        case minimumJerk = "minimum-jerk"

        /// The fraction of the way covered at `u` (0…1) of the time.
        public func fraction(_ u: Double) -> Double {
            let u = min(1, max(0, u))
            switch self {
            case .constant:
                return u
            case .ramp:
                // Acceleration to full speed at a third, then constant: ⅙ of the way by then.
                let a = 1.0 / 3, whole = 1 - a / 2
                return u < a ? (u * u / (2 * a)) / whole : (u - a / 2) / whole
            case .minimumJerk:
                return u * u * u * (10 - 15 * u + 6 * u * u)
            }
        }
    }

    /// The path of one finger, in leading-edge millimetres relative to where it landed.
    public enum Path: Sendable, Hashable {
        /// A straight line.
        case line(dx: Double, dy: Double)
        /// An arc about a pivot at (`pivotX`, `pivotY`) from the landing point, swept
        /// `length` mm; `clockwise` on screen (y down) turns a thumb pointing up
        /// toward the trailing side and down.
        case arc(pivotX: Double, pivotY: Double, length: Double, clockwise: Bool)

        /// Offset from the landing point after `fraction` of the way.
        public func offset(_ fraction: Double) -> (dx: Double, dy: Double) {
            switch self {
            case .line(let dx, let dy):
                return (dx * fraction, dy * fraction)
            case .arc(let px, let py, let length, let clockwise):
                let radius = (px * px + py * py).squareRoot()
                // The landing point seen from the pivot, with y up.
                let start = Double.atan2(y: py, x: -px)
                let turned = start + (clockwise ? -1 : 1) * length * fraction / radius
                let x = px + radius * Double.cos(turned), y = py - radius * Double.sin(turned)
                return (x, y)
            }
        }
    }

    /// One finger's part in a case.
    public struct Finger: Sendable, Hashable {
        /// Where it lands: mm from the leading edge, and mm from the top.
        public var x: Double
        public var y: Double
        /// When it lands, after the case's first finger.
        public var landsAfter: Int = 0
        /// How long it rests before moving.
        public var holds: Int = 0
        public var path: Path
        /// How long the movement takes, after the hold.
        public var moves: Int
        public var profile: Profile
    }

    /// What a case should give in one mode.
    public enum Expectation: String, Sendable, Hashable {
        case back
        case noBack = "no back"
    }

    public struct Case: Sendable, Hashable {
        public var name: String
        public var family: Family
        public var hand: Hand
        public var fingers: [Finger]
        /// The top page keeps this area (screen fractions) for its own gestures.
        public var exclusion: NormalizedRect?
        public var expected: [GestureMode: Expectation]
        /// Why it should give that, in one line.
        public var why: String
        /// When the panel's first scan comes after the first finger lands, as a share of
        /// the scan interval (0 ..< 1): a finger lands between scans, and a flick has
        /// moved by the first report. 0 in the grid (``cases(for:)``): the first report is
        /// the landing; drawn at random in the sampled sets (``sample(for:seed:perFamily:)``).
        public var scanPhase: Double = 0

        /// Whether it lands in the edge zone of `settings`.
        public func startsAtEdge(_ settings: GestureSettings) -> Bool {
            settings.isInEdgeZone(distanceFromLeadingEdge: fingers[0].x)
        }
    }

    /// Every case for a screen of `screen` millimetres.
    public static func cases(for screen: PhysicalSize) -> [Case] {
        var all: [Case] = []
        for hand in Hand.allCases {
            all += thumbArcs(screen, hand) + edgeFlicks(screen, hand) + slowDrags(screen, hand)
            all += diagonalDrags(screen, hand) + verticalScrolls(screen, hand) + diagonalScrolls(screen, hand)
            all += mapPans(screen, hand) + textSelections(screen, hand) + taps(screen, hand) + zooms(screen, hand)
        }
        return all
    }

    private static let both: [GestureMode: Expectation] = [.edge: .back, .fullscreen: .back]
    private static let fullscreenOnly: [GestureMode: Expectation] = [.edge: .noBack, .fullscreen: .back]
    private static let never: [GestureMode: Expectation] = [.edge: .noBack, .fullscreen: .noBack]

    private static func one(_ x: Double, _ y: Double, _ path: Path, _ ms: Int, _ profile: Profile, holds: Int = 0)
        -> [Finger]
    {
        [Finger(x: x, y: y, holds: holds, path: path, moves: ms, profile: profile)]
    }

    /// Millimetres `mm` at `degrees` from horizontal toward the trailing side; positive
    /// degrees go down.
    private static func line(_ mm: Double, degrees: Double) -> Path {
        let r = degrees * .pi / 180
        return .line(dx: mm * Double.cos(r), dy: mm * Double.sin(r))
    }

    private static func mm(_ v: Double) -> String {
        v == v.rounded() ? "\(Int(v))" : "\((v * 10).rounded() / 10)"
    }

    // MARK: - Meant as a back

    /// The thumb of the hand holding the tablet's side, from the bezel inward.
    static func thumbArcs(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for radius in [40.0, 55, 70, 90] {
            for beyond in [0.0, 10] {  // The pivot on the glass's edge, or on the bezel.
                for landing in [2.0, 4] {
                    // The joint below the tip (the thumb points up and sweeps down) or above.
                    for bendsDown in [true, false] {
                        for (sweep, ms) in [(30.0, 120), (30, 200), (40, 120), (40, 200)] {
                            cases.append(thumbArc(screen, hand, radius: radius, beyond: beyond, landing: landing,
                                                  bendsDown: bendsDown, sweep: sweep, ms: ms))
                        }
                    }
                }
            }
        }
        return cases
    }

    public static func thumbArc(
        _ screen: PhysicalSize, _ hand: Hand, radius: Double, beyond: Double, landing: Double, bendsDown: Bool,
        sweep: Double, ms: Int
    ) -> Case {
        let length = radius * sweep * .pi / 180
        let px = -(beyond + landing)
        let rise = (radius * radius - px * px).squareRoot()
        let py = bendsDown ? rise : -rise
        let y = bendsDown ? screen.height * 0.4 : screen.height * 0.6
        let path = Path.arc(pivotX: px, pivotY: py, length: length, clockwise: bendsDown)
        return Case(
            name: "thumb arc r\(mm(radius)) pivot \(mm(beyond)) mm out, lands \(mm(landing)) mm in, bends \(bendsDown ? "down" : "up"), \(mm(sweep))° (\(mm(length)) mm) in \(ms) ms, \(hand) hand",
            family: .thumbArc, hand: hand,
            fingers: one(landing, y, path, ms, .ramp), exclusion: nil, expected: both,
            why: "a thumb swiping back from the bezel it holds: starts at the edge, curves with the joint")
    }

    static func edgeFlicks(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for length in [8.0, 12, 16, 20] {
            for ms in [30, 50, 80] {
                for degrees in [0.0, 20] {
                    for landing in [1.0, 3.5] {
                        cases.append(edgeFlick(screen, hand, length: length, ms: ms, degrees: degrees, landing: landing))
                    }
                }
            }
        }
        return cases
    }

    public static func edgeFlick(
        _ screen: PhysicalSize, _ hand: Hand, length: Double, ms: Int, degrees: Double, landing: Double
    ) -> Case {
        Case(
            name: "edge flick \(mm(length)) mm in \(ms) ms at \(mm(degrees))°, lands \(mm(landing)) mm in, \(hand) hand",
            family: .edgeFlick, hand: hand,
            fingers: one(landing, screen.height / 2, line(length, degrees: degrees), ms, .constant),
            exclusion: nil, expected: both,
            why: "a short fast flick off the bezel: the quickest back there is")
    }

    static func slowDrags(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for fromEdge in [true, false] {
            for share in [0.4, 0.6] {
                for speed in [80.0, 150] {
                    for degrees in [0.0, 10] {
                        cases.append(slowDrag(screen, hand, fromEdge: fromEdge, share: share, speed: speed,
                                              degrees: degrees))
                    }
                }
            }
        }
        return cases
    }

    public static func slowDrag(
        _ screen: PhysicalSize, _ hand: Hand, fromEdge: Bool, share: Double, speed: Double, degrees: Double
    ) -> Case {
        let length = screen.width * share
        let x = fromEdge ? 2 : screen.width * 0.3
        let ms = Int((length / speed * 1000).rounded())
        return Case(
            name: "slow drag \(Int((share * 100).rounded())) % of the width at \(mm(speed)) mm/s, \(mm(degrees))°, from \(fromEdge ? "the edge" : "30 % in"), \(hand) hand",
            family: .slowDrag, hand: hand,
            fingers: one(x, screen.height / 2, line(length, degrees: degrees), ms, .minimumJerk),
            exclusion: nil, expected: fromEdge ? both : fullscreenOnly,
            why: fromEdge
                ? "drags the page past the commit point and rests: a back by progress"
                : "the same from mid-screen: fullscreen mode's back, not edge mode's")
    }

    static func diagonalDrags(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        // (start at the edge, angle): shallow anywhere, steeper only from the edge.
        for (fromEdge, degrees) in [(false, 15.0), (false, 25), (true, 35), (true, 40), (false, 35), (false, 40)] {
            for down in [true, false] {
                cases.append(diagonalDrag(screen, hand, fromEdge: fromEdge, degrees: degrees, down: down))
            }
        }
        return cases
    }

    /// Up to 25° is shallow (a back mid-screen in fullscreen mode), from 35° steep (a
    /// back only from the edge).
    public static func diagonalDrag(_ screen: PhysicalSize, _ hand: Hand, fromEdge: Bool, degrees: Double, down: Bool) -> Case {
        let length = screen.width * 0.5
        let x = fromEdge ? 2 : screen.width * 0.3
        let expected: [GestureMode: Expectation]
        let why: String
        switch (fromEdge, degrees <= 25) {
        case (true, _):
            (expected, why) = (both, "a diagonal swipe from the edge: the edge decides like Android, |dx| ≥ |dy|")
        case (false, true):
            (expected, why) = (fullscreenOnly, "a shallow diagonal drag mid-screen: fullscreen mode's back")
        case (false, false):
            (expected, why) = (never, "steeper than 30° mid-screen: as much a diagonal scroll as a back, the app's")
        }
        return Case(
            name: "diagonal drag \(mm(degrees))° \(down ? "down" : "up") from \(fromEdge ? "the edge" : "30 % in"), \(hand) hand",
            family: .diagonalDrag, hand: hand,
            fingers: one(x, screen.height / 2, line(length, degrees: down ? degrees : -degrees), 300, .ramp),
            exclusion: nil, expected: expected, why: why)
    }

    // MARK: - Never a back

    static func verticalScrolls(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for degrees in [70.0, 80, 90, 100] {  // Past 90 leans toward the leading side.
            for down in [true, false] {
                for fromEdge in [true, false] {
                    for (flung, ms) in [(true, 150), (false, 400)] {
                        cases.append(verticalScroll(screen, hand, degrees: degrees, down: down, fromEdge: fromEdge,
                                                    flung: flung, ms: ms))
                    }
                }
            }
        }
        return cases
    }

    /// `flung`: speeds up and lifts moving; else comes to rest (minimum jerk).
    public static func verticalScroll(
        _ screen: PhysicalSize, _ hand: Hand, degrees: Double, down: Bool, fromEdge: Bool, flung: Bool, ms: Int
    ) -> Case {
        let x = fromEdge ? 2 : screen.width * 0.5
        let y = down ? screen.height * 0.25 : screen.height * 0.75
        return Case(
            name: "vertical scroll \(mm(degrees))° \(down ? "down" : "up") from \(fromEdge ? "the edge" : "mid-screen"), \(flung ? "flung" : "to rest")\(ms == 150 || ms == 400 ? "" : " in \(ms) ms"), \(hand) hand",
            family: .verticalScroll, hand: hand,
            fingers: one(x, y, line(60, degrees: down ? degrees : -degrees), ms, flung ? .ramp : .minimumJerk),
            exclusion: nil, expected: never,
            why: "scrolls the page: steeper than any back, even at the edge")
    }

    static func diagonalScrolls(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for degrees in [50.0, 60] {
            for down in [true, false] {
                for fromEdge in [true, false] {
                    cases.append(diagonalScroll(screen, hand, degrees: degrees, down: down, fromEdge: fromEdge))
                }
            }
        }
        return cases
    }

    public static func diagonalScroll(_ screen: PhysicalSize, _ hand: Hand, degrees: Double, down: Bool, fromEdge: Bool)
        -> Case
    {
        let x = fromEdge ? 2 : screen.width * 0.5
        let y = down ? screen.height * 0.25 : screen.height * 0.75
        return Case(
            name: "diagonal scroll \(mm(degrees))° \(down ? "down" : "up") from \(fromEdge ? "the edge" : "mid-screen"), \(hand) hand",
            family: .diagonalScroll, hand: hand,
            fingers: one(x, y, line(50, degrees: down ? degrees : -degrees), 200, .ramp),
            exclusion: nil, expected: never,
            why: "a scroll bent by the thumb's arc: more vertical than horizontal")
    }

    /// A map page: pans in every direction from its middle. The page keeps its map as an
    /// exclusion zone (as a map app keeps Android's `systemGestureExclusionRects`); a pan
    /// toward the trailing side on a page without one is fullscreen mode's back by design.
    static func mapPans(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for degrees in stride(from: 0.0, to: 360, by: 30) {
            for (flung, ms) in [(true, 150), (false, 350)] {
                cases.append(mapPan(screen, hand, degrees: degrees, flung: flung, ms: ms))
            }
        }
        return cases
    }

    public static func mapPan(_ screen: PhysicalSize, _ hand: Hand, degrees: Double, flung: Bool, ms: Int) -> Case {
        // The map: everything but a 10 mm band at the leading edge.
        let band = min(0.5, 10 / screen.width)
        let map = hand == .left
            ? NormalizedRect(x: band, y: 0, width: 1 - band, height: 1)
            : NormalizedRect(x: 0, y: 0, width: 1 - band, height: 1)
        return Case(
            name: "map pan toward \(mm(degrees))° (\(flung ? "flung" : "to rest")\(ms == 150 || ms == 350 ? "" : " in \(ms) ms")), \(hand) hand",
            family: .mapPan, hand: hand,
            fingers: one(screen.width * 0.5, screen.height * 0.5, line(40, degrees: degrees), ms,
                         flung ? .ramp : .minimumJerk),
            exclusion: map, expected: never,
            why: "moves the map, which its page keeps for itself")
    }

    static func textSelections(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for press in [500, 800] {
            for x in [10.0, screen.width * 0.4] {  // The text's margin, or mid-line.
                for (length, degrees) in [(30.0, 0.0), (60, 5)] {
                    cases.append(textSelection(screen, hand, press: press, x: x, length: length, degrees: degrees))
                }
            }
        }
        return cases
    }

    public static func textSelection(
        _ screen: PhysicalSize, _ hand: Hand, press: Int, x: Double, length: Double, degrees: Double
    ) -> Case {
        Case(
            name: "text selection: press \(press) ms at \(mm(x)) mm, then \(mm(length)) mm along the line, \(hand) hand",
            family: .textSelection, hand: hand,
            fingers: one(x, screen.height * 0.4, line(length, degrees: degrees),
                         Int(length / 60 * 1000), .minimumJerk, holds: press),
            exclusion: nil, expected: never,
            why: "a long press then a drag selects text: the app's")
    }

    static func taps(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for x in [1.0, 3, screen.width * 0.5] {
            for ms in [60, 120] {
                for slide in [0.0, 2] {
                    cases.append(tap(screen, hand, x: x, ms: ms, slide: slide))
                }
            }
        }
        return cases
    }

    public static func tap(_ screen: PhysicalSize, _ hand: Hand, x: Double, ms: Int, slide: Double) -> Case {
        Case(
            name: "tap at \(mm(x)) mm for \(ms) ms, sliding \(mm(slide)) mm, \(hand) hand",
            family: .tap, hand: hand,
            fingers: one(x, screen.height * 0.5, line(slide, degrees: 0), ms, .constant),
            exclusion: nil, expected: never,
            why: "a tap, even one that slides a little: a press, not a swipe")
    }

    static func zooms(_ screen: PhysicalSize, _ hand: Hand) -> [Case] {
        var cases: [Case] = []
        for delay in [0, 30, 80] {
            for spread in [true, false] {
                for nearEdge in [true, false] {
                    cases.append(zoom(screen, hand, delay: delay, spread: spread, x: nearEdge ? 3 : screen.width * 0.35))
                }
            }
        }
        return cases
    }

    /// The first finger lands `x` mm in, the second 40 mm farther in, `delay` ms later.
    public static func zoom(_ screen: PhysicalSize, _ hand: Hand, delay: Int, spread: Bool, x: Double) -> Case {
        let apart = 40.0
        let each = spread ? 15.0 : -15
        let fingers = [
            Finger(x: x, y: screen.height * 0.5, path: .line(dx: -each, dy: 0), moves: 250, profile: .ramp),
            Finger(x: x + apart, y: screen.height * 0.5, landsAfter: delay,
                   path: .line(dx: each, dy: 0), moves: 250, profile: .ramp),
        ]
        return Case(
            name: "two-finger \(spread ? "spread" : "pinch"), second finger \(delay) ms later, \(x <= 3 ? "first at the edge" : "first \(mm(x)) mm in"), \(hand) hand",
            family: .twoFingerZoom, hand: hand, fingers: fingers, exclusion: nil, expected: never,
            why: "two fingers zoom: a back takes one")
    }
}
