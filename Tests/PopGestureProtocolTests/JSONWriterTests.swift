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
}
