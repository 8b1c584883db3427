import CLinux
import Glibc
import PopGestureCore
import PopGestureInput

/// The main loop's descriptors for signals and the watchdog timer. Each either works
/// or throws: a daemon that silently lost its signals could neither stop nor reload,
/// and one that silently lost its timer would be killed by systemd's watchdog.
enum LoopDescriptors {
    /// A signalfd for `signals`, or nil when there are none.
    ///
    /// When it cannot be created the signals are unblocked again in the calling
    /// thread before it throws, so that SIGTERM at least keeps its default action
    /// rather than staying blocked for good.
    /// - Parameter create: `signalfd(2)`; replaceable to test the failure.
    static func signalDescriptor(
        _ signals: [CInt],
        create: (UnsafePointer<sigset_t>) -> CInt = { signalfd(-1, $0, CInt(SFD_NONBLOCK | SFD_CLOEXEC)) }
    ) throws(InputError) -> CInt? {
        guard !signals.isEmpty else { return nil }
        var set = signalSet(signals)
        let fd = create(&set)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            throw InputError(.loopSetup, "cannot create the signalfd: \(reason)")
        }
        return fd
    }

    /// A periodic timerfd firing every `interval`, or nil when `interval` is nil.
    /// Throws when the interval is not positive (a zero `itimerspec` disarms the
    /// timer) or when `timerfd_create`/`timerfd_settime` fail.
    static func timerDescriptor(_ interval: Duration?) throws(InputError) -> CInt? {
        guard let interval else { return nil }
        guard interval > .zero else {
            throw InputError(.loopSetup, "the watchdog interval must be positive, not \(interval)")
        }
        let fd = timerfd_create(CLOCK_MONOTONIC, CInt(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else {
            throw InputError(.loopSetup, "cannot create the watchdog timer: \(String(cString: strerror(errno)))")
        }
        let (seconds, attoseconds) = interval.components
        let period = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var spec = itimerspec(it_interval: period, it_value: period)
        guard timerfd_settime(fd, 0, &spec, nil) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw InputError(.loopSetup, "cannot arm the watchdog timer: \(reason)")
        }
        return fd
    }

    static func signalSet(_ signals: [CInt]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }
}

/// What the main loop does when `poll(2)` fails with anything but `EINTR`: `ENOMEM`
/// may pass, `EINVAL` (more descriptors than `RLIMIT_NOFILE` allows) may not. Rather
/// than spin at full speed on the error, it waits ``backoff`` and tries again, and
/// after ``limit`` failures in a row it gives up, so the daemon stops with an error
/// and systemd can restart it.
struct PollFailures: Equatable {
    /// The wait before polling again after a failure: 100 ms, so a failing poll costs
    /// ten calls a second rather than a core.
    static let backoff: Duration = .milliseconds(100)
    /// Failures in a row after which the loop gives up: 50, i.e. 5 s of failing at
    /// ``backoff``. Longer than any passing memory shortage; shorter than a watchdog.
    static let limit = 50

    enum Action: Equatable {
        /// Wait this long, then poll again.
        case retry(after: Duration)
        /// Give up: the loop stops.
        case stop
    }

    /// Failures since the last successful poll.
    private(set) var consecutive = 0

    mutating func failed() -> Action {
        consecutive += 1
        return consecutive >= Self.limit ? .stop : .retry(after: Self.backoff)
    }

    mutating func succeeded() {
        consecutive = 0
    }
}

/// A one-shot `CLOCK_MONOTONIC` timerfd armed at an absolute time: grab mode's
/// deadlines (a held touch, a clone udev has not announced), the touchpad bridge's next
/// frame. The evdev fds are set to the same clock, so an event's time and a deadline
/// compare directly. Disarmed, it costs nothing: an idle daemon still never wakes.
final class DeadlineTimer {
    let fileDescriptor: CInt
    /// What the timer is armed at; nil when disarmed.
    private(set) var armed: Timestamp?
    /// Whose timer it is, for errors: "grab mode", "the touchpad bridge".
    private let owner: String

    init(for owner: String = "grab mode") throws(InputError) {
        self.owner = owner
        let fd = timerfd_create(CLOCK_MONOTONIC, CInt(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else {
            throw InputError(.loopSetup, "cannot create \(owner)'s timer: \(String(cString: strerror(errno)))")
        }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Arms the timer at `deadline`, or disarms it for nil. A time already past fires
    /// at once (an absolute time of zero would disarm, so it is at least 1 µs).
    func arm(at deadline: Timestamp?) throws(InputError) {
        guard deadline != armed else { return }
        let microseconds = max(1, deadline?.microseconds ?? 0)
        let value = deadline == nil
            ? timespec(tv_sec: 0, tv_nsec: 0)
            : timespec(tv_sec: Int(microseconds / 1_000_000), tv_nsec: Int(microseconds % 1_000_000) * 1000)
        var spec = itimerspec(it_interval: timespec(tv_sec: 0, tv_nsec: 0), it_value: value)
        guard timerfd_settime(fileDescriptor, CInt(TFD_TIMER_ABSTIME), &spec, nil) == 0 else {
            throw InputError(.loopSetup, "cannot arm \(owner)'s timer: \(String(cString: strerror(errno)))")
        }
        armed = deadline
    }

    /// Reads the expiry away (the fd stays readable until then) and disarms.
    func acknowledge() {
        var expirations: UInt64 = 0
        _ = read(fileDescriptor, &expirations, MemoryLayout<UInt64>.size)
        armed = nil
    }
}
