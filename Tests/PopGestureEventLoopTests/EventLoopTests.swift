import Glibc
import PopGestureCore
import PopGestureEventLoop
import PopGestureInput  // MonotonicClock: the clock itself
import Testing

/// The sd-event wrapper on real descriptors: the order sources are dispatched in, and
/// what runs after each dispatch.
@Suite struct EventLoopTests {
    /// A pipe whose read end stays readable: one byte written, never read.
    final class ReadablePipe {
        let ends: [CInt]
        init() throws {
            var ends: [CInt] = [0, 0]
            try #require(pipe(&ends) == 0)
            self.ends = ends
            var byte: UInt8 = 1
            try #require(write(ends[1], &byte, 1) == 1)
        }
        var readEnd: CInt { ends[0] }
        deinit { ends.forEach { close($0) } }
    }

    @Test("a device's descriptor is dispatched before a client's when both are ready")
    func priorityOrder() throws {
        let loop = try SDEventLoop()
        let client = try ReadablePipe(), device = try ReadablePipe()
        var order: [String] = []
        // The client's source is registered first: the priority, not the order, decides.
        let clientSource = try loop.watch(client.readEnd, priority: .clients) { _ in order.append("client") }
        let deviceSource = try loop.watch(device.readEnd, priority: .devices) { _ in order.append("device") }
        defer { clientSource.cancel(); deviceSource.cancel() }
        for _ in 0..<3 { try loop.runOnce(timeout: .zero) }
        #expect(order == ["device", "device", "device"], "a device that stays ready starves the clients, as it should")
        deviceSource.enable(false)
        try loop.runOnce(timeout: .zero)
        #expect(order.last == "client")
    }

    @Test("a device that stays ready past its rate limit lets a lower source run")
    func rateLimitBoundsAReadySource() throws {
        let loop = try SDEventLoop()
        let flood = try ReadablePipe(), watchdog = try ReadablePipe()
        var turns = (flood: 0, watchdog: 0)
        let floodSource = try loop.watch(flood.readEnd, priority: .devices) { _ in turns.flood += 1 }
        let watchdogSource = try loop.watch(watchdog.readEnd, priority: .session) { _ in turns.watchdog += 1 }
        defer { floodSource.cancel(); watchdogSource.cancel() }
        floodSource.limitRate(interval: .seconds(10), burst: 5)
        for _ in 0..<5 { try loop.runOnce(timeout: .zero) }
        #expect(turns == (5, 0), "its five turns of the interval first: it comes before")
        // The sixth dispatch finds it over its limit (sd-event turns it off then).
        for _ in 0..<4 { try loop.runOnce(timeout: .zero) }
        #expect(turns.flood == 5, "no more in this interval")
        #expect(turns.watchdog >= 2, "the source below it runs")
    }

    @Test("a while-on source that stays on takes turns with a ready descriptor of its priority")
    func whileOnTakesTurns() throws {
        let loop = try SDEventLoop()
        let client = try ReadablePipe()
        var turns = (client: 0, leftovers: 0)
        let clientSource = try loop.watch(client.readEnd, priority: .clients) { _ in turns.client += 1 }
        let leftovers = try loop.whileOn(priority: .clients) { turns.leftovers += 1 }
        defer { clientSource.cancel(); leftovers.cancel() }
        try loop.runOnce(timeout: .zero)
        #expect(turns == (1, 0), "created off")
        leftovers.enable(true)
        for _ in 0..<10 { try loop.runOnce(timeout: .zero) }
        // A defer source would take all ten: sd-event keeps it pending from its creation on.
        #expect(turns.client >= 5 && turns.leftovers >= 5, "turns \(turns)")
        leftovers.enable(false)
        let before = turns.leftovers
        for _ in 0..<3 { try loop.runOnce(timeout: .zero) }
        #expect(turns.leftovers == before)
    }

    @Test("hooks run once after each dispatch, not after a wait that dispatched nothing, until cancelled")
    func afterEachDispatch() throws {
        let loop = try SDEventLoop()
        var log: [String] = []
        let hook = loop.afterEachDispatch { log.append("flush") }
        #expect(try !loop.runOnce(timeout: .milliseconds(1)))
        #expect(log.isEmpty)
        let ready = try ReadablePipe()
        let source = try loop.watch(ready.readEnd, priority: .devices) { _ in log.append("frame") }
        defer { source.cancel() }
        #expect(try loop.runOnce(timeout: .zero))
        #expect(log == ["frame", "flush"])
        hook.cancel()
        try loop.runOnce(timeout: .zero)
        #expect(log == ["frame", "flush", "frame"])
    }

    @Test("a timer fires once at its deadline, again only when armed again; disarmed, never")
    func timers() throws {
        let loop = try SDEventLoop()
        var fired = 0
        let timer = try loop.timer(priority: .deadlines) { fired += 1 }
        defer { timer.cancel() }
        // Before the first iteration the loop's time is the clock's, not zero.
        #expect(abs(loop.now() - MonotonicClock.now()) < 1_000_000, "within a second (microseconds)")
        #expect(try !loop.runOnce(timeout: .milliseconds(5)), "created disarmed")
        timer.arm(at: loop.now())
        #expect(try loop.runOnce(timeout: .milliseconds(100)))
        #expect(fired == 1)
        #expect(try !loop.runOnce(timeout: .milliseconds(5)), "one-shot")
        timer.arm(at: loop.now() + .milliseconds(1))
        timer.arm(at: nil)
        #expect(try !loop.runOnce(timeout: .milliseconds(5)))
        #expect(fired == 1)
        // Precise, not sd-event's default accuracy (250 ms late at worst, coalesced).
        timer.arm(at: MonotonicClock.now() + .milliseconds(2))
        #expect(try loop.runOnce(timeout: .milliseconds(150)), "fired within 150 ms of a 2 ms deadline")
        #expect(fired == 2)
    }
}

