/// When grab mode may grab one touchscreen (docs/ARCHITECTURE.md, "Grab mode"): the
/// stages before the grab, decided from what the daemon already has. Pure: time is
/// passed in, the device's events come in as they are read, and the caller does the
/// grab (``TouchGrab`` in the daemon) and logs each ``Transition`` at debug.
///
/// ```
/// waitingForUdev ──udev announced the clone (or 10 s)──▶ waitingForReader ──something opened the clone──▶ waitingForLift
///                                                          ▲                                                 │ a frame ended
///                                                          └──────────── the last reader closed it ──────────┤ with no contact down
///                                                                                                            ▼
///                                                                                                         grabbed
/// ```
///
/// - **waitingForUdev**: udev has not processed the clone, so no compositor knows it.
///   Grabbing now would take the touches from everyone. Over after ``udevWait`` even
///   without udev (a container, a rescue shell).
/// - **waitingForReader**: nothing has the clone open. A compositor opens it when udev
///   announces it; a program that reads the real node itself (lisgd on Sxmo) never
///   does, and a grab would leave it deaf. So no grab at all until something opens the
///   clone: the real device stays readable by everyone, and the daemon reads it as in
///   `grab = off`. After ``readerNotice`` this is reported once (``Expiry/noReader``).
///   Skipped when the opens cannot be watched (`watchesReaders` false: then the grab
///   follows udev's announcement, as before).
/// - **waitingForLift**: something reads the clone; the grab waits for the end of a
///   frame after which no contact is down, known from the frames read
///   (``observe(_:)``) and the device's state at open. It is never attempted while a
///   finger rests, so there is no grab and release per frame.
/// - **grabbed**: the compositor reads the clone. Final: the gate's work is done.
///
/// A finger can land between the last frame read and the grab; the caller asks the
/// kernel right after grabbing and, if so, gives the grab back
/// (``fingerFoundAtGrab()``): the frames then pending tell the gate of the finger,
/// and the next try waits for its lift.
public struct GrabGate: Sendable {
    public enum Stage: Hashable, Sendable, CustomStringConvertible {
        case waitingForUdev(deadline: Timestamp)
        /// Since when nothing has had the clone open.
        case waitingForReader(since: Timestamp)
        case waitingForLift
        case grabbed

        /// The stage's name in `status` (docs/PROTOCOL.md): `waiting-for-udev`,
        /// `waiting-for-reader`, `waiting-for-lift`, `grabbed`.
        public var name: String {
            switch self {
            case .waitingForUdev: "waiting-for-udev"
            case .waitingForReader: "waiting-for-reader"
            case .waitingForLift: "waiting-for-lift"
            case .grabbed: "grabbed"
            }
        }

        public var description: String {
            switch self {
            case .waitingForUdev(let deadline): "waiting for udev to announce the clone (until \(deadline))"
            case .waitingForReader(let since): "waiting for something to open the clone (since \(since))"
            case .waitingForLift: "waiting for every finger to lift"
            case .grabbed: "grabbed"
            }
        }
    }

    /// A change of stage, for the log.
    public struct Transition: Hashable, Sendable, CustomStringConvertible {
        public var from: Stage
        public var to: Stage
        public var why: String
        public var description: String { "\(from) → \(to): \(why)" }
    }

    /// What ``expire(at:)`` did.
    public enum Expiry: Hashable, Sendable {
        case nothing
        case moved(Transition)
        /// Nothing has opened the clone for ``readerNotice``: say so, once.
        case noReader
    }

    /// How long to wait for udev to announce the clone before going on without it: 10 s.
    public static let udevWait: Duration = .seconds(10)
    /// How long nothing may read the clone before it is reported (once): 10 s.
    public static let readerNotice: Duration = .seconds(10)
    /// The most slots followed; the kernel sends no slot past the device's own count.
    public static let maximumSlots = 256

    public private(set) var stage: Stage
    /// Whether opens of the clone are watched; without, `waitingForReader` is skipped.
    public let watchesReaders: Bool
    /// Opens of the clone minus its closes, as reported (never below 0).
    public private(set) var readers = 0
    /// Whether ``Expiry/noReader`` was given already.
    public private(set) var reportedNoReader = false
    /// Contact down, by slot, from the state at open and the frames since.
    private var down: [Bool]
    private var slot: Int
    /// An event of a frame has been seen, not yet its `SYN_REPORT`.
    private var inFrame = false
    /// The kernel had a contact down at the last grab the frames had not shown yet.
    private var kernelHadContact = false

