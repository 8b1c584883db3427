/// A strict RFC 8259 parser over UTF-8 bytes, bounded for untrusted input.
///
/// - It recurses once per array or object level and refuses the bracket that would
///   open level `maximumDepth + 1` (`nesting-too-deep`), so its stack is bounded and
///   its time is linear in the length of the text.
/// - Strings must be UTF-8; escapes must name characters (no lone surrogates).
/// - A key given twice in one object is an error (`duplicate-key`), not a silent choice.
/// - An integer literal that fits Int64 becomes `.integer`; every other number is kept
///   as written in `.number`, even one beyond Double's range (`1e400`), so that only a
///   field that needs a number has to refuse it.
/// - Whitespace (space, tab, CR, LF) may surround the value; nothing else may follow it.
public enum JSONParser {
    /// Parses one complete JSON text. This is the entry point for fuzzing.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, maximumDepth: Int = ProtocolLimits.maximumNestingDepth
    ) throws(JSONError) -> JSONValue {
        var parser = Parser(bytes: bytes, maximumDepth: maximumDepth)
        return try parser.parseText()
    }

    /// Parses one complete JSON text from any bytes (copied only when not contiguous).
    public static func parse(
        _ bytes: some Collection<UInt8>, maximumDepth: Int = ProtocolLimits.maximumNestingDepth
    ) throws(JSONError) -> JSONValue {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) in try parse(UnsafeRawBufferPointer(buffer), maximumDepth: maximumDepth) }
        }
        if let contiguous { return try contiguous.get() }
        return try Array(bytes).withUnsafeBytes { buffer in
            Result { () throws(JSONError) in try parse(buffer, maximumDepth: maximumDepth) }
        }.get()
    }
}

extension JSONValue {
    /// Parses one complete JSON text given as bytes (see `JSONParser`).
    public init(parsing bytes: some Collection<UInt8>) throws(JSONError) {
        self = try JSONParser.parse(bytes)
    }

    /// Parses one complete JSON text (see `JSONParser`).
    public init(parsing text: String) throws(JSONError) {
        var text = text
        self = try text.withUTF8 { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(UnsafeRawBufferPointer(buffer)) }
        }.get()
    }
}

private enum ASCII {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")

    static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
}

/// Reads the grammar of one number; shared by the parser and `JSONNumber(_:)`.
struct NumberScanner {
    let bytes: UnsafeRawBufferPointer
    var index: Int

    /// Moves past a number starting at `index`; true when it has neither fraction nor exponent.
    mutating func scan() throws(JSONError) -> Bool {
        if peek == ASCII.minus { index += 1 }
        guard let first = peek, ASCII.isDigit(first) else { throw expectedDigit("'-'") }
        index += 1
        if first == ASCII.zero, let next = peek, ASCII.isDigit(next) {
            throw JSONError(.invalidNumber, at: index, "a number starting with 0 is 0 itself (no leading zeros)")
        }
        skipDigits()
        var isInteger = true
        if peek == ASCII.dot {
            index += 1
            guard let digit = peek, ASCII.isDigit(digit) else { throw expectedDigit("'.'") }
            skipDigits()
            isInteger = false
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == ASCII.plus || peek == ASCII.minus { index += 1 }
            guard let digit = peek, ASCII.isDigit(digit) else { throw expectedDigit("the exponent") }
            skipDigits()
            isInteger = false
        }
        return isInteger
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipDigits() {
        while let byte = peek, ASCII.isDigit(byte) { index += 1 }
    }

    private func expectedDigit(_ after: String) -> JSONError {
        JSONError(.invalidNumber, at: index, "a digit must follow \(after)")
    }
}

private struct Parser {
    let bytes: UnsafeRawBufferPointer
    let maximumDepth: Int
    var index = 0
    /// Arrays and objects open around the current position.
    var depth = 0
    /// A string with escapes, decoded; reused so that strings cost no allocation each.
    var scratch: [UInt8] = []

