/// Typed access to the keys of a request or a daemon's message; every error names the
/// key by its full path (`pages[1].exclusionZones[0]`) and echoes the request's type and id.
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

// `outputs`.
extension Fields {
    /// `outputs`: at most `ProtocolLimits.maximumOutputs` output objects, counted before any
    /// is read, each name once.
    func outputs() throws(ProtocolError) -> [ClientRequest.Output] {
        let value = try required("outputs", "an array of output objects")
        guard case .array(let items) = value else { throw invalid("outputs", "an array of output objects", got: value) }
        try checkCount(items, "outputs", limit: ProtocolLimits.maximumOutputs, of: "outputs")
        var outputs: [ClientRequest.Output] = []
        for (index, item) in items.enumerated() {
            let key = "outputs[\(index)]"
            guard case .object(let object) = item else { throw invalid(key, "an output object", got: item) }
            let output = try Fields(object: object, request: request, id: id, path: "\(path)\(key).").output()
            // The daemon finds an output by its name: two of one name would be two answers.
            if outputs.contains(where: { $0.name == output.name }) {
                throw error(.invalidField, "\"\(path)\(key).name\" \(quoted(output.name)) names an output listed before it")
            }
            outputs.append(output)
        }
        return outputs
    }

    /// OUTPUT = {"name":…, "rotation":0|90|180|270, "widthMillimetres":…, "heightMillimetres":…,
    /// "builtIn":…, "inputs":[…]}. The sizes' range is the daemon's to judge (unknown when
    /// not positive or past its bound), as a page's `maxStartDistance` is.
    func output() throws(ProtocolError) -> ClientRequest.Output {
        let name = try identifier("name")
        let rotation = try integer("rotation")
        guard [0, 90, 180, 270].contains(rotation) else {
            throw error(.invalidField, "\"\(path)rotation\" must be 0, 90, 180 or 270 (degrees clockwise), got \(rotation)")
        }
        var output = ClientRequest.Output(name: name, rotation: rotation)
        output.widthMillimetres = try optionalNumber("widthMillimetres")
        output.heightMillimetres = try optionalNumber("heightMillimetres")
        output.isBuiltIn = try optionalBool("builtIn") ?? false
        if let value = value("inputs") {
            let expected = "an array of input device names"
            guard case .array(let items) = value else { throw invalid("inputs", expected, got: value) }
            try checkCount(items, "inputs", limit: ProtocolLimits.maximumInputsPerOutput, of: "inputs")
            for (index, item) in items.enumerated() {
                let key = "inputs[\(index)]"
                guard case .string(let input) = item, !input.isEmpty else { throw invalid(key, "a non-empty string", got: item) }
                try checkLength(input, key)
                output.inputs.append(input)
            }
        }
        return output
    }
}

// What the message decoder needs beyond a request's keys.
extension Fields {
    func bool(_ key: String) throws(ProtocolError) -> Bool {
        let value = try required(key, "true or false")
        guard case .bool(let b) = value else { throw invalid(key, "true or false", got: value) }
        return b
    }

    func number(_ key: String) throws(ProtocolError) -> Double {
        try finite(try required(key, "a number"), key)
    }

    func optionalInteger(_ key: String) throws(ProtocolError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard case .integer(let n) = value else { throw invalid(key, "an integer", got: value) }
        return n
    }

    func array(_ key: String) throws(ProtocolError) -> [JSONValue] {
        let value = try required(key, "an array")
        guard case .array(let items) = value else { throw invalid(key, "an array", got: value) }
        return items
    }

    func optionalArray(_ key: String) throws(ProtocolError) -> [JSONValue]? {
        guard value(key) != nil else { return nil }
        return try array(key)
    }

    /// An array of strings.
    func strings(_ key: String) throws(ProtocolError) -> [String] {
        try array(key).enumerated().map { (index, item) throws(ProtocolError) in
            guard case .string(let text) = item else { throw invalid("\(key)[\(index)]", "a string", got: item) }
            return text
        }
    }

    /// An array of objects, each read by `read` with keys named by their path (`clients[2].name`).
    func objects<T>(_ key: String, _ read: (Fields) throws(ProtocolError) -> T) throws(ProtocolError) -> [T] {
        var result: [T] = []
        for (index, item) in try array(key).enumerated() {
            guard case .object(let object) = item else { throw invalid("\(key)[\(index)]", "an object", got: item) }
            result.append(try read(Fields(object: object, request: request, id: id, path: "\(path)\(key)[\(index)].")))
        }
        return result
    }

    /// ``objects(_:_:)`` when `key` is present; nil when it is absent.
    func optionalObjects<T>(_ key: String, _ read: (Fields) throws(ProtocolError) -> T) throws(ProtocolError) -> [T]? {
        guard value(key) != nil else { return nil }
        return try objects(key, read)
    }

    /// The optional `"app"`: an app id, non-empty, at most `ProtocolLimits.maximumIdentifierBytes`.
    func app() throws(ProtocolError) -> String? {
        guard let app = try optionalString("app") else { return nil }
        guard !app.isEmpty else { throw error(.invalidField, "\"\(path)app\" must not be empty; leave it out instead") }
        try checkLength(app, "app")
        return app
    }

    /// The object under `key`, its keys named `key.…` in errors; nil when absent or null.
    func optionalObject(_ key: String) throws(ProtocolError) -> Fields? {
        guard let value = value(key) else { return nil }
        guard case .object(let object) = value else { throw invalid(key, "an object", got: value) }
        return Fields(object: object, request: request, id: id, path: "\(path)\(key).")
    }

    /// The echoed `"id"`: an integer or a string; nil when absent.
    func requestID() throws(ProtocolError) -> RequestID? {
        switch value("id") {
        case nil: nil
        case .integer(let n)?: .integer(n)
        case .string(let s)?: .string(s)
        case let other?: throw invalid("id", "an integer or a string", got: other)
        }
    }
}
