import CSystemd
import PopGestureCore
import PopGestureServer

#if canImport(Glibc)
import Glibc
#endif

/// The seats logind manages and the user of each seat's active session, read through
/// libsystemd's sd-login. sd-login reads small files under /run/systemd (no D-Bus),
/// so a look-up per connection costs a directory listing and one file per seat.
public struct SeatUsers: Sendable, Hashable {
    /// The seats, e.g. `["seat0"]`; empty when logind is not running.
    public var seats: [String]
    /// The user of each seat's active session: the person at that screen. A seat with
    /// no active session has none.
    public var activeUsers: [Seat: UInt32]

    public init(seats: [String], activeUsers: [Seat: UInt32]) {
        self.seats = seats
        self.activeUsers = activeUsers
    }

    /// The users of the active sessions, at most one per seat, ascending.
    public var activeUIDs: [UInt32] { activeUsers.values.sorted() }

    /// As logind says now (`sd_get_seats`, `sd_seat_get_active`). A seat with no
    /// active session, or one logind cannot answer for, adds no user.
    @Sendable
    public static func current() -> SeatUsers {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_get_seats(&list)
        guard count > 0, let list else { return SeatUsers(seats: [], activeUsers: [:]) }
        defer {
            for index in 0..<Int(count) { free(list[index]) }
            free(list)
        }
        var users = SeatUsers(seats: [], activeUsers: [:])
        for index in 0..<Int(count) {
            guard let name = list[index] else { continue }
            users.seats.append(String(cString: name))
            var uid: uid_t = 0
            if let seat = Seat(rawValue: String(cString: name)), sd_seat_get_active(name, nil, &uid) >= 0 {
                users.activeUsers[seat] = uid
            }
        }
        return users
    }

    /// Whether the user has a session on some seat, active or not (`sd_uid_get_seats`):
    /// a user another one switched away from, whose clients wait paused.
    @Sendable
    public static func hasSeatSession(uid: UInt32) -> Bool {
        sd_uid_get_seats(uid_t(uid), 0, nil) > 0
    }

    /// The seat a connecting process works at, as logind says: its session's seat
    /// (`sd_pid_get_session`, `sd_session_get_seat`); for a process in no session with a
    /// seat (a `systemd --user` service, such as a bridge), the seat its user is active
    /// on (`sd_uid_get_seats`); else, while logind has seats, ``Seat/none`` (a user over
    /// SSH acts on no seat's swipes, even under `clients = any`), but for root and
    /// `daemonUID` (services, tests), and on a machine without logind, seat0.
    public static func seat(of peer: PeerCredentials?, daemonUID: UInt32) -> Seat {
        let seat = seatOfSession(peer)
        guard seat == nil, let peer else { return seat ?? .seat0 }
        if peer.uid == 0 || peer.uid == daemonUID { return .seat0 }
        return sd_get_seats(nil) > 0 ? .none : .seat0
    }

    /// The seat of the peer's session or of its user's, when logind names one.
    private static func seatOfSession(_ peer: PeerCredentials?) -> Seat? {
        guard let peer else { return .seat0 }
        var session: UnsafeMutablePointer<CChar>?
        if sd_pid_get_session(pid_t(peer.pid), &session) >= 0, let session {
            defer { free(session) }
            var name: UnsafeMutablePointer<CChar>?
            if sd_session_get_seat(session, &name) >= 0, let name {
                defer { free(name) }
                if let seat = Seat(rawValue: String(cString: name)) { return seat }
            }
        }
        // The seat its user is active on; else one it has a session on (switched away from).
        return seatsOfUser(peer.uid, active: true).min() ?? seatsOfUser(peer.uid, active: false).min()
    }

    /// The seats `uid` has a session on (`active`: the active session of).
    private static func seatsOfUser(_ uid: UInt32, active: Bool) -> [Seat] {
        var seats: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_uid_get_seats(uid_t(uid), active ? 1 : 0, &seats)
        guard count > 0, let seats else { return [] }
        defer {
            for index in 0..<Int(count) { free(seats[index]) }
            free(seats)
        }
        return (0..<Int(count)).compactMap { seats[$0].flatMap { Seat(rawValue: String(cString: $0)) } }
    }
}
