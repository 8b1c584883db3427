/// Reads and writes the lines the daemon sends: the one encoder and the one decoder of
/// `ServerMessage`, replies and events alike (see docs/PROTOCOL.md).
///
/// Keys come in a fixed order, `"type"` first and the echoed `"id"` last, and keys
/// holding nothing are left out (`"truncated"` unless true, a client's `name` before
/// `hello`), so the output is stable enough to diff. The decoder takes what the encoder
/// writes and ignores unknown keys; a type it does not know is `unknown-type`, so that
/// a client can show such a line as it came.
public enum MessageCodec {
    /// The line for `message`, without its newline.
    public static func encode(_ message: ServerMessage) -> String {
        var writer = JSONWriter()
        switch message {
        case .reply(let reply, let id): write(reply, id: id, to: &writer)
        case .event(let event): write(event, to: &writer)
        }
        return writer.text
    }

    /// The line for an event, without its newline.
    public static func encode(_ event: ServerEvent) -> String {
        var writer = JSONWriter()
        write(event, to: &writer)
        return writer.text
    }

    /// The line for a reply, without its newline.
    public static func encode(_ reply: ServerReply, id: RequestID?) -> String {
        var writer = JSONWriter()
        write(reply, id: id, to: &writer)
        return writer.text
    }

    /// An error reply for `error`, echoing its request type and id.
    public static func encode(_ error: ProtocolError) -> String {
        encode(.error(error), id: error.id)
    }

    /// Appends the line for a reply, without its newline, to `writer`.
    public static func write(_ reply: ServerReply, id: RequestID?, to writer: inout JSONWriter) {
        encodeReply(reply, id: id).write(to: &writer)
    }

    private static func encodeReply(_ reply: ServerReply, id: RequestID?) -> JSONValue {
        var object = JSONObject()
        object["type"] = .string(reply.kind.rawValue)
        switch reply {
        case .hello(let version, let server, let client):
            object["version"] = .integer(version)
            object["server"] = .string(server)
            object["client"] = .integer(client)
        case .ok(let request):
            object["request"] = .string(request)
        case .error(let error):
            object["code"] = .string(error.code.rawValue)
            object["message"] = .string(error.message)
            object["request"] = error.request.map(JSONValue.string)
            object["supported"] = error.supportedVersions.map { .array($0.map(JSONValue.integer)) }
        case .stack(let stack):
            object["navigator"] = .string(stack.navigator)
            object["owner"] = .integer(stack.owner)
            object["pages"] = .array(stack.pages.map(JSONValue.string))
            object["front"] = .bool(stack.front)
            object["transitioning"] = .bool(stack.transitioning)
        case .status(let status):
            object["version"] = .integer(status.version)
            object["devices"] = .array(status.devices.map(encodeStatusEntry))
            object["deviceCount"] = .integer(status.deviceCount)
            object["navigators"] = .array(status.navigators.map(encodeStatusEntry))
            object["navigatorCount"] = .integer(status.navigatorCount)
            object["clients"] = .array(status.clients.map(encodeStatusEntry))
            object["clientCount"] = .integer(status.clientCount)
            if status.truncated { object["truncated"] = .bool(true) }
            object["focus"] = status.focus.map { focus in
                .object(["seat": focus.seat.map(JSONValue.string), "source": .string(focus.source),
                         "app": focus.app.map(JSONValue.string),
                         "pid": focus.pid.map(JSONValue.integer), "shell": focus.shell.map(JSONValue.integer),
                         "touchpadScrolling": focus.touchpadScrolling.map(JSONValue.string)])
            }
            object["lastBack"] = status.lastBack.map { last in
                switch last {
                case .navigator(let navigator, let owner):
                    .object(["target": .string("navigator"), "navigator": .string(navigator), "owner": .integer(owner)])
                case .input(let app, let input):
                    .object(["target": .string("input"), "app": app.map(JSONValue.string), "input": .string(input)])
                }
            }
            object["daemon"] = status.daemon.map { daemon in
                .object([
                    "pid": .integer(daemon.pid), "startedBy": .string(daemon.startedBy),
                    "unit": daemon.unit.map(JSONValue.string), "socketFromSystemd": .bool(daemon.socketFromSystemd),
                    "grab": daemon.grab.map(JSONValue.string),
                ])
            }
            object["backInput"] = status.backInput.map { backInput in
                .object([
                    "on": .bool(backInput.on), "input": backInput.input.map(JSONValue.string),
                    "mode": backInput.mode.map(JSONValue.string), "device": backInput.device.map(JSONValue.string),
                    "problem": backInput.problem.map(JSONValue.string),
                ])
            }
            object["rejected"] = status.rejected.map { rejected in
                .array(rejected.map { rejection in
                    .object([
                        "reason": .string(rejection.reason.rawValue), "device": .integer(rejection.device),
                        "time_us": .integer(rejection.timeMicroseconds),
                    ])
                })
            }
            object["rejectedCount"] = status.rejectedCount.map(JSONValue.integer)
            object["settings"] = status.settings.map { settings in
                .object([
                    "seat": .string(settings.seat), "mode": .string(settings.mode),
                    "backInputMode": .string(settings.backInputMode), "edgeWidthMm": JSONValue(settings.edgeWidthMillimetres),
                    "commitProgress": JSONValue(settings.commitProgress),
                    "flingVelocityMmPerS": JSONValue(settings.flingVelocity),
                    "edgeFlingVelocityMmPerS": JSONValue(settings.edgeFlingVelocity),
                    "user": .array(settings.user.map(JSONValue.string)), "locked": .array(settings.locked.map(JSONValue.string)),
                ])
            }
            object["screen"] = status.screen.map { screen in
                .object([
                    "rotation": screen.rotation.map(JSONValue.integer), "rotationSource": .string(screen.rotationSource),
                    "output": screen.output.map(JSONValue.string), "sensor": screen.sensor.map(JSONValue.string),
                    "direction": .string(screen.direction), "directionSource": .string(screen.directionSource),
                ])
            }
        }
        object["id"] = id?.json
        return .object(object)
    }