    /// A gate for a clone made at `now`, of a device whose kernel state at open was
    /// `slots` (each slot's tracking id, -1 when empty) and `currentSlot`.
    public init(trackingIDs slots: [Int32], currentSlot: Int, now: Timestamp, watchesReaders: Bool) {
        down = slots.prefix(Self.maximumSlots).map { $0 >= 0 }
        slot = currentSlot
        stage = .waitingForUdev(deadline: now + Self.udevWait)
        self.watchesReaders = watchesReaders
    }

    /// The gate for a device with this state at open.
    public init(stateAtOpen: DeviceStateAtOpen, now: Timestamp, watchesReaders: Bool) {
        self.init(
            trackingIDs: stateAtOpen.slots.map(\.trackingID), currentSlot: stateAtOpen.currentSlot, now: now,
            watchesReaders: watchesReaders)
    }

    /// Whether a contact is down, after the events seen so far.
    public var contactDown: Bool { down.contains(true) }

    /// Whether to grab now: something reads the clone, the last frame has ended and no
    /// contact is down after it.
    public var mayGrab: Bool { stage == .waitingForLift && !inFrame && !kernelHadContact && !contactDown }

    /// When ``expire(at:)`` must be called at the latest; nil when nothing waits on time.
    public var deadline: Timestamp? {
        switch stage {
        case .waitingForUdev(let deadline): deadline
        case .waitingForReader(let since): reportedNoReader ? nil : since + Self.readerNotice
        case .waitingForLift, .grabbed: nil
        }
    }

    // MARK: - Inputs

    /// One event of the real device, as read (before the grab; after it the router
    /// follows the frames). `SYN_DROPPED` is followed by libevdev's resync, which
    /// brings the slots up to date; the frame is open until its `SYN_REPORT`.
    public mutating func observe(_ event: InputEvent) {
        switch (event.type, event.code) {
        case (EV.syn, SYN.report):
            inFrame = false
            kernelHadContact = false
            return
        case (EV.abs, ABS.mtSlot):
            slot = Int(event.value)
        case (EV.abs, ABS.mtTrackingID):
            if slot >= 0 && slot < Self.maximumSlots {
                if slot >= down.count { down.append(contentsOf: repeatElement(false, count: slot + 1 - down.count)) }
                down[slot] = event.value >= 0
            }
        default:
            break
        }
        inFrame = true
    }

    /// udev has processed the clone: a compositor has been told of it.
    public mutating func udevAnnounced(at now: Timestamp) -> Transition? {
        guard case .waitingForUdev = stage else { return nil }
        return afterUdev(now: now, "udev announced the clone")
    }

    /// The clone was opened `opened` times and closed `closed` times since the last
    /// call (all of one read of the watch: an open closed again within it, as udev's
    /// own workers do while processing the node, is no reader).
    public mutating func readersChanged(opened: Int, closed: Int, at now: Timestamp) -> Transition? {
        readers = max(0, readers + opened - closed)
        switch stage {
        case .waitingForReader where readers > 0:
            return move(to: .waitingForLift, "something opened the clone (\(readers) reader\(readers == 1 ? "" : "s"))")
        case .waitingForLift where readers == 0 && watchesReaders:
            return move(to: .waitingForReader(since: now), "the clone's last reader closed it before the grab")
        default:
            return nil
        }
    }

    /// Time passed: the end of the wait for udev, or of the wait for a reader.
    public mutating func expire(at now: Timestamp) -> Expiry {
        switch stage {
        case .waitingForUdev(let deadline) where now >= deadline:
            return afterUdev(now: now, "udev did not announce the clone within \(Self.udevWait)").map(Expiry.moved) ?? .nothing
        case .waitingForReader(let since) where !reportedNoReader && now >= since + Self.readerNotice:
            reportedNoReader = true
            return .noReader
        default:
            return .nothing
        }
    }

    /// The caller grabbed the device, and the kernel had no contact down.
    public mutating func grabbed() -> Transition? {
        guard stage == .waitingForLift else { return nil }
        return move(to: .grabbed, "a frame ended with no contact down")
    }

    /// The caller grabbed the device but the kernel had a contact down that no frame
    /// read had shown yet (it landed just before the grab), and gave the grab back: no
    /// further try until a frame has been read.
    public mutating func fingerFoundAtGrab() {
        kernelHadContact = true
    }

    private mutating func afterUdev(now: Timestamp, _ why: String) -> Transition? {
        if !watchesReaders { return move(to: .waitingForLift, "\(why); who reads the clone is not watched") }
        if readers > 0 { return move(to: .waitingForLift, "\(why), and something has it open") }
        return move(to: .waitingForReader(since: now), why)
    }

    private mutating func move(to next: Stage, _ why: String) -> Transition {
        let transition = Transition(from: stage, to: next, why: why)
        stage = next
        return transition
    }
}
