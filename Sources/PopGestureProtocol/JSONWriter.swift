/// Compact JSON (RFC 8259) written straight into bytes: no whitespace, members in the
/// order written, strings escaped once as they are copied.
///
/// The one writer of the protocol's lines. Events are written member by member, with no
/// `JSONValue` tree in between (they go out on every frame of a swipe); replies and
/// requests write their tree through ``JSONValue/write(to:)``. Append to a writer whose
/// `bytes` kept their capacity, and a line costs no allocation.
public struct JSONWriter {
    /// What was written so far.
    public private(set) var bytes: [UInt8]
    /// Whether the value being written next is not the first of its object or array.
    private var needsComma = false

    public init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    /// Starts over, keeping the storage: the next line allocates nothing until it is longer.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// `bytes` as text (always valid UTF-8: every string is copied from a Swift `String`).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: - Containers

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A container starts as the next value; its first member needs no comma.
    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    /// The container ends; it was a value, so a comma comes before the next.
    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    /// An object's key; its value follows.
    public mutating func key(_ key: String) {
        separate()
        quote(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key spelled in the source, copied as it is: it must need no escape (no `"`, `\\`
    /// or control character), which debug builds check. The events' keys, on every frame.
    public mutating func key(literal key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { utf8 in
            assert(!utf8.contains(where: Self.needsEscape), "a literal key that needs an escape")
            bytes.append(contentsOf: utf8)
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: - Values

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        needsComma = true
    }

    public mutating func integer(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(value.magnitude)
        needsComma = true
    }

    /// A number literal already in JSON number syntax.
    public mutating func number(_ number: JSONNumber) {
        separate()
        bytes.append(contentsOf: number.literal.utf8)
        needsComma = true
    }

    /// A fraction rounded to three decimals, without trailing zeros (`0.25`, `1`, `-0.5`);
    /// null when not finite, which JSON cannot write. How `progress` travels.
    public mutating func thousandths(_ value: Double) {
        guard value.isFinite else { return null() }
        separate()
        let milli = Int64((min(max(value, -1e12), 1e12) * 1000).rounded())
        if milli < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(milli.magnitude / 1000)
        var fraction = milli.magnitude % 1000
        if fraction != 0 {
            bytes.append(UInt8(ascii: "."))
            var place: UInt64 = 100
            while fraction != 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(fraction / place))
                fraction %= place
                place /= 10
            }
        }
        needsComma = true
    }

    /// `value` as a JSON string in double quotes (RFC 8259 §7): `"` and `\` escaped,
    /// control characters as `\n`, `\r`, `\t` or `\u00XX`, every other byte as it is.
    public mutating func string(_ value: String) {
        separate()
        quote(value)
        needsComma = true
    }

    // MARK: - Bytes

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func quote(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // A native string (every one the daemon makes) is read in place, without a copy.
        if value.utf8.withContiguousStorageIfAvailable({ copyEscaping($0) }) == nil {
            var value = value
            value.withUTF8 { copyEscaping($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Runs that need no escape are copied whole; UTF-8's multi-byte sequences are all
    /// ≥ 0x80, so they are such runs too.
    private mutating func copyEscaping(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for (index, byte) in utf8.enumerated() where Self.needsEscape(byte) {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            escape(byte)
            start = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }

    /// `"`, `\\` and the control characters; every other byte is copied as it is.
    private static func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: bytes.append(UInt8(ascii: "\""))
        case 0x5C: bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(contentsOf: "u00".utf8)
            bytes.append(Self.hexDigit(byte >> 4))
            bytes.append(Self.hexDigit(byte & 0xF))
        }
    }

    /// The lowercase hex digit for `nibble` (0...15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// The decimal digits of `value`, most significant first.
    private mutating func digits(_ value: UInt64) {
        guard value >= 10 else { return bytes.append(UInt8(ascii: "0") + UInt8(value)) }
        // 20 digits hold UInt64.max; written backwards into a fixed buffer, then copied.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var rest = value, index = 20
            while rest != 0 {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index...]))
        }
    }
}

extension JSONValue {
    /// Compact JSON text: no whitespace, object members in their stored order, numbers as written.
    public var text: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    /// Writes the value as the next value of `writer`.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .integer(let value): writer.integer(value)
        case .number(let number): writer.number(number)
        case .string(let value): writer.string(value)
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer) }
            writer.endArray()
        case .object(let object):
            writer.beginObject()
            for member in object.members {
                writer.key(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }

    /// `value` as a JSON string in double quotes.
    public static func quoted(_ value: String) -> String {
        var writer = JSONWriter()
        writer.string(value)
        return writer.text
    }
}
