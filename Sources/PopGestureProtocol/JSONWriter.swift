/// Compact JSON (RFC 8259) written straight into bytes: no whitespace, members in the
/// order written, strings escaped once as they are copied.
///
/// The one writer of the protocol's lines. Events are written member by member, with no
/// `JSONValue` tree in between (they go out on every frame of a swipe); replies and
/// requests write their tree through ``JSONValue/write(to:)``. Append to a writer whose
/// storage kept its capacity (``removeAll()``), and a line costs no allocation.
///
/// Its bytes live in a buffer of its own, written through a pointer: one capacity check
/// a member, not one a byte as an `Array`'s appends make (issue 30's profile).
public struct JSONWriter {
    private var storage: Storage
    /// Whether the value being written next is not the first of its object or array.
    private var needsComma = false

    public init(bytes: [UInt8] = []) {
        storage = Storage(capacity: max(bytes.count, Storage.minimumCapacity))
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// What was written so far (a copy).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Calls `body` with what was written so far, in place.
    public func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage.base, count: storage.count))
    }

    /// How many bytes were written.
    public var count: Int { storage.count }

    /// Starts over, keeping the storage: the next line allocates nothing until it is longer.
    public mutating func removeAll() {
        if isKnownUniquelyReferenced(&storage) {
            storage.count = 0
        } else {
            storage = Storage(capacity: storage.capacity)
        }
        needsComma = false
    }

    /// The bytes as text (always valid UTF-8: every string is copied from a Swift `String`).
    public var text: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    // MARK: - Containers

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A container starts as the next value; its first member needs no comma.
    private mutating func open(_ bracket: UInt8) {
        separate()
        append(bracket)
        needsComma = false
    }

    /// The container ends; it was a value, so a comma comes before the next.
    private mutating func close(_ bracket: UInt8) {
        append(bracket)
        needsComma = true
    }

    /// An object's key; its value follows.
    public mutating func key(_ key: String) {
        separate()
        quote(key)
        append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key spelled in the source, copied as it is: it must need no escape (no `"`, `\\`
    /// or control character), which debug builds check. The events' keys, on every frame.
    public mutating func key(literal key: StaticString) {
        key.withUTF8Buffer { utf8 in
            assert(!utf8.contains(where: Self.needsEscape), "a literal key that needs an escape")
            // `,"key":` in one reservation.
            let comma = needsComma ? 1 : 0
            let start = reserve(comma + utf8.count + 3)
            if comma == 1 { start[0] = UInt8(ascii: ",") }
            start[comma] = UInt8(ascii: "\"")
            (start + comma + 1).update(from: utf8.baseAddress!, count: utf8.count)
            start[comma + 1 + utf8.count] = UInt8(ascii: "\"")
            start[comma + 2 + utf8.count] = UInt8(ascii: ":")
        }
        needsComma = false
    }

    // MARK: - Values

    public mutating func null() {
        separate()
        append("null")
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
        needsComma = true
    }

    public mutating func integer(_ value: Int64) {
        separate()
        if value < 0 { append(UInt8(ascii: "-")) }
        digits(value.magnitude)
        needsComma = true
    }

    /// A number literal already in JSON number syntax.
    public mutating func number(_ number: JSONNumber) {
        separate()
        var literal = number.literal
        literal.withUTF8 { append($0) }
        needsComma = true
    }

    /// A fraction rounded to three decimals, without trailing zeros (`0.25`, `1`, `-0.5`);
    /// null when not finite, which JSON cannot write. How `progress` travels.
    public mutating func thousandths(_ value: Double) {
        guard value.isFinite else { return null() }
        separate()
        let milli = Int64((min(max(value, -1e12), 1e12) * 1000).rounded())
        if milli < 0 { append(UInt8(ascii: "-")) }
        digits(milli.magnitude / 1000)
        var fraction = milli.magnitude % 1000
        if fraction != 0 {
            append(UInt8(ascii: "."))
            var place: UInt64 = 100
            while fraction != 0 {
                append(UInt8(ascii: "0") + UInt8(fraction / place))
                fraction %= place
                place /= 10
            }
        }
        needsComma = true
    }

    /// `value` as a JSON string in double quotes (RFC 8259 §7): `"` and `\\` escaped,
    /// control characters as `\n`, `\r`, `\t` or `\u00XX`, every other byte as it is.
    public mutating func string(_ value: String) {
        separate()
        quote(value)
        needsComma = true
    }

    // MARK: - Bytes

    private mutating func separate() {
        if needsComma { append(UInt8(ascii: ",")) }
    }

    private mutating func quote(_ value: String) {
        append(UInt8(ascii: "\""))
        // A native string (every one the daemon makes) is read in place, without a copy.
        if value.utf8.withContiguousStorageIfAvailable({ copyEscaping($0) }) == nil {
            var value = value
            value.withUTF8 { copyEscaping($0) }
        }
        append(UInt8(ascii: "\""))
    }

    /// Runs that need no escape are copied whole; UTF-8's multi-byte sequences are all
    /// ≥ 0x80, so they are such runs too.
    private mutating func copyEscaping(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0, index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if Self.needsEscape(byte) {
                append(UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(byte)
                start = index + 1
            }
            index += 1
        }
        append(UnsafeBufferPointer(rebasing: utf8[start...]))
    }

    /// `"`, `\\` and the control characters; every other byte is copied as it is.
    private static func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    private mutating func escape(_ byte: UInt8) {
        append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: append(UInt8(ascii: "\""))
        case 0x5C: append(UInt8(ascii: "\\"))
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        default:
            append("u00")
            append(Self.hexDigit(byte >> 4))
            append(Self.hexDigit(byte & 0xF))
        }
    }

    /// The lowercase hex digit for `nibble` (0...15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// The decimal digits of `value`, most significant first.
    private mutating func digits(_ value: UInt64) {
        guard value >= 10 else { return append(UInt8(ascii: "0") + UInt8(value)) }
        var length = 1, shorter = value / 10
        while shorter != 0 {
            length += 1
            shorter /= 10
        }
        // Written backwards into their place.
        let start = reserve(length)
        var rest = value, index = length
        while index > 0 {
            index -= 1
            start[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }

    // MARK: - Storage

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        reserve(1).pointee = byte
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count).update(from: source, count: bytes.count)
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Room for `count` more bytes, counted as written: the caller fills all of them.
    @inline(__always)
    private mutating func reserve(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        let needed = storage.count + count
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy(capacity: max(needed, storage.capacity))
        } else if needed > storage.capacity {
            storage.grow(to: max(needed, storage.capacity * 2))
        }
        let start = storage.base + storage.count
        storage.count = needed
        return start
    }

    /// The bytes, shared between copies of a writer until one of them writes.
    private final class Storage {
        static let minimumCapacity = 64
        private(set) var base: UnsafeMutablePointer<UInt8>
        var count = 0
        private(set) var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, Self.minimumCapacity)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }

        func copy(capacity: Int) -> Storage {
            let copy = Storage(capacity: capacity)
            copy.base.initialize(from: base, count: count)
            copy.count = count
            return copy
        }

        func grow(to capacity: Int) {
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            larger.initialize(from: base, count: count)
            base.deallocate()
            base = larger
            self.capacity = capacity
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
