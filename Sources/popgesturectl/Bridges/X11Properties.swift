import PopGestureProtocol

/// An X atom: a property's name or type, as the server numbers it.
struct XAtom: RawRepresentable, Hashable, Sendable {
    var rawValue: UInt32

    // Fixed by the core protocol (X11 "predefined atoms"), so they need no InternAtom.
    static let none = XAtom(rawValue: 0)
    static let cardinal = XAtom(rawValue: 6)
    static let string = XAtom(rawValue: 31)
    static let window = XAtom(rawValue: 33)
    static let wmClass = XAtom(rawValue: 67)
}

/// An X window id; 0 is None.
struct XWindow: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    var rawValue: UInt32
    static let none = XWindow(rawValue: 0)
    var description: String { "0x" + String(rawValue, radix: 16) }
}

/// A window property as GetProperty returned it, cut to the bytes the reader asked for.
struct XProperty: Equatable, Sendable {
    var type: XAtom
    /// 8, 16 or 32: the size of one item in bits. Items of 16 and 32 bits are in this
    /// machine's byte order (libxcb hands them over as the server swapped them).
    var format: UInt8
    var bytes: [UInt8]
    /// The property holds more than `bytes`.
    var truncated: Bool
}

/// What the X11 bridge reads from windows, decoded and bounded. Pure, so the tests need
/// no X server; `XDisplay` fetches the bytes.
///
/// Every property comes from another client, so every read has a bound and anything odd
/// makes the value unknown, with a reason, never a trap.
enum X11Properties {
    /// Each part of `WM_CLASS` (instance, class) is at most this many bytes: 256, the
    /// protocol's limit for an app id (`ProtocolLimits.maximumIdentifierBytes`). A longer
    /// part makes the app unknown rather than truncated, since a cut id could match
    /// another app.
    static let maximumClassPartBytes = ProtocolLimits.maximumIdentifierBytes

    /// How much of `WM_CLASS` is read: both parts at their limit and their NULs.
    static let wmClassReadBytes = 2 * (maximumClassPartBytes + 1)

    /// `_NET_ACTIVE_WINDOW` and `_NET_WM_PID` are one 32-bit item each; more is ignored.
    static let cardinalReadBytes = 4

    /// Why a window's app id or pid is unknown; the description is a log line's reason.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// The window has no such property.
        case absent
        case wrongType(format: UInt8, bytes: Int)
        /// WM_CLASS is neither STRING nor UTF8_STRING.
        case notText
        case notUTF8
        /// No class after the instance, or an empty class.
        case noClass
        /// `part` is "instance" or "class".
        case tooLong(part: String)
        case pidOutOfRange(UInt32)

        var description: String {
            switch self {
            case .absent: "not set"
            case .wrongType(let format, let bytes): "not one 32-bit item (format \(format), \(bytes) bytes)"
            case .notText: "not of type STRING or UTF8_STRING"
            case .notUTF8: "UTF8_STRING that is not valid UTF-8"
            case .noClass: "no class after the instance"
            case .tooLong(let part): "its \(part) is longer than \(maximumClassPartBytes) bytes"
            case .pidOutOfRange(let pid): "\(pid) is not a process id"
            }
        }
    }

    /// The app id from `WM_CLASS`: its second string, the class (`"xterm\0XTerm\0"` →
    /// `XTerm`). The class is what desktop files match (`StartupWMClass`) and what
    /// Wayland's `app_id` corresponds to; the instance is often just the binary's name.
    ///
    /// STRING is ISO Latin-1 (ICCCM); UTF8_STRING, which some toolkits set, must be valid.
    static func appID(fromWMClass property: XProperty?, utf8String: XAtom) throws(Problem) -> String {
        guard let property else { throw .absent }
        guard property.format == 8 else { throw .wrongType(format: property.format, bytes: property.bytes.count) }
        guard property.type == .string || property.type == utf8String else { throw .notText }

        let bytes = property.bytes
        guard let instanceEnd = bytes.firstIndex(of: 0) else {
            // One string and nothing after: no class, unless the read stopped inside it.
            throw property.truncated || bytes.count > maximumClassPartBytes ? .tooLong(part: "instance") : .noClass
        }
        guard instanceEnd <= maximumClassPartBytes else { throw .tooLong(part: "instance") }
        let rest = bytes[(instanceEnd + 1)...]
        // The trailing NUL is customary but not always there.
        let classEnd = rest.firstIndex(of: 0) ?? rest.endIndex
        let classBytes = rest[..<classEnd]
        let complete = classEnd < rest.endIndex || !property.truncated
        guard complete, classBytes.count <= maximumClassPartBytes else { throw .tooLong(part: "class") }
        guard !classBytes.isEmpty else { throw .noClass }

        if property.type == .string {
            return String(String.UnicodeScalarView(classBytes.map { Unicode.Scalar($0) }))
        }
        guard let text = String(validating: classBytes, as: UTF8.self) else { throw .notUTF8 }
        return text
    }

    /// The pid from `_NET_WM_PID` (one CARDINAL), 1 to `Int32.max`.
    static func pid(fromNetWMPID property: XProperty?) throws(Problem) -> Int64 {
        let value = try cardinal(property, type: .cardinal)
        guard (1...UInt32(Int32.max)).contains(value) else { throw .pidOutOfRange(value) }
        return Int64(value)
    }

    /// The window `_NET_ACTIVE_WINDOW` names (one WINDOW); `.none` when no window is
    /// active, or the property is missing or malformed (a window manager without EWMH).
    static func activeWindow(from property: XProperty?) -> XWindow {
        (try? cardinal(property, type: .window)).map(XWindow.init(rawValue:)) ?? .none
    }

    private static func cardinal(_ property: XProperty?, type: XAtom) throws(Problem) -> UInt32 {
        guard let property else { throw .absent }
        guard property.type == type, property.format == 32, property.bytes.count >= 4 else {
            throw .wrongType(format: property.format, bytes: property.bytes.count)
        }
        return property.bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }
}
