import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
import PopGestureCore
import PopGestureProtocol
@testable import PopGestureServer
import Synchronization
import Testing

/// The two bounded queues between the engine side and the socket side (issue 8, defect 7
/// and "the engine runs beside the read").
@Suite struct EngineChannelTests {
    static let rejection = EngineOutput.event(.rejected(.tooSteep, device: DeviceID(0), time: .zero))

    static func request(_ client: UInt64, _ kind: EngineRequest.Kind = .request(.status, id: nil)) -> EngineRequest {
        EngineRequest(client: ClientID(client), kind: kind, time: .zero)
    }

    static func isReadable(_ fd: CInt) -> Bool {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, 0) == 1
    }

    @Test func theDefaultBoundsAre256RequestsAnd256Outputs() throws {
        let channel = try EngineChannel {}
        #expect(channel.requestBound == EngineChannel.maximumQueuedRequests)
        #expect(channel.outputBound == EngineChannel.maximumQueuedOutput)
        #expect(EngineChannel.maximumQueuedRequests == 256)
        #expect(EngineChannel.maximumQueuedOutput == 256)
    }

    @Test func aFullRequestQueueRefusesRequestsButNeverAClientGoneOrIdentified() throws {
        let channel = try EngineChannel(requestBound: 3) {}
        #expect(!Self.isReadable(channel.wakeDescriptor))
        for n in 0..<3 { #expect(channel.submit(Self.request(UInt64(n)))) }
        #expect(Self.isReadable(channel.wakeDescriptor), "the engine side is woken")
        #expect(!channel.submit(Self.request(9)))
        #expect(channel.submit(Self.request(9, .clientGone)))
        #expect(channel.submit(Self.request(8, .identified(app: "files", pid: 42, uid: 1000, isShell: false))))
        #expect(channel.queuedRequests == 3, "the always-taken ones do not count toward the bound")
        #expect(!channel.submit(Self.request(9)), "and do not make room either")

        var taken = CircularBuffer<EngineRequest>()
        channel.drainWakes()
        channel.takeRequests(into: &taken)
        #expect(taken.map(\.client) == [0, 1, 2, 9, 8].map(ClientID.init))
        #expect(channel.queuedRequests == 0)
        #expect(!Self.isReadable(channel.wakeDescriptor))
        #expect(channel.submit(Self.request(10)), "room again")
    }

    @Test func aFullOutputQueuePausesReadingUntilTheSocketSideTakesIt() throws {
        let socketWakes = Atomic<Int>(0)
        let channel = try EngineChannel(outputBound: 4) { socketWakes.add(1, ordering: .relaxed) }
        var batch = [Self.rejection, Self.rejection]
        #expect(channel.mayReadDevices())
        channel.send(&batch)
        #expect(batch.isEmpty)
        #expect(channel.mayReadDevices())
        batch = [Self.rejection, Self.rejection]
        channel.send(&batch)
        #expect(socketWakes.load(ordering: .relaxed) == 1, "one wake-up per batch the socket side has not taken")
        #expect(!channel.mayReadDevices(), "at the bound: the devices are not read")
        #expect(!Self.isReadable(channel.wakeDescriptor))

        var taken = CircularBuffer<EngineOutput>()
        channel.takeOutput(into: &taken)
        #expect(taken.count == 4)
        #expect(Self.isReadable(channel.wakeDescriptor), "the paused engine side is woken")
        #expect(channel.mayReadDevices())
        batch = [Self.rejection]
        channel.send(&batch)
        #expect(socketWakes.load(ordering: .relaxed) == 2)
    }

    /// The event loop blocked by a task: an engine side that honours the gate queues no
    /// more than the bound (plus the read in progress), and is woken once the loop has
    /// taken the output.
    @Test(.timeLimit(.minutes(1))) func aStalledLoopPausesTheReader() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let path = "/tmp/popgestured-channel-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let server = try SocketServer.makeServer(listening: .path(path), group: group, logger: quietLogger).wait()
        defer { try? server.close().wait() }
        let stall = DispatchSemaphore(value: 0)
        server.eventLoop.execute { stall.wait() }

        // A client that observes makes every rejection an output; the engine side is this thread.
        var reads = 0
        var batch: [EngineOutput] = []
        for _ in 0..<10_000 {
            guard server.engine.mayReadDevices() else { break }
            batch.append(Self.rejection)  // what one read's frame produced
            server.engine.send(&batch)
            reads += 1
        }
        #expect(reads == EngineChannel.maximumQueuedOutput)
        #expect(server.engine.queuedOutput == EngineChannel.maximumQueuedOutput)
        #expect(!Self.isReadable(server.engine.wakeDescriptor))

        stall.signal()
        var ready = pollfd(fd: server.engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 30_000) == 1, "woken once the loop took the output")
        #expect(server.engine.queuedOutput == 0)
        #expect(server.engine.mayReadDevices())
    }
}
