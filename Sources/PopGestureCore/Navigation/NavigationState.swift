import PopGestureProtocol

/// An error in a navigation request, with a stable machine-readable code.
public struct NavigationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The protocol's codes (`ProtocolError.Code`): a navigation refusal reaches the client
    /// as an `error` reply with this code, and the navigation codes are listed there.
    public typealias Code = ProtocolError.Code

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// What a navigation change asks the daemon to tell the navigator's owner.
public enum NavigationEffect: Sendable, Hashable {
    /// The page on top changed (or a pop was cancelled) and the navigator follows
    /// its top page's bar preference.
    case barVisibility(navigator: String, owner: ClientID, page: String, hidden: Bool)
}

/// Every client's navigators, and which one is in front.
///
/// The daemon's copy of each stack follows the client's requests, and pops on its
/// own when a back gesture commits. Methods throw `NavigationError` and change
/// nothing when a request cannot be taken.
public struct NavigationState: Sendable {
    /// A client may own at most 16 navigators at once: one per window is the use, and
    /// the bound keeps what one client makes others read (`status`) and the daemon
    /// hold small. More is `too-many-navigators`.
    public static let maximumNavigatorsPerClient = 16
    /// A stack holds at most 64 pages: far deeper than any app navigates, and it bounds
    /// a `stack` reply. A `create`, `push` or `replace` past it is `too-many-pages`.
    public static let maximumPagesPerNavigator = 64

    /// UIKit's push animation lasts about 0.35 s. A client that never says it
    /// settled blocks the back gesture for at most this long. Default 1 s.
    public var transitionTimeout: Duration = .seconds(1)
    /// The layout of navigators that do not choose one. Default left to right.
    public var defaultLayout: LayoutDirection = .leftToRight

    public private(set) var navigators: [String: Navigator] = [:]
    /// Most recently brought to front last. The last one whose owner is focused is in front.
    public private(set) var frontOrder: [String] = []
    /// Which app has focus: only a focused client's navigators get the back gesture.
    public private(set) var focus = FocusState()

    public init() {}

    /// The seat's navigator in front, which gets its back gesture: the most recently
    /// brought to front of those whose owner is on the seat and focused
    /// (``FocusState/isFocused(_:)``).
    public func front(on seat: Seat) -> Navigator? {
        for id in frontOrder.reversed() {
            if let navigator = navigators[id], focus.clients[navigator.owner]?.seat ?? .seat0 == seat,
               focus.isFocused(navigator.owner)
            {
                return navigator
            }
        }
        return nil
    }

    /// Who has focus on the seat and which navigator is in front there, for observers.
    public func focusSummary(on seat: Seat) -> FocusSummary {
        let shell = focus.shell(on: seat) != nil
        return FocusSummary(
            seat: seat, source: focus.source(on: seat), app: focus.focusedApp(on: seat),
            pid: shell ? focus.window(on: seat)?.pid : nil, navigator: front(on: seat)?.id,
            touchpadBridge: !focus.touchpadBridgeDeclined(on: seat))
    }

    /// Every seat's summary (seat0's always), to tell what a change changed.
    public var focusSummaries: [Seat: FocusSummary] {
        Dictionary(uniqueKeysWithValues: focus.seats.map { ($0, focusSummary(on: $0)) })
    }

    /// Where a back gesture on the seat would go now: its navigator in front, else the
    /// back input `backInput` names for its focused app (or that app's own swipe);
    /// nil when neither.
    public func destination(backInput: BackInputMap, on seat: Seat) -> BackDestination? {
        if let front = front(on: seat) { return .navigator(front) }
        // The shell says no window has focus: a key would reach nobody.
        if focus.noWindowFocused(on: seat) { return nil }
        let app = focus.focusedApp(on: seat)
        if let app, backInput.ownsSwipe(app) { return .ownSwipe(app: app) }
        return backInput.input(forApp: app, touchpadScrolling: focus.touchpadScrolling(on: seat)).map { .input($0, app: app) }
    }

    public func layout(of navigator: Navigator) -> LayoutDirection { navigator.layout ?? defaultLayout }

    // MARK: - Requests

    /// Creates a navigator with its root page(s); it comes to the front, as a new window would.
    public mutating func create(
        _ id: String, owner: ClientID, pages: [Page], layout: LayoutDirection? = nil,
        barFollowsTopPage: Bool = true
    ) throws(NavigationError) -> [NavigationEffect] {
        guard navigators[id] == nil else {
            throw NavigationError(.navigatorExists, "navigator \"\(id)\" already exists")
        }
        try Self.validate(pages)
        let owned = navigators.values.reduce(0) { $0 + ($1.owner == owner ? 1 : 0) }
        guard owned < Self.maximumNavigatorsPerClient else {
            throw NavigationError(
                .tooManyNavigators, "a client may own at most \(Self.maximumNavigatorsPerClient) navigators")
        }
        navigators[id] = Navigator(
            id: id, owner: owner, pages: pages, layout: layout, barFollowsTopPage: barFollowsTopPage,
            transitioningUntil: nil)
        frontOrder.append(id)
        return barEffect(id)
    }

