import Logging
import PopGestureCore
import PopGestureInput

/// Grab mode for one touchscreen, on the input thread: its uinput clone, the grab of
/// the real device, and the ``TouchRouter`` that decides, frame by frame, what the
/// clone gets. It decides nothing itself: the router does, from the engine's verdict;
/// this carries the router's actions out on the clone (docs/ARCHITECTURE.md, "Grab mode").
///
/// ```
/// waitingForUdev ──udev announced the clone (or 10 s)──▶ waitingForLift ──no finger down──▶ grabbed
///                                                          ▲                                  │
///                                                          └──── a finger was down at the grab ┘ (ungrabbed at once)
/// ```
///
/// Until it is grabbed the compositor reads the real device and the clone stays
/// silent, so no touch is seen twice.
final class TouchGrab {
    enum Stage: Equatable, CustomStringConvertible {
        /// The clone exists; udev has not processed it yet, so a compositor may not
        /// have it: grabbing now would take the touches from everyone. Until `deadline`.
        case waitingForUdev(deadline: Timestamp)
        /// Grabbed at the next moment no finger is down (a touch must end where it began).
        case waitingForLift
        case grabbed

        var description: String {
            switch self {
            case .waitingForUdev(let deadline): "waiting for udev to announce the clone (until \(deadline))"
            case .waitingForLift: "waiting for every finger to lift"
            case .grabbed: "grabbed"
            }
        }
    }

    /// How long to wait for udev to announce the clone before grabbing anyway: 10 s.
    /// Without udevd (a container, a rescue shell) the announcement never comes.
    static let udevWait: Duration = .seconds(10)

    let clone: TouchClone
    private(set) var stage: Stage
    private let description: DeviceDescription
    private var router: TouchRouter?
    /// The events of the frame being read, until its `SYN_REPORT`: the router and the
    /// engine's verdict work on whole frames.
    private var frame: [InputEvent] = []
    private let logger: Logger

    /// Makes the clone of `device` (protocol B only: see ``supports(_:)``). Throws
    /// when uinput refuses (no module, no permission), with the fix in the message.
    init(device: EvdevDevice, now: Timestamp, logger: Logger) throws(InputError) {
        clone = try TouchClone(cloning: device)
        description = device.description
        stage = .waitingForUdev(deadline: now + Self.udevWait)
        self.logger = logger
        frame.reserveCapacity(64)
    }

    /// Whether grab mode can take this device: a protocol B touchscreen. Protocol A
    /// and single-touch screens stay read-only (their clone would need converted frames).
    static func supports(_ description: DeviceDescription) -> Bool {
        description.touchProtocol == .slots && description.has(axis: ABS.mtTrackingID)
    }

    /// When the loop must call ``expire(device:at:)`` at the latest: a held touch's
    /// deadline, or the end of the wait for udev. Nil when nothing waits.
    var deadline: Timestamp? {
        switch stage {
        case .waitingForUdev(let deadline): deadline
        case .waitingForLift: nil
        case .grabbed: router?.holdDeadline
        }
    }

    var isGrabbed: Bool { stage == .grabbed }

    // MARK: - Grabbing

    /// Grabs `device` when the stage allows it: udev has announced the clone (or the
    /// wait is over) and no finger is down. Call it after a read that ended on a frame,
    /// when the udev monitor was readable, and at ``deadline``.
    func grabIfReady(_ device: EvdevDevice, monitor: UdevInputMonitor, now: Timestamp) throws(InputError) {
        if case .waitingForUdev(let deadline) = stage {
            if let node = clone.devnode, monitor.hasProcessed(devnode: node) {
                move(to: .waitingForLift, "udev announced \(node)")
            } else if now >= deadline {
                logger.warning("\(device.path): udev has not announced the clone \(clone.devnode ?? "(no node)") after \(Self.udevWait); grabbing anyway")
                move(to: .waitingForLift, "udev wait over")
            } else {
                return
            }
        }
        guard stage == .waitingForLift, frame.isEmpty else { return }
        try device.grab()
        // A finger that landed before the grab took would end for nobody: give it back.
        if try device.kernelContactsDown() {
            try device.ungrab()
            logger.debug("\(device.path): a finger is down; grab again once it lifts")
            return
        }
        let slot = device.currentSlot
        clone.followSource(slot: slot)
        do {
            try clone.copyState(of: device)
        } catch {
            try? device.ungrab()
            throw error
        }
        router = TouchRouter(device: description, currentSlot: Int(slot), logger: logger)
        move(to: .grabbed, "the compositor reads \(clone.devnode ?? clone.name) now")
        logger.info("\(device.path): grabbed; the compositor reads the clone \(clone.devnode ?? clone.name)")
    }

