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

    /// Edge mode: how far from the leading edge a swipe may start. Default 4.8 mm:
    /// Android's back-gesture edge is 20–30 dp wide (3.2–4.8 mm at 160 dp per inch);
    /// the upper end, because a finger coming off a bezel lands a few millimetres in.
    public var edgeWidthMillimetres: Double = 4.8

    /// How far the finger moves before the arbiter decides. Default 4 mm, InputActions'
    /// motion threshold; Android's 6 dp slop (about 1 mm) makes taps into pans on
    /// touchscreens without resolution.
    public var decisionDistanceMillimetres: Double = 4

    /// The steepest start, in degrees from horizontal, that can still be a back.
    /// Default 30°: between lisgd's 15° leniency and Android's 45° (it needs dx > dy at
    /// the slop), so vertical scrolling in fullscreen mode never starts a back.
    public var maxAngleDegrees: Double = 30

    /// Progress (translation ÷ screen width) past which a release commits. Default 0.3:
    /// the commit point of the custom edge pan in FDFullscreenPopGesture's write-up
    /// (seed 000); reimplementations of UIKit use 0.5.
    public var commitProgress: Double = 0.3

    /// A release at least this fast toward the trailing side commits whatever the
    /// progress, and as fast the other way cancels. Default 180 mm/s: Android's
    /// 3000 px/s fling at a typical 420 dpi phone.
    public var flingVelocityMillimetresPerSecond: Double = 180

    /// A release is a fling only after the finger travelled at least this far toward
    /// the trailing side since it landed; shorter, progress decides. Default 10 mm:
    /// about a fingertip's contact width, so a jab that barely passes the decision
    /// distance is never a fling (UIKit and Android fling only after a drag).
    public var flingMinimumDistanceMillimetres: Double = 10

    /// A release is a fling (either way) only when the finger was down at least this
    /// long; shorter, progress decides. Default 50 ms: the velocity then rests on at
    /// least 3 frames at 60 Hz and 5 at 100 Hz, not on the one frame between two
    /// samples.
    public var flingMinimumDuration: Duration = .milliseconds(50)

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
}
