/// Which side is "leading": where pages come from and where the back swipe starts.
public enum LayoutDirection: String, Sendable, Hashable, CaseIterable {
    /// Left to right: back is a swipe to the right, the leading edge is the left one.
    case leftToRight = "ltr"
    /// Right to left: back is a swipe to the left, the leading edge is the right one.
    case rightToLeft = "rtl"

    /// +1 when back moves toward larger x, -1 otherwise.
    public var backDirection: Double { self == .leftToRight ? 1 : -1 }
}

/// A rectangle in screen fractions (0…1, origin top-left), like Android's
/// `systemGestureExclusionRects` but independent of the screen's pixel size.
public struct NormalizedRect: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public func contains(x px: Double, y py: Double) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }
}

/// One page on a navigator's stack, with the properties FDFullscreenPopGesture
/// put on `UIViewController`.
public struct Page: Sendable, Hashable {
    /// Chosen by the client; unique within its navigator.
    public var id: String
    /// `fd_interactivePopDisabled`: no back gesture while this page is on top. Default false.
    public var popDisabled: Bool
    /// `fd_prefersNavigationBarHidden`: the owner is told to hide its bar while this
    /// page is on top. Default false.
    public var prefersBarHidden: Bool
    /// `fd_interactivePopMaxAllowedInitialDistanceToLeftEdge`, in millimetres and
    /// measured from the leading edge (the right one in RTL layouts, which the iOS
    /// library got wrong). 0 means no limit, the default.
    public var maxStartDistanceMillimetres: Double
    /// Where a back gesture may not start while this page is on top. Default none.
    public var exclusionZones: [NormalizedRect]

    public init(
        id: String, popDisabled: Bool = false, prefersBarHidden: Bool = false,
        maxStartDistanceMillimetres: Double = 0, exclusionZones: [NormalizedRect] = []
    ) {
        self.id = id
        self.popDisabled = popDisabled
        self.prefersBarHidden = prefersBarHidden
        self.maxStartDistanceMillimetres = maxStartDistanceMillimetres
        self.exclusionZones = exclusionZones
    }
}

/// Identifies a client connection. The daemon numbers them; the core only compares.
public struct ClientID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: ClientID, b: ClientID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "client \(rawValue)" }
}

/// One page stack, owned by one client (UIKit's `UINavigationController`).
public struct Navigator: Sendable, Hashable {
    /// Chosen by the client; unique across the daemon.
    public let id: String
    public let owner: ClientID
    /// Bottom first; never empty.
    public internal(set) var pages: [Page]
    /// Nil follows the daemon's default layout.
    public internal(set) var layout: LayoutDirection?
    /// `fd_viewControllerBasedNavigationBarAppearanceEnabled`: tell the owner the bar
    /// visibility of the page that appears. Default true, as in the iOS library.
    public internal(set) var barFollowsTopPage: Bool
    /// Set by an animated change; cleared when the client settles or this passes.
    public internal(set) var transitioningUntil: Timestamp?

    public var top: Page { pages[pages.count - 1] }
    public var depth: Int { pages.count }

    public func isTransitioning(at time: Timestamp) -> Bool {
        guard let until = transitioningUntil else { return false }
        return time < until
    }
}