    /// One entry of a `status` list: `{"device":0,"name":…,"path":…,"kind":…}`, then
    /// what the daemon knows of it (size to the tenth of a millimetre, rotation, seat, grab).
    public static func encodeStatusEntry(_ device: ServerReply.Status.Device) -> JSONValue {
        .object([
            "device": .integer(device.device), "name": .string(device.name), "path": .string(device.path),
            "kind": .string(device.kind),
            "widthMillimetres": device.widthMillimetres.flatMap(tenths), "heightMillimetres": device.heightMillimetres.flatMap(tenths),
            "sizeAssumed": device.sizeAssumed.map(JSONValue.bool), "sizeSource": device.sizeSource.map(JSONValue.string),
            "rotation": device.rotation.map(JSONValue.integer),
            "seat": device.seat.map(JSONValue.string), "grab": device.grab.map(JSONValue.string),
            "clone": device.clone.map(JSONValue.string),
            "rotationSource": device.rotationSource.map(JSONValue.string), "output": device.output.map(JSONValue.string),
        ])
    }

    /// `216.96` → `217.0`: a length to the tenth, as a JSON number; nil when not finite.
    private static func tenths(_ value: Double) -> JSONValue? {
        JSONNumber((value * 10).rounded() / 10).map(JSONValue.number)
    }

    /// `{"navigator":…,"owner":3,"pages":2,"front":true}`.
    public static func encodeStatusEntry(_ navigator: ServerReply.Status.Navigator) -> JSONValue {
        .object([
            "navigator": .string(navigator.navigator), "owner": .integer(navigator.owner),
            "pages": .integer(navigator.pages), "front": .bool(navigator.front),
        ])
    }

    /// `{"client":3,"name":…,"pid":…,"uid":…,"gid":…,"observer":false}`, name and credentials when known.
    public static func encodeStatusEntry(_ client: ServerReply.Status.Client) -> JSONValue {
        .object([
            "client": .integer(client.client), "name": client.name.map(JSONValue.string),
            "pid": client.credentials.map { .integer($0.pid) }, "uid": client.credentials.map { .integer($0.uid) },
            "gid": client.credentials.map { .integer($0.gid) }, "observer": .bool(client.observer),
        ])
    }

