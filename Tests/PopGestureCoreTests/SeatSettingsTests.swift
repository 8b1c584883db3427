@testable import PopGestureCore
import PopGestureSynthesis
import Testing

extension SeatTests.Rig {
    /// A finger down 10 mm from the left edge (outside a 4.8 mm zone) of the 256 mm
    /// fixture, 40 mm to the right, then up, on `seat`: whether a back went out.
    mutating func swipeFrom10Millimetres(on seat: Seat) -> Bool {
        swipe(on: seat, from: 10.0 / 256).contains { if case .backInput = $0 { true } else { false } }
    }

    /// The system's settings with a 12 mm edge, as a user's.
    func wideEdge(uid: UInt32?) -> SeatSettings {
        var settings = engine.settings
        settings.edgeWidthMillimetres = 12
        return SeatSettings(settings: settings, keys: ["edge-width-mm"], text: "edge-width-mm = 12\n", uid: uid)
    }
}

/// A seat's own settings, its active user's (issue 32): in force on that seat only, and
/// gone when that user is no longer active there.
@Suite struct SeatSettingsTests {
    static let seat1 = SeatTests.seat1
    typealias Rig = SeatTests.Rig

    @Test("A 12 mm edge set by seat0's user: a swipe from 10 mm goes back on seat0, and still not on seat1")
    func inForceOnItsSeatOnly() {
        var rig = Rig()
        let back1 = rig.swipeFrom10Millimetres(on: .seat0)
        #expect(!back1, "the system's 4.8 mm edge")
        rig.engine.setUserSettings(rig.wideEdge(uid: 1000), on: .seat0)
        #expect(rig.engine.settings(on: .seat0).edgeWidthMillimetres == 12)
        #expect(rig.engine.settings(on: Self.seat1).edgeWidthMillimetres == 4.8)
        let back2 = rig.swipeFrom10Millimetres(on: .seat0)
        #expect(back2)
        let back3 = rig.swipeFrom10Millimetres(on: Self.seat1)
        #expect(!back3)
        rig.engine.setUserSettings(nil, on: .seat0)
        let back4 = rig.swipeFrom10Millimetres(on: .seat0)
        #expect(!back4, "the system's again")
    }

    @Test("A reload of the system's settings leaves a seat's user's in force")
    func reloadKeepsTheUsers() {
        var rig = Rig()
        rig.engine.setUserSettings(rig.wideEdge(uid: 1000), on: .seat0)
        var system = rig.engine.settings
        system.commitProgress = 0.5
        rig.engine.settings = system
        #expect(rig.engine.settings(on: .seat0).edgeWidthMillimetres == 12)
        let back5 = rig.swipeFrom10Millimetres(on: .seat0)
        #expect(back5)
    }

    @Test("The user's switched away (their clients paused): gone; the settings app left but the bridge stays: kept; the last one left: gone")
    func goneWhenTheUserLeaves() {
        var rig = Rig()
        let bridge = ClientID(1), app = ClientID(2), other = ClientID(3)
        rig.engine.identify(bridge, app: nil, pid: 10, uid: 1000, seat: .seat0, isShell: true)
        rig.engine.identify(app, app: "popgestured-settings", pid: 11, uid: 1000, seat: .seat0, isShell: false)
        rig.engine.identify(other, app: nil, pid: 12, uid: 1001, seat: .seat0, isShell: false)
        rig.engine.setUserSettings(rig.wideEdge(uid: 1000), on: .seat0)
        rig.engine.clientDisconnected(app, at: .zero)
        #expect(rig.engine.userSettings(on: .seat0) != nil, "the bridge of that user is still there")
        rig.engine.clientDisconnected(other, at: .zero)
        #expect(rig.engine.userSettings(on: .seat0) != nil, "another user's client going changes nothing")
        rig.engine.clientPaused(bridge, at: .zero)
        #expect(rig.engine.userSettings(on: .seat0) == nil, "a user switch")
        let back6 = rig.swipeFrom10Millimetres(on: .seat0)
        #expect(!back6)

        rig.engine.clientResumed(bridge, asShell: true, at: .zero)
        rig.engine.setUserSettings(rig.wideEdge(uid: 1000), on: .seat0)
        rig.engine.clientDisconnected(bridge, at: .zero)
        #expect(rig.engine.userSettings(on: .seat0) == nil, "logged out: no client of theirs is left")
    }
}
