import Logging
import PopGestureCore
import PopGestureInput

/// Grab mode for one touchscreen, on the input thread: its uinput clone, the grab of
/// the real device, and the ``TouchRouter`` that decides, frame by frame, what the
/// clone gets. It decides nothing itself: ``GrabGate`` decides when to grab, the
/// router what the clone gets, from the engine's verdict; this carries their
/// decisions out (docs/ARCHITECTURE.md, "Grab mode").
///
/// ```
/// waitingForUdev ──announced (or 10 s)──▶ waitingForReader ──the clone opened──▶ waitingForLift ──a frame ends, none down──▶ grabbed
/// ```
///
/// Until it is grabbed the compositor reads the real device and the clone stays
/// silent, so no touch is seen twice. Nothing ever opening the clone means no grab at
/// all: the real device stays readable by everyone (logged once, after 10 s).
final class TouchGrab {
    let clone: TouchClone
    private(set) var gate: GrabGate
    private let description: DeviceDescription
    private let path: String
    private var router: TouchRouter?
    /// The events of the frame being read, until its `SYN_REPORT`: the router and the
    /// engine's verdict work on whole frames.
    private var frame: [InputEvent] = []
    private let logger: Logger

    /// Makes the clone of `device` (protocol B only: see ``supports(_:)``). Throws
    /// when uinput refuses (no module, no permission), with the fix in the message.
    /// `watchesReaders`: the loop watches who opens the clone (``CloneReaderWatch``)
    /// and reports it through ``readersChanged(opened:closed:at:)``.
    init(device: EvdevDevice, now: Timestamp, watchesReaders: Bool, logger: Logger) throws(InputError) {
        clone = try TouchClone(cloning: device)
        description = device.description
        path = device.path
        gate = GrabGate(stateAtOpen: device.stateAtOpen, now: now, watchesReaders: watchesReaders)
        self.logger = logger
        frame.reserveCapacity(64)
    }

    /// Whether grab mode can take this device: a protocol B touchscreen. Protocol A
    /// and single-touch screens stay read-only (their clone would need converted frames).
    static func supports(_ description: DeviceDescription) -> Bool {
        description.touchProtocol == .slots && description.has(axis: ABS.mtTrackingID)
    }

    var stage: GrabGate.Stage { gate.stage }

    /// When the loop must call ``expire(_:at:)`` at the latest: a held touch's
    /// deadline, the end of the wait for udev, or the notice that nothing reads the
    /// clone. Nil when nothing waits.
    var deadline: Timestamp? {
        gate.stage == .grabbed ? router?.holdDeadline : gate.deadline
    }

    var isGrabbed: Bool { gate.stage == .grabbed }

    // MARK: - Grabbing

    /// Events read from the device before the grab (the engine has them already):
    /// the gate follows the contacts down.
    func observe(_ events: [InputEvent]) {
        for event in events { gate.observe(event) }
    }

    /// Whether udev has processed the clone yet (the monitor was readable).
    func checkUdev(_ monitor: UdevInputMonitor, now: Timestamp) {
        guard case .waitingForUdev = gate.stage, let node = clone.devnode, monitor.hasProcessed(devnode: node) else {
            return
        }
        log(gate.udevAnnounced(at: now))
    }

    /// The clone's node was opened and closed so many times in one read of the watch.
    func readersChanged(opened: Int, closed: Int, at now: Timestamp) {
        log(gate.readersChanged(opened: opened, closed: closed, at: now))
    }

    /// Grabs `device` when the gate allows it (``GrabGate/mayGrab``): call it after a
    /// read, after news of udev or of the clone's readers, and at ``deadline``.
    func grabIfReady(_ device: EvdevDevice) throws(InputError) {
        guard gate.mayGrab, frame.isEmpty else { return }
        logger.debug("\(path): grabbing (EVIOCGRAB)")
        try device.grab()
        // A finger that landed after the last frame read, before the grab took, would
        // end for nobody: give it back, and wait for the frames that show it.
        if try device.kernelContactsDown() {
            try device.ungrab()
            gate.fingerFoundAtGrab()
            logger.debug("\(path): a finger landed just before the grab; released, waiting for its lift")
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
        log(gate.grabbed())
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

    /// The deadline passed with no frame since: a held touch is released, the wait
    /// for udev is over, or nothing has opened the clone for a while (said once).
    func expire(_ device: EvdevDevice, at now: Timestamp) throws(InputError) {
        guard gate.stage != .grabbed else {
            guard var router else { return }
            let action = router.expire(at: now)
            self.router = router
            try carryOut(action, frame: [])
            return
        }
        switch gate.expire(at: now) {
        case .nothing:
            break
        case .moved(let transition):
            if case .waitingForUdev = transition.from {
                logger.warning("\(path): udev has not announced the clone \(clone.devnode ?? "(no node)") after \(GrabGate.udevWait); going on without it")
            }
            log(transition)
        case .noReader:
            logger.notice("\(path): nothing has opened the clone \(clone.devnode ?? clone.name) in \(GrabGate.readerNotice): not grabbed, so the real device stays readable by everyone; the grab follows when something (the compositor) opens the clone")
        }
        try grabIfReady(device)
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

    private func log(_ transition: GrabGate.Transition?) {
        guard let transition else { return }
        logger.debug("\(path): grab stage: \(transition)")
    }
}