    /// Appends the line for an event, without its newline, to `writer`: member by
    /// member, no `JSONValue` in between, since one goes out on every frame of a swipe.
    public static func write(_ event: ServerEvent, to writer: inout JSONWriter) {
        func member(_ key: StaticString, _ value: String) {
            writer.key(literal: key)
            writer.string(value)
        }
        func member(_ key: StaticString, _ value: String?) {
            if let value { member(key, value) }
        }
        writer.beginObject()
        member("type", event.kind.rawValue)
        switch event {
        case .popBegan(let navigator, let page, let progress, _), .popProgress(let navigator, let page, let progress, _):
            member("navigator", navigator)
            member("page", page)
            writer.key(literal: "progress")
            writer.thousandths(progress)
        case .popFinished(let navigator, let page, let reason, _):
            member("navigator", navigator)
            member("page", page)
            member("reason", reason.rawValue)
        case .popCancelled(let navigator, let page, let reason, _):
            member("navigator", navigator)
            member("page", page)
            member("reason", reason.rawValue)
        case .back(let navigator, let popped, let top, _):
            member("navigator", navigator)
            member("popped", popped)
            member("top", top)
        case .bar(let navigator, let page, let hidden):
            member("navigator", navigator)
            member("page", page)
            writer.key(literal: "hidden")
            writer.bool(hidden)
        case .rejected(let reason, let device, _), .refused(let reason, let device, _):
            member("reason", reason.rawValue)
            writer.key(literal: "device")
            writer.integer(device)
        case .inputBegan(let app, _):
            member("app", app)
        case .inputProgress(let app, let progress, let commit, _):
            member("app", app)
            writer.key(literal: "progress")
            writer.thousandths(progress)
            writer.key(literal: "commit")
            writer.thousandths(commit)
        case .inputCancelled(let app, let reason, _):
            member("app", app)
            member("reason", reason.rawValue)
        case .backInput(let app, let input, let reason, _):
            member("app", app)
            member("input", input)
            member("reason", reason.rawValue)
        case .focusChanged(let source, let app, let pid, let navigator):
            member("source", source)
            member("app", app)
            if let pid {
                writer.key(literal: "pid")
                writer.integer(pid)
            }
            member("navigator", navigator)
        case .screenChanged(let screen):
            if let rotation = screen.rotation {
                writer.key(literal: "rotation")
                writer.integer(rotation)
            }
            member("rotationSource", screen.rotationSource)
            member("output", screen.output)
            member("direction", screen.direction)
            member("directionSource", screen.directionSource)
        case .paused(let reason):
            member("reason", reason)
        case .resumed:
            break
        }
        if let time = event.timeMicroseconds {
            writer.key(literal: "time_us")
            writer.integer(time)
        }
        writer.endObject()
    }

    // MARK: - Decoding

