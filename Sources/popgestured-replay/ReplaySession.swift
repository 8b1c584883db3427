import Logging
import PopGestureCore
import PopGestureDaemon
import PopGestureInput

/// One client with one navigator in front, fed by one device: what `replay` and
/// `demo` run.
struct ReplaySession {
    /// The client `replay` plays; its navigator is called "main".
    static let client = ClientID(1)
    static let navigator = "main"

    private var feed: EngineFeed
    private let device: DeviceID
    private let observer: Bool

    /// Sets up the engine, the device and the client's stack at `start` (the recording's first timestamp).
    init(device description: DeviceDescription, options: GestureOptions, observer: Bool, start: Timestamp, logger: Logger) throws {
        let configuration = try options.configuration()
        var engine = GestureEngine(logger: logger)
        configuration.apply(to: &engine)
        let pages = options.pages
        let root = Array(pages.prefix(options.transitioning ? pages.count - 1 : pages.count))
        try engine.perform(.create(navigator: Self.navigator, pages: root, layout: nil, barFollowsTopPage: true),
                           from: Self.client, at: start)
        if options.transitioning, let top = pages.last {
            try engine.perform(.push(navigator: Self.navigator, page: top, animated: true), from: Self.client, at: start)
        }
        engine.drainEvents { _ in }  // The setup's own replies are not part of the output.
        feed = EngineFeed(engine: engine)
        device = try feed.addDevice(options.sized(description), configuration: options.deviceConfiguration(for: description, rotation: configuration.rotation))
        self.observer = observer
    }

    /// Feeds the events and returns the JSON lines the client receives, in order.
    mutating func run(_ events: some Sequence<InputEvent>, into lines: inout [String]) {
        for event in events {
            feed.handle(event, from: device)
            guard feed.engine.hasEvents else { continue }
            feed.engine.drainEvents { event in
                if observer || event.owner == Self.client { lines.append(WireEncoding.encode(event)) }
            }
        }
    }

    var screenTransform: ScreenTransform? { feed.engine.screenTransform(of: device) }
}
