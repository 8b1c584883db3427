import Glibc
import Logging
@testable import PopGestureDaemon
import PopGestureCore
import PopGestureInput
import PopGestureServer
import PopGestureSystem
import Testing

/// The real main loop on this host (no input devices needed): its timer reaches the
/// handler through `poll`, and ``MainLoop/stop()`` from the handler ends it.
@Suite struct MainLoopTests {
    final class NoSink: InputSink {
        func deviceAdded(
            key: Int, path: String, name: String, description: DeviceDescription,
            configuration: DeviceConfiguration, stateAtOpen: DeviceStateAtOpen
        ) throws(InputError) {}
        func deviceRemoved(key: Int) {}
        func received(_ events: [InputEvent], fromDevice key: Int) {}
        func touchVerdict(ofDevice key: Int) -> TouchRouter.Verdict { .none }
        func appendDescriptors(to set: inout [pollfd]) {}
        func handle(_ results: ArraySlice<pollfd>) {}
        func pollTimeout() -> CInt { -1 }
        func roundEnded() {}
    }

    @Test(.timeLimit(.minutes(1))) func watchdogTicksArriveAndStopEndsTheLoop() throws {
        let mainLoop = try MainLoop(
            configuration: Configuration(), sink: NoSink(), watchdogInterval: .milliseconds(2),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        var ticks = 0
        mainLoop.run { event in
            #expect(event == .watchdog)
            ticks += 1
            if ticks == 3 { mainLoop.stop() }
        }
        #expect(ticks >= 3)
    }

    @Test func aZeroWatchdogIntervalIsRefusedAtStart() {
        #expect(throws: InputError.self) {
            try MainLoop(
                configuration: Configuration(), sink: NoSink(), watchdogInterval: .zero,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        }
    }
}
