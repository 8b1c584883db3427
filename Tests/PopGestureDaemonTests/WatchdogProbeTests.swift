import Dispatch
import NIOCore
import NIOPosix
@testable import PopGestureDaemon
import Testing

/// The watchdog pings only while the event loop answers, and never waits for it
/// (issue 8, defect 8). The time limit catches a tick that blocks.
@Suite struct WatchdogProbeTests {
    @Test(.timeLimit(.minutes(1))) func aStalledLoopStopsThePingsWithoutBlockingAndARecoveredOneResumesThem() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let probe = WatchdogProbe(eventLoop: loop)

        #expect(probe.tick())  // nothing asked yet: the loop answered start-up
        try loop.submit {}.wait()
        #expect(probe.tick())  // the previous probe was answered
        try loop.submit {}.wait()

        let stall = DispatchSemaphore(value: 0)
        loop.execute { stall.wait() }
        #expect(probe.tick())  // the last probe was answered before the stall
        for _ in 0..<5 {
            #expect(!probe.tick())  // returns at once, and no WATCHDOG=1
        }

        stall.signal()
        try loop.submit {}.wait()  // the queued probe has run
        #expect(probe.tick())
        try loop.submit {}.wait()
        #expect(probe.tick())
    }
}
