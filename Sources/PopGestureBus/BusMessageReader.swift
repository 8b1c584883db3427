import CSystemd
import Glibc

/// One argument (or property value) of a D-Bus message, as read: integers of every
/// width are `.integer`.
public enum DBusValue: Equatable, Sendable {
    case string(String)
    case bytes([UInt8])
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    /// A string or byte array past the reader's ``BusMessageReader/maximumValueBytes``, not copied.
    case tooLong
    /// A container, or a type no reader here takes, skipped.
    case other
}

/// Reads a received sd-bus message's arguments, each bounded: the one walker of
/// messages for the daemon's sensor (system bus) and popgesturectl's bridges (session
/// bus). The bus allows 128 MiB messages; nothing longer than ``maximumValueBytes`` is
/// ever copied, and a dictionary is read up to the entries its caller allows.
public struct BusMessageReader {
    private let message: OpaquePointer
    /// The longest string or byte array copied out; a longer one reads as `.tooLong`.
    public let maximumValueBytes: Int

    /// A reader at the message's first argument (the message must not have been read).
    public init(_ message: OpaquePointer, maximumValueBytes: Int) {
        self.message = message
        self.maximumValueBytes = maximumValueBytes
    }

    /// The next argument: a basic value, a variant of one (read as what it holds), or a
    /// byte array; another container is skipped as `.other`. Nil at the end, or when sd-bus
    /// could not read it (nothing after it is read either).
    public mutating func next() -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(message, &type, &contents) > 0 else { return nil }
        let code = UInt8(bitPattern: type)
        switch code {
        case UInt8(ascii: "a") where contents.map({ String(cString: $0) }) == "y":
            var pointer: UnsafeRawPointer?
            var size = 0
            guard sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &pointer, &size) >= 0 else { return nil }
            guard size <= maximumValueBytes else { return .tooLong }
            return .bytes(pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? [])
        case UInt8(ascii: "v"):
            guard let inner = contents, sd_bus_message_enter_container(message, type, inner) >= 0 else { return nil }
            let held = readBasic(UInt8(bitPattern: inner[0]))
            if held == nil, sd_bus_message_skip(message, nil) < 0 { return nil }
            guard sd_bus_message_exit_container(message) >= 0 else { return nil }
            return held ?? .other
        default:
            if let value = readBasic(code) { return value }
            return sd_bus_message_skip(message, nil) >= 0 ? .other : nil
        }
    }

    /// The next argument as a property dictionary (`a{sv}`): up to `maximumEntries`
    /// entries, in order, each value read as ``next()`` reads it. Nil when the next
    /// argument is not one.
    public mutating func properties(maximumEntries: Int) -> [(name: DBusValue, value: DBusValue)]? {
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "{sv}") > 0 else { return nil }
        var entries: [(name: DBusValue, value: DBusValue)] = []
        while entries.count < maximumEntries,
              sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "sv") > 0 {
            guard let name = next(), let value = next() else { break }
            entries.append((name, value))
            guard sd_bus_message_exit_container(message) >= 0 else { break }
        }
        return entries
    }

    /// A string, object path or signature, a number or a boolean of type `code`; nil
    /// (nothing read) for another type or a failed read.
    private func readBasic(_ code: UInt8) -> DBusValue? {
        func read<T: BitwiseCopyable>(_ zero: T) -> T? {
            var value = zero
            return sd_bus_message_read_basic(message, CChar(bitPattern: code), &value) >= 0 ? value : nil
        }
        switch code {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var pointer: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, CChar(bitPattern: code), &pointer) >= 0, let pointer else { return nil }
            return Self.bounded(pointer, maximumValueBytes).map(DBusValue.string) ?? .tooLong
        case UInt8(ascii: "y"): return read(UInt8(0)).map { .integer(Int64($0)) }
        case UInt8(ascii: "n"): return read(Int16(0)).map { .integer(Int64($0)) }
        case UInt8(ascii: "q"): return read(UInt16(0)).map { .integer(Int64($0)) }
        case UInt8(ascii: "i"): return read(Int32(0)).map { .integer(Int64($0)) }
        case UInt8(ascii: "u"): return read(UInt32(0)).map { .integer(Int64($0)) }
        case UInt8(ascii: "x"): return read(Int64(0)).map { .integer($0) }
        case UInt8(ascii: "t"): return read(UInt64(0)).map { $0 <= UInt64(Int64.max) ? .integer(Int64($0)) : .other }
        case UInt8(ascii: "d"): return read(Double(0)).map { .double($0) }
        case UInt8(ascii: "b"): return read(Int32(0)).map { .bool($0 != 0) }
        default: return nil
        }
    }

    /// The C string at `pointer` if it is at most `maximum` bytes long, read no further.
    public static func bounded(_ pointer: UnsafePointer<CChar>, _ maximum: Int) -> String? {
        let length = strnlen(pointer, maximum + 1)
        guard length <= maximum else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }
}
