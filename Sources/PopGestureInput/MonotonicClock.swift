import Glibc
import PopGestureCore

/// `CLOCK_MONOTONIC`, the clock of live evdev events (``EvdevDevice`` asks the kernel
/// for it), of the daemon's timers and of systemd's `MONOTONIC_USEC`: the one place the
/// daemon reads it. The engine reads no clock; its time comes in with each event.
public enum MonotonicClock {
    /// Now, in microseconds.
    @Sendable
    public static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Timestamp(seconds: Int64(time.tv_sec), microseconds: Int64(time.tv_nsec) / 1000)
    }
}
