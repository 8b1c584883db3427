import PopGestureDaemon
import PopGestureServer
import Synchronization
import Testing

/// `clients = seat`: root, the daemon's user and each seat's active user connect;
/// nobody else, and not a peer the kernel would not name.
@Suite struct ClientAdmissionTests {
    static let daemonUID: UInt32 = 998
    static func peer(_ uid: UInt32) -> PeerCredentials { PeerCredentials(pid: 4242, uid: uid, gid: uid) }

    @Test func rootTheDaemonsUserAndTheActiveUsersAreAdmitted() {
        for uid: UInt32 in [0, Self.daemonUID, 1000, 1001] {
            #expect(seatRefusal(of: Self.peer(uid), daemonUID: Self.daemonUID, activeUIDs: [1000, 1001]) == nil, "uid \(uid)")
        }
    }

    @Test func anotherUserIsRefusedWithAReason() {
        let reason = seatRefusal(of: Self.peer(65534), daemonUID: Self.daemonUID, activeUIDs: [1000])
        #expect(reason == "uid 65534 may not connect: clients = seat admits root, the daemon's user and the user of a seat's active session")
    }

    @Test func aShellIsRefusedInItsOwnWords() {
        let reason = seatRefusal(of: Self.peer(65534), daemonUID: Self.daemonUID, activeUIDs: [1000], role: .shell)
        #expect(reason == "uid 65534 is not the user of its seat's active session")
        let admission = ClientAdmission(mode: .any, daemonUID: Self.daemonUID) { SeatUsers(seats: ["seat0"], activeUsers: [.seat0: 1000]) }
        #expect(admission.policy.decide(Self.peer(65534)) == nil, "clients = any lets it connect")
        #expect(admission.shellPolicy.decide(Self.peer(65534)) == reason)
    }

    @Test func withoutSeatsOnlyRootAndTheDaemonsUserAreAdmitted() {
        #expect(seatRefusal(of: Self.peer(0), daemonUID: Self.daemonUID, activeUIDs: []) == nil)
        #expect(seatRefusal(of: Self.peer(Self.daemonUID), daemonUID: Self.daemonUID, activeUIDs: []) == nil)
        #expect(seatRefusal(of: Self.peer(1000), daemonUID: Self.daemonUID, activeUIDs: []) != nil)
    }

    @Test func aPeerWithoutCredentialsIsRefused() {
        let reason = seatRefusal(of: nil, daemonUID: Self.daemonUID, activeUIDs: [1000])
        #expect(reason?.contains("SO_PEERCRED") == true)
    }

    @Test func rootAndTheDaemonsUserCostNoLookUp() {
        let lookUps = Atomic(0)
        func active() -> [UInt32] {
            lookUps.add(1, ordering: .relaxed)
            return [1000]
        }
        _ = seatRefusal(of: Self.peer(0), daemonUID: Self.daemonUID, activeUIDs: active())
        _ = seatRefusal(of: Self.peer(Self.daemonUID), daemonUID: Self.daemonUID, activeUIDs: active())
        #expect(lookUps.load(ordering: .relaxed) == 0)
        _ = seatRefusal(of: Self.peer(1000), daemonUID: Self.daemonUID, activeUIDs: active())
        #expect(lookUps.load(ordering: .relaxed) == 1)
    }

    /// The seat is asked at each connection, so a user switch counts at once.
    @Test func theSeatIsAskedAtEachConnection() {
        let active = Mutex<UInt32?>(1000)
        let admission = ClientAdmission(mode: .seat, daemonUID: Self.daemonUID) {
            SeatUsers(seats: ["seat0"], activeUsers: active.withLock { $0 }.map { [.seat0: $0] } ?? [:])
        }
        let policy = admission.policy
        #expect(policy.decide(Self.peer(1000)) == nil)
        #expect(policy.decide(Self.peer(1001)) != nil)
        active.withLock { $0 = 1001 }
        #expect(policy.decide(Self.peer(1000)) != nil)
        #expect(policy.decide(Self.peer(1001)) == nil)
    }

    @Test func anyAdmitsEveryoneAndAReloadSwitchesThePolicyInPlace() {
        let admission = ClientAdmission(mode: .any, daemonUID: Self.daemonUID) { SeatUsers(seats: [], activeUsers: [:]) }
        let policy = admission.policy
        #expect(policy.decide(Self.peer(65534)) == nil)
        #expect(policy.decide(nil) == nil)
        admission.setMode(.seat)
        #expect(policy.decide(Self.peer(65534)) != nil)
        #expect(policy.decide(Self.peer(0)) == nil)
    }

    @Test func underClientsAnyOnlyTheSeatsUsersMayBeTheShell() {
        let admission = ClientAdmission(mode: .any, daemonUID: Self.daemonUID) {
            SeatUsers(seats: ["seat0"], activeUsers: [.seat0: 1000])
        }
        #expect(admission.policy.decide(Self.peer(65534)) == nil, "anyone may connect")
        #expect(admission.shellPolicy.decide(Self.peer(65534)) != nil, "but not be the shell")
        #expect(admission.shellPolicy.decide(Self.peer(1000)) == nil)
        #expect(admission.shellPolicy.decide(Self.peer(0)) == nil)
        #expect(admission.shellPolicy.decide(nil) != nil)
    }

    @Test func theSummarySaysWhenNoSeatExists() {
        let lonely = ClientAdmission(mode: .seat, daemonUID: 998) { SeatUsers(seats: [], activeUsers: [:]) }
        #expect(lonely.summary() == "clients = seat, but logind lists no seats: only root and uid 998 may connect")
        let seated = ClientAdmission(mode: .seat, daemonUID: 998) { SeatUsers(seats: ["seat0"], activeUsers: [.seat0: 1000]) }
        #expect(seated.summary().hasSuffix("(1 seat(s), active now: uid 1000)"))
    }

    /// Whatever this machine has: no more active users than seats, and no crash
    /// when logind is absent (then both are empty).
    @Test func logindIsReadWithoutTrouble() {
        let users = SeatUsers.current()
        #expect(users.activeUIDs.count <= users.seats.count)
    }
}