    /// Pushes a page. A page id already on the stack is refused, as UIKit ignores
    /// pushing a controller that is already there.
    public mutating func push(
        _ page: Page, onto id: String, by client: ClientID, animated: Bool = false, at time: Timestamp
    ) throws(NavigationError) -> [NavigationEffect] {
        var nav = try owned(id, by: client)
        try Self.validate([page])
        if nav.pages.contains(where: { $0.id == page.id }) {
            throw NavigationError(.duplicatePage, "page \"\(page.id)\" is already on navigator \"\(id)\"")
        }
        try Self.checkDepth(nav.depth + 1)
        nav.pages.append(page)
        nav.transitioningUntil = animated ? time + transitionTimeout : nil
        navigators[id] = nav
        return barEffect(id)
    }

    /// Pops the top page, as the client's own back button would.
    @discardableResult
    public mutating func pop(
        _ id: String, by client: ClientID, animated: Bool = false, at time: Timestamp
    ) throws(NavigationError) -> (popped: Page, effects: [NavigationEffect]) {
        var nav = try owned(id, by: client)
        guard nav.depth > 1 else {
            throw NavigationError(.cannotPopRoot, "navigator \"\(id)\" has only its root page")
        }
        let popped = nav.pages.removeLast()
        nav.transitioningUntil = animated ? time + transitionTimeout : nil
        navigators[id] = nav
        return (popped, barEffect(id))
    }

    /// Replaces the whole stack (UIKit's `setViewControllers:animated:`).
    public mutating func replace(
        _ id: String, with pages: [Page], by client: ClientID, animated: Bool = false, at time: Timestamp
    ) throws(NavigationError) -> [NavigationEffect] {
        var nav = try owned(id, by: client)
        try Self.validate(pages)
        nav.pages = pages
        nav.transitioningUntil = animated ? time + transitionTimeout : nil
        navigators[id] = nav
        return barEffect(id)
    }

    /// Changes the properties of a page already on the stack.
    public mutating func update(
        _ page: Page, on id: String, by client: ClientID
    ) throws(NavigationError) -> [NavigationEffect] {
        var nav = try owned(id, by: client)
        try Self.validate([page])
        guard let index = nav.pages.firstIndex(where: { $0.id == page.id }) else {
            throw NavigationError(.unknownPage, "page \"\(page.id)\" is not on navigator \"\(id)\"")
        }
        let barChanged = nav.pages[index].prefersBarHidden != page.prefersBarHidden
        nav.pages[index] = page
        navigators[id] = nav
        return index == nav.pages.count - 1 && barChanged ? barEffect(id) : []
    }

    /// Changes the navigator's own settings.
    public mutating func configure(
        _ id: String, by client: ClientID, layout: LayoutDirection?, barFollowsTopPage: Bool
    ) throws(NavigationError) {
        var nav = try owned(id, by: client)
        nav.layout = layout
        nav.barFollowsTopPage = barFollowsTopPage
        navigators[id] = nav
    }

    /// The client's animation finished: the back gesture may begin again.
    public mutating func settle(_ id: String, by client: ClientID) throws(NavigationError) {
        var nav = try owned(id, by: client)
        nav.transitioningUntil = nil
        navigators[id] = nav
    }

    /// Makes the navigator the one that gets the back gesture.
    public mutating func bringToFront(_ id: String, by client: ClientID) throws(NavigationError) {
        _ = try owned(id, by: client)
        frontOrder.removeAll { $0 == id }
        frontOrder.append(id)
    }

    /// Removes one navigator.
    public mutating func remove(_ id: String, by client: ClientID) throws(NavigationError) {
        _ = try owned(id, by: client)
        navigators[id] = nil
        frontOrder.removeAll { $0 == id }
    }

    /// Removes everything a client owned, and what it said of its focus, when it
    /// disconnects. Returns the removed ids.
    @discardableResult
    public mutating func removeAll(ownedBy client: ClientID) -> [String] {
        let gone = navigators.values.filter { $0.owner == client }.map(\.id).sorted()
        for id in gone { navigators[id] = nil }
        frontOrder.removeAll { gone.contains($0) }
        focus.remove(client)
        return gone
    }

    // MARK: - Focus

    /// The client's user lost the seat (``FocusState/pause(_:)``): its navigators keep
    /// their stacks and get no back until ``resume(_:asShell:)``.
    public mutating func pause(_ client: ClientID) { focus.pause(client) }

    /// The client's user is active again (``FocusState/resume(_:asShell:)``).
    public mutating func resume(_ client: ClientID, asShell: Bool) { focus.resume(client, asShell: asShell) }

