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
    public static func decode(_ line: String) throws(ProtocolError) -> IdentifiedRequest {
        try decode(Array(line.utf8))
    }

    private static func request(_ type: String, _ f: Fields) throws(ProtocolError) -> ClientRequest {
        guard let kind = ClientRequest.Kind(rawValue: type) else {
            let known = ClientRequest.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw ProtocolError(
                .unknownType, "\"type\" \(ProtocolLimits.quoted(type)) is not a request; known: \(known)",
                request: f.request, id: f.id)
        }
        switch kind {
        case .hello:
            let name = try f.optionalString("name")
            if let name { try f.checkLength(name, "name") }
            return .hello(versions: try f.versions(), name: name)
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
        case .hello(let versions, let name):
            // `version` alone for one; with several, `version` is what an older daemon reads.
            object["version"] = versions.min().map(JSONValue.integer)
            if versions.count != 1 { object["versions"] = .array(versions.map(JSONValue.integer)) }
            object["name"] = name.map(JSONValue.string)
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

extension JSONValue {
    /// A finite Double as a number (an integer when it is one, so `12.0` is written `12`);
    /// null when not finite, which JSON cannot write.
    public init(_ value: Double) {
        if value.rounded() == value, abs(value) < 1e15 {
            self = .integer(Int64(value))
        } else if let number = JSONNumber(value) {
            self = .number(number)
        } else {
            self = .null
        }
    }
}

/// Typed access to a request's keys; every error names the key by its full path
/// (`pages[1].exclusionZones[0]`).
struct Fields {
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
        try RequestCodec.checkLength(s, "\"\(path)\(key)\"", request: request, id: id)
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

    /// `versions` when given (1 to `ProtocolLimits.maximumOfferedVersions` integers),
    /// else `version` (see `ProtocolVersion`).
    func versions() throws(ProtocolError) -> [Int64] {
        guard let value = value("versions") else { return [try integer("version")] }
        let expected = "a non-empty array of integers"
        guard case .array(let items) = value, !items.isEmpty else { throw invalid("versions", expected, got: value) }
        try checkCount(items, "versions", limit: ProtocolLimits.maximumOfferedVersions, of: "versions")
        var versions: [Int64] = []
        for (index, item) in items.enumerated() {
            guard case .integer(let n) = item else { throw invalid("versions[\(index)]", "an integer", got: item) }
            versions.append(n)
        }
        return versions
    }

    func layout() throws(ProtocolError) -> ClientRequest.Layout? {
        guard let value = value("layout") else { return nil }
        guard case .string(let s) = value, let layout = ClientRequest.Layout(rawValue: s) else {
            throw invalid("layout", "\"ltr\" or \"rtl\"", got: value)
        }
        return layout
    }

    func page(_ key: String) throws(ProtocolError) -> ClientRequest.Page {
        try Self.page(try required(key, "a page object"), at: path + key, request: request, id: id)
    }

    /// At most `ProtocolLimits.maximumPagesPerNavigator`, counted before any is read.
    func pages(_ key: String) throws(ProtocolError) -> [ClientRequest.Page] {
        let value = try required(key, "an array of page objects")
        guard case .array(let items) = value else { throw invalid(key, "an array of page objects", got: value) }
        try checkCount(items, key, limit: ProtocolLimits.maximumPagesPerNavigator, of: "pages")
        var pages: [ClientRequest.Page] = []
        for (index, item) in items.enumerated() {
            pages.append(try Self.page(item, at: "\(path)\(key)[\(index)]", request: request, id: id))
        }
        return pages
    }

    /// PAGE = {"id":…, "popDisabled":…, "prefersBarHidden":…, "maxStartDistance":…, "exclusionZones":[[x,y,w,h],…]}
    static func page(
        _ value: JSONValue, at path: String, request: String?, id: RequestID?
    ) throws(ProtocolError) -> ClientRequest.Page {
        guard case .object(let object) = value else {
            throw ProtocolError(
                .invalidField, "\"\(path)\" must be a page object, got \(value.kind)", request: request, id: id)
        }
        let f = Fields(object: object, request: request, id: id, path: path + ".")
        var page = ClientRequest.Page(id: try f.identifier("id"))
        page.popDisabled = try f.optionalBool("popDisabled") ?? false
        page.prefersBarHidden = try f.optionalBool("prefersBarHidden") ?? false
        // The range (0 or more) is the daemon's to check, as for every client of its navigation.
        page.maxStartDistance = try f.optionalNumber("maxStartDistance") ?? 0
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
                page.exclusionZones.append(ClientRequest.Zone(x: x, y: y, width: width, height: height))
            }
        }
        return page
    }
}
