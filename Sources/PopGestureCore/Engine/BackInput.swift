/// A back input the daemon's own virtual device sends for an app that has no
/// navigator: keys and buttons pressed in order and released in reverse, as one
/// combination (`alt+left`: Alt down, Left down, Left up, Alt up).
///
/// Pure data: `PopGestureInput` parses the names (through libevdev's own table) and
/// sends the codes through uinput.
public struct BackInput: Sendable, Hashable, CustomStringConvertible {
    /// At most 4 codes: a modifier or three and one key is the longest shortcut
    /// any app binds to back.
    public static let maximumCodes = 4

    /// `EV_KEY` codes (keys and buttons), pressed in this order.
    public let codes: [UInt16]
    /// How the configuration spells it, lower case: `alt+left`, `back`, `btn_side`.
    public let spelling: String
    /// Set for `touchpad`: no key, the swipe is played on the daemon's virtual touchpad
    /// (``TouchpadBridge``) and `codes` is empty. Nil for keys and buttons.
    public let touchpad: TouchpadScroll?

    /// Nil when `codes` is empty or longer than ``maximumCodes``.
    public init?(codes: [UInt16], spelling: String) {
        guard !codes.isEmpty, codes.count <= Self.maximumCodes else { return nil }
        self.codes = codes
        self.spelling = spelling
        touchpad = nil
    }

    /// The touchpad bridge with `scroll`, spelled as the configuration writes it.
    public init(touchpad scroll: TouchpadScroll, spelling: String? = nil) {
        codes = []
        self.spelling = spelling ?? scroll.description
        touchpad = scroll
    }

    /// Whether this is the touchpad bridge waiting for the session to say which way it
    /// scrolls (``TouchpadScroll/Scrolling/session``).
    public var needsSessionScrolling: Bool { touchpad?.scrolling == .session }

    public var description: String { spelling }
}

/// Which back input each app gets: one for every app, and an override per app id
/// (Wayland's `app_id`, X11's `WM_CLASS`). Nil means none: a swipe in that app is
/// refused as `no-navigator`. Apps in ``ownSwipe`` get nothing either, refused as
/// `own-swipe`.
public struct BackInputMap: Sendable, Hashable {
    /// At most 256 app ids: far more apps than a tablet runs, and it bounds the table
    /// a configuration file can make the daemon hold.
    public static let maximumApps = 256

    /// For apps the table does not name, and when the focused app is unknown.
    public var standard: BackInput?
    /// By app id; a nil value turns the back input off for that app. A key ending in
    /// `*` is a prefix: `waydroid.*` names every app id that starts with `waydroid.`
    /// (Waydroid's apps in multi-window mode are `waydroid.<package>`).
    public var apps: [String: BackInput?] {
        didSet { prefixes = Self.prefixes(of: apps) }
    }
    /// The prefix entries of ``apps``, longest first, so the most specific one matches.
    private var prefixes: [(prefix: Substring, input: BackInput?)]

    /// App ids (exact, or a prefix ending in `*`, as in ``apps``) whose app runs its own
    /// swipe-back (`own-swipe`): the daemon sends nothing and holds no touch for them,
    /// so the app goes back once. An id here wins over the same id in ``apps``; else the
    /// more specific entry of the two tables wins. Default empty.
    public var ownSwipe: Set<String> = []

    public init(standard: BackInput?, apps: [String: BackInput?] = [:], ownSwipe: Set<String> = []) {
        self.standard = standard
        self.apps = apps
        self.prefixes = Self.prefixes(of: apps)
        self.ownSwipe = ownSwipe
    }

    /// Whether the app `app` runs its own swipe-back: its id, or the longest prefix it
    /// starts with, is in ``ownSwipe`` and ``apps`` has no more specific entry for it.
    public func ownsSwipe(_ app: String) -> Bool {
        guard !ownSwipe.isEmpty else { return false }
        if ownSwipe.contains(app) { return true }
        if apps.keys.contains(app) { return false }
        let longest: (Substring) -> Int = { prefix in app.hasPrefix(prefix) ? prefix.utf8.count : -1 }
        let own = ownSwipe.lazy.filter { $0.hasSuffix("*") }.map { longest($0.dropLast()) }.max() ?? -1
        let keys = prefixes.first { app.hasPrefix($0.prefix) }.map { $0.prefix.utf8.count } ?? -1
        return own >= 0 && own > keys
    }

    /// The table with no input for any app, own swipes kept: what the daemon uses when
    /// it has no virtual device, so an app with its own swipe is still left alone.
    public var withoutInputs: BackInputMap { BackInputMap(standard: nil, ownSwipe: ownSwipe) }

    /// No back input for any app: what the daemon uses when it has no virtual device.
    public static let none = BackInputMap(standard: nil)

    /// What the app `app` gets, with the touchpad bridge's scrolling as the session
    /// reports it (`natural`; nil: the session has not said). A `touchpad` entry that
    /// follows the session plays its scroll the way the session said; while the session
    /// has not said, the app gets the standard input instead, if that is a key or a
    /// fixed `touchpad`: a scroll played the wrong way round would go forward.
    public func input(forApp app: String?, touchpadScrolling natural: Bool?) -> BackInput? {
        let entry = input(forApp: app)
        guard let entry, let scroll = entry.touchpad, scroll.scrolling == .session else { return entry }
        if let natural { return BackInput(touchpad: scroll.resolved(natural: natural), spelling: entry.spelling) }
        guard let standard, !standard.needsSessionScrolling else { return nil }
        return standard
    }

    /// What the app `app` gets: its own entry; else that of the longest prefix entry it
    /// starts with; else the standard input (also when `app` is nil). A `touchpad`
    /// entry may still wait for the session's scrolling: the engine asks
    /// ``input(forApp:touchpadScrolling:)``.
    public func input(forApp app: String?) -> BackInput? {
        guard let app else { return standard }
        if let entry = apps[app] { return entry }
        for entry in prefixes where app.hasPrefix(entry.prefix) { return entry.input }
        return standard
    }

    private static func prefixes(of apps: [String: BackInput?]) -> [(prefix: Substring, input: BackInput?)] {
        apps.compactMap { key, input in key.hasSuffix("*") ? (key.dropLast(), input) : nil }
            .sorted { ($0.prefix.utf8.count, $1.prefix) > ($1.prefix.utf8.count, $0.prefix) }
    }

    public static func == (a: BackInputMap, b: BackInputMap) -> Bool {
        a.standard == b.standard && a.apps == b.apps && a.ownSwipe == b.ownSwipe
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(standard)
        hasher.combine(apps)
        hasher.combine(ownSwipe)
    }

    /// Whether some app's back input (or the standard one) is the touchpad bridge: the
    /// daemon then makes its virtual touchpad.
    public var usesTouchpad: Bool {
        standard?.touchpad != nil || apps.values.contains { $0?.touchpad != nil }
    }

    /// Every code some app may be sent: the codes the virtual device must declare.
    public var allCodes: Set<UInt16> {
        var codes = Set(standard?.codes ?? [])
        for case let input? in apps.values { codes.formUnion(input.codes) }
        return codes
    }
}
