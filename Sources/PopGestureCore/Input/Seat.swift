/// A logind seat: the screen, keyboard and touch devices one person uses. udev gives a
/// device its seat in `ID_SEAT` (none means `seat0`); logind gives a session its seat.
///
/// A swipe acts only on its own seat: the focus, the shell, the front navigator and
/// the back input device are the device's seat's.
public struct Seat: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// The seat every machine has, and every device without another.
    public static let seat0 = Seat(validated: "seat0")

    /// No seat: where a client works whose user logind puts at none (logged in over SSH,
    /// a cron job) while logind has seats. No device is ever on it, so its navigators get
    /// no swipe and its observers see no seat's events, focus or backs. Never a udev
    /// `ID_SEAT` (its name is empty, which ``init(rawValue:)`` refuses).
    public static let none = Seat(validated: "")

    /// The longest seat name taken: 64 bytes. logind's own are `seat` and a few
    /// characters; a longer `ID_SEAT` is a udev rule's mistake, refused, not truncated.
    public static let maximumNameBytes = 64

    /// Nil unless `rawValue` is a name logind would take (`seat_name_is_valid`):
    /// `seat` followed by letters, digits, `-` and `_`, at most ``maximumNameBytes``.
    public init?(rawValue: String) {
        let bytes = rawValue.utf8
        guard bytes.count <= Self.maximumNameBytes, rawValue.hasPrefix("seat"), bytes.count > 4,
              bytes.dropFirst(4).allSatisfy(Self.isNameByte)
        else { return nil }
        self.rawValue = rawValue
    }

    private init(validated: String) { rawValue = validated }

    /// udev's `ID_SEAT` as a seat: none or empty is ``seat0``; nil when it names none
    /// logind would take (the device is then on no seat at all).
    public init?(udevProperty value: String?) {
        guard let value, !value.isEmpty else {
            self = .seat0
            return
        }
        self.init(rawValue: value)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    public static func < (lhs: Seat, rhs: Seat) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue.isEmpty ? "no seat" : rawValue }
}
