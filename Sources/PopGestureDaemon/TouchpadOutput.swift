import Glibc
import Logging
import PopGestureCore
import PopGestureInput

/// The touchpad bridge's thin I/O layer: the virtual touchpads (``VirtualTouchpad``), one
/// per seat, and the ``TouchpadBridge`` whose actions it writes to them.
///
/// The touchpads exist while the `[back-input]` table names `touchpad` for some app:
/// seat0's at once, another seat's when its first touch device appears, so that the
/// seat's compositor has the touchpad before the first swipe. A touchpad that cannot be
/// made is logged once per seat; that seat's swipes then play nothing.
///
/// Owned by the input thread, like ``SeatBackInputs``.
final class TouchpadOutput {
    private var bridge = TouchpadBridge()
    private(set) var devices: [Seat: VirtualTouchpad] = [:]
    /// Whether some app's back input is `touchpad`.
    private var wanted = false
    private var failed: Set<Seat> = []
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Follows the back input table in force: makes seat0's touchpad when an app is
    /// marked `touchpad`, drops every touchpad when none is (after lifting fingers down).
    func follow(_ map: BackInputMap) {
        wanted = map.usesTouchpad
        if wanted {
            prepare(.seat0)
        } else if !devices.isEmpty {
            if let output = bridge.abandon() { try? devices[output.seat]?.play(output.actions) }
            devices.removeAll()
            logger.notice("virtual touchpad removed: no app's back input is touchpad")
        }
    }

    /// Makes `seat`'s touchpad when one is wanted and it has none.
    func prepare(_ seat: Seat) {
        guard wanted, devices[seat] == nil else { return }
        do throws(InputError) {
            let device = try VirtualTouchpad(seat: seat)
            devices[seat] = device
            failed.remove(seat)
            logger.notice("virtual touchpad for \(seat): on \(device.devnode ?? "a device udev has not named yet")")
        } catch {
            if failed.insert(seat).inserted { logger.warning("virtual touchpad for \(seat) off: \(error.message)") }
        }
    }

    /// CLOCK_MONOTONIC, the clock the kernel stamps the touchpad's frames with (libinput
    /// sets it on the nodes it reads).
    private static func now() -> Timestamp {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        return Timestamp(seconds: Int64(clock.tv_sec), microseconds: Int64(clock.tv_nsec / 1000))
    }

    /// Plays what the bridge makes of one engine event.
    func handle(_ event: EngineEvent) {
        guard let output = bridge.handle(event, at: Self.now()) else { return }
        guard let device = devices[output.seat] else {
            logger.debug("touchpad bridge: \(output.seat) has no virtual touchpad; \(output.actions.count) frame(s) dropped")
            return
        }
        do throws(InputError) {
            try device.play(output.actions)
            bridge.played(at: Self.now())
        } catch {
            logger.warning("touchpad bridge on \(output.seat): \(error.message)")
        }
    }
}
