import Foundation
@testable import PopGestureCore
import PopGestureProtocol
@testable import PopGestureServer
import PopGestureSynthesis
import Testing

/// Two seats: uid 1000 works at seat0, uid 2000 at seat1, root at both. What happens on
/// one seat is told to that seat's clients, and to root, only.
@Suite("Seats: one shell each, events and credentials stay on their seat")
struct SeatRoutingTests {
    static let seat1 = Seat(rawValue: "seat1")!
    static let seat1Key = 21

    static func harness() -> Harness {
        var h = Harness()
        h.state = ServerState(seatOf: { $0?.uid == 2000 ? SeatRoutingTests.seat1 : .seat0 }, logger: quietLogger)
        return h
    }

    static func user(_ uid: UInt32, pid: Int32) -> PeerCredentials { PeerCredentials(pid: pid, uid: uid, gid: uid) }

    static func json(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    @Test("each seat takes one shell; a second on the same seat is shell-taken")
    func oneShellPerSeat() {
        var h = Self.harness()
        let shell0 = h.connect(greeted: false, credentials: Self.user(1000, pid: 10))
        let shell1 = h.connect(greeted: false, credentials: Self.user(2000, pid: 20))
        let another1 = h.connect(greeted: false, credentials: Self.user(2000, pid: 21))
        let hello = #"{"type":"hello","version":1,"role":"shell"}"#
        #expect(h.reply(hello, from: shell0)?.contains(#""type":"hello""#) == true)
        #expect(h.reply(hello, from: shell1)?.contains(#""type":"hello""#) == true)
        let taken = h.reply(hello, from: another1) ?? ""
        #expect(taken.contains("shell-taken") && taken.contains("seat1"), "\(taken)")
        #expect(h.state.seatShells == [.seat0: shell0, Self.seat1: shell1])
        #expect(h.engine.navigation.focus.shell(on: Self.seat1) == shell1)
    }

    @Test("a swipe on seat 1's screen is seen by seat 1's observer and root's, not seat 0's")
    func eventsStayOnTheirSeat() throws {
        var h = Self.harness()
        let watcher0 = h.connect(credentials: Self.user(1000, pid: 10))
        let watcher1 = h.connect(credentials: Self.user(2000, pid: 20))
        let root = h.connect(credentials: Self.user(0, pid: 30))
        for client in [watcher0, watcher1, root] { _ = h.send(#"{"type":"subscribe"}"#, from: client) }
        try h.deviceAdded(
            key: Self.seat1Key, path: "/dev/input/event21", name: "Seat 1 Touchscreen", description: Fixtures.touchscreen,
            configuration: DeviceConfiguration(seat: Self.seat1), at: h.time)
        var script = TouchScript(device: Fixtures.touchscreen)
        script.down(at: 0.5, 0.2)
        script.move(byMillimetres: 0, 40, over: .milliseconds(100))
        script.up()
        let actions = h.play(script, key: Self.seat1Key)
        #expect(actions.lines(to: watcher1).contains { $0.contains(#""type":"rejected""#) })
        #expect(actions.lines(to: root).contains { $0.contains(#""type":"rejected""#) })
        #expect(actions.lines(to: watcher0).isEmpty)
    }

    /// Issue 28: any admitted client saw every seat's devices, navigators, backs and rejections.
    @Test("status shows the asker's seat only: its devices, navigators, clients, rejections and last back; root sees both")
    func statusShowsTheAskersSeat() throws {
        var h = Self.harness()
        let zero = h.connect(credentials: Self.user(1000, pid: 10))
        let one = h.connect(credentials: Self.user(2000, pid: 20))
        let root = h.connect(credentials: Self.user(0, pid: 30))
        _ = h.send(#"{"type":"create","navigator":"zero-nav","pages":[{"id":"a"},{"id":"b"}]}"#, from: zero)
        _ = h.send(#"{"type":"create","navigator":"one-nav","pages":[{"id":"a"},{"id":"b"}]}"#, from: one)
        try h.addTouchscreen()
        try h.deviceAdded(
            key: Self.seat1Key, path: "/dev/input/event21", name: "Seat 1 Touchscreen", description: Fixtures.touchscreen,
            configuration: DeviceConfiguration(seat: Self.seat1), at: h.time)
        // A vertical scroll on seat 1 (rejected), then a back on seat 1.
        var scroll = TouchScript(device: Fixtures.touchscreen)
        scroll.down(at: 0.5, 0.2)
        scroll.move(byMillimetres: 0, 40, over: .milliseconds(100))
        scroll.up()
        _ = h.play(scroll, key: Self.seat1Key)
        var back = TouchScript(device: Fixtures.touchscreen, start: Fixtures.start + .seconds(5))
        back.down(at: 0.02, 0.5)
        back.move(byMillimetres: 60, 0, over: .milliseconds(150))
        back.up()
        _ = h.play(back, key: Self.seat1Key)
        func status(_ asker: ClientID) -> [String: Any] { Self.json(h.reply(#"{"type":"status"}"#, from: asker) ?? "") }
        func names(_ list: Any?, _ key: String) -> [String] {
            ((list as? [[String: Any]]) ?? []).compactMap { $0[key] as? String }.sorted()
        }
        func numbers(_ list: Any?, _ key: String) -> [Int] {
            ((list as? [[String: Any]]) ?? []).compactMap { $0[key] as? Int }.sorted()
        }
        let ofZero = status(zero), ofOne = status(one), ofRoot = status(root)
        #expect(names(ofZero["devices"], "seat") == ["seat0"])
        #expect(names(ofOne["devices"], "seat") == ["seat1"])
        #expect(names(ofRoot["devices"], "seat") == ["seat0", "seat1"])
        #expect(names(ofZero["navigators"], "navigator") == ["zero-nav"])
        #expect(names(ofOne["navigators"], "navigator") == ["one-nav"])
        #expect(names(ofRoot["navigators"], "navigator") == ["one-nav", "zero-nav"])
        // Root's connection works at seat0 here (seatOf): seat 0's people see it; seat 1's do not.
        #expect(numbers(ofZero["clients"], "client") == [Int(zero.rawValue), Int(root.rawValue)])
        #expect(numbers(ofOne["clients"], "client") == [Int(one.rawValue)])
        #expect(numbers(ofRoot["clients"], "client").count == 3)
        #expect((ofZero["rejected"] as? [Any])?.isEmpty == true && ofZero["rejectedCount"] as? Int == 0)
        #expect((ofOne["rejected"] as? [Any])?.count == 1 && ofOne["rejectedCount"] as? Int == 1)
        #expect(ofZero["lastBack"] == nil, "seat 1's back is not seat 0's business")
        #expect((ofOne["lastBack"] as? [String: Any])?["navigator"] as? String == "one-nav")
        #expect((ofRoot["lastBack"] as? [String: Any])?["navigator"] as? String == "one-nav")
    }

    /// Issue 28: a peer with no seat counted as seat0's, so an SSH user acted on seat 0.
    @Test("a client at no seat (logged in over SSH) gets no swipe of seat 0, as owner or observer, and status shows it no device")
    func noSeatGetsNothing() throws {
        var h = Harness()
        h.state = ServerState(seatOf: { $0?.uid == 3000 ? Seat.none : .seat0 }, logger: quietLogger)
        let remote = h.connect(credentials: Self.user(3000, pid: 40))
        _ = h.send(#"{"type":"create","navigator":"remote","pages":[{"id":"a"},{"id":"b"}]}"#, from: remote)
        _ = h.send(#"{"type":"subscribe"}"#, from: remote)
        try h.addTouchscreen()
        var back = TouchScript(device: Fixtures.touchscreen)
        back.down(at: 0.02, 0.5)
        back.move(byMillimetres: 60, 0, over: .milliseconds(150))
        back.up()
        let actions = h.play(back)
        #expect(actions.lines(to: remote).isEmpty)
        #expect(h.engine.navigation.navigators["remote"]?.pages.count == 2, "no back popped it")
        let status = Self.json(h.reply(#"{"type":"status"}"#, from: remote) ?? "")
        #expect((status["devices"] as? [Any])?.isEmpty == true)
        #expect(Seat.none.description == "no seat")
    }

    @Test("a focus change on seat 1 reaches seat 1's observers only")
    func focusStaysOnItsSeat() {
        var h = Self.harness()
        let watcher0 = h.connect(credentials: Self.user(1000, pid: 10))
        let watcher1 = h.connect(credentials: Self.user(2000, pid: 20))
        for client in [watcher0, watcher1] { _ = h.send(#"{"type":"subscribe"}"#, from: client) }
        let shell1 = h.connect(greeted: false, credentials: Self.user(2000, pid: 21))
        let actions = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: shell1)
            + h.send(#"{"type":"focused-window","app":"firefox","pid":77}"#, from: shell1)
        let told1 = actions.lines(to: watcher1).filter { $0.contains(#""type":"focus-changed""#) }
        #expect(told1.last.map(Self.json)?["app"] as? String == "firefox", "\(told1)")
        #expect(actions.lines(to: watcher0).isEmpty)
    }

    @Test("status shows credentials to root, the same user and the seat's shell; the focus is the asker's seat's")
    func credentialsFollowTheSeat() {
        var h = Self.harness()
        let app0 = h.connect(credentials: Self.user(1000, pid: 10))
        let app1 = h.connect(credentials: Self.user(2000, pid: 20))
        let shell1 = h.connect(greeted: false, credentials: Self.user(2000, pid: 21))
        _ = h.send(#"{"type":"hello","version":1,"role":"shell"}"#, from: shell1)
        let root = h.connect(credentials: Self.user(0, pid: 30))

        func seen(by asker: ClientID) -> (pids: [Int], focusSeat: String?) {
            let status = Self.json(h.reply(#"{"type":"status"}"#, from: asker) ?? "")
            let clients = status["clients"] as? [[String: Any]] ?? []
            let focus = status["focus"] as? [String: Any]
            return (clients.compactMap { $0["pid"] as? Int }.sorted(), focus?["seat"] as? String)
        }
        #expect(seen(by: root).pids == [10, 20, 21, 30])
        #expect(seen(by: app0).pids == [10], "seat 0's user sees only its own")
        #expect(seen(by: app1).pids == [20, 21], "the same user")
        #expect(seen(by: shell1).pids == [20, 21], "seat 1's shell: its seat's clients, not seat 0's")
        #expect(seen(by: app1).focusSeat == "seat1")
        #expect(seen(by: app0).focusSeat == "seat0")
        _ = app0
    }
}
