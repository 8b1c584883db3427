/// Why bytes are not a JSON text the protocol accepts, and where.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The text ended inside a value, or held none.
        public static let unexpectedEnd = Code(rawValue: "unexpected-end")
        /// A byte that cannot come here: `'`, a missing `,` or `:`, text after the value.
        public static let unexpectedCharacter = Code(rawValue: "unexpected-character")
        /// A number that breaks RFC 8259's grammar: `-`, `1.`, `1e`, `01`.
        public static let invalidNumber = Code(rawValue: "invalid-number")
        /// Bytes in a string that are not UTF-8: a stray continuation byte, an overlong
        /// form, an encoded surrogate, a code point above U+10FFFF, a cut sequence.
        public static let invalidUTF8 = Code(rawValue: "invalid-utf8")
        /// U+0000 to U+001F written raw inside a string (they must be escaped).
        public static let controlCharacter = Code(rawValue: "control-character")
        /// A backslash escape JSON does not have (`\x`), or `\u` without four hex digits.
        public static let invalidEscape = Code(rawValue: "invalid-escape")
        /// `\uD800`–`\uDFFF` not forming a surrogate pair: it names no character, so it
        /// is refused rather than replaced (two different ids must not read the same).
        public static let loneSurrogate = Code(rawValue: "lone-surrogate")
        /// An array or object opened past the depth limit (`ProtocolLimits.maximumNestingDepth`).
        public static let nestingTooDeep = Code(rawValue: "nesting-too-deep")
        /// The same key twice in one object; `key` names it.
        public static let duplicateKey = Code(rawValue: "duplicate-key")
    }

    public var code: Code
    /// Where the problem is, in bytes from the start of the text.
    public var offset: Int
    /// What was wrong, for people: "expected ',' or ']'".
    public var problem: String
    /// The duplicated key, for `duplicateKey`.
    public var key: String?

    public init(_ code: Code, at offset: Int, _ problem: String, key: String? = nil) {
        self.code = code
        self.offset = offset
        self.problem = problem
        self.key = key
    }

    /// `invalid-escape at byte 7: \x is not an escape`
    public var description: String { "\(code) at byte \(offset): \(problem)" }
}
