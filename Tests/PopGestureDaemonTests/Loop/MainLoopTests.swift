import Glibc
import Logging
@testable import PopGestureDaemon
import PopGestureCore
import PopGestureEventLoop
import PopGestureInput
import PopGestureServer
import PopGestureSynthesis
import PopGestureSystem
import Testing

/// The real main loop on this host (no input devices needed): its timer reaches the
/// handler through sd-event, and ``MainLoop/stop()`` from the handler ends it.
@Suite struct MainLoopTests {
    final class NoSink: InputSink {
        func deviceAdded(
            key: Int, path: String, name: String, description: DeviceDescription,
            configuration: DeviceConfiguration, stateAtOpen: DeviceStateAtOpen
        ) throws(InputError) {}
        func deviceRemoved(key: Int) {}
        func received(_ events: [InputEvent], fromDevice key: Int) {}
        func touchVerdict(ofDevice key: Int) -> TouchRouter.Verdict { .none }
        let loop = try! SDEventLoop()
        func admissionMayHaveChanged() {}
        func sensorChanged(_ orientation: SensorOrientation?, state: String) {}
        var needsSensor: Bool { false }
    }

    /// Records the order in which the loop serves it; its one descriptor is a pipe the
    /// test fills, standing for a client with a request waiting, at the clients'
    /// priority, and it flushes after every dispatch, as ``SocketServer`` does.
    final class OrderSink: InputSink {
        var calls: [String] = []
        let clientPipe: [CInt]
        let loop = try! SDEventLoop()
        private var sources: [EventSource] = []
        private var hook: DispatchHook?
        init() throws {
            var ends: [CInt] = [0, 0]
            pipe(&ends)
            clientPipe = ends
            sources.append(try loop.watch(ends[0], priority: .clients) { [unowned self] _ in
                var byte: UInt8 = 0
                _ = read(clientPipe[0], &byte, 1)
                calls.append("clients")
            })
            hook = loop.afterEachDispatch { [unowned self] in calls.append("flush") }
        }
        deinit {
            sources.forEach { $0.cancel() }
            hook?.cancel()
            clientPipe.forEach { close($0) }
        }
        func deviceAdded(
            key: Int, path: String, name: String, description: DeviceDescription,
            configuration: DeviceConfiguration, stateAtOpen: DeviceStateAtOpen
        ) throws(InputError) {}
        func deviceRemoved(key: Int) {}
        func received(_ events: [InputEvent], fromDevice key: Int) { calls.append("frame") }
        func touchVerdict(ofDevice key: Int) -> TouchRouter.Verdict { .none }
        func admissionMayHaveChanged() { calls.append("admission") }
        func sensorChanged(_ orientation: SensorOrientation?, state: String) { calls.append("sensor") }
        var needsSensor: Bool { false }
    }

    @Test(.timeLimit(.minutes(1)))
    func theDevicesAndTheirFlushComeBeforeTheClients() throws {
        var template = Array("/tmp/popgestured-order-XXXXXX".utf8CString)
        let folder = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        let path = folder + "/events"
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path); rmdir(folder) }
        let sink = try OrderSink()
        let mainLoop = try MainLoop(
            configuration: Configuration(), sink: sink, watchdogInterval: .milliseconds(50), eventPipe: EventPipe(path: path),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        // A client's request and a finger's frame are both waiting when the loop wakes.
        var one: UInt8 = 1
        #expect(write(sink.clientPipe[1], &one, 1) == 1)
        let writer = open(path, O_WRONLY | O_NONBLOCK)
        try #require(writer >= 0)
        defer { close(writer) }
        var finger = TouchScript(device: EventPipe.description)
        finger.down(at: 0.02, 0.5)
        let frame = Array(finger.events.flatMap(EventPipe.record))
        #expect(frame.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == frame.count)
        mainLoop.run { _ in mainLoop.stop() }
        #expect(Array(sink.calls.prefix(3)) == ["frame", "flush", "clients"])
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
