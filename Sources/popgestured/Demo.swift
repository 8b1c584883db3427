import ArgumentParser
import PopGestureCore

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the back gesture on a generated swipe, with no touchscreen needed.",
        discussion: """
            Builds a virtual 10-inch touchscreen, plays a few gestures into the engine and
            prints what the client in front receives. Try `popgestured replay` on a real
            recording next.
            """)

    @Flag(name: .shortAndLong, help: "Trace every state transition to stderr.")
    var verbose = false

    /// A 10.1-inch protocol B touchscreen with 10 slots and a resolution, written for the demo.
    static let virtualTouchscreen = DeviceDescription(
        name: "popgestured virtual touchscreen", bustype: 0x06,
        properties: [InputProperty.direct], keys: [BTN.touch], eventTypes: [EV.syn, EV.key, EV.abs],
        axes: [
            ABS.x: AbsoluteAxis(minimum: 0, maximum: 4339, resolution: 20),
            ABS.y: AbsoluteAxis(minimum: 0, maximum: 2719, resolution: 20),
            ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
            ABS.mtPositionX: AbsoluteAxis(minimum: 0, maximum: 4339, resolution: 20),
            ABS.mtPositionY: AbsoluteAxis(minimum: 0, maximum: 2719, resolution: 20),
            ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
        ])

    struct Scene: Sendable {
        var title: String
        var arguments: [String] = []
        var gesture: @Sendable (inout TouchScript) -> Void
    }

    static let scenes = [
        Scene(title: "A swipe from 2 % of the width, 60 mm to the right in 150 ms: back.") { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        },
        Scene(title: "A vertical scroll: no back.") { finger in
            finger.down(at: 0.5, 0.3)
            finger.move(byMillimetres: 2, 60, over: .milliseconds(200))
            finger.up()
        },
        Scene(title: "A slow 50 mm drag that rests before release: cancelled.") { finger in
            finger.down(at: 0.3, 0.5)
            finger.move(byMillimetres: 50, 0, over: .milliseconds(800))
            finger.rest(.milliseconds(300))
            finger.up()
        },
        Scene(title: "The same swipe with only the root page: no back.", arguments: ["--depth", "1"]) { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        },
    ]

    func run() throws {
        let logger = Replay.stderrLogger(verbose: verbose)
        for scene in Self.scenes {
            print("# \(scene.title)")
            var script = TouchScript(device: Self.virtualTouchscreen)
            scene.gesture(&script)
            var session = try ReplaySession(
                device: Self.virtualTouchscreen, options: try GestureOptions.parse(scene.arguments), observer: true,
                start: script.events.first?.time ?? .zero, logger: logger)
            var lines: [String] = []
            session.run(script.events, into: &lines)
            let progress = lines.filter { $0.contains("\"pop-progress\"") }.count
            for line in lines where !line.contains("\"pop-progress\"") { print(line) }
            if progress > 0 { print("(and \(progress) pop-progress lines)") }
            print()
        }
    }
}
