import PopGestureProtocol
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    @Test("writing: compact, key order kept, nil fields left out, numbers as written")
    func writing() throws {
        let value = JSONValue.object([
            "type": .string("push"), "navigator": .string("main"), "animated": nil,
            "page": .object(["id": .string("a \"b\"")]), "id": .integer(7),
            "list": .array([.null, .bool(false), .number(JSONNumber("1.50")!)]),
        ])
        #expect(value.text == #"{"type":"push","navigator":"main","page":{"id":"a \"b\""},"id":7,"list":[null,false,1.50]}"#)
        #expect(try JSONValue(parsing: value.text) == value)
    }

    @Test("escaping: quotes, backslashes and control characters; everything else raw")
    func escaping() throws {
        #expect(JSONValue.string("a\"\n\u{1}").text == #""a\"\n\u0001""#)
        #expect(JSONValue.quoted("\\\t\r\u{1F}/é😀\u{7F}") == #""\\\t\r\u001f/é😀\#u{7F}""#)
        // Whatever is written reads back the same.
        let every = String(String.UnicodeScalarView((0..<0x300).compactMap(Unicode.Scalar.init) + ["😀", "\u{10FFFF}"]))
        #expect(try JSONValue(parsing: JSONValue.string(every).text) == .string(every))
    }

    @Test("integers are written in decimal, from Int64.min to Int64.max", arguments: [
        Int64.min, -1_000_000, -10, -9, -1, 0, 1, 9, 10, 99, 100, 1_234_567_890, Int64.max,
    ])
    func integers(value: Int64) throws {
        #expect(JSONValue.integer(value).text == String(value))
        #expect(try JSONValue(parsing: String(value)) == .integer(value))
    }

    @Test("a writer started over writes its next value as the first: no comma carried over")
    func writerStartsOver() {
        var writer = JSONWriter()
        JSONValue.object(["a": .integer(1)]).write(to: &writer)
        writer.removeAll()
        JSONValue.array([.bool(true), .null]).write(to: &writer)
        #expect(writer.text == "[true,null]")
    }

    @Test("control characters without a short escape are written as \\u00 and two lowercase hex digits")
    func controlEscapes() {
        for value in UInt32(0)..<0x20 where ![0x09, 0x0A, 0x0D].contains(value) {
            let hex = String(value, radix: 16)
            let expected = "\"\\u" + String(repeating: "0", count: 4 - hex.count) + hex + "\""
            #expect(JSONValue.quoted(String(Unicode.Scalar(value)!)) == expected, "\(value)")
        }
    }

    @Test("numbers: only JSON syntax is a literal; only finite Doubles are numbers")
    func numbers() {
        #expect(JSONNumber("-1.5e+3")?.double == -1500)
        for bad in ["", "+1", ".5", "1.", "01", "0x10", "nan", "inf", "1 ", " 1", "1e"] {
            #expect(JSONNumber(bad) == nil, "\(bad)")
        }
        #expect(JSONNumber(0.1)?.literal == "0.1")
        #expect(JSONNumber(1e-7).map { JSONNumber($0.literal) != nil } == true)
        #expect(JSONNumber(.infinity) == nil)
        #expect(JSONNumber(.nan) == nil)
    }

    @Test("objects: a set key replaces in place, a new one is appended, nil removes")
    func objects() {
        var object = JSONObject([.init(key: "a", value: .integer(1)), .init(key: "b", value: .integer(2)),
                                 .init(key: "a", value: .integer(3))])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .integer(3))
        object["c"] = .null
        object["a"] = .integer(4)
        object["b"] = nil
        #expect(JSONValue.object(object).text == #"{"a":4,"c":null}"#)
        #expect(object.count == 2)
    }

    @Test("accessors answer only for their own kind")
    func accessors() {
        #expect(JSONValue.integer(3).double == 3)
        #expect(JSONValue.integer(3).string == nil)
        #expect(JSONValue.string("3").integer == nil)
        #expect(JSONValue.bool(true).bool == true)
        #expect(JSONValue.null["a"] == nil)
        #expect(JSONValue.array([]).kind == "an array")
    }
}
