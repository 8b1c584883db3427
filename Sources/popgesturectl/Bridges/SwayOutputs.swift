import PopGestureProtocol

/// What sway's replies mean for the outputs (sway-ipc(7)); pure, like `SwayFocusTracker`,
/// so each rule is tested on sway's own JSON without sway.
///
/// - `GET_OUTPUTS`: each output's `name`, `active` and `transform` (`normal`, `90`,
///   `flipped-270`, …, named clockwise: see `rotation(fromTransform:)`). sway's IPC has
///   no physical size (ipc-json.c describes make, model, modes, scale and transform,
///   never millimetres): the sizes come from wlr-output-management, which sway also
///   speaks, through `sizesChanged`, when the bridge reaches sway's Wayland display.
/// - `GET_INPUTS`: each input's `identifier` (`vendor:product:name`) and `type`, to
///   expand a `map_to_output` for `type:touch` or `*` into the devices it names.
/// - `GET_CONFIG`: the `map_to_output` lines of the config as sway loaded it, the only
///   place its IPC says which input goes to which output (`get_inputs` does not): both
///   `input ID map_to_output NAME` and the `input ID { map_to_output NAME }` block.
///
/// sway answers requests in order, and the bridge asks for the config and the inputs
/// before the outputs, so the outputs' reply finds the mapping read. It asks again at each
/// `output` event; a sway older than 1.8 has none (it refuses the subscription), and then
/// the outputs are read again at each window and workspace event instead, so a turn shows
/// at the next focus change.
struct SwayOutputTracker {
    /// `map_to_output`, by output name: the input identifiers as the config writes them
    /// (`1267:10780:ELAN_Touchscreen`, `type:touch`, `*`), in the config's order.
    private(set) var mappings: [(input: String, output: String)] = []
    /// The inputs sway has, as `(identifier, type)`.
    private(set) var inputs: [(identifier: String, type: String)] = []
    private var reported: OutputList?
    /// The last `GET_OUTPUTS`, without sizes; nil before its first reply.
    private var listed: [ClientRequest.Output]?
    /// Each output's physical size by name, from wlr-output-management.
    private(set) var sizes: [String: (width: Double, height: Double)] = [:]
    /// Whether sway sends `output` events; nil until its answer to the subscription.
    private(set) var followsOutputEvents: Bool?
    /// Problems already logged: each kind is logged once per run.
    private var logged: Set<String> = []

    enum Outcome: Equatable {
        /// The enabled outputs are these now.
        case outputs(OutputList)
        /// Something odd sway said, for stderr.
        case log(String)
        /// Outputs changed: ask again (`GET_CONFIG`, `GET_INPUTS`, `GET_OUTPUTS`).
        case askAgain
        /// Outputs may have changed, unseen: ask for `GET_OUTPUTS` again.
        case askOutputs
    }

    /// What `payload` (already parsed) of a message of `type` means for the outputs, in
    /// order. `.subscribe` is the answer to the subscription to `output` events only.
    mutating func handle(_ type: SwayIPC.MessageType?, _ payload: JSONValue) -> [Outcome] {
        switch type {
        case .subscribe:
            followsOutputEvents = payload["success"]?.bool == true
            if followsOutputEvents == true { return [] }
            return logOnce("no-output-events", "this sway sends no output events (sway 1.8 has them): the outputs are "
                + "read again at each change sway's Wayland display reports (wlr-output-management) and at each window and "
                + "workspace event: without that display, a turn is sent at the next focus change")
        case .windowEvent, .workspaceEvent:
            return followsOutputEvents == false ? [.askOutputs] : []
        case .getConfig:
            mappings = Self.mappings(inConfig: payload["config"]?.string ?? "")
            return []
        case .getInputs:
            inputs = (payload.array ?? []).compactMap { input in
                guard let identifier = input["identifier"]?.string else { return nil }
                return (identifier, input["type"]?.string ?? "")
            }
            return []
        case .getOutputs:
            guard let list = payload.array else {
                return logOnce("outputs", "sway's outputs are \(payload.kind), not an array: they are not sent")
            }
            var events: [Outcome] = []
            var outputs: [ClientRequest.Output] = []
            for output in list where output["active"]?.bool == true {
                guard let name = output["name"]?.string else { continue }
                let transform = output["transform"]?.string ?? "normal"
                guard let turn = Self.rotation(fromTransform: transform) else {
                    events += logOnce("transform", "output \(quotedIfNeeded(name)) has transform \(quoted(transform)), "
                        + "which sway does not document: it is left out of the outputs")
                    continue
                }
                outputs.append(ClientRequest.Output(
                    name: name, rotation: turn, isBuiltIn: OutputList.isBuiltIn(name), inputs: inputs(mappedTo: name)))
            }
            listed = outputs
            return events + report()
        case .outputEvent:
            return [.askAgain]
        default:
            return []
        }
    }

