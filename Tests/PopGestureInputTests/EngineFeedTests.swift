import PopGestureCore
@testable import PopGestureInput
import PopGestureSynthesis
import Testing

/// The checks at the edge where a device enters the engine: refused descriptions,
/// codes mtdev cannot take, frames past the limit.
@Suite struct EngineFeedTests {
    static let screen = DeviceDescription(
        name: "feed fixture", bustype: 0x18, properties: [1], keys: [BTN.touch], eventTypes: [EV.syn, EV.key, EV.abs],
        axes: [
            ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
            ABS.mtPositionX: AbsoluteAxis(minimum: 0, maximum: 4095, resolution: 16),
            ABS.mtPositionY: AbsoluteAxis(minimum: 0, maximum: 4095, resolution: 16),
            ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
        ])

    /// An engine with a two-page navigator owned by client 1, and the device added.
    static func feed(_ device: DeviceDescription = screen) throws -> (EngineFeed, DeviceID) {
        var engine = GestureEngine()
        try engine.perform(.create(navigator: "main", pages: [Page(id: "root"), Page(id: "detail")], layout: nil,
                                   barFollowsTopPage: true), from: ClientID(1), at: .zero)
        engine.drainEvents { _ in }
        var feed = EngineFeed(engine: engine)
        let id = try feed.addDevice(device)
        return (feed, id)
    }

    /// A committed swipe from the left edge across half the screen.
    static func swipe(_ device: DeviceDescription = screen) -> [InputEvent] {
        var script = TouchScript(device: device)
        script.down(at: 0.05, 0.5)
        script.move(byMillimetres: 0.5 * script.panelSize.width, 0, over: .milliseconds(500))
        script.rest(.milliseconds(100))
        script.up()
        return script.events
    }

    static func kinds(_ feed: inout EngineFeed) -> [String] {
        var kinds: [String] = []
        feed.engine.drainEvents { event in
            switch event {
            case .popBegan: kinds.append("began")
            case .back: kinds.append("back")
            case .popCancelled: kinds.append("cancelled")
            default: break
            }
        }
        return kinds
    }

    @Test("A description with an empty position axis is refused with a typed error, and nothing is added")
    func emptyAxisRefused() throws {
        var device = Self.screen
        device.axes[ABS.mtPositionY] = AbsoluteAxis(minimum: 7, maximum: 7)
        var feed = EngineFeed(engine: GestureEngine())
        #expect {
            _ = try feed.addDevice(device)
        } throws: { error in
            let error = error as? InputError
            return error?.code == .invalidDescription && error?.message.contains("0x36") == true
        }
        #expect(feed.engine.touches(of: DeviceID(0)) == nil)
        // The next device is still taken: a refusal does not stop the feed.
        #expect(throws: Never.self) { _ = try feed.addDevice(Self.screen) }
    }

    @Test("A swipe commits through the feed (the baseline for the frame-limit tests)")
    func swipeCommits() throws {
        var (feed, id) = try Self.feed()
        for event in Self.swipe() { feed.handle(event, from: id) }
        #expect(Self.kinds(&feed).suffix(1) == ["back"])
    }

    /// The swipe with `padding` MSC events added to the frame where the finger lands.
    static func paddedSwipe(_ padding: Int) -> [InputEvent] {
        var events = swipe()
        let end = events.firstIndex(where: \.isFrameEnd)!
        let msc = InputEvent(time: events[end].time, type: EV.msc, code: MSC.timestamp, value: 0)
        events.insert(contentsOf: repeatElement(msc, count: padding), at: end)
        return events
    }

    @Test("A frame of exactly the limit is taken whole")
    func frameAtTheLimit() throws {
        var (feed, id) = try Self.feed()
        let events = Self.paddedSwipe(0)
        let landing = events.firstIndex(where: \.isFrameEnd)!
        for event in Self.paddedSwipe(GestureEngine.maximumFrameEvents - landing) { feed.handle(event, from: id) }
        #expect(Self.kinds(&feed).suffix(1) == ["back"])
    }

    @Test("A frame past the limit is dropped like SYN_DROPPED: that touch makes no pop, the next one does")
    func frameOverTheLimit() throws {
        var (feed, id) = try Self.feed()
        for event in Self.paddedSwipe(GestureEngine.maximumFrameEvents + 1) { feed.handle(event, from: id) }
        #expect(Self.kinds(&feed).isEmpty)
        #expect(feed.engine.arbiterState == .idle)
        // The limit counts per frame: an ordinary swipe afterwards pops.
        for event in Self.swipe() { feed.handle(InputEvent(time: event.time + .seconds(5), type: event.type,
                                                           code: event.code, value: event.value), from: id) }
        #expect(Self.kinds(&feed).suffix(1) == ["back"])
    }

    @Test("Events past the limit do not reach the engine: a landing after 1024 events is never seen")
    func eventsPastTheLimitDropped() throws {
        var (feed, id) = try Self.feed()
        let time = Timestamp(seconds: 1, microseconds: 0)
        for _ in 0..<(GestureEngine.maximumFrameEvents + 10) {
            feed.handle(InputEvent(time: time, type: EV.msc, code: MSC.timestamp, value: 1), from: id)
        }
        for (code, value) in [(ABS.mtSlot, 0), (ABS.mtTrackingID, 5), (ABS.mtPositionX, 100)] as [(UInt16, Int32)] {
            feed.handle(InputEvent(time: time, type: EV.abs, code: code, value: value), from: id)
        }
        feed.handle(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0), from: id)
        #expect(feed.engine.touches(of: id)?.fingerCount == 0)
    }

    /// A protocol A touchscreen (like the N-Trig): positions, no slots.
    static let protocolA = DeviceDescription(
        name: "protocol A feed fixture", bustype: 0x03, keys: [BTN.touch], eventTypes: [EV.syn, EV.key, EV.abs],
        axes: [
            ABS.mtPositionX: AbsoluteAxis(minimum: 0, maximum: 9600),
            ABS.mtPositionY: AbsoluteAxis(minimum: 0, maximum: 7200),
        ])

    @Test("Codes mtdev cannot take never reach it: ABS codes above ABS_MAX, KEY codes above KEY_MAX, other types")
    func outOfRangeCodesOnProtocolA() throws {
        var (feed, id) = try Self.feed(Self.protocolA)
        let time = Timestamp(seconds: 1, microseconds: 0)
        for (type, code) in [(EV.abs, UInt16(0x40)), (EV.abs, 0x7fff), (EV.abs, .max), (EV.key, 0x300), (EV.key, .max),
                             (EV.syn, 0x10), (EV.syn, .max), (0x20, 0), (.max, .max), (EV.rel, 0)] as [(UInt16, UInt16)] {
            #expect(!ProtocolAConverter.accepts(InputEvent(time: time, type: type, code: code, value: 1)))
            feed.handle(InputEvent(time: time, type: type, code: code, value: 1), from: id)
            feed.handle(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0), from: id)
        }
        // Still converting: a swipe after the junk pops.
        for event in Self.swipe(Self.protocolA) {
            feed.handle(InputEvent(time: event.time + .seconds(5), type: event.type, code: event.code, value: event.value),
                        from: id)
        }
        #expect(Self.kinds(&feed).suffix(1) == ["back"])
    }
}
