import PopGestureProtocol
import Testing

/// `JSONWriter`: the bytes of the events' lines, written member by member.
@Suite struct JSONWriterTests {
    @Test("a literal key writes the bytes a string key does, commas included")
    func literalKeys() {
        var literal = JSONWriter()
        literal.beginObject()
        literal.key(literal: "type")
        literal.string("pop-progress")
        literal.key(literal: "time_us")
        literal.integer(42)
        literal.endObject()

        var quoted = JSONWriter()
        quoted.beginObject()
        quoted.key("type")
        quoted.string("pop-progress")
        quoted.key("time_us")
        quoted.integer(42)
        quoted.endObject()

        #expect(literal.text == #"{"type":"pop-progress","time_us":42}"#)
        #expect(literal.bytes == quoted.bytes)
    }

    @Test("a string is escaped where it must be, and copied whole around the escapes")
    func escapes() {
        var writer = JSONWriter()
        writer.string("say \"hi\"\\\n\u{1}é")
        #expect(writer.text == #""say \"hi\"\\\n\u0001é""#)
    }

    @Test("a string longer than the small-string size is read in place and copied whole")
    func longString() {
        let app = "org.gnome.Settings.SearchProvider.with.a.long.name"
        var writer = JSONWriter()
        writer.string(app)
        #expect(writer.text == "\"\(app)\"")
    }

    @Test("a copy of a writer keeps its bytes when the original writes on, or starts over")
    func copyOnWrite() {
        var writer = JSONWriter()
        writer.beginArray()
        writer.integer(1)
        let copy = writer
        writer.integer(2)
        writer.endArray()
        #expect(copy.text == "[1")
        #expect(writer.text == "[1,2]")
        let full = writer
        writer.removeAll()
        writer.null()
        #expect(full.text == "[1,2]")
        #expect(writer.text == "null")
    }

    @Test("a line far past the first allocation grows, byte for byte")
    func growth() {
        var writer = JSONWriter()
        writer.beginArray()
        for value in 0..<1_000 { writer.integer(Int64(value) - 500) }
        writer.endArray()
        let expected = "[" + (0..<1_000).map { String($0 - 500) }.joined(separator: ",") + "]"
        #expect(writer.text == expected)
        #expect(writer.count == expected.utf8.count)
        #expect(writer.bytes == Array(expected.utf8))
    }

    @Test("numbers: the extremes of Int64, and thousandths rounded without trailing zeros")
    func numbers() {
        var writer = JSONWriter()
        writer.beginArray()
        writer.integer(.max)
        writer.integer(.min)
        writer.integer(0)
        writer.integer(9)
        writer.integer(10)
        writer.thousandths(0.25)
        writer.thousandths(-0.5)
        writer.thousandths(1)
        writer.thousandths(0.0004)
        writer.thousandths(0.123456)
        writer.thousandths(.nan)
        writer.endArray()
        #expect(writer.text == "[9223372036854775807,-9223372036854775808,0,9,10,0.25,-0.5,1,0,0.123,null]")
    }
}
