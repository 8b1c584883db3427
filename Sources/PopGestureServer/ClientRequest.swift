import PopGestureCore

/// One request a client sent, as `RequestParser` read it (see docs/PROTOCOL.md).
public enum ClientRequest: Sendable, Hashable {
    /// Must come first. `version` is checked by the server, not the parser, so that a
    /// newer client gets `unsupported-version` rather than a parse error. `name` is at
    /// most `ProtocolLimits.maximumIdentifierBytes`.
    case hello(version: Int64, name: String?)
    /// Become an observer: receive every event, `rejected` included.
    case subscribe
    case unsubscribe
    /// Everything that changes a navigator except `configure`.
    case navigation(NavigationRequest)
    /// Changes a navigator's settings; a key the client left out stays as it is,
    /// which the parser cannot know, so the server fills it in.
    case configure(navigator: String, layout: LayoutDirection?, barFollowsTopPage: Bool?)
    /// Read-only: one navigator's stack.
    case stack(navigator: String)
    /// Read-only: devices, navigators and clients.
    case status

    /// The request's `"type"`, echoed as `"request"` in replies.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .configure: "configure"
        case .stack: "stack"
        case .status: "status"
        case .navigation(let request):
            switch request {
            case .create: "create"
            case .push: "push"
            case .pop: "pop"
            case .replace: "replace"
            case .update: "update"
            case .configure: "configure"
            case .settle: "settle"
            case .front: "front"
            case .remove: "remove"
            }
        }
    }
}

/// The optional `"id"` of a request, echoed in its reply so scripts can match them:
/// an integer literal (`1.0` is refused, not echoed as `1`) or a string of at most
/// `ProtocolLimits.maximumIdentifierBytes`.
public enum RequestID: Sendable, Hashable {
    case integer(Int64)
    case string(String)
}

/// A request with the id to echo.
public struct IdentifiedRequest: Sendable, Hashable {
    public var request: ClientRequest
    public var id: RequestID?

    public init(_ request: ClientRequest, id: RequestID? = nil) {
        self.request = request
        self.id = id
    }
}
