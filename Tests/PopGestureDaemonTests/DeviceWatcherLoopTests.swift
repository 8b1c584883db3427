import Logging
@testable import PopGestureDaemon
import PopGestureCore
import PopGestureInput
import Testing

/// The real main loop on this host (no input devices needed): its timer reaches the
/// handler through `poll`, and ``DeviceWatcher/stop()`` from the handler ends it.
@Suite struct DeviceWatcherLoopTests {
    struct NoSink: InputSink {
        func deviceAdded(
            key: Int, path: String, name: String, description: DeviceDescription,
            configuration: DeviceConfiguration, stateAtOpen: DeviceStateAtOpen,
            ifRefused: @escaping @Sendable (String) -> Void
        ) {}
        func deviceRemoved(key: Int) {}
        func received(_ events: [InputEvent], fromDevice key: Int, inFlight: FramesInFlight) { inFlight.handled() }
    }

    @Test(.timeLimit(.minutes(1))) func watchdogTicksArriveAndStopEndsTheLoop() throws {
        let watcher = try DeviceWatcher(
            configuration: Configuration(), sink: NoSink(), watchdogInterval: .milliseconds(2),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        var ticks = 0
        watcher.run { event in
            #expect(event == .watchdog)
            ticks += 1
            if ticks == 3 { watcher.stop() }
        }
        #expect(ticks >= 3)
    }

    @Test func aZeroWatchdogIntervalIsRefusedAtStart() {
        #expect(throws: InputError.self) {
            try DeviceWatcher(
                configuration: Configuration(), sink: NoSink(), watchdogInterval: .zero,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        }
    }
}
