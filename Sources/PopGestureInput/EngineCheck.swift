import Logging
import PopGestureCore

/// Runs a device and its events through the engine the way the daemon does
/// (``EngineFeed``: description checks, the frame limit, mtdev for protocol A) and
/// checks the engine's invariant after every frame. What the fuzz targets run, and what
/// their regression tests run, so that both take the same path.
///
/// The engine holds one navigator with three pages, owned by a client, so that a swipe
/// can become an interactive pop, and a back input (`alt+left`) for apps without one.
/// The client's focus flips every ``focusFlipFrames`` frames, so that swipes go to
/// both targets. Every event it produces is encoded for the wire, as the server would.
public enum EngineCheck {
    /// How a run ended when no invariant failed.
    public enum Outcome: Sendable, Hashable {
        /// ``EngineFeed/addDevice(_:configuration:atOpen:)`` refused the device.
        case refused(InputError.Code)
        /// The events ran; `frames` ended with `SYN_REPORT`, `events` came out of the engine.
        case ran(frames: Int, events: Int)
    }

    /// An invariant that failed, and at which input event.
    public struct Violation: Error, CustomStringConvertible, Sendable {
        public var eventIndex: Int
        public var message: String
        public var description: String { "event \(eventIndex): \(message)" }
    }

    /// Every 16 frames the client reports the other focus: a swipe takes a few dozen.
    static let focusFlipFrames = 16

    /// Feeds `events` from `device`. Throws a ``Violation`` when, after a frame, no
    /// contact is down as the engine sees it (every slot's tracking id ended, `BTN_TOUCH`
    /// released) but the arbiter is not idle: a pop or pan left in progress with no finger.
    public static func run(device: DeviceDescription, events: [InputEvent]) throws(Violation) -> Outcome {
        let client = ClientID(1)
        var settings = GestureSettings()
        settings.backInput = BackInputMap(standard: BackInput(codes: [56, 105], spelling: "alt+left"))
        var engine = GestureEngine(
            settings: settings, logger: Logger(label: "popgestured.check") { _ in SwiftLogNoOpLogHandler() })
        let start = events.first?.time ?? .zero
        do {
            try engine.perform(
                .create(navigator: "main", pages: [Page(id: "a"), Page(id: "b"), Page(id: "c")], layout: nil,
                        barFollowsTopPage: true),
                from: client, at: start)
        } catch {
            throw Violation(eventIndex: -1, message: "the navigator could not be created: \(error)")
        }
        engine.drainEvents { _ in }
        var feed = EngineFeed(engine: engine)
        let id: DeviceID
        do {
            id = try feed.addDevice(device, configuration: DeviceConfiguration(recorded: device))
        } catch {
            return .refused(error.code)
        }
        var frames = 0, produced = 0
        for (index, event) in events.enumerated() {
            feed.handle(event, from: id)
            feed.engine.drainEvents { produced += WireEncoding.encode($0).utf8.count > 0 ? 1 : 0 }
            guard event.isFrameEnd else { continue }
            frames += 1
            if frames % focusFlipFrames == 0 {
                feed.engine.reportFocus(frames % (2 * focusFlipFrames) != 0, by: client, at: event.time)
            }
            guard let touches = feed.engine.touches(of: id) else {
                throw Violation(eventIndex: index, message: "the device vanished from the engine")
            }
            if !touches.contacts.contains(where: \.isDown), feed.engine.arbiterState != .idle {
                throw Violation(
                    eventIndex: index,
                    message: "every finger is up but the arbiter is \(feed.engine.arbiterState)")
            }
            // A pop that committed leaves the stack short and transitioning: settle it and put
            // the page back, as a client would, for the next swipe.
            if feed.engine.navigation.navigators["main"]?.pages.count ?? 0 < 3 {
                try? feed.engine.perform(.settle(navigator: "main"), from: client, at: event.time)
                try? feed.engine.perform(.replace(navigator: "main", pages: [Page(id: "a"), Page(id: "b"), Page(id: "c")],
                                                  animated: false), from: client, at: event.time)
                feed.engine.drainEvents { _ in }
            }
        }
        return .ran(frames: frames, events: produced)
    }
}
