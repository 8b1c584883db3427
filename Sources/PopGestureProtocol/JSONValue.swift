/// One JSON value (RFC 8259), as the protocol's lines carry them.
///
/// Integers stay apart from other numbers, so that a field that wants an integer can
/// refuse `1.0`; objects keep their members in the order written. Parse one with
/// `JSONValue(parsing:)`, write one with `text`.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number written as an integer (no fraction, no exponent) that fits Int64.
    case integer(Int64)
    /// Any other number, kept as written: `1.0`, `1e2`, `1e400`, an integer beyond Int64.
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Builds an object in the order given; nil values are left out, so optional fields vanish.
    public static func object(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        var object = JSONObject()
        for (key, value) in pairs { object[key] = value }
        return .object(object)
    }

    /// The member `key` of an object; nil when absent or when this is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { object[key] } else { nil }
    }

    public var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    public var bool: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The value of an integer; nil for every other number, `1.0` included.
    public var integer: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// Any number as a Double: infinite when out of range (`1e400`), nil when not a number.
    public var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let number): number.double
        default: nil
        }
    }

    public var array: [JSONValue]? {
        if case .array(let values) = self { values } else { nil }
    }

    public var object: JSONObject? {
        if case .object(let object) = self { object } else { nil }
    }

    /// How an error message names what was sent: "a string", "an integer", …
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number(let number) where !number.double.isFinite: "a number out of range"
        case .number(let number) where number.isIntegerLiteral: "an integer out of range"
        case .number: "a non-integer number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// A finite Double as a number (an integer when it is one, so `12.0` is written `12`);
    /// null when not finite, which JSON cannot write.
    public init(_ value: Double) {
        if value.rounded() == value, abs(value) < 1e15 {
            self = .integer(Int64(value))
        } else if let number = JSONNumber(value) {
            self = .number(number)
        } else {
            self = .null
        }
    }
}

/// A number that is not an Int64 integer, kept as written so it is written back unchanged.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// The literal, always valid RFC 8259 number syntax.
    public let literal: String
    /// The nearest Double: infinite when beyond Double's range (`1e400`), 0 below it.
    public let double: Double

    /// A literal in JSON number syntax; nil for anything else (`+1`, `.5`, `0x10`, `nan`).
    public init?(_ literal: String) {
        var text = literal
        let valid = text.withUTF8 { bytes in
            var scanner = NumberScanner(bytes: UnsafeRawBufferPointer(bytes), index: 0)
            return (try? scanner.scan()) != nil && scanner.index == bytes.count
        }
        guard valid else { return nil }
        self.init(validLiteral: literal)
    }

    /// A finite Double, written the shortest way that reads back the same; nil when not finite.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        self.init(validLiteral: value.description)
    }

    /// `literal` already checked by the scanner.
    init(validLiteral literal: String) {
        self.literal = literal
        // Double's parser takes every JSON number, giving ±infinity when out of range.
        self.double = Double(literal) ?? .nan
    }

    /// Written without fraction or exponent; a parsed one is then beyond Int64.
    public var isIntegerLiteral: Bool {
        !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    public var description: String { literal }
}

/// A JSON object: members in the order written, each key at most once.
///
/// Lookup is a linear search, which for the protocol's objects (a few keys, a line of
/// at most 64 KiB) is as fast as hashing; the parser refuses a duplicated key.
public struct JSONObject: Hashable, Sendable {
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// In the order written, or added.
    public private(set) var members: [Member]

    public init() { members = [] }

    /// Members in order; a key given twice keeps its first place and its last value.
    public init(_ members: some Sequence<Member>) {
        self.init()
        for member in members { self[member.key] = member.value }
    }

    /// Members straight from the parser, which has refused duplicates.
    init(unique members: [Member]) { self.members = members }

    /// The value of `key`. Setting replaces it in place, or appends a new key at the
    /// end; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append(Member(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
}