    /// Reads one line from the daemon. Throws `malformed-json`, `not-an-object`,
    /// `unknown-type` for a type this version does not know, and `missing-field` or
    /// `invalid-field` naming the key.
    public static func decode(_ line: some Collection<UInt8>) throws(ProtocolError) -> ServerMessage {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw RequestCodec.protocolError(error)
        }
        return try decode(value)
    }

    /// Reads one line given as text.
    public static func decode(_ line: String) throws(ProtocolError) -> ServerMessage {
        try decode(Array(line.utf8))
    }

    /// Reads a message already parsed.
    public static func decode(_ value: JSONValue) throws(ProtocolError) -> ServerMessage {
        guard case .object(let object) = value else {
            throw ProtocolError(.notAnObject, "a message is a JSON object, got \(value.kind)")
        }
        let f = Fields(object: object, request: nil, id: nil)
        let type = try f.string("type")
        if let kind = ServerReply.Kind(rawValue: type) {
            return .reply(try reply(kind, f), id: try f.requestID())
        }
        if let kind = ServerEvent.Kind(rawValue: type) {
            return .event(try event(kind, f))
        }
        throw ProtocolError(.unknownType, "\"type\" \(quoted(type)) is not a reply or an event")
    }

    private static func reply(_ kind: ServerReply.Kind, _ f: Fields) throws(ProtocolError) -> ServerReply {
        switch kind {
        case .hello:
            return .hello(version: try f.integer("version"), server: try f.string("server"), client: try f.integer("client"))
        case .ok:
            return .ok(request: try f.string("request"))
        case .error:
            let supported = try f.optionalArray("supported")?.enumerated().map { (index, item) throws(ProtocolError) in
                guard case .integer(let n) = item else { throw f.invalid("supported[\(index)]", "an integer", got: item) }
                return n
            }
            return .error(ProtocolError(
                ProtocolError.Code(rawValue: try f.string("code")), try f.string("message"),
                request: try f.optionalString("request"), supportedVersions: supported))
        case .stack:
            let pages = try f.strings("pages")
            return .stack(ServerReply.Stack(
                navigator: try f.string("navigator"), owner: try f.integer("owner"), pages: pages,
                front: try f.bool("front"), transitioning: try f.bool("transitioning")))
        case .status:
            let devices = try f.objects("devices") { (d) throws(ProtocolError) in
                ServerReply.Status.Device(
                    device: try d.integer("device"), name: try d.string("name"), path: try d.string("path"),
                    kind: try d.string("kind"), widthMillimetres: try d.optionalNumber("widthMillimetres"),
                    heightMillimetres: try d.optionalNumber("heightMillimetres"), sizeAssumed: try d.optionalBool("sizeAssumed"),
                    sizeSource: try d.optionalString("sizeSource"), rotation: try d.optionalInteger("rotation"),
                    seat: try d.optionalString("seat"), grab: try d.optionalString("grab"), clone: try d.optionalString("clone"),
                    rotationSource: try d.optionalString("rotationSource"), output: try d.optionalString("output"))
            }
            let navigators = try f.objects("navigators") { (n) throws(ProtocolError) in
                ServerReply.Status.Navigator(
                    navigator: try n.string("navigator"), owner: try n.integer("owner"), pages: try n.integer("pages"),
                    front: try n.bool("front"))
            }
            let clients = try f.objects("clients") { (c) throws(ProtocolError) in
                let pid = try c.optionalInteger("pid"), uid = try c.optionalInteger("uid")
                let gid = try c.optionalInteger("gid")
                let credentials: ServerReply.Status.Credentials? =
                    if let pid, let uid, let gid { ServerReply.Status.Credentials(pid: pid, uid: uid, gid: gid) } else { nil }
                return ServerReply.Status.Client(
                    client: try c.integer("client"), name: try c.optionalString("name"), credentials: credentials,
                    observer: try c.bool("observer"))
            }
            return .status(ServerReply.Status(
                version: try f.integer("version"), devices: devices,
                deviceCount: try f.optionalInteger("deviceCount") ?? Int64(devices.count), navigators: navigators,
                navigatorCount: try f.optionalInteger("navigatorCount") ?? Int64(navigators.count), clients: clients,
                clientCount: try f.optionalInteger("clientCount") ?? Int64(clients.count),
                focus: try f.optionalObject("focus").map { (o) throws(ProtocolError) in
                    ServerReply.Status.Focus(
                        seat: try o.optionalString("seat"), source: try o.string("source"), app: try o.optionalString("app"), pid: try o.optionalInteger("pid"),
                        shell: try o.optionalInteger("shell"), touchpadScrolling: try o.optionalString("touchpadScrolling"))
                },
                lastBack: try f.optionalObject("lastBack").map { (o) throws(ProtocolError) in
                    switch try o.string("target") {
                    case "navigator":
                        .navigator(navigator: try o.string("navigator"), owner: try o.integer("owner"))
                    case "input":
                        .input(app: try o.optionalString("app"), input: try o.string("input"))
                    case let other:
                        throw o.error(.invalidField, "\"lastBack.target\" must be \"navigator\" or \"input\", got \(quoted(other))")
                    }
                },
                daemon: try f.optionalObject("daemon").map { (o) throws(ProtocolError) in
                    ServerReply.Status.Daemon(
                        pid: try o.integer("pid"), startedBy: try o.string("startedBy"), unit: try o.optionalString("unit"),
                        socketFromSystemd: try o.optionalBool("socketFromSystemd") ?? false, grab: try o.optionalString("grab"))
                },
                backInput: try f.optionalObject("backInput").map { (o) throws(ProtocolError) in
                    ServerReply.Status.BackInput(
                        on: try o.bool("on"), input: try o.optionalString("input"), mode: try o.optionalString("mode"),
                        device: try o.optionalString("device"), problem: try o.optionalString("problem"))
                },
                rejected: try f.optionalObjects("rejected") { (r) throws(ProtocolError) in
                    ServerReply.Status.Rejection(
                        reason: ServerEvent.RejectionReason(rawValue: try r.string("reason")), device: try r.integer("device"),
                        timeMicroseconds: try r.integer("time_us"))
                },
                rejectedCount: try f.optionalInteger("rejectedCount"),
                screen: try f.optionalObject("screen").map(screen),
                settings: try f.optionalObject("settings").map { (o) throws(ProtocolError) in
                    ServerReply.Status.Settings(
                        seat: try o.string("seat"), mode: try o.string("mode"), backInputMode: try o.string("backInputMode"),
                        edgeWidthMillimetres: try o.number("edgeWidthMm"), commitProgress: try o.number("commitProgress"),
                        flingVelocity: try o.number("flingVelocityMmPerS"),
                        edgeFlingVelocity: try o.number("edgeFlingVelocityMmPerS"),
                        user: try o.strings("user"), locked: try o.strings("locked"))
                }))
        }
    }

    /// `status`'s `screen`, and `screen-changed`'s members.
    private static func screen(_ o: Fields) throws(ProtocolError) -> ServerReply.Status.Screen {
        ServerReply.Status.Screen(
            rotation: try o.optionalInteger("rotation"), rotationSource: try o.string("rotationSource"),
            output: try o.optionalString("output"), sensor: try o.optionalString("sensor"),
            direction: try o.string("direction"), directionSource: try o.string("directionSource"))
    }

    private static func event(_ kind: ServerEvent.Kind, _ f: Fields) throws(ProtocolError) -> ServerEvent {
        switch kind {
        case .popBegan:
            return .popBegan(
                navigator: try f.string("navigator"), page: try f.string("page"), progress: try f.number("progress"),
                timeMicroseconds: try f.integer("time_us"))
        case .popProgress:
            return .popProgress(
                navigator: try f.string("navigator"), page: try f.string("page"), progress: try f.number("progress"),
                timeMicroseconds: try f.integer("time_us"))
        case .popFinished:
            return .popFinished(
                navigator: try f.string("navigator"), page: try f.string("page"),
                reason: ServerEvent.FinishReason(rawValue: try f.string("reason")),
                timeMicroseconds: try f.integer("time_us"))
        case .popCancelled:
            return .popCancelled(
                navigator: try f.string("navigator"), page: try f.string("page"),
                reason: ServerEvent.CancelReason(rawValue: try f.string("reason")),
                timeMicroseconds: try f.integer("time_us"))
        case .back:
            return .back(
                navigator: try f.string("navigator"), popped: try f.string("popped"), top: try f.string("top"),
                timeMicroseconds: try f.integer("time_us"))
        case .bar:
            return .bar(navigator: try f.string("navigator"), page: try f.string("page"), hidden: try f.bool("hidden"))
        case .rejected:
            return .rejected(
                reason: ServerEvent.RejectionReason(rawValue: try f.string("reason")), device: try f.integer("device"),
                timeMicroseconds: try f.integer("time_us"))
        case .refused:
            return .refused(
                reason: ServerEvent.RejectionReason(rawValue: try f.string("reason")), device: try f.integer("device"),
                timeMicroseconds: try f.integer("time_us"))
        case .inputBegan:
            return .inputBegan(app: try f.optionalString("app"), timeMicroseconds: try f.integer("time_us"))
        case .inputProgress:
            return .inputProgress(
                app: try f.optionalString("app"), progress: try f.number("progress"), commit: try f.number("commit"),
                timeMicroseconds: try f.integer("time_us"))
        case .inputCancelled:
            return .inputCancelled(
                app: try f.optionalString("app"), reason: ServerEvent.CancelReason(rawValue: try f.string("reason")),
                timeMicroseconds: try f.integer("time_us"))
        case .focusChanged:
            return .focusChanged(
                source: try f.string("source"), app: try f.optionalString("app"), pid: try f.optionalInteger("pid"),
                navigator: try f.optionalString("navigator"))
        case .screenChanged:
            return .screenChanged(try screen(f))
        case .paused:
            return .paused(reason: try f.optionalString("reason") ?? "")
        case .resumed:
            return .resumed
        case .backInput:
            return .backInput(
                app: try f.optionalString("app"), input: try f.string("input"),
                reason: ServerEvent.FinishReason(rawValue: try f.string("reason")),
                timeMicroseconds: try f.integer("time_us"))
        }
    }
}

extension ServerMessage {
    /// An error reply for `error`, with the id it carries.
    public static func error(_ error: ProtocolError) -> ServerMessage {
        var error = error
        let id = error.id
        error.id = nil
        return .reply(.error(error), id: id)
    }
}