    /// A client said who it is in `hello`: its app id, its peer pid and uid, its
    /// session's seat, and whether it is the seat's shell (the server has checked that
    /// it may be).
    public mutating func identify(
        _ client: ClientID, app: String?, pid: Int32?, uid: UInt32? = nil, seat: Seat = .seat0, isShell: Bool
    ) {
        focus.identify(client, app: app, pid: pid, uid: uid, seat: seat, isShell: isShell)
    }

    /// A client's window gained or lost focus. Gaining it brings the client's navigators
    /// to the front, as raising its window would.
    public mutating func reportFocus(_ focused: Bool, by client: ClientID) {
        if focus.report(client, focused: focused) { raiseNavigators(ownedBy: { $0 == client }) }
    }

    /// The shell says which window has focus; the navigators of the clients it matches
    /// come to the front. Throws `not-shell` for any other client.
    public mutating func shellReports(_ window: FocusState.Window, by client: ClientID) throws(NavigationError) {
        guard focus.shellReports(window, from: client) else {
            throw NavigationError(.notShell, "only the shell (hello with \"role\":\"shell\") reports the focused window")
        }
        let focus = self.focus
        raiseNavigators(ownedBy: { focus.isFocused($0) })
    }

    /// The shell says whether its session scrolls touchpads naturally. Throws
    /// `not-shell` for any other client.
    public mutating func shellReportsTouchpadScrolling(
        natural: Bool, bridge: Bool = true, by client: ClientID
    ) throws(NavigationError) {
        guard focus.shellReportsTouchpadScrolling(natural: natural, bridge: bridge, from: client) else {
            throw NavigationError(.notShell, "only the shell (hello with \"role\":\"shell\") reports the touchpad scrolling")
        }
    }

    /// Moves the navigators of the matching owners to the front, keeping their order.
    private mutating func raiseNavigators(ownedBy matches: (ClientID) -> Bool) {
        let raised = frontOrder.filter { navigators[$0].map { matches($0.owner) } ?? false }
        guard !raised.isEmpty else { return }
        frontOrder.removeAll { raised.contains($0) }
        frontOrder.append(contentsOf: raised)
    }

    // MARK: - The back gesture

    /// Pops the top page for a committed back gesture, if it is still `expectedTop`.
    /// The navigator stays transitioning while the client animates the rest of the pop.
    /// The bar to show next comes from ``barVisibility(_:)``.
    mutating func commitBack(_ id: String, expectedTop: String, at time: Timestamp) -> (popped: Page, top: Page)? {
        guard (navigators[id]?.depth ?? 0) > 1, navigators[id]?.top.id == expectedTop else { return nil }
        // Mutate in place: a copy of the navigator held here would make the pop copy its page array.
        let popped = navigators[id]!.pages.removeLast()
        navigators[id]!.transitioningUntil = time + transitionTimeout
        return (popped, navigators[id]!.top)
    }

    /// The bar visibility of the top page, when the navigator follows it: after a
    /// committed back or a cancelled pop. No array, so a gesture allocates nothing.
    func barVisibility(_ id: String) -> NavigationEffect? {
        guard let nav = navigators[id], nav.barFollowsTopPage else { return nil }
        return .barVisibility(navigator: id, owner: nav.owner, page: nav.top.id, hidden: nav.top.prefersBarHidden)
    }

    // MARK: - Helpers

    private func owned(_ id: String, by client: ClientID) throws(NavigationError) -> Navigator {
        guard let nav = navigators[id] else {
            throw NavigationError(.unknownNavigator, "no navigator \"\(id)\"")
        }
        guard nav.owner == client else {
            throw NavigationError(.notOwner, "navigator \"\(id)\" belongs to another client")
        }
        return nav
    }

    private static func checkDepth(_ depth: Int) throws(NavigationError) {
        guard depth <= maximumPagesPerNavigator else {
            throw NavigationError(.tooManyPages, "a stack holds at most \(maximumPagesPerNavigator) pages")
        }
    }

    private static func validate(_ pages: [Page]) throws(NavigationError) {
        guard !pages.isEmpty else { throw NavigationError(.emptyStack, "a stack needs at least one page") }
        try checkDepth(pages.count)
        var seen = Set<String>()
        for page in pages where !seen.insert(page.id).inserted {
            throw NavigationError(.duplicatePage, "page \"\(page.id)\" appears twice")
        }
        for page in pages where page.maxStartDistanceMillimetres < 0 || !page.maxStartDistanceMillimetres.isFinite {
            throw NavigationError(.invalidValue, "page \"\(page.id)\": the start distance must be 0 or more")
        }
    }

    private func barEffect(_ id: String) -> [NavigationEffect] {
        barVisibility(id).map { [$0] } ?? []
    }
}
