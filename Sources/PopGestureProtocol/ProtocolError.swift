/// A request refused, with a stable machine-readable code: what an `error` reply carries.
///
/// Carries what is known of the request (its type and id) so that the error reply
/// can echo them. `RequestCodec.decode` throws it; the server builds it for the
/// refusals that need state (`hello-required`, `unsupported-version`, the navigation
/// codes); a client reads it back from an `error` reply (`ServerReply.error`).
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Every code of the protocol, in one list (docs/PROTOCOL.md, "Errors"). Open, not
    /// an enum: a client must read a code a newer daemon added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The line is not JSON (or not UTF-8, or escapes a lone surrogate); the message
        /// says what and at which byte.
        public static let malformedJSON = Code(rawValue: "malformed-json")
        /// The line is JSON but not an object.
        public static let notAnObject = Code(rawValue: "not-an-object")
        /// `"type"` names no request.
        public static let unknownType = Code(rawValue: "unknown-type")
        /// A required key is absent.
        public static let missingField = Code(rawValue: "missing-field")
        /// A key has the wrong type or value; the message names the key and what was expected.
        public static let invalidField = Code(rawValue: "invalid-field")
        /// A line over the line limit (64 KiB); the rest of it is discarded.
        public static let lineTooLong = Code(rawValue: "line-too-long")
        /// The first request was not `hello`.
        public static let helloRequired = Code(rawValue: "hello-required")
        /// `hello` offered no protocol version this daemon speaks; the reply's
        /// `supported` lists those it does (`ProtocolVersion.supported`).
        public static let unsupportedVersion = Code(rawValue: "unsupported-version")

        // Limits (docs/PROTOCOL.md, "Limits"): each names the limit that was hit.

        /// Arrays and objects nested deeper than `ProtocolLimits.maximumNestingDepth` (16);
        /// the parser stops at the bracket that opens level 17, without recursing further.
        public static let nestingTooDeep = Code(rawValue: "nesting-too-deep")
        /// The same key twice in one object; the message names it.
        public static let duplicateKey = Code(rawValue: "duplicate-key")
        /// A string (an id, a name) longer than its limit (`ProtocolLimits.maximumIdentifierBytes`);
        /// the message names the key path and the limit.
        public static let tooLong = Code(rawValue: "too-long")
        /// An array (pages, exclusion zones) with more items than its limit
        /// (`ProtocolLimits.maximumPagesPerNavigator`, `.maximumExclusionZonesPerPage`).
        public static let tooMany = Code(rawValue: "too-many")
        /// The daemon already serves its limit of clients; the connection is closed.
        public static let tooManyClients = Code(rawValue: "too-many-clients")
        /// A line started but not finished within the line timeout; the connection is closed.
        public static let lineTimeout = Code(rawValue: "line-timeout")
        /// The peer may not use this socket (see "Who may connect"); the connection is closed.
        public static let notPermitted = Code(rawValue: "not-permitted")
        /// The client's user is not the active user of a seat now (a user switch, see
        /// `paused`): a request that reads or steers the seat waits until `resumed`. The
        /// connection stays.
        public static let seatInactive = Code(rawValue: "seat-inactive")
        /// Reserved: the daemon answers each request in the round that reads it and no
        /// longer sends this (it once meant a full queue of requests for the engine). Kept
        /// so that code comparing it still builds; a client that gets it treats it as any
        /// other error.
        public static let overloaded = Code(rawValue: "overloaded")

        // Focus (docs/PROTOCOL.md, "Focus").

        /// `hello` with `"role":"shell"` from a peer that may not be the shell (only root,
        /// the daemon's own user and a seat's active user may).
        public static let shellRefused = Code(rawValue: "shell-refused")
        /// `hello` with `"role":"shell"` while another shell is connected.
        public static let shellTaken = Code(rawValue: "shell-taken")
        /// `focused-window` from a client that is not the shell.
        public static let notShell = Code(rawValue: "not-shell")

        // Navigation (the core's `NavigationError.Code` is this type).

        public static let unknownNavigator = Code(rawValue: "unknown-navigator")
        public static let navigatorExists = Code(rawValue: "navigator-exists")
        public static let notOwner = Code(rawValue: "not-owner")
        public static let duplicatePage = Code(rawValue: "duplicate-page")
        public static let unknownPage = Code(rawValue: "unknown-page")
        public static let emptyStack = Code(rawValue: "empty-stack")
        public static let cannotPopRoot = Code(rawValue: "cannot-pop-root")
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// `create` by a client that already owns its limit of navigators (16).
        public static let tooManyNavigators = Code(rawValue: "too-many-navigators")
        /// A stack would pass its page limit (64): `create`, `push`, `replace`.
        public static let tooManyPages = Code(rawValue: "too-many-pages")
    }

    public var code: Code
    public var message: String
    /// The request's `"type"`, when the line got that far.
    public var request: String?
    /// The request's `"id"`, when it had a valid one.
    public var id: RequestID?
    /// For `unsupported-version`: the versions the daemon speaks, lowest first.
    public var supportedVersions: [Int64]?

    public init(
        _ code: Code, _ message: String, request: String? = nil, id: RequestID? = nil,
        supportedVersions: [Int64]? = nil
    ) {
        self.code = code
        self.message = message
        self.request = request
        self.id = id
        self.supportedVersions = supportedVersions
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
