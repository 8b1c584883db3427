import PopGestureCore
import PopGestureProtocol

/// What the socket side asks of the engine side: a client's request that needs the
/// engine, or a client that went away. Stamped where it was received, in the clock
/// of the evdev events, so that a transition's timeout counts from the request.
public struct EngineRequest: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A navigation request, `configure`, `stack` or `status`; answered with one
        /// ``EngineOutput/reply(_:_:id:)``, then the events it caused.
        case request(ClientRequest, id: RequestID?)
        /// The connection is gone: its navigators go with it. No reply.
        case clientGone
        /// The client's first accepted `hello`: its app id, its peer pid and uid, its
        /// seat, and whether the socket side let it be that seat's shell. No reply; at
        /// most one per connection.
        case identified(app: String?, pid: Int32?, uid: UInt32?, seat: Seat, isShell: Bool)
        /// The client's user lost the seat: its navigators get no back, and a shell is
        /// its seat's shell no more. No reply.
        case paused
        /// The client's user is active again; `asShell`: it is its seat's shell again. No reply.
        case resumed(asShell: Bool)
    }

    public var client: ClientID
    public var kind: Kind
    public var time: Timestamp

    public init(client: ClientID, kind: Kind, time: Timestamp) {
        self.client = client
        self.kind = kind
        self.time = time
    }

    /// Whether the request is the engine side's to answer (the others the socket side
    /// answers itself: `hello`, `subscribe`, `unsubscribe`).
    static func isEngines(_ request: ClientRequest) -> Bool {
        switch request {
        case .hello, .subscribe, .unsubscribe: false
        case .create, .push, .pop, .replace, .update, .settle, .front, .remove, .configure, .stack, .status, .focus,
             .focusedWindow, .rotation, .outputs, .textDirection, .touchpadScrolling, .userSettings:
            true
        }
    }
}

/// What crosses from the engine side to the socket side, in the order it happened:
/// a reply comes before the events its request caused.
public enum EngineOutput: Sendable, Hashable {
    /// The answer to one ``EngineRequest/Kind/request(_:id:)``. A `status` lists the
    /// devices and navigators; the socket side fills in the clients.
    case reply(ClientID, ServerReply, id: RequestID?)
    /// An engine event, for the socket side to route to its owner and to the observers
    /// who may see `seat`'s events (the seat of the device, of the owner or of the focus
    /// it is about).
    case event(EngineEvent, seat: Seat)
}