    // MARK: - Frames

    /// Events of one read of the grabbed device, in order. Each frame goes to the
    /// engine (`engine`), then to the router with the engine's verdict for it
    /// (`verdict`), and the router's action is carried out on the clone.
    /// Throws when the clone cannot be written; the grab is then unusable.
    func route(
        _ events: [InputEvent], engine: ([InputEvent]) -> Void, verdict: () -> TouchRouter.Verdict
    ) throws(InputError) {
        for event in events {
            frame.append(event)
            guard event.isFrameEnd else { continue }
            engine(frame)
            clone.observe(frame)
            let action = router!.handle(frame: frame, verdict: verdict())  // set whenever grabbed
            try carryOut(action, frame: frame)
            frame.removeAll(keepingCapacity: true)
        }
    }

    /// The deadline passed with no frame since: a held touch is released, or the
    /// wait for udev is over.
    func expire(_ device: EvdevDevice, monitor: UdevInputMonitor, at now: Timestamp) throws(InputError) {
        switch stage {
        case .grabbed:
            guard var router else { return }
            let action = router.expire(at: now)
            self.router = router
            try carryOut(action, frame: [])
        case .waitingForUdev, .waitingForLift:
            try grabIfReady(device, monitor: monitor, now: now)
        }
    }

    /// The device is going (unplug, stop, reload) or grab mode fails: every contact
    /// the clone has down ends as a cancel, never a lift, and the grab is released
    /// (`device` nil: it is gone, and so is its grab). The clone goes when this goes.
    func release(_ device: EvdevDevice?, at time: Timestamp) {
        if var router {
            let action = router.cancelAll(at: time)
            self.router = router
            do {
                try carryOut(action, frame: [])
            } catch {
                logger.warning("\(clone.name): cancelling its touches failed: \(error.message)")
            }
        }
        do {
            try clone.releaseAll(at: time)
        } catch {
            logger.warning("\(clone.name): cancelling its touches failed: \(error.message)")
        }
        if let device {
            do {
                try device.ungrab()
            } catch {
                logger.warning("\(error.message)")
            }
        }
        router = nil
        frame.removeAll()
    }

    private func carryOut(_ action: TouchRouter.Action, frame: [InputEvent]) throws(InputError) {
        switch action {
        case .nothing:
            break
        case .forward:
            try clone.forward(frame)
        case .forwardExcept, .release:
            try forwardOutput()
        case .cancel(let slots):
            let time = frame.last?.time ?? router?.output.last?.time
            for slot in slots { try clone.cancel(slot: Int32(slot), at: time) }
            try forwardOutput()
        }
    }

    /// The router's ``TouchRouter/output``, a frame at a time (the clone takes at most
    /// ``TouchClone/maximumForwardEvents`` per write; a release may hold more).
    private func forwardOutput() throws(InputError) {
        guard let output = router?.output, !output.isEmpty else { return }
        var start = output.startIndex
        for index in output.indices where output[index].isFrameEnd {
            try clone.forward(output[start...index])
            start = index + 1
        }
    }

    private func move(to next: Stage, _ why: String) {
        logger.debug("\(clone.name): \(stage) → \(next): \(why)")
        stage = next
    }
}
