import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// logind's seats as a file descriptor for the main loop (`sd_login_monitor`, category
/// `seat`): when a seat's active session changes, logind rewrites the seat's file under
/// /run/systemd/seats, the descriptor becomes readable, and the loop asks every client's
/// admission again (``InputSink/admissionMayHaveChanged()``). A session change is just
/// another event of the loop, as in logind's own daemons.
public final class LoginMonitor {
    private let monitor: OpaquePointer
    /// For `poll`, with ``events``.
    public let fileDescriptor: CInt
    /// What to poll for (`POLLIN`, as `sd_login_monitor_get_events` says).
    public let events: Int16

    /// Nil, with the reason, when logind keeps no seats here (no logind, a container):
    /// then nobody's seat can change, and admission is decided at connect only.
    public static func make() -> Result<LoginMonitor, LoginMonitorError> {
        var monitor: OpaquePointer?
        let result = sd_login_monitor_new("seat", &monitor)
        guard result >= 0, let monitor else { return .failure(LoginMonitorError(errno: -result)) }
        let fd = sd_login_monitor_get_fd(monitor)
        let events = sd_login_monitor_get_events(monitor)
        guard fd >= 0, events >= 0 else {
            sd_login_monitor_unref(monitor)
            return .failure(LoginMonitorError(errno: -(fd < 0 ? fd : events)))
        }
        return .success(LoginMonitor(monitor: monitor, fileDescriptor: fd, events: Int16(truncatingIfNeeded: events)))
    }

    private init(monitor: OpaquePointer, fileDescriptor: CInt, events: Int16) {
        self.monitor = monitor
        self.fileDescriptor = fileDescriptor
        self.events = events
    }

    /// Empties the descriptor after `poll` said it is readable; call it before reading
    /// the seats anew, so that a change after the read wakes the loop again.
    public func acknowledge() {
        _ = sd_login_monitor_flush(monitor)
    }

    deinit { sd_login_monitor_unref(monitor) }
}

/// Why there is no ``LoginMonitor``.
public struct LoginMonitorError: Error, CustomStringConvertible {
    public let errno: CInt
    public var description: String { "sd_login_monitor_new: \(String(cString: strerror(errno)))" }
}
