import PopGestureCore
@testable import PopGestureDaemon
import Testing

/// iio-sensor-proxy's follower without a bus: what it asks and reports for each answer.
@Suite struct SensorFollowerTests {
    typealias Properties = SensorFollower.Properties
    /// The proxy's unique name on the bus.
    static let proxy = ":1.7"

    @Test("present with an accelerometer: read, claim, read again, then report; changes follow")
    func claimThenFollow() {
        var follower = SensorFollower(needed: true)
        #expect(follower.handle(.started) == [.readProperties(generation: 0)])
        // Before the claim the proxy says undefined: nothing is reported yet.
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true, orientation: "undefined"), error: nil, generation: 0, sender: Self.proxy))
            == [.claim(generation: 0)])
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "left-up"), sender: Self.proxy)) == [], "not claimed yet")
        #expect(follower.handle(.claimed(error: nil, generation: 0)) == [.readProperties(generation: 0)])
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true, orientation: "left-up"), error: nil, generation: 0, sender: Self.proxy))
            == [.report(.leftUp, state: "left-up")])
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "left-up"), sender: Self.proxy)) == [], "the same again is no news")
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "bottom-up"), sender: Self.proxy)) == [.report(.bottomUp, state: "bottom-up")])
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "face-down"), sender: Self.proxy)) == [.report(.undefined, state: "undefined")],
                "an orientation it does not know counts as undefined")
    }

    @Test("absent, or without an accelerometer: reported as such, and claimed when it comes")
    func absentThenPresent() {
        var follower = SensorFollower(needed: true)
        _ = follower.handle(.started)
        #expect(follower.handle(.propertiesRead(Properties(), error: "org.freedesktop.DBus.Error.ServiceUnknown", generation: 0))
            == [.report(nil, state: "absent")])
        #expect(follower.handle(.ownerChanged(owner: Self.proxy)) == [.readProperties(generation: 1)])
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: false), error: nil, generation: 1, sender: Self.proxy))
            == [.report(nil, state: "no-accelerometer")])
        #expect(follower.handle(.propertiesChanged(Properties(hasAccelerometer: true), sender: Self.proxy)) == [.claim(generation: 1)])
    }

    @Test("a PropertiesChanged from anyone but the name's owner changes nothing (any local user can send one)")
    func forgedSignalIgnored() {
        var follower = SensorFollower(needed: true)
        _ = follower.handle(.started)
        #expect(follower.handle(.propertiesChanged(Properties(hasAccelerometer: true, orientation: "left-up"), sender: ":1.99")) == [],
                "the owner is not known yet: nobody's signal counts")
        _ = follower.handle(.propertiesRead(Properties(hasAccelerometer: true), error: nil, generation: 0, sender: Self.proxy))
        _ = follower.handle(.claimed(error: nil, generation: 0))
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true, orientation: "normal"), error: nil, generation: 0, sender: Self.proxy))
            == [.report(.normal, state: "normal")])
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "left-up"), sender: ":1.99")) == [], "forged")
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "left-up"), sender: nil)) == [], "no sender")
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "left-up"), sender: Self.proxy)) == [.report(.leftUp, state: "left-up")])
        // A new owner (the bus said so): the old one's signals no longer count.
        #expect(follower.handle(.ownerChanged(owner: ":1.8")) == [.readProperties(generation: 1)])
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "bottom-up"), sender: Self.proxy)) == [])
        #expect(follower.owner == ":1.8")
    }

    @Test("no longer needed while the claim is on its way: released as soon as it is granted")
    func claimInFlightReleased() {
        var follower = SensorFollower(needed: true)
        _ = follower.handle(.started)
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true), error: nil, generation: 0, sender: Self.proxy))
            == [.claim(generation: 0)])
        #expect(follower.handle(.needed(false)) == [], "nothing claimed yet")
        #expect(follower.handle(.claimed(error: nil, generation: 0)) == [.release, .report(.undefined, state: "unused")])
        #expect(!follower.claimed)
    }

    @Test("a refused claim is tried again, 1 s, 2 s, 4 s … up to 60 s later; a claim that works resets the wait")
    func claimRetriedAfterARefusal() {
        var follower = SensorFollower(needed: true)
        _ = follower.handle(.started)
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true), error: nil, generation: 0, sender: Self.proxy))
            == [.claim(generation: 0)])
        #expect(follower.handle(.claimed(error: "net.hadess.SensorProxy.Error", generation: 0))
            == [.report(nil, state: "unavailable"), .retry(after: .seconds(1))])
        #expect(follower.handle(.retryDue) == [.readProperties(generation: 0)])
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true), error: nil, generation: 0, sender: Self.proxy))
            == [.claim(generation: 0)])
        #expect(follower.handle(.claimed(error: "net.hadess.SensorProxy.Error", generation: 0)) == [.retry(after: .seconds(2))])
        #expect((1...10).map { SensorFollower.retryDelay(afterFailures: $0) }.last == .seconds(60))
        _ = follower.handle(.retryDue)
        _ = follower.handle(.propertiesRead(Properties(hasAccelerometer: true), error: nil, generation: 0, sender: Self.proxy))
        #expect(follower.handle(.claimed(error: nil, generation: 0)) == [.readProperties(generation: 0)])
        #expect(follower.failedClaims == 0)
        #expect(follower.handle(.retryDue) == [], "claimed: nothing to retry")
    }

    @Test("claimed only while needed: released when a shell reports the screen, claimed again when it leaves")
    func claimedOnlyWhileNeeded() {
        var follower = SensorFollower()
        #expect(follower.handle(.started) == [.readProperties(generation: 0)])
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true, orientation: "left-up"), error: nil, generation: 0, sender: Self.proxy))
            == [.report(nil, state: "unused")], "an accelerometer nobody needs is not claimed")
        #expect(follower.handle(.needed(true)) == [.readProperties(generation: 0)])
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true, orientation: "left-up"), error: nil, generation: 0, sender: Self.proxy))
            == [.claim(generation: 0)])
        #expect(follower.handle(.claimed(error: nil, generation: 0)) == [.readProperties(generation: 0)])
        #expect(follower.handle(.propertiesRead(Properties(hasAccelerometer: true, orientation: "left-up"), error: nil, generation: 0, sender: Self.proxy))
            == [.report(.leftUp, state: "left-up")])
        #expect(follower.handle(.needed(true)) == [], "already needed")
        #expect(follower.handle(.needed(false)) == [.release, .report(.undefined, state: "unused")],
                "undefined: the engine keeps the last orientation")
        #expect(!follower.claimed)
        #expect(follower.handle(.propertiesChanged(Properties(orientation: "normal"), sender: Self.proxy)) == [], "a released sensor says nothing")
        #expect(follower.handle(.needed(true)) == [.readProperties(generation: 0)])
    }

    @Test("the proxy leaves mid-claim: the late reply is dropped, and it is absent")
    func staleReplyDropped() {
        var follower = SensorFollower(needed: true)
        _ = follower.handle(.started)
        _ = follower.handle(.propertiesRead(Properties(hasAccelerometer: true), error: nil, generation: 0, sender: Self.proxy))
        #expect(follower.handle(.ownerChanged(owner: nil)) == [.report(nil, state: "absent")])
        #expect(follower.handle(.claimed(error: nil, generation: 0)) == [])
        #expect(!follower.claimed)
    }

    @Test("a refused claim or a lost bus: unavailable")
    func unavailable() {
        var follower = SensorFollower(needed: true)
        _ = follower.handle(.started)
        _ = follower.handle(.propertiesRead(Properties(hasAccelerometer: true), error: nil, generation: 0, sender: Self.proxy))
        #expect(follower.handle(.claimed(error: "org.freedesktop.DBus.Error.AccessDenied", generation: 0))
            == [.report(nil, state: "unavailable"), .retry(after: .seconds(1))])
        #expect(follower.handle(.busLost) == [])
        #expect(follower.handle(.retryDue) == [], "the bus is gone: nothing to ask")
    }
}
