import PopGestureCore
import PopGestureServer
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Who may connect to the socket: the `clients` key.
public enum ClientsMode: String, Sendable, Hashable, CaseIterable {
    /// Root, the daemon's own user, and the user of the active session on each seat:
    /// the person at the screen. Others cannot watch their page ids.
    case seat
    /// Everyone who can reach the socket file (the protocol still lets each client
    /// change only the navigators it created).
    case any
}

/// What a peer asks to do, for the wording of a refusal.
public enum SeatRole: Sendable {
    /// Connect at all (`clients = seat`).
    case client
    /// Be the shell, whatever `clients` says.
    case shell
}

/// The `clients = seat` rule, and the shell's, pure: why this peer may not connect (or
/// be the shell), or nil to admit it.
///
/// The checks run in order, each cheaper than the next; `activeUIDs` is evaluated
/// only when the peer is neither root nor the daemon's user, so those two never
/// cost a look-up.
public func seatRefusal(
    of peer: PeerCredentials?, daemonUID: UInt32, activeUIDs: @autoclosure () -> [UInt32], role: SeatRole = .client
) -> String? {
    // Without SO_PEERCRED there is nobody to admit.
    guard let peer else { return "the kernel did not say who is connecting (no SO_PEERCRED)" }
    // Root can read the daemon's memory anyway.
    if peer.uid == 0 { return nil }
    // The daemon's own user: `popgestured-demo`, tests, a daemon run by hand.
    if peer.uid == daemonUID { return nil }
    // The person at the screen, on any seat.
    if activeUIDs().contains(peer.uid) { return nil }
    switch role {
    case .client:
        return "uid \(peer.uid) may not connect: clients = seat admits root, the daemon's user "
            + "and the user of a seat's active session"
    case .shell:
        return "uid \(peer.uid) is not the user of its seat's active session"
    }
}

/// The daemon's ``ConnectionPolicy``: `clients` as configured, changeable by a
/// reload (it then applies to new connections; connected clients stay).
public final class ClientAdmission: Sendable {
    /// The uid the daemon runs as, always admitted.
    public let daemonUID: UInt32
    private let mode: NIOLockedValueBox<ClientsMode>
    private let seatUsers: @Sendable () -> SeatUsers
    /// Whether a uid has a session on a seat, active or not.
    private let hasSeatSession: @Sendable (UInt32) -> Bool
    /// The seat a peer works at: its navigators get that seat's swipes, and it may be
    /// that seat's shell only.
    public let seatOf: @Sendable (PeerCredentials?) -> Seat

    /// - Parameters:
    ///   - seatUsers: asked at each connection under `seat`, so a user who takes over
    ///     the seat can connect at once. Default: logind's (``SeatUsers/current()``).
    ///   - seatOf: default logind's (``SeatUsers/seat(of:daemonUID:)``).
    ///   - hasSeatSession: default logind's (``SeatUsers/hasSeatSession(uid:)``).
    public init(
        mode: ClientsMode, daemonUID: UInt32 = getuid(),
        seatUsers: @escaping @Sendable () -> SeatUsers = SeatUsers.current,
        seatOf: (@Sendable (PeerCredentials?) -> Seat)? = nil,
        hasSeatSession: @escaping @Sendable (UInt32) -> Bool = SeatUsers.hasSeatSession(uid:)
    ) {
        self.daemonUID = daemonUID
        self.mode = NIOLockedValueBox(mode)
        self.seatOf = seatOf ?? { SeatUsers.seat(of: $0, daemonUID: daemonUID) }
        self.seatUsers = seatUsers
        self.hasSeatSession = hasSeatSession
    }

    public var currentMode: ClientsMode { mode.withLockedValue { $0 } }

    public func setMode(_ newMode: ClientsMode) {
        mode.withLockedValue { $0 = newMode }
    }

    /// For the socket server: decides each connection with the mode of that moment. A
    /// refused peer whose user has a session on a seat, not the active one (another
    /// user switched in), waits connected and paused until that user is back.
    public var policy: ConnectionPolicy {
        ConnectionPolicy({ [self] peer in refusal(of: peer) }, mayWait: { [self] peer in
            guard let peer else { return false }
            return hasSeatSession(peer.uid)
        })
    }

    /// Who may be a seat's shell (`hello` with `"role":"shell"`): root, the daemon's
    /// own user and the active user of the peer's own seat, whatever `clients` says. The
    /// shell decides which app gets the seat's backs, so it must be the person at that
    /// screen (their focus bridge), never another local user that `clients = any` lets
    /// in, nor the user of another seat.
    public var shellPolicy: ConnectionPolicy {
        ConnectionPolicy { [self] peer in
            seatRefusal(
                of: peer, daemonUID: daemonUID,
                activeUIDs: seatUsers().activeUsers[seatOf(peer)].map { [$0] } ?? [], role: .shell)
        }
    }

    /// Nil admits the peer; otherwise why it is refused.
    public func refusal(of peer: PeerCredentials?) -> String? {
        switch currentMode {
        case .any: nil
        case .seat: seatRefusal(of: peer, daemonUID: daemonUID, activeUIDs: seatUsers().activeUIDs)
        }
    }

    /// One line for the log at start and after a reload that changed `clients`.
    public func summary() -> String {
        switch currentMode {
        case .any:
            return "clients = any: every local user who can reach the socket may connect"
        case .seat:
            let users = seatUsers()
            guard !users.seats.isEmpty else {
                return "clients = seat, but logind lists no seats: only root and uid \(daemonUID) may connect"
            }
            let active = users.activeUIDs.map(String.init).joined(separator: ", ")
            return "clients = seat: root, uid \(daemonUID) and the active user of each seat may connect "
                + "(\(users.seats.count) seat(s), active now: \(active.isEmpty ? "none" : "uid \(active)"))"
        }
    }
}
