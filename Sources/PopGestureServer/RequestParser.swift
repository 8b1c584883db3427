import PopGestureCore
import PopGestureProtocol

/// Reads one protocol line into a typed request, or says exactly what is wrong with it.
///
/// Strict about types (`"animated": 1` is not a boolean) so that a client's bug shows
/// up as an error naming the key, rather than as a default silently taken. Unknown keys
/// are ignored, so newer clients can send more. `null` counts as absent.
///
/// Bounded for any line: the JSON parser stops at `ProtocolLimits.maximumNestingDepth`
/// and refuses duplicated keys, and the sizes of ids, names and arrays are checked
/// against `ProtocolLimits` before anything is built from them.
public enum RequestParser {
    /// Parses one line (without its newline; surrounding whitespace is allowed).
    public static func parse(_ line: some Collection<UInt8>) throws(ProtocolError) -> IdentifiedRequest {
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
                "key \(ProtocolLimits.quoted(error.key ?? "")) appears twice in one object (byte \(error.offset))")
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
    public static func parse(_ line: String) throws(ProtocolError) -> IdentifiedRequest {
        try parse(Array(line.utf8))
    }

    /// The request types the protocol knows, for the `unknown-type` message.
    static let types = [
        "hello", "subscribe", "unsubscribe", "create", "push", "pop", "replace", "update", "configure",
        "settle", "front", "remove", "stack", "status",
    ]

    private static func request(_ type: String, _ f: Fields) throws(ProtocolError) -> ClientRequest {
        switch type {
        case "hello":
            let name = try f.optionalString("name")
            if let name { try f.checkLength(name, "name") }
            return .hello(version: try f.integer("version"), name: name)
        case "subscribe":
            return .subscribe
        case "unsubscribe":
            return .unsubscribe
        case "create":
            return .navigation(.create(
                navigator: try f.navigator(), pages: try f.pages("pages"), layout: try f.layout(),
                barFollowsTopPage: try f.optionalBool("barFollowsTopPage") ?? true))
        case "push":
            return .navigation(.push(
                navigator: try f.navigator(), page: try f.page("page"),
                animated: try f.optionalBool("animated") ?? false))
        case "pop":
            return .navigation(.pop(navigator: try f.navigator(), animated: try f.optionalBool("animated") ?? false))
        case "replace":
            return .navigation(.replace(
                navigator: try f.navigator(), pages: try f.pages("pages"),
                animated: try f.optionalBool("animated") ?? false))
        case "update":
            return .navigation(.update(navigator: try f.navigator(), page: try f.page("page")))
        case "configure":
            return .configure(
                navigator: try f.navigator(), layout: try f.layout(),
                barFollowsTopPage: try f.optionalBool("barFollowsTopPage"))
        case "settle":
            return .navigation(.settle(navigator: try f.navigator()))
        case "front":
            return .navigation(.front(navigator: try f.navigator()))
        case "remove":
            return .navigation(.remove(navigator: try f.navigator()))
        case "stack":
            return .stack(navigator: try f.navigator())
        case "status":
            return .status
        default:
            throw ProtocolError(
                .unknownType,
                "\"type\" \(ProtocolLimits.quoted(type)) is not a request; known: \(types.joined(separator: ", "))",
                request: f.request, id: f.id)
        }
    }
}

/// Typed access to a request's keys; every error names the key by its full path
/// (`pages[1].exclusionZones[0]`).
private struct Fields {
    let object: JSONObject
    let request: String?
    let id: RequestID?
    /// Prepended to key names in messages, e.g. `page.`.
    var path = ""

    func error(_ code: ProtocolError.Code, _ message: String) -> ProtocolError {
        ProtocolError(code, message, request: request, id: id)
    }

