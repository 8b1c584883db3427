import Dispatch
import Logging
import NIOCore
import NIOPosix
@testable import PopGestureDaemon
import PopGestureCore
import PopGestureServer
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The bound on the hop from the input thread to the event loop (issue 8, defect 7).
@Suite struct FramesInFlightTests {
    @Test func readingPausesAtTheBoundAndResumesAtHalfOfIt() {
        let wakes = Atomic<Int>(0)
        let inFlight = FramesInFlight(bound: 4) { wakes.add(1, ordering: .relaxed) }
        var backpressure = InputBackpressure(inFlight)
        for _ in 0..<4 {
            #expect(mayRead(&backpressure))
            inFlight.sent()
        }
        #expect(!mayRead(&backpressure))
        inFlight.handled()  // 3 in flight: still above the resume level
        #expect(!mayRead(&backpressure))
        #expect(wakes.load(ordering: .relaxed) == 0)
        inFlight.handled()  // 2: the resume level wakes the reader
        #expect(wakes.load(ordering: .relaxed) == 1)
        #expect(mayRead(&backpressure))
        inFlight.sent()  // 3 again: reading goes on until the bound
        #expect(mayRead(&backpressure))
    }

    @Test func theDefaultBoundIs64Frames() {
        let inFlight = FramesInFlight {}
        #expect(inFlight.bound == 64)
        #expect(inFlight.resumeLevel == 32)
    }

    /// The event loop blocked by a task: a reader that honours the gate hands it no more
    /// than the bound, and is woken once the loop has worked the queue down.
    @Test(.timeLimit(.minutes(1))) func aStalledLoopGetsNoMoreThanTheBound() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let path = "/tmp/popgestured-inflight-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let server = try SocketServer.makeServer(
            listening: .path(path), group: group, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        ).wait()
        defer { try? server.close().wait() }
        let sink = ServerInput(server: server, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })

        let woken = DispatchSemaphore(value: 0)
        let inFlight = FramesInFlight { woken.signal() }
        var backpressure = InputBackpressure(inFlight)
        let stall = DispatchSemaphore(value: 0)
        server.eventLoop.execute { stall.wait() }

        let frame = [InputEvent(time: .zero, type: EV.syn, code: 0, value: 0)]
        var handedOver = 0
        for _ in 0..<1000 {
            guard backpressure.mayRead() else { break }
            inFlight.sent()
            sink.received(frame, fromDevice: 7, inFlight: inFlight)
            handedOver += 1
        }
        #expect(handedOver == FramesInFlight.defaultBound)
        #expect(inFlight.current == FramesInFlight.defaultBound)
        #expect(woken.wait(timeout: .now()) == .timedOut)

        stall.signal()
        #expect(woken.wait(timeout: .now() + .seconds(30)) == .success)
        #expect(mayRead(&backpressure))
        try server.eventLoop.submit {}.wait()
        #expect(inFlight.current == 0)
    }
}

/// `#expect` cannot call a mutating method itself.
private func mayRead(_ backpressure: inout InputBackpressure) -> Bool {
    backpressure.mayRead()
}
