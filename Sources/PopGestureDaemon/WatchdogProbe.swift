import NIOCore
import Synchronization

/// Tells the watchdog whether the event loop is alive, without ever waiting for it.
///
/// Each watchdog tick asks whether the loop answered the probe sent at the previous
/// tick. Only then may the caller ping systemd (`WATCHDOG=1`), and only then is the
/// next probe sent: at most one is ever queued. A stuck loop answers nothing, so the
/// pings stop and systemd restarts the daemon; a loop that recovers answers, and the
/// pings resume. The thread that ticks (the input thread) is never blocked.
final class WatchdogProbe: Sendable {
    private let eventLoop: any EventLoop
    /// The number of the last probe sent; written only by ``tick()``.
    private let sent = Atomic<UInt64>(0)
    /// The number of the last probe the loop ran.
    private let answered = Atomic<UInt64>(0)

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// One watchdog tick. True when the loop answered the previous probe (or none was
    /// sent yet): ping systemd. Returns at once either way.
    func tick() -> Bool {
        let last = sent.load(ordering: .relaxed)
        guard answered.load(ordering: .acquiring) == last else { return false }
        let next = last &+ 1
        sent.store(next, ordering: .relaxed)
        eventLoop.execute { self.answered.store(next, ordering: .releasing) }
        return true
    }
}