    /// The value of `key`, or nil when absent or null.
    func value(_ key: String) -> JSONValue? {
        switch object[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    func required(_ key: String, _ expected: String) throws(ProtocolError) -> JSONValue {
        guard let value = value(key) else {
            throw error(.missingField, "\"\(path)\(key)\" is required (\(expected))")
        }
        return value
    }

    func invalid(_ key: String, _ expected: String, got value: JSONValue) -> ProtocolError {
        error(.invalidField, "\"\(path)\(key)\" must be \(expected), got \(value.kind)")
    }

    /// `too-long` when `s` is over `ProtocolLimits.maximumIdentifierBytes`.
    func checkLength(_ s: String, _ key: String) throws(ProtocolError) {
        try RequestParser.checkLength(s, "\"\(path)\(key)\"", request: request, id: id)
    }

    /// `too-many` when `items` is over `limit`.
    func checkCount(_ items: [JSONValue], _ key: String, limit: Int, of what: String) throws(ProtocolError) {
        guard items.count <= limit else {
            throw error(.tooMany, "\"\(path)\(key)\" has \(items.count) \(what); the limit is \(limit)")
        }
    }

    func string(_ key: String) throws(ProtocolError) -> String {
        let value = try required(key, "a string")
        guard case .string(let s) = value else { throw invalid(key, "a string", got: value) }
        return s
    }

    func optionalString(_ key: String) throws(ProtocolError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let s) = value else { throw invalid(key, "a string", got: value) }
        return s
    }

    /// A non-empty string of at most `ProtocolLimits.maximumIdentifierBytes`: navigator and page ids.
    func identifier(_ key: String) throws(ProtocolError) -> String {
        let value = try required(key, "a non-empty string")
        guard case .string(let s) = value, !s.isEmpty else {
            throw invalid(key, "a non-empty string", got: value)
        }
        try checkLength(s, key)
        return s
    }

    func navigator() throws(ProtocolError) -> String { try identifier("navigator") }

    /// An integer literal (`1`, not `1.0` or `1e0`) that fits Int64.
    func integer(_ key: String) throws(ProtocolError) -> Int64 {
        let value = try required(key, "an integer")
        guard case .integer(let n) = value else { throw invalid(key, "an integer", got: value) }
        return n
    }

    func optionalBool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let b) = value else { throw invalid(key, "true or false", got: value) }
        return b
    }

    /// Any finite number; `1e400` is refused here, not by the JSON parser.
    func optionalNumber(_ key: String) throws(ProtocolError) -> Double? {
        guard let value = value(key) else { return nil }
        return try finite(value, key)
    }

    /// The number in `value`, or `invalid-field` naming `key`.
    func finite(_ value: JSONValue, _ key: String) throws(ProtocolError) -> Double {
        guard let n = value.double else { throw invalid(key, "a number", got: value) }
        guard n.isFinite else { throw invalid(key, "a finite number", got: value) }
        return n
    }

    func layout() throws(ProtocolError) -> LayoutDirection? {
        guard let value = value("layout") else { return nil }
        guard case .string(let s) = value, let layout = LayoutDirection(rawValue: s) else {
            throw invalid("layout", "\"ltr\" or \"rtl\"", got: value)
        }
        return layout
    }

    func page(_ key: String) throws(ProtocolError) -> Page {
        try Self.page(try required(key, "a page object"), at: path + key, request: request, id: id)
    }

    /// At most `ProtocolLimits.maximumPagesPerNavigator`, counted before any is read.
    func pages(_ key: String) throws(ProtocolError) -> [Page] {
        let value = try required(key, "an array of page objects")
        guard case .array(let items) = value else { throw invalid(key, "an array of page objects", got: value) }
        try checkCount(items, key, limit: ProtocolLimits.maximumPagesPerNavigator, of: "pages")
        var pages: [Page] = []
        for (index, item) in items.enumerated() {
            pages.append(try Self.page(item, at: "\(path)\(key)[\(index)]", request: request, id: id))
        }
        return pages
    }

    /// PAGE = {"id":…, "popDisabled":…, "prefersBarHidden":…, "maxStartDistance":…, "exclusionZones":[[x,y,w,h],…]}
    private static func page(
        _ value: JSONValue, at path: String, request: String?, id: RequestID?
    ) throws(ProtocolError) -> Page {
        guard case .object(let object) = value else {
            throw ProtocolError(
                .invalidField, "\"\(path)\" must be a page object, got \(value.kind)", request: request, id: id)
        }
        let f = Fields(object: object, request: request, id: id, path: path + ".")
        var page = Page(id: try f.identifier("id"))
        page.popDisabled = try f.optionalBool("popDisabled") ?? false
        page.prefersBarHidden = try f.optionalBool("prefersBarHidden") ?? false
        // The range (0 or more) is the core's to check, as for every client of NavigationState.
        page.maxStartDistanceMillimetres = try f.optionalNumber("maxStartDistance") ?? 0
        if let zones = f.value("exclusionZones") {
            let expected = "an array of [x, y, width, height] arrays"
            guard case .array(let items) = zones else { throw f.invalid("exclusionZones", expected, got: zones) }
            try f.checkCount(
                items, "exclusionZones", limit: ProtocolLimits.maximumExclusionZonesPerPage, of: "zones")
            for (index, item) in items.enumerated() {
                let key = "exclusionZones[\(index)]"
                guard case .array(let numbers) = item, numbers.count == 4, numbers.allSatisfy({ $0.double != nil })
                else { throw f.invalid(key, "[x, y, width, height], four numbers in screen fractions", got: item) }
                let x = try f.finite(numbers[0], key + "[0]"), y = try f.finite(numbers[1], key + "[1]")
                let width = try f.finite(numbers[2], key + "[2]"), height = try f.finite(numbers[3], key + "[3]")
                page.exclusionZones.append(NormalizedRect(x: x, y: y, width: width, height: height))
            }
        }
        return page
    }
}