    init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func parseText() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw unexpected("nothing may follow the value") }
        return value
    }

    // MARK: Errors

    /// At the current byte: `unexpected-end` past the last byte, else `unexpected-character`.
    func unexpected(_ expected: String) -> JSONError {
        guard index < bytes.count else { return JSONError(.unexpectedEnd, at: index, "the text ended; \(expected)") }
        return JSONError(.unexpectedCharacter, at: index, "\(Self.describe(bytes[index])): \(expected)")
    }

    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    // MARK: Values

    mutating func skipWhitespace() {
        while index < bytes.count, ASCII.isWhitespace(bytes[index]) { index += 1 }
    }

    /// Skips whitespace, then takes `byte` if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw unexpected("expected a value") }
        switch bytes[index] {
        case ASCII.openBrace: return try parseObject()
        case ASCII.openBracket: return try parseArray()
        case ASCII.quote: return .string(try parseString())
        case UInt8(ascii: "t"): try parseWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try parseWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try parseWord("null"); return .null
        case ASCII.minus, ASCII.zero...ASCII.nine: return try parseNumber()
        default: throw unexpected("expected a value")
        }
    }

    mutating func parseWord(_ word: StaticString) throws(JSONError) {
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count, bytes[index] == byte else { throw unexpected("expected \(word)") }
            index += 1
        }
    }

    /// Called on the opening bracket: refuses it when it would open one level too many.
    mutating func open() throws(JSONError) {
        guard depth < maximumDepth else {
            throw JSONError(
                .nestingTooDeep, at: index,
                "arrays and objects nest at most \(maximumDepth) deep, and this opens level \(depth + 1)")
        }
        depth += 1
        index += 1
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try open()
        defer { depth -= 1 }
        var values: [JSONValue] = []
        if take(ASCII.closeBracket) { return .array(values) }
        while true {
            skipWhitespace()
            values.append(try parseValue())
            if take(ASCII.comma) { continue }
            if take(ASCII.closeBracket) { return .array(values) }
            throw unexpected("expected ',' or ']'")
        }
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try open()
        defer { depth -= 1 }
        var members: [JSONObject.Member] = []
        var keys: Set<String> = []
        if take(ASCII.closeBrace) { return .object(JSONObject(unique: members)) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == ASCII.quote else { throw unexpected("expected a key in quotes") }
            let keyOffset = index
            let key = try parseString()
            guard keys.insert(key).inserted else {
                throw JSONError(
                    .duplicateKey, at: keyOffset, "key \(quoted(key)) appears twice in one object",
                    key: key)
            }
            guard take(ASCII.colon) else { throw unexpected("expected ':' after a key") }
            skipWhitespace()
            members.append(JSONObject.Member(key: key, value: try parseValue()))
            if take(ASCII.comma) { continue }
            if take(ASCII.closeBrace) { return .object(JSONObject(unique: members)) }
            throw unexpected("expected ',' or '}'")
        }
    }

    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        var scanner = NumberScanner(bytes: bytes, index: index)
        let isInteger = try scanner.scan()
        index = scanner.index
        let literal = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let value = Self.int64(literal) { return .integer(value) }
        return .number(JSONNumber(validLiteral: String(decoding: literal, as: UTF8.self)))
    }

    /// An integer literal's value, or nil beyond Int64. Accumulates negatively so that
    /// Int64.min fits.
    static func int64(_ literal: UnsafeRawBufferPointer) -> Int64? {
        let negative = literal.first == ASCII.minus
        var value: Int64 = 0
        for byte in literal.dropFirst(negative ? 1 : 0) {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(byte - ASCII.zero))
            if overflow1 || overflow2 { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    // MARK: Strings

    /// Called on the opening quote; returns the decoded string.
    mutating func parseString() throws(JSONError) -> String {
        index += 1
        let start = index
        var escaped = false
        scratch.removeAll(keepingCapacity: true)
        var run = index  // start of the bytes not yet copied to `scratch`
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.quote {
                defer { index += 1 }
                if !escaped { return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) }
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run..<index]))
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == ASCII.backslash {
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run..<index]))
                escaped = true
                try parseEscape()
                run = index
            } else if byte < 0x20 {
                throw JSONError(.controlCharacter, at: index, "\(Self.describe(byte)) must be escaped in a string")
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        throw unexpected("the string has no closing quote")
    }

    /// Checks one multi-byte UTF-8 sequence at `index` (Unicode, table 3-7) and moves past it.
    mutating func skipUTF8Sequence() throws(JSONError) {
        let lead = bytes[index]
        // The continuation bytes: the first one's allowed range depends on the lead byte.
        let count: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 1
        case 0xE0: count = 2; low = 0xA0  // no overlong forms
        case 0xE1...0xEC, 0xEE...0xEF: count = 2
        case 0xED: count = 2; high = 0x9F  // no surrogates
        case 0xF0: count = 3; low = 0x90  // no overlong forms
        case 0xF1...0xF3: count = 3
        case 0xF4: count = 3; high = 0x8F  // nothing above U+10FFFF
        default:
            throw JSONError(.invalidUTF8, at: index, "\(Self.describe(lead)) cannot start a UTF-8 character")
        }
        for position in 1...count {
            let at = index + position
            guard at < bytes.count, bytes[at] >= low, bytes[at] <= high else {
                throw JSONError(.invalidUTF8, at: at, "a UTF-8 character starting at byte \(index) is cut or malformed")
            }
            low = 0x80
            high = 0xBF
        }
        index += count + 1
    }

    /// Called on a backslash: appends the escaped character to `scratch`.
    mutating func parseEscape() throws(JSONError) {
        let start = index
        index += 1
        guard index < bytes.count else { throw unexpected("the string has no closing quote") }
        let letter = bytes[index]
        index += 1
        let scalar: Unicode.Scalar
        switch letter {
        case ASCII.quote: scalar = "\""
        case ASCII.backslash: scalar = "\\"
        case UInt8(ascii: "/"): scalar = "/"
        case UInt8(ascii: "b"): scalar = "\u{08}"
        case UInt8(ascii: "f"): scalar = "\u{0C}"
        case UInt8(ascii: "n"): scalar = "\n"
        case UInt8(ascii: "r"): scalar = "\r"
        case UInt8(ascii: "t"): scalar = "\t"
        case UInt8(ascii: "u"): scalar = try parseUnicodeEscape(start: start)
        default:
            throw JSONError(.invalidEscape, at: start, "\\\(Self.describe(letter)) is not an escape")
        }
        UTF8.encode(scalar) { scratch.append($0) }
    }

    /// After `\u`: four hex digits, and for a high surrogate the `\uXXXX` of its low one.
    mutating func parseUnicodeEscape(start: Int) throws(JSONError) -> Unicode.Scalar {
        let first = try parseHex4(escapeStart: start)
        switch first {
        case 0xD800..<0xDC00:
            let second = index
            guard index + 1 < bytes.count, bytes[index] == ASCII.backslash, bytes[index + 1] == UInt8(ascii: "u") else {
                throw JSONError(.loneSurrogate, at: start, "\\u\(Self.hex(first)) is a high surrogate without its low one")
            }
            index += 2
            let low = try parseHex4(escapeStart: second)
            guard (0xDC00..<0xE000).contains(low) else {
                throw JSONError(.loneSurrogate, at: start, "\\u\(Self.hex(first)) is a high surrogate without its low one")
            }
            // Both in range, so the sum is in U+10000...U+10FFFF: a scalar.
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00))!
        case 0xDC00..<0xE000:
            throw JSONError(.loneSurrogate, at: start, "\\u\(Self.hex(first)) is a low surrogate without its high one")
        default:
            return Unicode.Scalar(first)!  // at most 0xFFFF and not a surrogate: a scalar
        }
    }

    mutating func parseHex4(escapeStart: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw unexpected("\\u needs four hex digits") }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case ASCII.zero...ASCII.nine: digit = byte - ASCII.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidEscape, at: escapeStart, "\\u needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
