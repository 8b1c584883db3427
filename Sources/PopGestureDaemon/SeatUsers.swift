import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// The seats logind manages and the user of each seat's active session, read through
/// libsystemd's sd-login. sd-login reads small files under /run/systemd (no D-Bus),
/// so a look-up per connection costs a directory listing and one file per seat.
public struct SeatUsers: Sendable, Hashable {
    /// The seats, e.g. `["seat0"]`; empty when logind is not running.
    public var seats: [String]
    /// The users of the active sessions, at most one per seat: the people at the screen.
    public var activeUIDs: [UInt32]

    public init(seats: [String], activeUIDs: [UInt32]) {
        self.seats = seats
        self.activeUIDs = activeUIDs
    }

    /// As logind says now (`sd_get_seats`, `sd_seat_get_active`). A seat with no
    /// active session, or one logind cannot answer for, adds no user.
    @Sendable
    public static func current() -> SeatUsers {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_get_seats(&list)
        guard count > 0, let list else { return SeatUsers(seats: [], activeUIDs: []) }
        defer {
            for index in 0..<Int(count) { free(list[index]) }
            free(list)
        }
        var users = SeatUsers(seats: [], activeUIDs: [])
        for index in 0..<Int(count) {
            guard let seat = list[index] else { continue }
            users.seats.append(String(cString: seat))
            var uid: uid_t = 0
            if sd_seat_get_active(seat, nil, &uid) >= 0 {
                users.activeUIDs.append(uid)
            }
        }
        return users
    }
}
