/// Reads and writes the lines a client sends: the one decoder and the one encoder of
/// `ClientRequest` (see docs/PROTOCOL.md).
///
/// The decoder is strict about types (`"animated": 1` is not a boolean) so that a
/// client's bug shows up as an error naming the key, rather than as a default silently
/// taken. Unknown keys are ignored, so newer clients can send more. `null` counts as
/// absent.
///
/// Bounded for any line: the JSON parser stops at `ProtocolLimits.maximumNestingDepth`
/// and refuses duplicated keys, and the sizes of ids, names and arrays are checked
/// against `ProtocolLimits` before anything is built from them.
public enum RequestCodec {
    /// Parses one line (without its newline; surrounding whitespace is allowed).
    public static func decode(_ line: some Collection<UInt8>) throws(ProtocolError) -> IdentifiedRequest {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw protocolError(error)
        }
        guard case .object(let object) = value else {
            throw ProtocolError(.notAnObject, "a request is a JSON object, got \(value.kind)")
        }
        let typeName: String? = if case .string(let name)? = object["type"] { name } else { nil }
        // Echoed in every error; one too long to be a request type is left out.
        let echoedType = typeName.flatMap { $0.utf8.count <= ProtocolLimits.maximumIdentifierBytes ? $0 : nil }

        let id: RequestID?
        switch object["id"] {
        case nil, .null?: id = nil
        case .integer(let n)?: id = .integer(n)
        case .string(let s)?:
            try checkLength(s, "\"id\"", request: echoedType, id: nil)
            id = .string(s)
        case let other?:
            throw ProtocolError(
                .invalidField, "\"id\" must be an integer or a string, got \(other.kind)", request: echoedType)
        }
        let fields = Fields(object: object, request: echoedType, id: id)
        guard let type = typeName else {
            _ = try fields.string("type")  // throws missing-field or invalid-field
            throw fields.error(.invalidField, "\"type\" must be a string")
        }
        return IdentifiedRequest(try request(type, fields), id: id)
    }

    /// The reply for a line the JSON parser refused: the limits get their own codes.
    static func protocolError(_ error: JSONError) -> ProtocolError {
        switch error.code {
        case .nestingTooDeep:
            ProtocolError(
                .nestingTooDeep,
                "arrays and objects nest at most \(ProtocolLimits.maximumNestingDepth) deep; byte \(error.offset) opens one more level")
        case .duplicateKey:
            ProtocolError(
                .duplicateKey,
                "key \(quoted(error.key ?? "")) appears twice in one object (byte \(error.offset))")
        default:
            ProtocolError(.malformedJSON, "the line is not valid JSON: \(error)")
        }
    }

    /// Refuses a string over `ProtocolLimits.maximumIdentifierBytes`; `name` is the quoted key path.
    static func checkLength(_ s: String, _ name: String, request: String?, id: RequestID?) throws(ProtocolError) {
        let limit = ProtocolLimits.maximumIdentifierBytes
        guard s.utf8.count <= limit else {
            throw ProtocolError(
                .tooLong, "\(name) is \(s.utf8.count) bytes; the limit is \(limit) bytes of UTF-8", request: request, id: id)
        }
    }

    /// Parses one line given as text; for tests and tools.
    public static func decode(_ line: String) throws(ProtocolError) -> IdentifiedRequest {
        try decode(Array(line.utf8))
    }

    private static func request(_ type: String, _ f: Fields) throws(ProtocolError) -> ClientRequest {
        guard let kind = ClientRequest.Kind(rawValue: type) else {
            let known = ClientRequest.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw ProtocolError(
                .unknownType, "\"type\" \(quoted(type)) is not a request; known: \(known)",
                request: f.request, id: f.id)
        }
        switch kind {
        case .hello:
            let name = try f.optionalString("name")
            if let name { try f.checkLength(name, "name") }
            let app = try f.app()
            let role = try f.optionalString("role").map { (text) throws(ProtocolError) in
                guard let role = ClientRequest.Role(rawValue: text) else {
                    throw f.error(.invalidField, "\"role\" must be \"app\" or \"shell\", got \(quoted(text))")
                }
                return role
            }
            return .hello(versions: try f.versions(), name: name, app: app, role: role ?? .app)
        case .subscribe:
            return .subscribe
        case .unsubscribe:
            return .unsubscribe
        case .create:
            return .create(
                navigator: try f.navigator(), pages: try f.pages("pages"), layout: try f.layout(),
                barFollowsTopPage: try f.optionalBool("barFollowsTopPage") ?? true)
        case .push:
            return .push(
                navigator: try f.navigator(), page: try f.page("page"), animated: try f.optionalBool("animated") ?? false)
        case .pop:
            return .pop(navigator: try f.navigator(), animated: try f.optionalBool("animated") ?? false)
        case .replace:
            return .replace(
                navigator: try f.navigator(), pages: try f.pages("pages"),
                animated: try f.optionalBool("animated") ?? false)
        case .update:
            return .update(navigator: try f.navigator(), page: try f.page("page"))
        case .configure:
            return .configure(
                navigator: try f.navigator(), layout: try f.layout(),
                barFollowsTopPage: try f.optionalBool("barFollowsTopPage"))
        case .settle:
            return .settle(navigator: try f.navigator())
        case .front:
            return .front(navigator: try f.navigator())
        case .remove:
            return .remove(navigator: try f.navigator())
        case .stack:
            return .stack(navigator: try f.navigator())
        case .status:
            return .status
        case .focus:
            return .focus(focused: try f.bool("focused"))
        case .focusedWindow:
            let app = try f.app()
            let pid = try f.optionalInteger("pid")
            if let pid, !(1...Int64(Int32.max)).contains(pid) {
                throw f.error(.invalidField, "\"pid\" must be a process id, 1 to \(Int32.max), got \(pid)")
            }
            return .focusedWindow(app: app, pid: pid)
        case .rotation:
            let degrees = try f.integer("rotation")
            guard [0, 90, 180, 270].contains(degrees) else {
                throw f.error(.invalidField, "\"rotation\" must be 0, 90, 180 or 270 (degrees clockwise), got \(degrees)")
            }
            let output = try f.optionalString("output")
            if let output { try f.checkLength(output, "output") }
            return .rotation(degrees: degrees, output: output)
        case .outputs:
            return .outputs(try f.outputs())
        case .textDirection:
            let text = try f.string("direction")
            guard let direction = ClientRequest.Layout(rawValue: text) else {
                throw f.error(.invalidField, "\"direction\" must be \"ltr\" or \"rtl\", got \(quoted(text))")
            }
            return .textDirection(direction)
        case .touchpadScrolling:
            return .touchpadScrolling(natural: try f.bool("natural"), bridge: try f.optionalBool("bridge") ?? true)
        case .userSettings:
            let text = try f.string("text")
            guard text.utf8.count <= ProtocolLimits.maximumUserSettingsBytes else {
                throw f.error(.tooLong, "\"text\" has \(text.utf8.count) bytes; at most \(ProtocolLimits.maximumUserSettingsBytes)")
            }
            return .userSettings(text: text)
        }
    }

    // MARK: - Encoding

    /// The line for `request`, without its newline: `"type"` first, the id last, keys
    /// left out where they hold their default (`animated` false, no layout, ...).
    public static func encode(_ identified: IdentifiedRequest) -> String {
        encodeValue(identified).text
    }

    /// The line as a JSON object, for a caller that adds keys before writing it.
    public static func encodeValue(_ identified: IdentifiedRequest) -> JSONValue {
        let request = identified.request
        var object = JSONObject()
        object["type"] = .string(request.type)
        switch request {
        case .hello(let versions, let name, let app, let role):
            // `version` alone for one; with several, `version` is what an older daemon reads.
            object["version"] = versions.min().map(JSONValue.integer)
            if versions.count != 1 { object["versions"] = .array(versions.map(JSONValue.integer)) }
            object["name"] = name.map(JSONValue.string)
            object["app"] = app.map(JSONValue.string)
            object["role"] = role == .app ? nil : .string(role.rawValue)
        case .focus(let focused):
            object["focused"] = .bool(focused)
        case .focusedWindow(let app, let pid):
            object["app"] = app.map(JSONValue.string)
            object["pid"] = pid.map(JSONValue.integer)
        case .rotation(let degrees, let output):
            object["rotation"] = .integer(degrees)
            object["output"] = output.map(JSONValue.string)
        case .outputs(let outputs):
            object["outputs"] = .array(outputs.map(encodeOutput))
        case .textDirection(let direction):
            object["direction"] = .string(direction.rawValue)
        case .touchpadScrolling(let natural, let bridge):
            object["natural"] = .bool(natural)
            if !bridge { object["bridge"] = .bool(false) }
        case .userSettings(let text):
            object["text"] = .string(text)
        case .subscribe, .unsubscribe, .status:
            break
        case .create(let navigator, let pages, let layout, let bar):
            object["navigator"] = .string(navigator)
            object["pages"] = .array(pages.map(encodePage))
            object["layout"] = layout.map { .string($0.rawValue) }
            object["barFollowsTopPage"] = bar ? nil : .bool(false)
        case .push(let navigator, let page, let animated):
            object["navigator"] = .string(navigator)
            object["page"] = encodePage(page)
            object["animated"] = animated ? .bool(true) : nil
        case .pop(let navigator, let animated):
            object["navigator"] = .string(navigator)
            object["animated"] = animated ? .bool(true) : nil
        case .replace(let navigator, let pages, let animated):
            object["navigator"] = .string(navigator)
            object["pages"] = .array(pages.map(encodePage))
            object["animated"] = animated ? .bool(true) : nil
        case .update(let navigator, let page):
            object["navigator"] = .string(navigator)
            object["page"] = encodePage(page)
        case .configure(let navigator, let layout, let bar):
            object["navigator"] = .string(navigator)
            object["layout"] = layout.map { .string($0.rawValue) }
            object["barFollowsTopPage"] = bar.map(JSONValue.bool)
        case .settle(let navigator), .front(let navigator), .remove(let navigator), .stack(let navigator):
            object["navigator"] = .string(navigator)
        }
        object["id"] = identified.id.map(\.json)
        return .object(object)
    }

    /// A page object with only the keys that differ from their defaults.
    public static func encodePage(_ page: ClientRequest.Page) -> JSONValue {
        var object = JSONObject()
        object["id"] = .string(page.id)
        if page.popDisabled { object["popDisabled"] = .bool(true) }
        if page.prefersBarHidden { object["prefersBarHidden"] = .bool(true) }
        if page.maxStartDistance != 0 { object["maxStartDistance"] = JSONValue(page.maxStartDistance) }
        if !page.exclusionZones.isEmpty {
            object["exclusionZones"] = .array(page.exclusionZones.map { zone in
                .array([zone.x, zone.y, zone.width, zone.height].map(JSONValue.init))
            })
        }
        return .object(object)
    }

    /// An output object of `outputs`: the size only when known, `builtIn` only when true,
    /// `inputs` only when there are some. A size that is not finite is left out (unknown).
    public static func encodeOutput(_ output: ClientRequest.Output) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(output.name)
        object["rotation"] = .integer(output.rotation)
        object["widthMillimetres"] = output.widthMillimetres.flatMap { JSONValue($0) }
        object["heightMillimetres"] = output.heightMillimetres.flatMap { JSONValue($0) }
        if output.isBuiltIn { object["builtIn"] = .bool(true) }
        if !output.inputs.isEmpty { object["inputs"] = .array(output.inputs.map(JSONValue.string)) }
        return .object(object)
    }

    /// Reads a page object on its own (popgesturectl's `{"id":…}` words), with the errors
    /// a request would get, the key path starting at `page`.
    public static func decodePage(_ value: JSONValue) throws(ProtocolError) -> ClientRequest.Page {
        try Fields.page(value, at: "page", request: nil, id: nil)
    }
}

extension RequestID {
    /// As the `"id"` of a line.
    public var json: JSONValue {
        switch self {
        case .integer(let n): .integer(n)
        case .string(let s): .string(s)
        }
    }
}
