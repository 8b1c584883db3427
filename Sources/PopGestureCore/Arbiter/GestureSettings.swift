/// Where a back swipe may start.
public enum GestureMode: String, Sendable, Hashable, CaseIterable {
    /// Anywhere, moving toward the trailing side: FDFullscreenPopGesture's behaviour.
    case fullscreen
    /// Only from the leading edge zone: UIKit's own `UIScreenEdgePanGestureRecognizer`.
    case edge
}

/// The thresholds of the back gesture. Every default works without configuration;
/// each names the peer it came from.
public struct GestureSettings: Sendable, Hashable {
    /// Default `.fullscreen`, as FDFullscreenPopGesture.
    public var mode: GestureMode = .fullscreen

    /// The leading edge zone: in edge mode, how far from the leading edge a swipe may
    /// start. Default 4.8 mm: Android's back-gesture edge is 20–30 dp wide (3.2–4.8 mm
    /// at 160 dp per inch); the upper end, because a finger coming off a bezel lands a
    /// few millimetres in.
    /// In either mode, a start in this zone gets the edge's angle and fling rules. The
    /// corpus's edge swipes land up to 4 mm in: 4 mm still takes them all, 3 mm misses
    /// 484 of them on the two own tablets.
    public var edgeWidthMillimetres: Double = 4.8

    /// How far the finger moves before the arbiter decides. Default 4 mm, InputActions'
    /// motion threshold; Android's 6 dp slop (about 1 mm) makes taps into pans on
    /// touchscreens without resolution.
    public var decisionDistanceMillimetres: Double = 4

    /// The steepest start, in degrees from horizontal, that can still be a back when it
    /// starts outside the edge zone (any fullscreen start away from the edge). Default 30°:
    /// such a start competes with the app's own scrolling everywhere on the page, as
    /// Firefox's touchpad swipe does (it asks |dx| > 8·|dy|); between that and lisgd's
    /// 15° leniency on one side and Android's 45° at the edge on the other. In the gesture
    /// corpus (docs/GESTURE-CORPUS.md) no scroll or map pan goes back at 30°, and all its
    /// mid-screen drags meant as backs (up to 25°) do; 20° misses some of those.
    public var maxAngleDegrees: Double = 30

    /// The steepest start that can still be a back when it starts in the leading edge
    /// zone (``edgeWidthMillimetres``, in either mode). Default 45°, Android's edge back
    /// and libadwaita's swipe tracker: horizontal when |dx| ≥ |dy| at the decision
    /// distance. In the corpus, 30° here rejected all 72 diagonal drags of 35–40° from the
    /// edge as too steep; 45° takes them while no scroll from the edge goes back (its
    /// diagonal scrolls, 50° and steeper, go back from 55° on).
    public var edgeMaxAngleDegrees: Double = 45

    /// A finger that stayed within ``longPressSlopMillimetres`` of where it landed for
    /// this long made a long press first: the app's (text selection, drag and drop),
    /// never a back. Default 500 ms: UIKit's `UILongPressGestureRecognizer`
    /// `minimumPressDuration` and GTK's long-press time; Android's is 400–500 ms. Without
    /// it, 8 of the corpus's 144 text selections (a press of 500–800 ms, then a drag along
    /// the line) went back in fullscreen mode: the long ones on the portrait tablet. nil:
    /// no such guard (before issue 22).
    ///
    /// Touchscreens only: a touchpad selects nothing by pressing, and fingers rest on it
    /// before a two-finger swipe (0.4–0.56 s in issue 27's reports), which must still go
    /// back. What it costs on a touchscreen: a back that starts slowly, staying within
    /// the 2 mm slop for over 500 ms, is a press and never goes back; lift and swipe again.
    public var longPressDuration: Duration? = .milliseconds(500)

    /// How far a finger may wander and still be pressing, for ``longPressDuration``.
    /// Default 2 mm: UIKit's `allowableMovement` of 10 pt (1.9 mm on a 132 ppi iPad);
    /// a resting fingertip wanders about 1 mm. Measuring the press by time to the
    /// decision distance instead took the slow start of a 36 cm drag on the 27-inch
    /// panel (dell-canvas) for a press.
    public var longPressSlopMillimetres: Double = 2

    /// Progress (translation ÷ screen width) past which a release commits. Default 0.3:
    /// the commit point of the custom edge pan in FDFullscreenPopGesture's write-up
    /// (seed 000); reimplementations of UIKit use 0.5.
    public var commitProgress: Double = 0.3

    /// A release at least this fast toward the trailing side commits whatever the
    /// progress, and as fast the other way cancels. Default 180 mm/s: Android's
    /// 3000 px/s fling at a typical 420 dpi phone.
    public var flingVelocityMillimetresPerSecond: Double = 180