    /// wlr-output-management's heads changed: their physical sizes by name are these now.
    /// sway 1.7 sends no output events, but the heads change with every turn: the outputs
    /// are asked for again.
    mutating func sizesChanged(_ sizes: [String: (width: Double, height: Double)]) -> [Outcome] {
        self.sizes = sizes
        return report() + [.askOutputs]
    }

    /// The listed outputs with their sizes, when they differ from the last report.
    private mutating func report() -> [Outcome] {
        guard var outputs = listed else { return [] }
        for index in outputs.indices {
            guard let size = sizes[outputs[index].name] else { continue }
            outputs[index].widthMillimetres = size.width
            outputs[index].heightMillimetres = size.height
        }
        let now = OutputList(outputs)
        guard now != reported else { return [] }
        reported = now
        return [.outputs(now)]
    }

    /// A sway transform as the daemon's `rotation`, which counts as wl_output does (its
    /// transform 90 is 90; see `WlrootsTracker.rotation(fromTransform:)`). sway names the
    /// turns the other way round: its commands and IPC turn the picture clockwise, so its
    /// `90` is wl_output's 270 (ipc-json.c: "Sway uses clockwise transforms, while
    /// WL_OUTPUT_TRANSFORM_* describes anti-clockwise transforms"), which Xwayland shows
    /// as xrandr's `right`. A `flipped` one sends its turn the same way (`flipped-90` is
    /// 270, `flipped` 0). nil for a name sway does not use.
    static func rotation(fromTransform transform: String) -> Int64? {
        var turn = Substring(transform)
        if turn.hasPrefix("flipped") {
            turn = turn.dropFirst("flipped".count)
            if turn.isEmpty { return 0 }
            guard turn.hasPrefix("-") else { return nil }
            turn = turn.dropFirst()
        }
        switch turn {
        case "normal": return 0
        case "90": return 270
        case "180": return 180
        case "270": return 90
        default: return nil
        }
    }

    /// The inputs the config maps to `output`: identifiers as they are, `type:KIND` as
    /// every input of that type sway has, `*` as every input.
    func inputs(mappedTo output: String) -> [String] {
        var result: [String] = []
        for mapping in mappings where mapping.output == output {
            if mapping.input == "*" {
                result += inputs.map(\.identifier)
            } else if mapping.input.hasPrefix("type:") {
                let kind = mapping.input.dropFirst("type:".count)
                result += inputs.filter { $0.type == kind }.map(\.identifier)
            } else {
                result.append(mapping.input)
            }
        }
        return result
    }

    /// The `map_to_output` of `config` (sway-input(5)), in its order: the one-line form
    /// and the block form. Comments (`#` first on a line) and quotes are sway's; a line
    /// continued with `\` and `include`d files are not followed.
    static func mappings(inConfig config: String) -> [(input: String, output: String)] {
        var result: [(input: String, output: String)] = []
        var block: String?  // the input of the `input ID {` block we are in
        for line in config.split(whereSeparator: \.isNewline) {
            let words = Self.words(line)
            guard let first = words.first, !first.hasPrefix("#") else { continue }
            if words == ["}"] {
                block = nil
            } else if first == "input", words.count == 3, words[2] == "{" {
                block = words[1]
            } else if first == "input", words.count >= 4, words[2] == "map_to_output" {
                result.append((words[1], words[3]))
            } else if let input = block, first == "map_to_output", words.count >= 2 {
                result.append((input, words[1]))
            }
        }
        return result
    }

    /// A config line's words: split at blanks, a quoted word (`"…"` or `'…'`) kept whole
    /// without its quotes.
    static func words(_ line: Substring) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    private mutating func logOnce(_ kind: String, _ line: String) -> [Outcome] {
        logged.insert(kind).inserted ? [.log(line)] : []
    }
}
