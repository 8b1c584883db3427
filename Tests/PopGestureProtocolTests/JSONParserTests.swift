import PopGestureProtocol
import Testing

@Suite("JSONParser")
struct JSONParserTests {
    func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONValue(parsing: text) }

    /// The error `bytes` get; records an issue when they parse.
    func error(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> JSONError? {
        do {
            let value = try JSONParser.parse(bytes)
            Issue.record("parsed as \(value)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    func error(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONError? {
        error(Array(text.utf8), sourceLocation: sourceLocation)
    }

    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    // MARK: - Values

    @Test("every kind of value, with whitespace around and between")
    func values() throws {
        #expect(try parse(" \t\r\n null \n") == .null)
        #expect(try parse("true") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse(#""hé""#) == .string("hé"))
        #expect(try parse("[ 1 , [ ] , { } ]") == .array([.integer(1), .array([]), .object(JSONObject())]))
        #expect(try parse(#"{ "a" : [ true ] , "b":null }"#)
            == .object(["a": .array([.bool(true)]), "b": JSONValue.null]))
    }

    @Test("integer literals that fit Int64 are integers; everything else keeps its text")
    func numbers() throws {
        #expect(try parse("0") == .integer(0))
        #expect(try parse("-0") == .integer(0))
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("-9223372036854775808") == .integer(.min))
        for literal in ["1.0", "1e2", "1E+2", "-1.5e-3", "9223372036854775808", "-9223372036854775809", "1e400", "-1e400",
                        "1e-400", "123456789012345678901234567890"] {
            let value = try parse(literal)
            guard case .number(let number) = value else {
                Issue.record("\(literal) is \(value)")
                continue
            }
            #expect(number.literal == literal)
            #expect(value.text == literal)
            #expect(value.integer == nil)
        }
        #expect(try parse("1.0").double == 1)
        #expect(try parse("1e2").kind == "a non-integer number")
        #expect(try parse("9223372036854775808").kind == "an integer out of range")
        #expect(try parse("9223372036854775808").double == 9_223_372_036_854_775_808)
    }

    @Test("1e400 parses, as an infinite number, anywhere")
    func outOfRange() throws {
        let value = try parse(#"{"unknown":1e400,"list":[-1e400]}"#)
        #expect(value["unknown"]?.double == .infinity)
        #expect(value["unknown"]?.kind == "a number out of range")
        #expect(value["list"]?.array?.first?.double == -.infinity)
        #expect(value.text == #"{"unknown":1e400,"list":[-1e400]}"#)
    }

    @Test("objects keep their key order, and write it back")
    func keyOrder() throws {
        let line = #"{"type":"back","time_us":1700000000123456,"progress":0.018,"list":[true,false,null,-1.5e3],"empty":{}}"#
        let value = try parse(line)
        #expect(value.object?.keys == ["type", "time_us", "progress", "list", "empty"])
        #expect(value.text == line)
        #expect(value["time_us"]?.integer == 1_700_000_000_123_456)
        #expect(value["progress"]?.double == 0.018)
        #expect(value["missing"] == nil)
        #expect(try parse(#"{"z":1,"a":2}"#) != parse(#"{"a":2,"z":1}"#))
    }

    // MARK: - Strings

    @Test("escapes, and surrogate pairs joined")
    func escapes() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t\u00e9\u0000\ud83d\ude00\uD83D\uDE00""#)
            == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té\u{0}😀😀"))
        #expect(try parse(#"{"k\u0065y":1}"#)["key"] == .integer(1))
    }

    @Test("lone surrogates are refused, pointing at their escape", arguments: [
        (#""\ud800""#, 1), (#""x\ud800x""#, 2), (#""\ud800\u0041""#, 1), (#""\ud800\ud800""#, 1), (#""\udc00""#, 1),
        (#""ab\ude00\ud83d""#, 3), (#""\ud800\n""#, 1),
    ])
    func loneSurrogates(text: String, offset: Int) {
        let e = error(text)
        #expect(e?.code == .loneSurrogate, "\(text)")
        #expect(e?.offset == offset, "\(text)")
    }

    @Test("raw control characters are refused in strings; DEL and everything above are not")
    func controlCharacters() throws {
        for byte in UInt8(0)..<0x20 {
            let e = error([UInt8(ascii: "\""), UInt8(ascii: "a"), byte, UInt8(ascii: "\"")])
            #expect(e?.code == .controlCharacter, "byte \(byte)")
            #expect(e?.offset == 2)
        }
        #expect(try JSONParser.parse([0x22, 0x7F, 0x22]) == .string("\u{7F}"))
    }

    @Test("UTF-8: every length accepted, the edges of each form exact")
    func validUTF8() throws {
        let text = "A é € 😀 \u{10FFFF} \u{FFFF} \u{E000} \u{D7FF} \u{80} \u{7FF} \u{800} \u{10000}"
        #expect(try parse("\"\(text)\"") == .string(text))
        #expect(try parse("{\"ключ\":\"значение\"}")["ключ"] == .string("значение"))
    }

    @Test("invalid UTF-8 in a string is refused at the offending byte", arguments: [
        ([0x80], 1),  // a continuation byte alone
        ([0xC0, 0xAF], 1),  // overlong '/'
        ([0xC1, 0xBF], 1),  // overlong
        ([0xE0, 0x80, 0xAF], 2),  // overlong 3-byte
        ([0xED, 0xA0, 0x80], 2),  // an encoded surrogate (U+D800)
        ([0xF0, 0x80, 0x80, 0xAF], 2),  // overlong 4-byte
        ([0xF4, 0x90, 0x80, 0x80], 2),  // above U+10FFFF
        ([0xF5, 0x80, 0x80, 0x80], 1),  // never a lead byte
        ([0xFF], 1), ([0xFE], 1),
        ([0xC3], 2),  // cut by the closing quote
        ([0xE2, 0x82], 3),  // cut
        ([0xC3, 0x41], 2),  // not continued
    ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        let e = error([0x22] + bytes + [0x22])
        #expect(e?.code == .invalidUTF8, "\(bytes)")
        #expect(e?.offset == offset, "\(bytes)")
    }

    @Test("a byte outside strings that is not JSON is refused, UTF-8 or not")
    func bytesOutsideStrings() {
        #expect(error([0xFF])?.code == .unexpectedCharacter)
        #expect(error("[é]")?.code == .unexpectedCharacter)
        #expect(error([0x5B, 0x31, 0x2C, 0xC3, 0xA9, 0x5D])?.offset == 3)
    }

    // MARK: - Depth

    @Test("16 levels parse; the bracket that opens level 17 is refused")
    func depthLimit() throws {
        #expect(ProtocolLimits.maximumNestingDepth == 16)
        #expect(try parse(Self.nested(16)) != .null)
        let e = error(Self.nested(17))
        #expect(e?.code == .nestingTooDeep)
        #expect(e?.offset == 16)
        let objects = String(repeating: #"{"a":"#, count: 16) + "1" + String(repeating: "}", count: 16)
        #expect(try parse(objects) != .null)
        let seventeen = String(repeating: #"{"a":"#, count: 16) + "[]" + String(repeating: "}", count: 16)
        #expect(error(seventeen)?.code == .nestingTooDeep)
        #expect(error(seventeen)?.offset == 16 * 5)
    }

    @Test("the depth limit is found before the rest of the text is read")
    func depthFirst() {
        // Broken after the 17th bracket: only the depth is reported.
        #expect(error(String(repeating: "[", count: 17) + "}}}\u{1}")?.code == .nestingTooDeep)
        // Siblings do not add up: depth is nesting, not a count of brackets.
        #expect((try? parse("[" + Array(repeating: Self.nested(15), count: 1000).joined(separator: ",") + "]")) != nil)
    }

    @Test("the lines that took the daemon down: 513 '[', and 512 '{\"a\":' then '['")
    func issue7() {
        #expect(error(String(repeating: "[", count: 513))?.code == .nestingTooDeep)
        #expect(error(String(repeating: #"{"a":"#, count: 512) + "[")?.code == .nestingTooDeep)
        #expect(error(String(repeating: "[", count: 511) + String(repeating: "]", count: 511))?.code == .nestingTooDeep)
    }

    @Test("64 KiB of '[' or of '{\"a\":' ends in nesting-too-deep, not a deep recursion")
    func wholeLineOfNesting() {
        let brackets = String(repeating: "[", count: 64 * 1024)
        let objects = String(repeating: #"{"a":"#, count: 64 * 1024 / 5)
        #expect(error(brackets)?.code == .nestingTooDeep)
        #expect(error(objects)?.code == .nestingTooDeep)
        // And a lower limit, for callers that want one.
        #expect(throws: JSONError.self) { try JSONParser.parse(Array("[[]]".utf8), maximumDepth: 1) }
        #expect((try? JSONParser.parse(Array("[]".utf8), maximumDepth: 1)) == .array([]))
    }

    @Test("a 64 KiB line of values parses: the parser is linear, not only bounded")
    func longFlatLine() throws {
        let items = Array(repeating: #"{"id":"page","x":[0.5,1e400,-3]}"#, count: 2000)
        let value = try parse("[" + items.joined(separator: ",") + "]")
        #expect(value.array?.count == 2000)
        #expect(value.array?.last?["x"]?.array?[2] == .integer(-3))
    }

    // MARK: - Errors

    @Test("a duplicated key is refused, naming the key, at the second one")
    func duplicateKey() {
        let e = error(#"{"type":"status","id":1,"type":"hello"}"#)
        #expect(e?.code == .duplicateKey)
        #expect(e?.key == "type")
        #expect(e?.offset == 24)
        #expect(e?.description.contains(#""type""#) == true)
        // Escapes are decoded before comparing.
        #expect(error(#"{"a":1,"\u0061":2}"#)?.key == "a")
        // Only within one object.
        #expect((try? parse(#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#)) != nil)
        // A long key is cut in the message, not in `key`.
        let long = String(repeating: "k", count: 1000)
        let cut = error("{\"\(long)\":1,\"\(long)\":2}")
        #expect(cut?.key == long)
        #expect((cut?.description.utf8.count ?? .max) < 200)
    }

    @Test("not JSON: each error with its code and offset", arguments: [
        ("", JSONError.Code.unexpectedEnd, 0),
        (" ", .unexpectedEnd, 1),
        ("{", .unexpectedEnd, 1),
        ("[1,", .unexpectedEnd, 3),
        (#""abc"#, .unexpectedEnd, 4),
        (#""\"#, .unexpectedEnd, 2),
        (#""\u12"#, .unexpectedEnd, 5),
        ("tru", .unexpectedEnd, 3),
        ("}", .unexpectedCharacter, 0),
        ("[1,]", .unexpectedCharacter, 3),
        ("[1 2]", .unexpectedCharacter, 3),
        (#"{"a" 1}"#, .unexpectedCharacter, 5),
        (#"{"a":1,}"#, .unexpectedCharacter, 7),
        ("{a:1}", .unexpectedCharacter, 1),
        ("{'a':1}", .unexpectedCharacter, 1),
        ("trux", .unexpectedCharacter, 3),
        ("nul", .unexpectedEnd, 3),
        ("True", .unexpectedCharacter, 0),
        ("NaN", .unexpectedCharacter, 0),
        ("+1", .unexpectedCharacter, 0),
        (".5", .unexpectedCharacter, 0),
        ("{} {}", .unexpectedCharacter, 3),
        ("1 x", .unexpectedCharacter, 2),
        ("\u{0B}1", .unexpectedCharacter, 0),  // vertical tab is not JSON whitespace
        ("-", .invalidNumber, 1),
        ("-a", .invalidNumber, 1),
        ("01", .invalidNumber, 1),
        ("01x", .invalidNumber, 1),
        ("-012", .invalidNumber, 2),
        ("1.", .invalidNumber, 2),
        ("1.e5", .invalidNumber, 2),
        ("1e", .invalidNumber, 2),
        ("1e+", .invalidNumber, 3),
        ("0x10", .unexpectedCharacter, 1),
        (#""\x""#, .invalidEscape, 1),
        (#""ab\'""#, .invalidEscape, 3),
        (#""\u12G4""#, .invalidEscape, 1),
        (#""\u12""#, .invalidEscape, 1),
        (#""\U0041""#, .invalidEscape, 1),
    ])
    func invalid(text: String, code: JSONError.Code, offset: Int) {
        let e = error(text)
        #expect(e?.code == code, "\(text): \(e.map(String.init(describing:)) ?? "")")
        #expect(e?.offset == offset, "\(text): \(e.map(String.init(describing:)) ?? "")")
    }

    @Test("the same bytes parse the same from an Array, a String, a slice and a raw buffer")
    func entryPoints() throws {
        let text = #"  {"a":[1,"é"]}  "#
        let bytes = Array(text.utf8)
        let expected = try parse(text)
        #expect(try JSONValue(parsing: bytes) == expected)
        #expect(try JSONValue(parsing: bytes[...]) == expected)
        #expect(try JSONValue(parsing: text.utf8) == expected)
        #expect(try bytes.withUnsafeBytes { try JSONParser.parse($0) } == expected)
        // Not contiguous: copied first.
        #expect(try JSONValue(parsing: Set([UInt8(ascii: "7")])) == .integer(7))
    }
}
