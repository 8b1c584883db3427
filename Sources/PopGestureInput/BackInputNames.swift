import CEvdev
import PopGestureCore
import PopGestureProtocol

/// Why a back input's text was refused; the message names the token.
public struct BackInputNameError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Longer than ``BackInputNames/maximumBytes``.
        public static let tooLong = Code(rawValue: "too-long")
        /// Nothing between two `+`, or before the first or after the last.
        public static let emptyToken = Code(rawValue: "empty-token")
        /// No key or button of that name in libevdev's table.
        public static let unknownName = Code(rawValue: "unknown-name")
        /// The same key twice: it cannot go down while it is down.
        public static let repeatedName = Code(rawValue: "repeated-name")
        /// More than ``BackInput/maximumCodes`` keys.
        public static let tooManyNames = Code(rawValue: "too-many-names")
        /// A `touchpad` entry with a wrong distance or word (``TouchpadScroll/parse(_:)``).
        public static let invalidTouchpad = Code(rawValue: "invalid-touchpad")
    }

    public var code: Code
    /// The token at fault, as written; nil when the whole text is.
    public var token: String?
    public var message: String

    public init(_ code: Code, token: String? = nil, _ message: String) {
        self.code = code
        self.token = token
        self.message = message
    }

    public var description: String { message }
}

/// Back inputs by name, as the configuration spells them: `alt+left`, `back`,
/// `side`, `KEY_BACK`, `none`, and `touchpad` (the touchpad bridge).
///
/// Names are libevdev's own (`libevdev_event_code_from_name`), so every key and
/// button the kernel headers libevdev was built with know is accepted, and nothing
/// else.
public enum BackInputNames {
    /// The whole text may have at most 128 bytes: four of the longest names in
    /// libevdev's table (`KEY_KBD_LAYOUT_NEXT`, `BTN_TRIGGER_HAPPY40`: about 20 bytes)
    /// and their `+` fit with room to spare; a longer text is a mistake (a pasted line).
    public static let maximumBytes = 128

    /// The word that turns the back input off.
    public static let none = "none"
    /// The word, in the `[back-input]` table only, for an app that runs its own
    /// swipe-back (`BackInputMap.ownSwipe`).
    public static let ownSwipe = "own-swipe"

    /// Short words for the modifiers, which libevdev only knows by side (`KEY_LEFTALT`).
    /// The left one is the one shortcuts are documented with.
    static let aliases: [(alias: String, name: String)] = [
        ("ALT", "LEFTALT"), ("CTRL", "LEFTCTRL"), ("SHIFT", "LEFTSHIFT"), ("SUPER", "LEFTMETA"),
        ("META", "LEFTMETA"),
    ]

    /// Parses `text`: `none` is nil, otherwise tokens joined by `+`, pressed in that
    /// order. Case does not matter. Each token is, in this order of trial:
    /// - an alias: `alt`, `ctrl`, `shift`, `super` or `meta` (the left-hand key);
    /// - a name in libevdev's `EV_KEY` table as written: `KEY_BACK`, `BTN_SIDE`;
    /// - `KEY_` + the token: `left` is `KEY_LEFT`, `back` is `KEY_BACK`;
    /// - `BTN_` + the token: `side` is `BTN_SIDE` (but `left` is the key, so the left
    ///   mouse button is `btn_left`).
    ///
    /// Spaces around a token are ignored. The result's spelling is the canonical one
    /// (``spelling(of:)``), so `KEY_LEFTALT + KEY_LEFT` is spelled `alt+left`.
    public static func parse(_ text: String) throws(BackInputNameError) -> BackInput? {
        guard text.utf8.count <= maximumBytes else {
            throw BackInputNameError(
                .tooLong, "a back input may have at most \(maximumBytes) bytes; this one has \(text.utf8.count)")
        }
        let whole = text.trimmingSpaces
        if whole.lowercased() == none { return nil }
        // `touchpad[:<millimetres>][:natural]`: the touchpad bridge, no key.
        do throws(TouchpadScrollError) {
            if let scroll = try TouchpadScroll.parse(String(whole)) { return BackInput(touchpad: scroll) }
        } catch {
            throw BackInputNameError(.invalidTouchpad, token: String(whole), error.message)
        }
        let tokens = whole.split(separator: "+", omittingEmptySubsequences: false).map { String($0.trimmingSpaces) }
        guard tokens.count <= BackInput.maximumCodes else {
            throw BackInputNameError(
                .tooManyNames,
                "a back input has at most \(BackInput.maximumCodes) keys; \(quoted(whole)) has \(tokens.count)")
        }
        var codes: [UInt16] = []
        for token in tokens {
            guard !token.isEmpty else {
                throw BackInputNameError(
                    .emptyToken, token: token,
                    "expected key names joined by \"+\" (such as alt+left), got \(quoted(whole))")
            }
            guard let code = code(named: token) else {
                throw BackInputNameError(
                    .unknownName, token: token,
                    "\(quoted(token)) is no key or button name (such as left, back, side or KEY_BACK)")
            }
            guard !codes.contains(code) else {
                throw BackInputNameError(.repeatedName, token: token, "\(quoted(token)) names a key already pressed")
            }
            codes.append(code)
        }
        // Non-empty and at most maximumCodes, both checked above; never nil.
        guard let input = BackInput(codes: codes, spelling: spelling(of: codes)) else {
            throw BackInputNameError(.tooManyNames, "a back input has 1 to \(BackInput.maximumCodes) keys")
        }
        return input
    }

    /// The `EV_KEY` code of one token, by the rules of ``parse(_:)``; nil when none.
    /// Only letters, digits and `_` can be part of a name, so nothing else reaches C.
    static func code(named token: String) -> UInt16? {
        let isNameByte: (UInt8) -> Bool = { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
            default: false
            }
        }
        guard token.utf8.allSatisfy(isNameByte) else { return nil }
        let upper = token.uppercased()
        let name = aliases.first { $0.alias == upper }.map { "KEY_" + $0.name } ?? upper
        for candidate in [name, "KEY_" + name, "BTN_" + name] {
            // KEY_RESERVED (0) is a name, but no key.
            let code = libevdev_event_code_from_name(UInt32(EV_KEY), candidate)
            if code > 0, code <= KEY_MAX { return UInt16(code) }
        }
        return nil
    }

    /// The canonical, lower-case spelling of `codes`: each code's shortest name that
    /// ``parse(_:)`` reads back to it (`alt`, `left`, `back`, `side`, `btn_left`),
    /// joined by `+`. A code libevdev has no name for is spelled as a number
    /// (`key_0x2ff`), which no configuration can write.
    public static func spelling(of codes: [UInt16]) -> String {
        codes.map(name(of:)).joined(separator: "+")
    }

    /// One code's canonical name; see ``spelling(of:)``.
    static func name(of code: UInt16) -> String {
        guard let pointer = libevdev_event_code_get_name(UInt32(EV_KEY), UInt32(code)) else {
            return "key_0x" + String(code, radix: 16)
        }
        let full = String(cString: pointer)
        var shortest = full
        for prefix in ["KEY_", "BTN_"] where full.hasPrefix(prefix) {
            shortest = String(full.dropFirst(prefix.count))
        }
        if let alias = aliases.first(where: { "KEY_" + $0.name == full }) { shortest = alias.alias }
        // `BTN_LEFT` without its prefix reads back as `KEY_LEFT`: keep the prefix then.
        return (Self.code(named: shortest) == code ? shortest : full).lowercased()
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: SubSequence {
        guard let first = firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
