import PopGestureCore

/// The lines the server writes in answer to requests (events are `WireEncoding`'s).
///
/// Written with core's `JSONObjectWriter`, so keys come in a fixed order, `"type"`
/// first and the echoed `"id"` last, as in the events.
enum Reply {
    static func ok(_ request: String, id: RequestID?) -> String {
        var out = JSONObjectWriter()
        out.string("type", "ok")
        out.string("request", request)
        out.id(id)
        return out.finish()
    }

    static func error(code: String, message: String, request: String?, id: RequestID?) -> String {
        var out = JSONObjectWriter()
        out.string("type", "error")
        out.string("code", code)
        out.string("message", message)
        if let request { out.string("request", request) }
        out.id(id)
        return out.finish()
    }

    static func error(_ error: ProtocolError) -> String {
        Self.error(code: error.code.rawValue, message: error.message, request: error.request, id: error.id)
    }

    static func hello(version: Int64, server: String, client: ClientID, id: RequestID?) -> String {
        var out = JSONObjectWriter()
        out.string("type", "hello")
        out.integer("version", version)
        out.string("server", server)
        out.integer("client", Int64(client.rawValue))
        out.id(id)
        return out.finish()
    }

    static func stack(_ navigator: Navigator, front: Bool, transitioning: Bool, id: RequestID?) -> String {
        var out = JSONObjectWriter()
        out.string("type", "stack")
        out.string("navigator", navigator.id)
        out.integer("owner", Int64(navigator.owner.rawValue))
        out.raw("pages", jsonArray(navigator.pages.map { quoted($0.id) }))
        out.bool("front", front)
        out.bool("transitioning", transitioning)
        out.id(id)
        return out.finish()
    }

    /// One list of a `status` reply: the entries shown, already encoded and in order,
    /// and how many there are in all.
    struct StatusList {
        var entries: [String]
        var count: Int
        var truncated: Bool { entries.count < count }
    }

    /// `{"type":"status","version":1,"devices":[…],"deviceCount":N,"navigators":[…],
    /// "navigatorCount":N,"clients":[…],"clientCount":N}`, with `"truncated":true` before
    /// the id when any list leaves entries out.
    static func status(
        version: Int64, devices: StatusList, navigators: StatusList, clients: StatusList, id: RequestID?
    ) -> String {
        var out = JSONObjectWriter()
        out.string("type", "status")
        out.integer("version", version)
        out.raw("devices", jsonArray(devices.entries))
        out.integer("deviceCount", Int64(devices.count))
        out.raw("navigators", jsonArray(navigators.entries))
        out.integer("navigatorCount", Int64(navigators.count))
        out.raw("clients", jsonArray(clients.entries))
        out.integer("clientCount", Int64(clients.count))
        if devices.truncated || navigators.truncated || clients.truncated { out.bool("truncated", true) }
        out.id(id)
        return out.finish()
    }

    static func jsonArray(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    static func quoted(_ string: String) -> String {
        var text = ""
        JSONObjectWriter.appendQuoted(string, to: &text)
        return text
    }
}

extension JSONObjectWriter {
    /// Echoes a request's id, when it had one.
    mutating func id(_ id: RequestID?) {
        switch id {
        case .integer(let n)?: integer("id", n)
        case .string(let s)?: string("id", s)
        case nil: break
        }
    }
}
