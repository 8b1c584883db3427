import Foundation
import PopGestureCore

/// Reads one protocol line into a typed request, or says exactly what is wrong with it.
///
/// Strict about types (`"animated": 1` is not a boolean) so that a client's bug shows
/// up as an error naming the key, rather than as a default silently taken. Unknown keys
/// are ignored, so newer clients can send more. `null` counts as absent.
public enum RequestParser {
    /// Parses one line (without its newline; surrounding whitespace is allowed).
    public static func parse(_ line: some Collection<UInt8>) throws(ProtocolError) -> IdentifiedRequest {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(line))
        } catch {
            throw ProtocolError(.malformedJSON, "the line is not valid JSON")
        }
        guard case .object(let object) = value else {
            throw ProtocolError(.notAnObject, "a request is a JSON object, got \(value.kind)")
        }
        let typeName: String? = if case .string(let name)? = object["type"] { name } else { nil }

        let id: RequestID?
        switch object["id"] {
        case nil, .null?: id = nil
        case .integer(let n)?: id = .integer(n)
        case .string(let s)?: id = .string(s)
        case let other?:
            throw ProtocolError(
                .invalidField, "\"id\" must be an integer or a string, got \(other.kind)", request: typeName)
        }
        let fields = Fields(object: object, request: typeName, id: id)
        guard let type = typeName else {
            _ = try fields.string("type")  // throws missing-field or invalid-field
            throw fields.error(.invalidField, "\"type\" must be a string")
        }
        return IdentifiedRequest(try request(type, fields), id: id)
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
            return .hello(version: try f.integer("version"), name: try f.optionalString("name"))
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
                .unknownType, "\"type\" \"\(type)\" is not a request; known: \(types.joined(separator: ", "))",
                request: type, id: f.id)
        }
    }
}

/// Typed access to a request's keys; every error names the key by its full path
/// (`pages[1].exclusionZones[0]`).
private struct Fields {
    let object: [String: JSONValue]
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

    /// A non-empty string: navigator and page ids.
    func identifier(_ key: String) throws(ProtocolError) -> String {
        let value = try required(key, "a non-empty string")
        guard case .string(let s) = value, !s.isEmpty else {
            throw invalid(key, "a non-empty string", got: value)
        }
        return s
    }

    func navigator() throws(ProtocolError) -> String { try identifier("navigator") }

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

    func optionalNumber(_ key: String) throws(ProtocolError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let n = value.number else { throw invalid(key, "a number", got: value) }
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

    func pages(_ key: String) throws(ProtocolError) -> [Page] {
        let value = try required(key, "an array of page objects")
        guard case .array(let items) = value else { throw invalid(key, "an array of page objects", got: value) }
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
            for (index, item) in items.enumerated() {
                let key = "exclusionZones[\(index)]"
                guard case .array(let numbers) = item, numbers.count == 4,
                      let x = numbers[0].number, let y = numbers[1].number,
                      let width = numbers[2].number, let height = numbers[3].number
                else { throw f.invalid(key, "[x, y, width, height], four numbers in screen fractions", got: item) }
                page.exclusionZones.append(NormalizedRect(x: x, y: y, width: width, height: height))
            }
        }
        return page
    }
}

/// Any JSON value, keeping integers apart from other numbers and booleans apart from both.
enum JSONValue: Decodable, Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool before the numbers: JSONDecoder never reads `true` as a number or `1` as a
        // Bool, so the order only matters for speed. Int64 before Double keeps integers exact.
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Int64.self) {
            self = .integer(n)
        } else if let d = try? container.decode(Double.self) {
            self = .number(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Integers and other numbers alike, as a finite Double.
    var number: Double? {
        switch self {
        case .integer(let n): Double(n)
        case .number(let d) where d.isFinite: d
        default: nil
        }
    }

    /// How a message names what was sent instead.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
