import Glibc
import Logging
import PopGestureCore
import PopGestureInput

/// The touchpad bridge's thin I/O layer: the virtual touchpads (``VirtualTouchpad``), one
/// per seat, each seat's ``TouchpadBridge`` (``TouchpadBridges``) whose actions it writes
/// to them, and the timer for the bridges' next frame, which the main loop polls (``LoopTimer``): the input thread
/// never sleeps for a frame, so a touch is never held back by the fingers' run.
///
/// The touchpads exist while the `[back-input]` table names `touchpad` for some app:
/// seat0's at once, another seat's when its first touch device appears, so that the
/// seat's compositor has the touchpad before the first swipe. A touchpad that cannot be
/// made is logged once per seat; that seat's swipes then play nothing. A seat whose
/// session takes no touchpad bridge (its shell said so: GNOME Shell, whose touch mode
/// any pointer device ends) has none while it says so (``FocusSummary/touchpadBridge``).
///
/// Owned by the input thread, like ``SeatBackInputs``.
final class TouchpadOutput: LoopTimer {
    private var bridges = TouchpadBridges()
    private(set) var devices: [Seat: VirtualTouchpad] = [:]
    /// The bridge's deadline; made with the first touchpad.
    private var timer: DeadlineTimer?
    /// Whether some app's back input is `touchpad`.
    private var wanted = false
    private var failed: Set<Seat> = []
    /// Every seat that has had a touch device, seat0 always: a reload that turns the
    /// touchpad bridge on makes each one's touchpad.
    private var seats: Set<Seat> = [.seat0]
    /// The seats whose session takes no touchpad bridge now.
    private var declined: Set<Seat> = []
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Follows the back input table in force: makes the touchpad of every seat that has
    /// had a touch device (seat0's always) when an app is marked `touchpad`, drops every
    /// touchpad when none is (after lifting fingers down).
    func follow(_ map: BackInputMap) {
        wanted = map.usesTouchpad
        if wanted {
            for seat in seats.sorted() { prepare(seat) }
        } else if !devices.isEmpty {
            for output in bridges.abandonAll() { try? devices[output.seat]?.play(output.actions) }
            arm()
            devices.removeAll()
            logger.notice("virtual touchpad removed: no app's back input is touchpad")
        }
    }

    /// Follows whether `seat`'s session takes the touchpad bridge (its focus summary).
    private func follow(_ summary: FocusSummary) {
        let seat = summary.seat
        if summary.touchpadBridge {
            guard declined.remove(seat) != nil else { return }
            prepare(seat)
        } else {
            guard declined.insert(seat).inserted else { return }
            if let output = bridges.abandon(on: seat) { try? devices[seat]?.play(output.actions) }
            arm()
            if devices.removeValue(forKey: seat) != nil {
                logger.notice("virtual touchpad for \(seat) removed: its session takes no touchpad bridge")
            }
        }
    }

    /// Makes `seat`'s touchpad when one is wanted and it has none.
    func prepare(_ seat: Seat) {
        seats.insert(seat)
        guard wanted, devices[seat] == nil, !declined.contains(seat) else { return }
        do throws(InputError) {
            if timer == nil { timer = try DeadlineTimer(for: "the touchpad bridge") }
            let device = try VirtualTouchpad(seat: seat)
            devices[seat] = device
            failed.remove(seat)
            logger.notice("virtual touchpad for \(seat): on \(device.devnode ?? "a device udev has not named yet")")
        } catch {
            if failed.insert(seat).inserted { logger.warning("virtual touchpad for \(seat) off: \(error.message)") }
        }
    }

    /// Plays what its seat's bridge makes of one engine event.
    func handle(_ event: EngineEvent) {
        if case .focusChanged(let summary) = event {
            follow(summary)
            return
        }
        play(bridges.handle(event, at: MonotonicClock.now()))
        arm()
    }

    var timerDescriptor: CInt? { timer?.fileDescriptor }

    /// A bridge's deadline passed: its next frame, or the lift.
    func timerFired() {
        timer?.acknowledge()
        for output in bridges.expire(at: MonotonicClock.now()) { play(output) }
        arm()
    }

    private func play(_ output: TouchpadBridge.Output?) {
        guard let output else { return }
        guard let device = devices[output.seat] else {
            logger.debug("touchpad bridge: \(output.seat) has no virtual touchpad; \(output.actions.count) frame(s) dropped")
            return
        }
        do throws(InputError) {
            try device.play(output.actions)
            bridges.played(on: output.seat, at: MonotonicClock.now())
        } catch {
            logger.warning("touchpad bridge on \(output.seat): \(error.message)")
            _ = bridges.abandon(on: output.seat)  // play lifted the fingers already
        }
    }

    /// Arms the timer at the earliest bridge's deadline. A timer that cannot be armed
    /// would leave fingers down for ever: they are lifted where they are instead.
    private func arm() {
        guard let timer else { return }
        do throws(InputError) {
            try timer.arm(at: bridges.deadline)
        } catch {
            logger.error("touchpad bridge: \(error.message); the fingers lift where they are")
            for output in bridges.abandonAll() { play(output) }
        }
    }
}
