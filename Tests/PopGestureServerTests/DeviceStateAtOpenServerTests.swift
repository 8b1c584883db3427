import PopGestureCore
@testable import PopGestureServer
import Testing

/// The state at open reaches the engine through `EngineHost.deviceAdded`, the way
/// the daemon adds every device it opens.
@Suite struct DeviceStateAtOpenServerTests {
    @Test("a touchscreen added with a finger held in slot 2: a back swipe by a second finger sends no back")
    func theStateAtOpenReachesTheEngine() throws {
        var h = Harness()
        let owner = h.owner()
        var slots = Array(repeating: DeviceStateAtOpen.Slot(), count: 10)
        slots[2] = DeviceStateAtOpen.Slot(trackingID: 7, x: 2000, y: 2000)
        try h.deviceAdded(
            key: Harness.touchscreenKey, path: "/dev/input/event11", name: "Fixture Touchscreen",
            description: Fixtures.touchscreen, atOpen: DeviceStateAtOpen(currentSlot: 2, slots: slots, touching: true),
            at: h.time)
        let actions = h.play(Fixtures.backSwipe())
        #expect(actions.types(to: owner).isEmpty, "the swipe's finger landed while the held one was down")
    }
}
