import Logging
@testable import PopGestureDaemon
import PopGestureCore
import PopGestureInput
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The main loop's error paths that used to hide failure (issue 8, defect 9).
@Suite struct LoopErrorPathTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    // MARK: signalfd

    /// SIGURG: ignored by default, so blocking it here for a moment harms nothing.
    @Test func aFailedSignalfdThrowsAndLeavesTheSignalsUnblocked() {
        MainLoop.blockSignals([SIGURG])
        #expect(Self.isBlocked(SIGURG))
        #expect(throws: InputError.self) {
            try LoopDescriptors.signalDescriptor([SIGURG]) { _ in
                errno = EMFILE
                return -1
            }
        }
        #expect(!Self.isBlocked(SIGURG))
    }

    @Test func aSignalfdIsMadeForTheSignalsAndNoneForNoSignals() throws {
        #expect(try LoopDescriptors.signalDescriptor([]) == nil)
        let fd = try #require(try LoopDescriptors.signalDescriptor([SIGURG]))
        #expect(fd >= 0)
        close(fd)
    }

    // MARK: timerfd

    @Test(arguments: [Duration.zero, .seconds(-1)])
    func aWatchdogIntervalThatIsNotPositiveIsRefused(_ interval: Duration) {
        // A zero itimerspec would disarm the timer: the watchdog would never be fed.
        #expect(throws: InputError.self) { try LoopDescriptors.timerDescriptor(interval) }
    }

    @Test func theWatchdogTimerFires() throws {
        #expect(try LoopDescriptors.timerDescriptor(nil) == nil)
        let fd = try #require(try LoopDescriptors.timerDescriptor(.milliseconds(1)))
        defer { close(fd) }
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 30_000) == 1)
    }

    @Test func theDeadlineTimerFiresAtItsDeadlineAndNotWhenDisarmed() throws {
        let timer = try DeadlineTimer()
        var ready = pollfd(fd: timer.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 0) == 0, "a new timer is disarmed")

        // Armed 20 ms ahead: not yet, then at the deadline.
        let deadline = MonotonicClock.now() + .milliseconds(20)
        try timer.arm(at: deadline)
        #expect(timer.armed == deadline)
        #expect(poll(&ready, 1, 0) == 0)
        #expect(poll(&ready, 1, 30_000) == 1)
        #expect(MonotonicClock.now() >= deadline)
        timer.acknowledge()
        #expect(timer.armed == nil)
        #expect(poll(&ready, 1, 0) == 0, "acknowledged")

        // A deadline already past fires at once; disarming before it would stops it.
        try timer.arm(at: MonotonicClock.now() + .milliseconds(-5))
        #expect(poll(&ready, 1, 30_000) == 1)
        timer.acknowledge()
        try timer.arm(at: MonotonicClock.now() + .milliseconds(30))
        try timer.arm(at: nil)
        #expect(poll(&ready, 1, 100) == 0, "disarmed")
    }

    // MARK: poll

    @Test func pollFailuresBackOffThenGiveUp() {
        var failures = PollFailures()
        for _ in 1..<PollFailures.limit {
            #expect(failures.failed() == .retry(after: PollFailures.backoff))
        }
        #expect(failures.failed() == .stop)
    }

    @Test func aSuccessfulPollStartsTheCountAfresh() {
        var failures = PollFailures()
        for _ in 1..<PollFailures.limit { _ = failures.failed() }
        failures.succeeded()
        #expect(failures.consecutive == 0)
        #expect(failures.failed() == .retry(after: PollFailures.backoff))
    }

    // MARK: socket activation

    @Test func socketsAfterTheFirstAreClosed() throws {
        let pipes = try (0..<3).map { _ in try Pipe() }
        defer { pipes.forEach { $0.close() } }
        let kept = Daemon.keepingFirst(of: pipes.map(\.read), logger: Self.quiet)
        #expect(kept == pipes[0].read)
        #expect(pipes[0].readEndIsOpen)
        #expect(!pipes[1].readEndIsOpen)
        #expect(!pipes[2].readEndIsOpen)
        #expect(Daemon.keepingFirst(of: [], logger: Self.quiet) == nil)
    }

    // MARK: udev change

    static let touchscreen = InputDeviceInfo(
        devnode: "/dev/input/event5", syspath: "/sys/devices/x/input/input9/event5", name: "ELAN",
        kind: .touchscreen, calibration: "0 1 0 -1 0 1", size: PhysicalSize(width: 217, height: 136))

    @Test func aChangeOfNothingTheDaemonUsesKeepsTheDeviceOpen() {
        var renamed = Self.touchscreen
        renamed.name = "ELAN 2"
        renamed.syspath = "/sys/devices/y/input/input9/event5"
        #expect(!Self.touchscreen.needsReopen(becoming: Self.touchscreen))
        #expect(!Self.touchscreen.needsReopen(becoming: renamed))
        var respelled = Self.touchscreen
        respelled.calibration = "0.0 1.0 0 -1 0.0 1"
        #expect(!Self.touchscreen.needsReopen(becoming: respelled))
        var unset = Self.touchscreen, identity = Self.touchscreen
        unset.calibration = nil
        identity.calibration = "1 0 0 0 1 0"
        #expect(!unset.needsReopen(becoming: identity))
    }

    @Test func aChangeOfKindCalibrationSizeOrOutputReopensIt() {
        var touchpad = Self.touchscreen
        touchpad.kind = .touchpad
        var recalibrated = Self.touchscreen
        recalibrated.calibration = "1 0 0 0 1 0"
        var resized = Self.touchscreen
        resized.size = PhysicalSize(width: 136, height: 217)
        var sizeless = Self.touchscreen
        sizeless.size = nil
        // The `screen` key may name the output: a device moved to another must be decided again.
        var moved = Self.touchscreen
        moved.output = "HDMI-A-1"
        for changed in [touchpad, recalibrated, resized, sizeless, moved] {
            #expect(Self.touchscreen.needsReopen(becoming: changed))
        }
    }

    /// The next device the kernel puts on the same node: a new `inputN`, so a new syspath.
    static var successor: InputDeviceInfo {
        var next = touchscreen
        next.syspath = "/sys/devices/x/input/input10/event5"
        return next
    }

    @Test func aStaleRemovalLeavesTheNewerDeviceOnTheSameNodeOpen() {
        let stale = UdevChange.removed(devnode: Self.touchscreen.devnode, syspath: Self.touchscreen.syspath)
        #expect(stale.step(open: [Self.successor]) == .ignore)
        #expect(stale.step(open: [Self.successor, Self.touchscreen]) == .close(index: 1))
        #expect(UdevChange.removed(devnode: "/dev/input/event5", syspath: Self.successor.syspath)
            .step(open: [Self.touchscreen, Self.successor]) == .close(index: 1))
    }

    @Test func aDeviceIsKnownByItsSyspathNotItsNode() {
        // Seen by the first enumeration and again by the monitor: nothing new.
        #expect(UdevChange.added(Self.touchscreen).step(open: [Self.touchscreen]) == .ignore)
        // A newer device on a node still held by one whose removal was missed: opened.
        #expect(UdevChange.added(Self.successor).step(open: [Self.touchscreen]) == .open(Self.successor))
        #expect(UdevChange.changed(Self.successor).step(open: [Self.touchscreen]) == .open(Self.successor))
        var renamed = Self.touchscreen
        renamed.name = "ELAN 2"
        #expect(UdevChange.changed(renamed).step(open: [Self.successor, Self.touchscreen])
            == .update(index: 1, renamed))
        var recalibrated = Self.touchscreen
        recalibrated.calibration = "1 0 0 0 1 0"
        #expect(UdevChange.changed(recalibrated).step(open: [Self.touchscreen]) == .reopen(index: 0, recalibrated))
    }

    // MARK: the mailbox

    @Test func aCommandReachesTheLoopThroughTheMailbox() throws {
        let mailbox = try LoopMailbox()
        mailbox.send(.stop)
        var ready = pollfd(fd: mailbox.readEnd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 0) == 1)
        let commands = mailbox.takeCommands()
        #expect(commands.count == 1)
        if case .stop = commands.first {
        } else {
            Issue.record("expected a stop, got \(commands)")
        }
        mailbox.drainWakes()
        #expect(poll(&ready, 1, 0) == 0)
        #expect(mailbox.takeCommands().isEmpty)
    }

    private static func isBlocked(_ signal: CInt) -> Bool {
        var current = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &current)
        return sigismember(&current, signal) == 1
    }
}

/// A pipe whose read end stands in for an inherited socket. Whether the read end is
/// still open is told by its inode, so a number reused by another test does not fool it.
private struct Pipe {
    let read: CInt
    let write: CInt
    let inode: UInt

    init() throws {
        var ends: [CInt] = [-1, -1]
        guard pipe(&ends) == 0 else { throw InputError(.loopSetup, "pipe failed") }
        read = ends[0]
        write = ends[1]
        var status = stat()
        fstat(read, &status)
        inode = UInt(status.st_ino)
    }

    var readEndIsOpen: Bool {
        var status = stat()
        return fstat(read, &status) == 0 && UInt(status.st_ino) == inode
    }

    func close() {
        if readEndIsOpen { Glibc.close(read) }
        Glibc.close(write)
    }
}