    /// A release is a fling only after the finger travelled at least this far toward
    /// the trailing side since it landed (taken half a scan interval back along the
    /// finger's first move, ``PopArbiter``); shorter, progress decides. Default 10 mm:
    /// about a fingertip's contact width, so a jab that barely passes the decision
    /// distance is never a fling (UIKit and Android fling only after a drag).
    public var flingMinimumDistanceMillimetres: Double = 10

    /// A release is a fling (either way) only when the finger was down at least this
    /// long; shorter, progress decides. Default 50 ms: the velocity then rests on at
    /// least 3 frames at 60 Hz and 5 at 100 Hz, not on the one frame between two
    /// samples.
    ///
    /// Timed, as every fling rule, from the landing: one scan interval (``ScanInterval``,
    /// from the device's frame times) before the first report, which a panel sends only
    /// at its next scan. Issue 27: timed and measured from the first report, the
    /// corpus's sampled edge flicks (8–20 mm in 30–80 ms) missed 33 % at 60 Hz and 7 % at
    /// 240 Hz; from the landing, none at any rate (docs/GESTURE-CORPUS.md).
    public var flingMinimumDuration: Duration = .milliseconds(50)

    /// A swipe that started in the leading edge zone is a fling after only this much
    /// travel toward the trailing side, not ``flingMinimumDistanceMillimetres``: a flick
    /// off the bezel is short and fast, and a start at the edge is already a strong sign
    /// of a back (libadwaita flings any swipe past its 16 px start; Android's edge back
    /// commits a fling whatever its length). Default 4 mm, the decision distance. Before
    /// issue 22 (10 mm, 50 ms, 180 mm/s everywhere) the corpus missed 540 of its 864 edge
    /// flicks; at 8 mm, its 8 mm flicks at 20° still miss.
    public var edgeFlingMinimumDistanceMillimetres: Double = 4

    /// A release at least this fast toward the trailing side commits a swipe that started
    /// in the leading edge zone, and as fast the other way cancels it. Default 60 mm/s:
    /// libadwaita's touch swipe flings at 0.3 px/ms, 34–68 mm/s on a 10-inch 1920 × 1200
    /// panel at scale 1–2. A thumb that sweeps from the bezel lifts with little of its
    /// speed across the screen, since its arc turns downward: in the corpus, 180 mm/s
    /// (``flingVelocityMillimetresPerSecond``) missed 648 of its 2,304 thumb arcs, and
    /// even with the edge's shorter minimums 252 of its 864 edge flicks. Its slowest edge
    /// backs lift at 80–90 mm/s across (90 mm/s misses some), so 60 mm/s leaves a margin.
    public var edgeFlingVelocityMillimetresPerSecond: Double = 60

    /// As ``flingMinimumDuration``, for a swipe that started in the leading edge zone.
    /// Default 30 ms: the velocity still rests on 3 frames at 100 Hz (2 at 60 Hz), and a
    /// flick off the bezel lasts 30–80 ms: at 50 ms the corpus misses its 30 ms flicks.
    public var edgeFlingMinimumDuration: Duration = .milliseconds(30)

    /// Where a swipe may start when it would go to the back input (the focused app
    /// has no navigator). Default `.edge`: such an app gets the swipe's touches too,
    /// so a swipe across a map would both pan it and go back; Android's system back
    /// starts only at the edge for the same reason.
    public var backInputMode: GestureMode = .edge

    /// What the daemon's virtual device sends for apps without a navigator. Default
    /// ``BackInputMap/none``: the engine has no device of its own; the daemon sets the
    /// configured map once it has made one.
    public var backInput: BackInputMap = .none

    public init() {}

    /// The defaults before issue 22: one angle everywhere, the same fling rule at the
    /// edge as elsewhere, no long-press guard. Kept for the corpus's comparison table
    /// (`popgestured-replay corpus --defaults before-22`).
    public static let before22: GestureSettings = {
        var settings = GestureSettings()
        settings.edgeMaxAngleDegrees = settings.maxAngleDegrees
        settings.edgeFlingVelocityMillimetresPerSecond = settings.flingVelocityMillimetresPerSecond
        settings.longPressDuration = nil
        settings.edgeFlingMinimumDistanceMillimetres = settings.flingMinimumDistanceMillimetres
        settings.edgeFlingMinimumDuration = settings.flingMinimumDuration
        return settings
    }()

    /// How far `point` lies from the leading edge of a screen `width` mm wide, when back
    /// moves toward `backDirection` (+1: the leading edge is the left one).
    public static func distanceFromLeadingEdge(_ point: ScreenPoint, width: Double, backDirection: Double) -> Double {
        backDirection > 0 ? point.xMillimetres : width - point.xMillimetres
    }

    /// Whether a start `distance` mm from the leading edge is in the edge zone.
    public func isInEdgeZone(distanceFromLeadingEdge distance: Double) -> Bool {
        distance <= edgeWidthMillimetres
    }
}
