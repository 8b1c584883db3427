import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's limit on open files (`RLIMIT_NOFILE`). Shells and many inits
/// give a soft limit of 1024; the daemon raises its soft limit toward the hard
/// one at start, never past ``wanted``.
public enum FileDescriptorLimit {
    /// 4096, the soft limit the daemon asks for; `LimitNOFILE=4096` in
    /// popgestured.service gives the same. What it uses at most: 128 clients, a
    /// descriptor per input device, the listener, udev's monitor, the signalfd and
    /// timerfd, NIO's epoll, eventfd and timer, stdio and the odd short-lived one
    /// (sd_notify, sd-login's look-ups): a little over 200 with 64 devices. 4096 is
    /// a wide margin and costs nothing until used. Past 1024 is safe because nothing
    /// in the process uses `select(2)`, whose sets stop at 1024: NIO uses epoll, and
    /// libevdev, mtdev, libudev and sd-login are only read from the loops.
    public static let wanted: UInt64 = 4096

    /// The new soft limit, or nil to leave it: raise to `wanted` or to the hard
    /// limit if that is lower, and never lower a limit that is already higher.
    public static func raisedSoftLimit(soft: UInt64, hard: UInt64, wanted: UInt64 = wanted) -> UInt64? {
        let target = min(hard, wanted)
        return soft < target ? target : nil
    }

    /// Raises the soft limit as ``raisedSoftLimit(soft:hard:wanted:)`` decides,
    /// and logs what it did. A failure is logged, never fatal: the daemon then
    /// serves fewer clients.
    /// - Returns: the soft limit in effect afterwards, nil if it could not be read.
    @discardableResult
    public static func raise(logger: Logger) -> UInt64? {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else {
            logger.warning("open files: cannot read RLIMIT_NOFILE: \(String(cString: strerror(errno)))")
            return nil
        }
        let soft = UInt64(limit.rlim_cur), hard = UInt64(limit.rlim_max)
        let hardText = hard == .max ? "unlimited" : "\(hard)"  // RLIM_INFINITY, all ones
        guard let raised = raisedSoftLimit(soft: soft, hard: hard) else {
            logger.info("open files: soft limit \(soft) (hard \(hardText)), kept")
            return soft
        }
        limit.rlim_cur = rlim_t(raised)
        guard setrlimit(resource, &limit) == 0 else {
            logger.warning(
                "open files: cannot raise the soft limit from \(soft) to \(raised) (hard \(hardText)): \(String(cString: strerror(errno)))")
            return soft
        }
        let capped = raised < wanted ? "; the hard limit allows no more" : ""
        logger.info("open files: soft limit raised from \(soft) to \(raised) (hard \(hardText))\(capped)")
        return raised
    }
}
