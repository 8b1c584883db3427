import PopGestureCore
@testable import PopGestureServer
import Testing

@Suite("RequestParser")
struct RequestParserTests {
    func parse(_ line: String) throws -> IdentifiedRequest {
        try RequestParser.parse(line)
    }

    /// The error a line gets; records an issue when it parses.
    func error(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> ProtocolError? {
        do {
            let parsed = try RequestParser.parse(line)
            Issue.record("parsed as \(parsed)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Requests

    @Test("hello, with an integer or string id echoed, and an optional name")
    func hello() throws {
        #expect(try parse(#"{"type":"hello","version":1,"name":"files","id":7}"#)
            == IdentifiedRequest(.hello(version: 1, name: "files"), id: .integer(7)))
        #expect(try parse(#"{"type":"hello","version":2,"id":"a"}"#)
            == IdentifiedRequest(.hello(version: 2, name: nil), id: .string("a")))
    }

    @Test("requests without fields")
    func bare() throws {
        #expect(try parse(#"{"type":"subscribe"}"#).request == .subscribe)
        #expect(try parse(#"{"type":"unsubscribe"}"#).request == .unsubscribe)
        #expect(try parse(#"  {"type":"status"}  "#).request == .status)
        #expect(try parse("{\"type\":\"status\"}\r").request == .status)
    }

    @Test("create with every page property, and its defaults")
    func create() throws {
        let line = #"""
            {"type":"create","navigator":"main","layout":"rtl","barFollowsTopPage":false,"pages":[
              {"id":"root"},
              {"id":"detail","popDisabled":true,"prefersBarHidden":true,"maxStartDistance":12.5,
               "exclusionZones":[[0,0.5,1,0.25],[0.1,0.2,0.3,0.4]]}]}
            """#.replacingOccurrences(of: "\n", with: "")
        let detail = Page(
            id: "detail", popDisabled: true, prefersBarHidden: true, maxStartDistanceMillimetres: 12.5,
            exclusionZones: [NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.25),
                             NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4)])
        #expect(try parse(line).request == .navigation(.create(
            navigator: "main", pages: [Page(id: "root"), detail], layout: .rightToLeft, barFollowsTopPage: false)))
        #expect(try parse(#"{"type":"create","navigator":"main","pages":[{"id":"root"}]}"#).request
            == .navigation(.create(navigator: "main", pages: [Page(id: "root")], layout: nil, barFollowsTopPage: true)))
    }

    @Test("every navigation request, animated defaulting to false")
    func navigation() throws {
        let page = Page(id: "p")
        let cases: [(String, ClientRequest)] = [
            (#"{"type":"push","navigator":"n","page":{"id":"p"}}"#,
             .navigation(.push(navigator: "n", page: page, animated: false))),
            (#"{"type":"push","navigator":"n","page":{"id":"p"},"animated":true}"#,
             .navigation(.push(navigator: "n", page: page, animated: true))),
            (#"{"type":"pop","navigator":"n"}"#, .navigation(.pop(navigator: "n", animated: false))),
            (#"{"type":"replace","navigator":"n","pages":[{"id":"p"}],"animated":true}"#,
             .navigation(.replace(navigator: "n", pages: [page], animated: true))),
            (#"{"type":"update","navigator":"n","page":{"id":"p"}}"#, .navigation(.update(navigator: "n", page: page))),
            (#"{"type":"settle","navigator":"n"}"#, .navigation(.settle(navigator: "n"))),
            (#"{"type":"front","navigator":"n"}"#, .navigation(.front(navigator: "n"))),
            (#"{"type":"remove","navigator":"n"}"#, .navigation(.remove(navigator: "n"))),
            (#"{"type":"configure","navigator":"n"}"#, .configure(navigator: "n", layout: nil, barFollowsTopPage: nil)),
            (#"{"type":"configure","navigator":"n","layout":"ltr","barFollowsTopPage":false}"#,
             .configure(navigator: "n", layout: .leftToRight, barFollowsTopPage: false)),
            (#"{"type":"stack","navigator":"n"}"#, .stack(navigator: "n")),
        ]
        for (line, expected) in cases {
            let parsed = try parse(line)
            #expect(parsed.request == expected, "\(line)")
            #expect(parsed.request.type == line.split(separator: "\"")[3].description)
        }
    }

    @Test("null counts as absent; unknown keys are ignored")
    func lenient() throws {
        #expect(try parse(#"{"type":"pop","navigator":"n","animated":null,"id":null,"future":[1,{}]}"#)
            == IdentifiedRequest(.navigation(.pop(navigator: "n", animated: false))))
    }

    // MARK: - Errors

    @Test("malformed-json: not JSON, truncated, not UTF-8")
    func malformed() {
        for line in ["hello", #"{"type":"status""#, "{'type':'status'}"] {
            #expect(error(line)?.code == .malformedJSON, "\(line)")
        }
        #expect(throws: ProtocolError(.malformedJSON, "the line is not valid JSON")) {
            try RequestParser.parse([UInt8](#"{"type":"status","name":""#.utf8) + [0xff, 0xfe] + Array(#""}"#.utf8))
        }
    }

    @Test("nesting as deep as a line allows is refused, not recursed into")
    func deepNesting() {
        let depth = 30_000
        let line = #"{"type":"status","x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        #expect(error(line)?.code == .malformedJSON)
    }

    @Test("not-an-object: arrays, strings, numbers and null")
    func notAnObject() {
        for line in ["[1,2]", #""status""#, "42", "null", "true"] {
            let e = error(line)
            #expect(e?.code == .notAnObject, "\(line)")
            #expect(e?.message.contains("object") == true)
        }
    }

    @Test("unknown-type names the type and echoes it and the id")
    func unknownType() {
        let e = error(#"{"type":"fly","id":3}"#)
        #expect(e?.code == .unknownType)
        #expect(e?.message.contains("\"type\" \"fly\"") == true)
        #expect(e?.request == "fly")
        #expect(e?.id == .integer(3))
    }

    @Test("missing-field names the field, nested ones by their path", arguments: [
        (#"{"id":1}"#, "\"type\""),
        (#"{"type":"hello"}"#, "\"version\""),
        (#"{"type":"push","page":{"id":"p"}}"#, "\"navigator\""),
        (#"{"type":"push","navigator":"n"}"#, "\"page\""),
        (#"{"type":"push","navigator":"n","page":{"popDisabled":true}}"#, "\"page.id\""),
        (#"{"type":"create","navigator":"n"}"#, "\"pages\""),
        (#"{"type":"replace","navigator":"n","pages":[{"id":"a"},{}]}"#, "\"pages[1].id\""),
        (#"{"type":"stack","navigator":null}"#, "\"navigator\""),
    ])
    func missingField(line: String, field: String) {
        let e = error(line)
        #expect(e?.code == .missingField)
        #expect(e?.message.contains(field) == true, "\(e?.message ?? "")")
        #expect(e?.message.contains("is required") == true)
    }

    @Test("invalid-field names the field and the expected type", arguments: [
        (#"{"type":"status","id":true}"#, "\"id\"", "an integer or a string"),
        (#"{"type":"status","id":1.5}"#, "\"id\"", "an integer or a string"),
        (#"{"type":7}"#, "\"type\"", "a string"),
        (#"{"type":"hello","version":"1"}"#, "\"version\"", "an integer"),
        (#"{"type":"hello","version":1.5}"#, "\"version\"", "an integer"),
        (#"{"type":"hello","version":1,"name":5}"#, "\"name\"", "a string"),
        (#"{"type":"pop","navigator":""}"#, "\"navigator\"", "a non-empty string"),
        (#"{"type":"pop","navigator":3}"#, "\"navigator\"", "a non-empty string"),
        (#"{"type":"pop","navigator":"n","animated":1}"#, "\"animated\"", "true or false"),
        (#"{"type":"pop","navigator":"n","animated":"yes"}"#, "\"animated\"", "true or false"),
        (#"{"type":"create","navigator":"n","pages":[{"id":"a"}],"layout":"up"}"#, "\"layout\"", "\"ltr\" or \"rtl\""),
        (#"{"type":"create","navigator":"n","pages":{"id":"a"}}"#, "\"pages\"", "an array of page objects"),
        (#"{"type":"create","navigator":"n","pages":["a"]}"#, "\"pages[0]\"", "a page object"),
        (#"{"type":"push","navigator":"n","page":{"id":4}}"#, "\"page.id\"", "a non-empty string"),
        (#"{"type":"push","navigator":"n","page":{"id":"p","popDisabled":0}}"#, "\"page.popDisabled\"", "true or false"),
        (#"{"type":"push","navigator":"n","page":{"id":"p","maxStartDistance":"5"}}"#,
         "\"page.maxStartDistance\"", "a number"),
        (#"{"type":"push","navigator":"n","page":{"id":"p","exclusionZones":[0,0,1,1]}}"#,
         "\"page.exclusionZones[0]\"", "four numbers"),
        (#"{"type":"push","navigator":"n","page":{"id":"p","exclusionZones":[[0,0,1]]}}"#,
         "\"page.exclusionZones[0]\"", "four numbers"),
        (#"{"type":"push","navigator":"n","page":{"id":"p","exclusionZones":{"x":0}}}"#,
         "\"page.exclusionZones\"", "an array"),
        (#"{"type":"configure","navigator":"n","barFollowsTopPage":"no"}"#, "\"barFollowsTopPage\"", "true or false"),
    ])
    func invalidField(line: String, field: String, expected: String) {
        let e = error(line)
        #expect(e?.code == .invalidField)
        #expect(e?.message.contains(field) == true, "\(e?.message ?? "")")
        #expect(e?.message.contains(expected) == true, "\(e?.message ?? "")")
    }

    @Test("errors echo the request type and a valid id")
    func echoes() {
        let e = error(#"{"type":"push","navigator":"n","id":"x1"}"#)
        #expect(e?.request == "push")
        #expect(e?.id == .string("x1"))
        // An id that is itself invalid cannot be echoed.
        let bad = error(#"{"type":"push","id":[1]}"#)
        #expect(bad?.request == "push")
        #expect(bad?.id == nil)
    }
}
