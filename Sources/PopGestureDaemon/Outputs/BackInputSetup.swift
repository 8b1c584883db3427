import PopGestureCore
import PopGestureInput
import PopGestureProtocol
import Logging

/// The back input as the daemon runs it: the virtual device, and the table the
/// engine may use with it.
///
/// A device that cannot be created (no `uinput` module, no access to `/dev/uinput`)
/// never stops the daemon: the back input is then off (``map`` is `.none`) and
/// ``warning`` says the cause and the fix, for the log. Apps with a navigator work
/// as before.
public struct BackInputSetup: Sendable {
    /// Nil when the configuration wants no back input, or it could not be created.
    public let device: BackInputDevice?
    /// The configuration's table when there is a device (or `keepingTable`); else only
    /// its `own-swipe` apps (``BackInputMap/withoutInputs``).
    public let map: BackInputMap
    /// Where a swipe may start when it goes to the back input.
    public let mode: GestureMode
    /// Why the back input is off although the configuration wants it, with the fix;
    /// log it as a warning. Nil otherwise.
    public let warning: String?

    /// Creates the device for `configuration`, or keeps `previous`'s when it already
    /// declares exactly the codes needed (a reload that changed only the mode, or an
    /// app's entry to keys the device has): recreating it would make udev and the
    /// compositor drop and re-add a keyboard for nothing.
    ///
    /// `keepingTable` (`--event-pipe`, the test feed for machines without uinput):
    /// when the device cannot be made, the table still decides each swipe, so observers
    /// see `input-began`, `input-progress` and `back-input` as with the device, and
    /// nothing is sent. Default false.
    public init(_ configuration: Configuration, reusing previous: BackInputSetup? = nil, keepingTable: Bool = false) {
        let codes = configuration.backInput.allCodes
        mode = configuration.backInputMode
        guard !codes.isEmpty else {
            device = nil
            // No keys; `touchpad` entries need no key device, so the table keeps them.
            map = configuration.backInput.usesTouchpad ? configuration.backInput : configuration.backInput.withoutInputs
            warning = nil
            return
        }
        if let kept = previous?.device, Set(kept.codes) == codes {
            device = kept
            map = configuration.backInput
            warning = nil
            return
        }
        do {
            device = try BackInputDevice(codes: codes)
            map = configuration.backInput
            warning = nil
        } catch {
            device = nil
            map = keepingTable ? configuration.backInput : configuration.backInput.withoutInputs
            warning = "back input off: \(error.message)"
                + (keepingTable ? "; --event-pipe keeps the [back-input] table: swipes go to it, nothing is sent" : "")
        }
    }

    /// The back input as `status` reports it: on with its input, mode and node, or off
    /// with ``warning``'s cause and fix (none when the configuration wants no back input).
    public var status: ServerReply.Status.BackInput {
        ServerReply.Status.BackInput(
            on: device != nil, input: device == nil ? nil : map.standard?.spelling, mode: mode.rawValue,
            device: device?.devnode, problem: warning)
    }

    /// One line for the log at start and after a reload:
    /// `back input: alt+left (2 apps overridden), edge mode, on /dev/input/event7`.
    public var summary: String {
        guard let device else { return "back input: off" }
        let named = map.apps.count + map.ownSwipe.count
        let overrides = named == 0 ? "" : " (\(named) app\(named == 1 ? "" : "s") overridden)"
        let standard = map.standard?.spelling ?? BackInputNames.none
        let node = device.devnode ?? device.syspath ?? "a device udev has not named yet"
        return "back input: \(standard)\(overrides), \(mode.rawValue) mode, on \(node)"
    }
}

/// The back input devices of the seats other than seat0 (whose device is
/// ``BackInputSetup/device``): each made when its seat's first touch device appears, so
/// that the seat's compositor has it before the first swipe, with the codes of the
/// back input in force. A swipe on one seat types on that seat's device only.
///
/// Owned by the input thread, like the ``BackInputSetup`` it follows.
final class SeatBackInputs {
    private(set) var devices: [Seat: BackInputDevice] = [:]
    /// Every seat other than seat0 that has had a touch device, with a device now or not
    /// (the back input off, or its device failed): a reload makes each one's.
    private(set) var seats: Set<Seat> = []
    /// Seats whose device could not be made, so that the warning is logged once.
    private var failed: Set<Seat> = []
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Makes `seat`'s device for `setup`'s codes unless it has one with them. Nothing
    /// for seat0, or when the back input is off.
    func prepare(_ seat: Seat, for setup: BackInputSetup) {
        guard seat != .seat0 else { return }
        seats.insert(seat)
        guard let codes = setup.device.map({ Set($0.codes) }) else { return }
        if let kept = devices[seat], Set(kept.codes) == codes { return }
        do {
            devices[seat] = try BackInputDevice(codes: codes, seat: seat)
            failed.remove(seat)
            logger.notice("back input for \(seat): on \(devices[seat]?.devnode ?? "a device udev has not named yet")")
        } catch {
            devices[seat] = nil
            if failed.insert(seat).inserted { logger.warning("back input for \(seat) off: \(error.message)") }
        }
    }

    /// A reload changed the back input: each seat's device is made again for it (or
    /// dropped, when it is off), every seat that has had a touch device, not only those
    /// with a device now: one turned on by the reload gets its first.
    func follow(_ setup: BackInputSetup) {
        for seat in seats.sorted() {
            if setup.device == nil { devices[seat] = nil } else { prepare(seat, for: setup) }
        }
    }

    /// The device that sends `seat`'s backs: seat0's is `setup`'s.
    func device(of seat: Seat, in setup: BackInputSetup) -> BackInputDevice? {
        seat == .seat0 ? setup.device : devices[seat]
    }
}
