import PopGestureProtocol
import Testing

@Suite("RequestCodec: decoding")
struct RequestCodecTests {
    func parse(_ line: String) throws -> IdentifiedRequest {
        try RequestCodec.decode(line)
    }

    /// The error a line gets; records an issue when it parses.
    func error(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> ProtocolError? {
        do {
            let parsed = try RequestCodec.decode(line)
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
            == IdentifiedRequest(.hello(versions: [1], name: "files"), id: .integer(7)))
        #expect(try parse(#"{"type":"hello","version":2,"id":"a"}"#)
            == IdentifiedRequest(.hello(versions: [2], name: nil), id: .string("a")))
    }

    @Test("hello: versions offers a list and wins over version; version alone offers itself")
    func helloVersions() throws {
        #expect(try parse(#"{"type":"hello","version":1,"versions":[1,2,3]}"#).request
            == .hello(versions: [1, 2, 3], name: nil))
        #expect(try parse(#"{"type":"hello","versions":[2]}"#).request == .hello(versions: [2], name: nil))
        #expect(try parse(#"{"type":"hello","version":4,"versions":null}"#).request == .hello(versions: [4], name: nil))
    }

    @Test("hello: versions must be 1 to 16 integers", arguments: [
        (#"{"type":"hello","versions":[]}"#, ProtocolError.Code.invalidField, #""versions" must be a non-empty array of integers"#),
        (#"{"type":"hello","versions":1}"#, .invalidField, #""versions" must be a non-empty array of integers, got an integer"#),
        (#"{"type":"hello","versions":[1,"2"]}"#, .invalidField, #""versions[1]" must be an integer, got a string"#),
        (#"{"type":"hello","versions":[1.0]}"#, .invalidField, #""versions[0]" must be an integer"#),
        (#"{"type":"hello","versions":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}"#, .tooMany,
         #""versions" has 17 versions; the limit is 16"#),
    ])
    func helloVersionsRefused(line: String, code: ProtocolError.Code, message: String) {
        let e = error(line)
        #expect(e?.code == code)
        #expect(e?.message.hasPrefix(message) == true, "\(e?.message ?? "")")
        #expect(e?.request == "hello")
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
            """#.filter { $0 != "\n" }
        let detail = ClientRequest.Page(
            id: "detail", popDisabled: true, prefersBarHidden: true, maxStartDistance: 12.5,
            exclusionZones: [ClientRequest.Zone(x: 0, y: 0.5, width: 1, height: 0.25),
                             ClientRequest.Zone(x: 0.1, y: 0.2, width: 0.3, height: 0.4)])
        #expect(try parse(line).request == .create(
            navigator: "main", pages: [ClientRequest.Page(id: "root"), detail], layout: .rightToLeft,
            barFollowsTopPage: false))
        #expect(try parse(#"{"type":"create","navigator":"main","pages":[{"id":"root"}]}"#).request
            == .create(navigator: "main", pages: [ClientRequest.Page(id: "root")], layout: nil, barFollowsTopPage: true))
    }

    @Test("every navigation request, animated defaulting to false")
    func navigation() throws {
        let page = ClientRequest.Page(id: "p")
        let cases: [(String, ClientRequest)] = [
            (#"{"type":"push","navigator":"n","page":{"id":"p"}}"#,
             .push(navigator: "n", page: page, animated: false)),
            (#"{"type":"push","navigator":"n","page":{"id":"p"},"animated":true}"#,
             .push(navigator: "n", page: page, animated: true)),
            (#"{"type":"pop","navigator":"n"}"#, .pop(navigator: "n", animated: false)),
            (#"{"type":"replace","navigator":"n","pages":[{"id":"p"}],"animated":true}"#,
             .replace(navigator: "n", pages: [page], animated: true)),
            (#"{"type":"update","navigator":"n","page":{"id":"p"}}"#, .update(navigator: "n", page: page)),
            (#"{"type":"settle","navigator":"n"}"#, .settle(navigator: "n")),
            (#"{"type":"front","navigator":"n"}"#, .front(navigator: "n")),
            (#"{"type":"remove","navigator":"n"}"#, .remove(navigator: "n")),
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
            == IdentifiedRequest(.pop(navigator: "n", animated: false)))
    }

    // MARK: - Errors

    @Test("malformed-json: not JSON, truncated, not UTF-8, a lone surrogate; the message says where")
    func malformed() {
        for line in ["hello", #"{"type":"status""#, "{'type':'status'}", #"{"type":"status","name":"\ud800"}"#] {
            #expect(error(line)?.code == .malformedJSON, "\(line)")
        }
        #expect(throws: ProtocolError(.malformedJSON, "the line is not valid JSON: invalid-utf8 at byte 25: byte 0xFF cannot start a UTF-8 character")) {
            try RequestCodec.decode([UInt8](#"{"type":"status","name":""#.utf8) + [0xff, 0xfe] + Array(#""}"#.utf8))
        }
    }

    @Test("nesting-too-deep: 16 levels are fine, 17 are refused however long the line")
    func deepNesting() throws {
        let ok = #"{"type":"status","x":"# + String(repeating: "[", count: 15) + String(repeating: "]", count: 15) + "}"
        #expect(try parse(ok).request == .status)
        for depth in [16, 511, 513, 30_000] {
            let line = #"{"type":"status","x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            let e = error(line)
            #expect(e?.code == .nestingTooDeep, "depth \(depth)")
            #expect(e?.message.contains("at most 16 deep") == true)
        }
        // The two lines from issue 7 that killed the daemon.
        #expect(error(String(repeating: "[", count: 513))?.code == .nestingTooDeep)
        #expect(error(String(repeating: #"{"a":"#, count: 512) + "[")?.code == .nestingTooDeep)
    }

    @Test("duplicate-key names the key, at any depth")
    func duplicateKey() {
        let e = error(#"{"type":"status","type":"hello","version":1}"#)
        #expect(e?.code == .duplicateKey)
        #expect(e?.message.contains(#"key "type" appears twice"#) == true, "\(e?.message ?? "")")
        let nested = error(#"{"type":"push","navigator":"n","page":{"id":"a","id":"b"}}"#)
        #expect(nested?.code == .duplicateKey)
        #expect(nested?.message.contains(#""id""#) == true)
    }

    @Test("1e400: refused only where a number is needed; ignored under an unknown key")
    func outOfRangeNumbers() {
        #expect((try? parse(#"{"type":"pop","navigator":"n","future":1e400}"#))?.request
            == .pop(navigator: "n", animated: false))
        let e = error(#"{"type":"push","navigator":"n","page":{"id":"p","maxStartDistance":1e400}}"#)
        #expect(e?.code == .invalidField)
        #expect(e?.message == #""page.maxStartDistance" must be a finite number, got a number out of range"#)
        let zone = error(#"{"type":"push","navigator":"n","page":{"id":"p","exclusionZones":[[0,0,-1e400,1]]}}"#)
        #expect(zone?.code == .invalidField)
        #expect(zone?.message.contains(#""page.exclusionZones[0][2]" must be a finite number"#) == true)
        #expect(error(#"{"type":"hello","version":1e400}"#)?.code == .invalidField)
    }

    @Test("an id is an integer literal or a string: 1.0 and 1e0 are refused, not echoed as 1")
    func idLiterals() throws {
        #expect(try parse(#"{"type":"status","id":-9223372036854775808}"#).id == .integer(.min))
        for id in ["1.0", "1e0", "1E2", "9223372036854775808"] {
            let e = error(#"{"type":"status","id":"# + id + "}")
            #expect(e?.code == .invalidField, "\(id)")
            #expect(e?.id == nil)
            #expect(e?.request == "status")
        }
        #expect(error(#"{"type":"status","id":1.0}"#)?.message.contains("got a non-integer number") == true)
        #expect(error(#"{"type":"hello","version":1.0}"#)?.code == .invalidField)
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
        (#"{"type":"rotation","rotation":45}"#, "\"rotation\"", "0, 90, 180 or 270"),
        (#"{"type":"rotation","rotation":-90}"#, "\"rotation\"", "0, 90, 180 or 270"),
        (#"{"type":"rotation","rotation":"90"}"#, "\"rotation\"", "an integer"),
        (#"{"type":"rotation","rotation":90,"output":7}"#, "\"output\"", "a string"),
        (#"{"type":"text-direction","direction":"up"}"#, "\"direction\"", "\"ltr\" or \"rtl\""),
        (#"{"type":"touchpad-scrolling","natural":"yes"}"#, "\"natural\"", "true or false"),
        (#"{"type":"touchpad-scrolling","natural":true,"bridge":"off"}"#, "\"bridge\"", "true or false"),
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

    // MARK: - Limits

    static let limit = ProtocolLimits.maximumIdentifierBytes

    @Test("too-long: ids, page ids, names and string request ids over 256 bytes; 256 is fine")
    func tooLong() throws {
        let atLimit = String(repeating: "é", count: Self.limit / 2)  // 256 bytes, 128 characters
        let over = atLimit + "x"
        #expect(try parse(#"{"type":"hello","version":1,"name":"\#(atLimit)","id":"\#(atLimit)"}"#)
            == IdentifiedRequest(.hello(versions: [1], name: atLimit), id: .string(atLimit)))
        #expect(try parse(#"{"type":"push","navigator":"\#(atLimit)","page":{"id":"\#(atLimit)"}}"#).request
            == .push(navigator: atLimit, page: ClientRequest.Page(id: atLimit), animated: false))

        let cases: [(String, String)] = [
            (#"{"type":"pop","navigator":"\#(over)"}"#, #""navigator""#),
            (#"{"type":"push","navigator":"n","page":{"id":"\#(over)"}}"#, #""page.id""#),
            (#"{"type":"create","navigator":"n","pages":[{"id":"a"},{"id":"\#(over)"}]}"#, #""pages[1].id""#),
            (#"{"type":"hello","version":1,"name":"\#(over)"}"#, #""name""#),
            (#"{"type":"status","id":"\#(over)"}"#, #""id""#),
        ]
        for (line, path) in cases {
            let e = error(line)
            #expect(e?.code == .tooLong, "\(path)")
            #expect(e?.message == "\(path) is 257 bytes; the limit is 256 bytes of UTF-8", "\(path)")
        }
        // An over-long id is not echoed; a valid one is, with the request's type.
        #expect(error(#"{"type":"status","id":"\#(over)"}"#)?.id == nil)
        let e = error(#"{"type":"pop","navigator":"\#(over)","id":3}"#)
        #expect(e?.id == .integer(3))
        #expect(e?.request == "pop")
    }

    @Test("too-many: more than 64 pages, more than 16 exclusion zones; the limits themselves are fine")
    func tooMany() throws {
        func pages(_ count: Int) -> String {
            (0..<count).map { #"{"id":"p\#($0)"}"# }.joined(separator: ",")
        }
        func zones(_ count: Int) -> String {
            Array(repeating: "[0,0,1,1]", count: count).joined(separator: ",")
        }
        let full = try parse(#"{"type":"replace","navigator":"n","pages":[\#(pages(64))]}"#)
        guard case .replace(_, let parsed, _) = full.request else {
            Issue.record("not a replace: \(full)")
            return
        }
        #expect(parsed.count == 64)
        let page = try parse(#"{"type":"push","navigator":"n","page":{"id":"p","exclusionZones":[\#(zones(16))]}}"#)
        guard case .push(_, let pushed, _) = page.request else {
            Issue.record("not a push: \(page)")
            return
        }
        #expect(pushed.exclusionZones.count == 16)

        let e = error(#"{"type":"create","navigator":"n","pages":[\#(pages(65))]}"#)
        #expect(e?.code == .tooMany)
        #expect(e?.message == #""pages" has 65 pages; the limit is 64"#)
        #expect(error(#"{"type":"replace","navigator":"n","pages":[\#(pages(1000))]}"#)?.code == .tooMany)
        let z = error(#"{"type":"create","navigator":"n","pages":[{"id":"a"},{"id":"b","exclusionZones":[\#(zones(17))]}]}"#)
        #expect(z?.code == .tooMany)
        #expect(z?.message == #""pages[1].exclusionZones" has 17 zones; the limit is 16"#)
        // Counted before the items are read: 65 invalid pages still say too-many.
        #expect(error(#"{"type":"create","navigator":"n","pages":[\#(Array(repeating: "7", count: 65).joined(separator: ","))]}"#)?
            .code == .tooMany)
    }

    @Test("client text quoted in a message is cut; a type too long to be one is not echoed")
    func boundedMessages() {
        let long = String(repeating: "x", count: 60_000)
        let e = error(#"{"type":"\#(long)"}"#)
        #expect(e?.code == .unknownType)
        #expect(e?.request == nil)
        #expect((e?.message.utf8.count ?? .max) < 400, "the cut type and the list of known types")
        let d = error(#"{"\#(long)":1,"\#(long)":2}"#)
        #expect(d?.code == .duplicateKey)
        #expect((d?.message.utf8.count ?? .max) < 200)
    }

    // MARK: - outputs

    @Test("outputs: the line of the example, defaults left out, and the keys a bridge leaves out when unknown")
    func outputs() throws {
        let line = #"{"type":"outputs","outputs":[{"name":"eDP-1","rotation":90,"widthMillimetres":256,"heightMillimetres":144,"builtIn":true,"inputs":["1267:10780:ELAN_Touchscreen"]},{"name":"HDMI-A-1","rotation":0,"widthMillimetres":null,"builtIn":false}],"id":5}"#
        let parsed = try parse(line)
        #expect(parsed == IdentifiedRequest(.outputs([
            ClientRequest.Output(
                name: "eDP-1", rotation: 90, widthMillimetres: 256, heightMillimetres: 144, isBuiltIn: true,
                inputs: ["1267:10780:ELAN_Touchscreen"]),
            ClientRequest.Output(name: "HDMI-A-1", rotation: 0),
        ]), id: .integer(5)))
        #expect(RequestCodec.encode(parsed)
            == #"{"type":"outputs","outputs":[{"name":"eDP-1","rotation":90,"widthMillimetres":256,"heightMillimetres":144,"builtIn":true,"inputs":["1267:10780:ELAN_Touchscreen"]},{"name":"HDMI-A-1","rotation":0}],"id":5}"#)
        // A size out of the panel's range is the daemon's to judge: the codec keeps it.
        #expect(try parse(#"{"type":"outputs","outputs":[{"name":"a","rotation":270,"widthMillimetres":-1,"heightMillimetres":0}]}"#).request
            == .outputs([ClientRequest.Output(name: "a", rotation: 270, widthMillimetres: -1, heightMillimetres: 0)]))
        #expect(try parse(#"{"type":"outputs","outputs":[]}"#).request == .outputs([]), "no enabled output")
        #expect(error(#"{"type":"outputs"}"#)?.code == .missingField)
        #expect(error(#"{"type":"outputs","outputs":[{"rotation":0}]}"#)?.message.contains(#""outputs[0].name" is required"#) == true)
        #expect(error(#"{"type":"outputs","outputs":[{"name":"a"}]}"#)?.message.contains(#""outputs[0].rotation" is required"#) == true)
    }

    @Test("outputs: every key's type and value is checked, named by its path", arguments: [
        (#"{"type":"outputs","outputs":{"name":"a","rotation":0}}"#, #""outputs""#, "an array of output objects"),
        (#"{"type":"outputs","outputs":["eDP-1"]}"#, #""outputs[0]""#, "an output object"),
        (#"{"type":"outputs","outputs":[{"name":"","rotation":0}]}"#, #""outputs[0].name""#, "a non-empty string"),
        (#"{"type":"outputs","outputs":[{"name":7,"rotation":0}]}"#, #""outputs[0].name""#, "a non-empty string"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":0},{"name":"b","rotation":45}]}"#, #""outputs[1].rotation""#,
         "0, 90, 180 or 270"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":360}]}"#, #""outputs[0].rotation""#, "0, 90, 180 or 270"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":90.0}]}"#, #""outputs[0].rotation""#, "an integer"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":0,"widthMillimetres":"256"}]}"#, #""outputs[0].widthMillimetres""#,
         "a number"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":0,"heightMillimetres":1e400}]}"#, #""outputs[0].heightMillimetres""#,
         "a finite number"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":0,"builtIn":1}]}"#, #""outputs[0].builtIn""#, "true or false"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":0,"inputs":"x"}]}"#, #""outputs[0].inputs""#,
         "an array of input device names"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":0,"inputs":["x",""]}]}"#, #""outputs[0].inputs[1]""#,
         "a non-empty string"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":0,"inputs":[3]}]}"#, #""outputs[0].inputs[0]""#, "a non-empty string"),
        (#"{"type":"outputs","outputs":[{"name":"a","rotation":0},{"name":"a","rotation":90}]}"#, #""outputs[1].name""#,
         "names an output listed before it"),
    ])
    func outputsInvalid(line: String, field: String, expected: String) {
        let e = error(line)
        #expect(e?.code == .invalidField, "\(line)")
        #expect(e?.request == "outputs")
        #expect(e?.message.contains(field) == true, "\(e?.message ?? "")")
        #expect(e?.message.contains(expected) == true, "\(e?.message ?? "")")
    }

    @Test("outputs: 16 outputs of 16 inputs of 256 bytes are fine; one more of each is too-many or too-long")
    func outputsLimits() throws {
        let long = String(repeating: "é", count: Self.limit / 2)
        let inputs = (0..<ProtocolLimits.maximumInputsPerOutput).map { #""\#($0)\#(long.dropFirst(2))""# }
        func output(_ name: String, inputs: [String] = []) -> String {
            #"{"name":"\#(name)","rotation":0,"inputs":[\#(inputs.joined(separator: ","))]}"#
        }
        let sixteen = (0..<ProtocolLimits.maximumOutputs).map { output("\($0)\(long.dropFirst(2))", inputs: inputs) }
        let full = try parse(#"{"type":"outputs","outputs":[\#(sixteen.joined(separator: ","))]}"#)
        guard case .outputs(let parsed) = full.request else {
            Issue.record("not outputs: \(full)")
            return
        }
        #expect(parsed.count == 16 && parsed.allSatisfy { $0.inputs.count == 16 })
        #expect(parsed.allSatisfy { $0.name.utf8.count <= 256 && $0.inputs.allSatisfy { $0.utf8.count <= 256 } })

        let seventeen = (0...ProtocolLimits.maximumOutputs).map { output("o\($0)") }
        let e = error(#"{"type":"outputs","outputs":[\#(seventeen.joined(separator: ","))]}"#)
        #expect(e?.code == .tooMany)
        #expect(e?.message == #""outputs" has 17 outputs; the limit is 16"#)
        // Counted before the items are read: 17 invalid outputs still say too-many.
        #expect(error(#"{"type":"outputs","outputs":[\#(Array(repeating: "7", count: 17).joined(separator: ","))]}"#)?.code == .tooMany)
        let i = error(#"{"type":"outputs","outputs":[{"name":"a","rotation":0},\#(output("b", inputs: inputs + [#""x""#]))]}"#)
        #expect(i?.code == .tooMany)
        #expect(i?.message == #""outputs[1].inputs" has 17 inputs; the limit is 16"#)

        let over = long + "x"
        let name = error(#"{"type":"outputs","outputs":[{"name":"\#(over)","rotation":0}]}"#)
        #expect(name?.code == .tooLong)
        #expect(name?.message == #""outputs[0].name" is 257 bytes; the limit is 256 bytes of UTF-8"#)
        let input = error(#"{"type":"outputs","outputs":[{"name":"a","rotation":0,"inputs":["\#(over)"]}]}"#)
        #expect(input?.code == .tooLong)
        #expect(input?.message == #""outputs[0].inputs[0]" is 257 bytes; the limit is 256 bytes of UTF-8"#)
    }
}
