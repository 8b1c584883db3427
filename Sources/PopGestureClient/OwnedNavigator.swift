import PopGestureProtocol

/// A navigator the client created, as the daemon confirmed it: what the client creates
/// again after a reconnect, the daemon having removed it with the old connection.
///
/// Changed only by what the daemon confirmed: an `ok` reply to the client's own request
/// (create, push, pop, replace, update, configure, front, remove), and a `back` event (the
/// daemon popped the page itself). A request that failed or whose reply never came
/// changes nothing.
public struct OwnedNavigator: Sendable, Hashable {
    public var id: String
    /// Bottom (the root) first, with their properties.
    public var pages: [ClientRequest.Page]
    /// As given to `create` or the last `configure`; nil is the daemon's default.
    public var layout: ClientRequest.Layout?
    public var barFollowsTopPage: Bool

    public init(id: String, pages: [ClientRequest.Page], layout: ClientRequest.Layout?, barFollowsTopPage: Bool) {
        self.id = id
        self.pages = pages
        self.layout = layout
        self.barFollowsTopPage = barFollowsTopPage
    }

    /// The `create` that makes it again.
    public var createRequest: ClientRequest {
        .create(navigator: id, pages: pages, layout: layout, barFollowsTopPage: barFollowsTopPage)
    }
}
