import CSystemd
import NIOConcurrencyHelpers
import PopGestureInput
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Talks to systemd through libsystemd's sd-daemon: readiness, reload, stop,
/// watchdog, status, and the sockets of socket activation.
///
/// Outside systemd (no `NOTIFY_SOCKET`, no `LISTEN_FDS`) every call does nothing,
/// so the daemon needs no special case when run by hand. The environment is read
/// on each call and never unset, so that watchdog pings keep working.
public struct SystemdNotifier: Sendable {
    /// `sd_notify` opens a socket for every message, so a process out of file
    /// descriptors (`EMFILE`) could not feed its watchdog and would be killed for
    /// it. One descriptor is kept in reserve, opened at init, and given up for the
    /// one message that needs it.
    private let spare: SpareDescriptor?

    public init() {
        spare = getenv("NOTIFY_SOCKET") != nil ? SpareDescriptor() : nil
    }

    /// Start-up, or a reload, is complete: `READY=1`. Type=notify units count as
    /// started only from here, and a reload ends here too.
    /// - Returns: true when systemd was told; false outside systemd or on error.
    @discardableResult
    public func ready(status: String? = nil) -> Bool {
        notify("READY=1" + (status.map { "\nSTATUS=\(Self.oneLine($0))" } ?? ""))
    }

    /// Shutdown has begun: `STOPPING=1`.
    @discardableResult
    public func stopping() -> Bool {
        notify("STOPPING=1")
    }

    /// A reload has begun: `RELOADING=1` with `MONOTONIC_USEC`, which systemd 253
    /// and later require to match the reload to its request (252 ignores it).
    /// Send ``ready(status:)`` when the reload is over, whether it worked or not.
    @discardableResult
    public func reloading() -> Bool {
        return notify("RELOADING=1\nMONOTONIC_USEC=\(MonotonicClock.now().microseconds)")
    }

    /// Still alive: `WATCHDOG=1`. Send it every ``watchdogInterval``.
    @discardableResult
    public func watchdog() -> Bool {
        notify("WATCHDOG=1")
    }

    /// How often to call ``watchdog()``: half of `WatchdogSec=`, as sd_watchdog_enabled(3)
    /// recommends. Nil when the watchdog is off or meant for another process.
    public var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds / 2))
    }

    /// The sockets systemd passed (socket activation), in the order of the socket
    /// unit's `Listen…=` lines; empty when started without them. Unsets
    /// `LISTEN_FDS`, `LISTEN_PID` and `LISTEN_FDNAMES`, so that children do not take
    /// them for their own, and marks the descriptors close-on-exec. Call it once.
    public func listenFileDescriptors() -> [CInt] {
        let count = sd_listen_fds(1)
        guard count > 0 else { return [] }
        let start = CInt(SD_LISTEN_FDS_START)
        return Array(start..<start + count)
    }

    private func notify(_ state: String) -> Bool {
        let result = sd_notify(0, state)
        guard result == -EMFILE || result == -ENFILE, let spare else { return result > 0 }
        return spare.whileReleased { sd_notify(0, state) } > 0
    }

    /// A newline would start a new assignment: STATUS must not smuggle in READY=1.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}

/// A descriptor held only so that it can be given back when the process runs out.
private final class SpareDescriptor: Sendable {
    private let descriptor = NIOLockedValueBox<FileDescriptor?>(nil)

    init() {
        descriptor.withLockedValue { $0 = Self.open() }
    }

    /// Closes the spare, runs `body` (which may now open one descriptor), and takes
    /// the spare again. Another thread may win the freed slot; then `body` fails as
    /// it would have, and the next call tries again.
    func whileReleased(_ body: () -> CInt) -> CInt {
        descriptor.withLockedValue { spare in
            try? spare?.close()
            let result = body()
            spare = Self.open()
            return result
        }
    }

    private static func open() -> FileDescriptor? {
        try? FileDescriptor.open("/dev/null", .readOnly, options: .closeOnExec)
    }

    deinit {
        descriptor.withLockedValue { try? $0?.close() }
    }
}
