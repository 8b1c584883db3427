import PopGestureProtocol

/// Why a request of a `PopGestureClient` (or a `ClientConnectionState`) failed: refused by
/// the daemon, or never answered. The code is stable; the message is for people.
public struct ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable codes, so that new ones do not break callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The daemon answered with an `error` reply; ``ClientError/reply`` holds it, with
        /// the protocol's own code (`not-owner`, `cannot-pop-root`, …). It changed nothing.
        public static let refused = Code(rawValue: "refused")
        /// Thrown at once: the outgoing buffer already holds its limit
        /// (``ClientLimits/maximumOutgoingBytes``, 256 KiB) of unsent requests. Nothing was queued.
        public static let outputFull = Code(rawValue: "output-full")
        /// The connection ended after the request went out and before its reply: whether
        /// the daemon carried it out is unknown. The client's record of its navigators
        /// holds only what was confirmed, and that is what it re-creates.
        public static let connectionLost = Code(rawValue: "connection-lost")
        /// The client gave up (the daemon refused its `hello` for good): nothing more is sent.
        public static let gaveUp = Code(rawValue: "gave-up")
        /// The app closed the client.
        public static let closed = Code(rawValue: "closed")
        /// A request the client does not send for the app: `hello` is its own.
        public static let invalidRequest = Code(rawValue: "invalid-request")
    }

    public var code: Code
    public var message: String
    /// For ``Code/refused``: the daemon's error reply.
    public var reply: ProtocolError?

    public init(_ code: Code, _ message: String, reply: ProtocolError? = nil) {
        self.code = code
        self.message = message
        self.reply = reply
    }

    /// The error reply of the daemon, as a `refused` error.
    public static func refused(_ reply: ProtocolError) -> ClientError {
        ClientError(.refused, reply.description, reply: reply)
    }

    /// `code: message`; for a refused request, the daemon's code: `not-owner: navigator "main" belongs to another client`.
    public var description: String {
        if let reply { return reply.description }
        return "\(code): \(message)"
    }
}
