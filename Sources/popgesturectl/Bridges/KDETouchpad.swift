import PopGestureBus
import PopGestureProtocol

/// How KWin scrolls the daemon's virtual touchpad: the `naturalScroll` property of its
/// `org.kde.KWin.InputDevice` object, `/org/kde/KWin/InputDevice/<eventN>`, which
/// Plasma's touchpad settings set. KWin exports the property without a change signal,
/// so the bridge reads it at start and at each of its checks (every 5 s): one round trip.
///
/// The device's `eventN` comes from sysfs (`/sys/class/input/eventN/device/name`): the
/// daemon makes one per seat with the same name, and KWin's object exists only for the
/// one on its seat.
struct KWinTouchpadScrolling {
    static let sysfs = "/sys/class/input"
    static let interface = "org.kde.KWin.InputDevice"
    /// At most this many event nodes are read: far more input devices than a machine has.
    static let maximumNodes = 256

    /// The last value read; nil before, and while KWin has no such touchpad.
    private(set) var natural: Bool?

    /// Reads the setting through `get` (a property getter: path, interface, name); an
    /// event when it is new.
    mutating func read(
        nodes: [String], _ get: (_ path: String, _ interface: String, _ property: String) throws -> DBusValue?
    ) -> [FocusSourceEvent] {
        for node in nodes {
            guard case .bool(let natural)? = try? get("/org/kde/KWin/InputDevice/\(node)", Self.interface, "naturalScroll")
            else { continue }
            guard natural != self.natural else { return [] }
            self.natural = natural
            return [.touchpadScrolling(natural: natural)]
        }
        return []
    }

    /// The `eventN` names of the input devices called `name`, in the order of their numbers.
    static func eventNodes(named name: String = ClientRequest.virtualTouchpadName, in probe: SystemProbe = SystemProbe()) -> [String] {
        probe.list(sysfs).filter { $0.hasPrefix("event") }.prefix(maximumNodes)
            .filter { probe.read("\(sysfs)/\($0)/device/name")?.split(separator: "\n").first.map(String.init) == name }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
    }
}
