import Synchronization

/// The bound on the hop from the input thread to the event loop.
///
/// The input thread reads a device, hands the frame to the event loop, and reads on.
/// If the loop stalls, that queue would grow without end: the kernel's buffer never
/// fills, `SYN_DROPPED` never fires, and a swipe from seconds ago could still send
/// `back` once the loop wakes. So the frames handed over and not yet handled are
/// counted, and past ``bound`` the input thread stops reading the devices until the
/// loop has caught up to ``resumeLevel``. Meanwhile the kernel buffers, then drops
/// and says so with `SYN_DROPPED`, which libevdev's resync already handles.
///
/// ``sent()`` and the pause decision belong to the input thread; ``handled()`` may
/// come from any thread (the event loop's).
public final class FramesInFlight: Sendable {
    /// Frames in flight past which the devices are not read: 64. A touchscreen sends
    /// 60–250 frames a second, so this is a quarter of a second or more of touch; a
    /// loop that far behind is stalled, not busy, and a late swipe is worse than one
    /// the kernel drops.
    public static let defaultBound = 64

    /// Reading stops when this many frames are in flight.
    public let bound: Int
    /// Reading resumes when the count falls to this: half of ``bound``, so that a loop
    /// that just keeps up does not stop and restart the reads on every frame.
    public let resumeLevel: Int
    private let count = Atomic<Int>(0)
    private let wake: @Sendable () -> Void

    /// - Parameters:
    ///   - bound: see ``bound``; at least 1.
    ///   - wake: called (on the thread of ``handled()``) when the count falls to
    ///     ``resumeLevel``, to wake a reader that stopped; it must not block.
    public init(bound: Int = FramesInFlight.defaultBound, wake: @escaping @Sendable () -> Void) {
        precondition(bound >= 1, "FramesInFlight needs a bound of at least one frame")
        self.bound = bound
        self.resumeLevel = bound / 2
        self.wake = wake
    }

    /// Frames handed over and not yet handled.
    public var current: Int { count.load(ordering: .acquiring) }

    /// The reader hands a frame over: call it just before the sink's `received`.
    public func sent() {
        count.add(1, ordering: .acquiringAndReleasing)
    }

    /// The sink has handled one frame. Call it exactly once per ``sent()``.
    public func handled() {
        let (_, now) = count.subtract(1, ordering: .acquiringAndReleasing)
        if now == resumeLevel { wake() }
    }
}

/// The input thread's side of ``FramesInFlight``: whether to read the devices now.
struct InputBackpressure {
    let inFlight: FramesInFlight
    /// True from the moment ``FramesInFlight/bound`` frames are in flight until the
    /// count has fallen to ``FramesInFlight/resumeLevel``.
    private(set) var isPaused = false

    init(_ inFlight: FramesInFlight) { self.inFlight = inFlight }

    /// Decides whether to poll and read the devices now. When it says no, a later
    /// ``FramesInFlight/handled()`` wakes the reader once it is time again: the count
    /// is above the resume level, only the loop lowers it, and it wakes on the way down.
    mutating func mayRead() -> Bool {
        let count = inFlight.current
        isPaused = isPaused ? count > inFlight.resumeLevel : count >= inFlight.bound
        return !isPaused
    }
}
