import PopGestureCore
import CYaml
import Yams

/// Reads the YAML that `libinput record` writes (file format version 1): the first
/// device's `evdev:` description and its `events:` frames. Unknown keys are ignored,
/// as the format asks of parsers; `hid:` and `libinput:` event entries are skipped.
enum LibinputRecordParser {
    /// The deepest nesting read: 64 levels of lists and mappings. A libinput record file
    /// nests about 6 deep; Yams builds its tree recursively, so a file of nothing but `[`
    /// would otherwise overflow the stack.
    static let maximumDepth = 64

    /// The least text one event takes in the YAML: `[0, 0, 0, 0, 0]` is 15 bytes. A file
    /// with more events than its size allows repeats nodes through aliases (`*a`), which
    /// could multiply a small file into billions of events; it is refused.
    static let minimumBytesPerEvent = 15

    static func parse(_ text: String) throws(RecordingError) -> Recording {
        try checkNesting(text)
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw RecordingError(line: 0, message: "empty libinput record YAML")
            }
            root = node
        } catch let error as RecordingError {
            throw error
        } catch {
            throw yamlError(error)
        }

        if let version = root["version"], try int(version, "version") as Int != 1 {
            throw failure(at: version, "unsupported libinput record version \(version.string ?? "?") (expected 1)")
        }
        guard let devices = root["devices"] else { throw failure(at: root, "no 'devices:' list") }
        guard let device = try list(devices, "devices").first else { throw failure(at: devices, "'devices:' is empty") }
        guard let evdev = device["evdev"] else { throw failure(at: device, "first device has no 'evdev:'") }

        guard let nameNode = evdev["name"], let name = nameNode.string else {
            throw failure(at: evdev, "evdev has no 'name:'")
        }
        guard let idNode = evdev["id"] else { throw failure(at: evdev, "evdev has no 'id:'") }
        let id: [UInt16] = try integers(idNode, "id")
        guard id.count == 4 else { throw failure(at: idNode, "'id:' needs [bus, vendor, product, version]") }

        var description = DeviceDescription(
            name: name, bustype: id[0], vendor: id[1], product: id[2], version: id[3])
        // `codes:` maps each event type to its codes: the keys are the event types.
        for (typeNode, codes) in try pairs(evdev["codes"], "codes") {
            let type: UInt16 = try int(typeNode, "event type")
            description.eventTypes.insert(type)
            if type == EV.key { description.keys.formUnion(try integers(codes, "key codes") as [UInt16]) }
        }
        for (codeNode, info) in try pairs(evdev["absinfo"], "absinfo") {
            let values: [Int32] = try integers(info, "absinfo")
            guard (4...5).contains(values.count) else {
                throw failure(at: info, "absinfo needs [min, max, fuzz, flat, resolution]")
            }
            description.axes[try int(codeNode, "axis code")] = AbsoluteAxis(
                minimum: values[0], maximum: values[1], fuzz: values[2], flat: values[3],
                resolution: values.count == 5 ? values[4] : 0)
        }
        if let properties = evdev["properties"] {
            description.properties = Set(try integers(properties, "properties") as [Int])
        }
        description.reportedSize = udevSize(device["udev"]?["properties"])

        var events: [InputEvent] = []
        for entry in try list(device["events"], "events") {
            guard let frame = entry["evdev"] else { continue }
            for eventNode in try list(frame, "evdev frame") {
                let fields: [Int64] = try integers(eventNode, "event")
                guard fields.count == 5,
                      let type = UInt16(exactly: fields[2]), let code = UInt16(exactly: fields[3]),
                      let value = Int32(exactly: fields[4])
                else { throw failure(at: eventNode, "event needs [sec, usec, type, code, value]") }
                guard events.count < text.utf8.count / minimumBytesPerEvent else {
                    throw failure(at: eventNode, "more events than the file's size can hold: aliases are not supported here")
                }
                events.append(InputEvent(
                    time: Timestamp(seconds: fields[0], microseconds: fields[1]),
                    type: type, code: code, value: value))
            }
        }
        return Recording(device: description, events: events)
    }

    /// Refuses text nested deeper than ``maximumDepth`` before Yams builds its tree:
    /// runs libyaml's own parser, which keeps its state on the heap, over the events.
    /// A text libyaml cannot parse passes here; Yams then reports the error with its line.
    private static func checkNesting(_ text: String) throws(RecordingError) {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) != 0 else { return }
        defer { yaml_parser_delete(&parser) }
        var utf8 = Array(text.utf8)
        try utf8.withUnsafeMutableBufferPointer { (buffer) throws(RecordingError) in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var depth = 0
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) != 0 {
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    depth += 1
                    guard depth <= maximumDepth else {
                        throw RecordingError(
                            line: Int(event.start_mark.line) + 1,
                            message: "nested too deeply: more than \(maximumDepth) levels of lists and mappings")
                    }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    depth -= 1
                case YAML_STREAM_END_EVENT:
                    return
                default:
                    break
                }
            }
        }
    }

    /// udev's `ID_INPUT_WIDTH_MM` / `ID_INPUT_HEIGHT_MM`, when the recording kept them.
    private static func udevSize(_ node: Node?) -> PhysicalSize? {
        var values: [String: Double] = [:]
        for entry in node?.sequence ?? [] {
            let parts = (entry.string ?? "").split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = Double(parts[1]) }
        }
        guard let width = values["ID_INPUT_WIDTH_MM"], let height = values["ID_INPUT_HEIGHT_MM"] else { return nil }
        return PhysicalSize(width: width, height: height)
    }

    // MARK: Typed access with line numbers

    private static func failure(at node: Node, _ message: String) -> RecordingError {
        RecordingError(line: node.mark?.line ?? 0, message: message)
    }

    /// Plain decimal integers only, as libinput record writes them. Not Yams' `Node.int`:
    /// it also reads YAML 1.1's sexagesimal `1:2:3`, whose arithmetic traps on overflow
    /// (`1:1:1:1:1:1:1:1:1:1:1:1` crashed the reader).
    private static func int<T: FixedWidthInteger>(_ node: Node, _ what: String) throws(RecordingError) -> T {
        guard let text = node.scalar?.string, let result: T = Substring(text).decimal() else {
            throw failure(at: node, "expected an integer for \(what), got '\(node.string ?? "a collection")'")
        }
        return result
    }

    private static func list(_ node: Node?, _ what: String) throws(RecordingError) -> [Node] {
        guard let node else { return [] }
        guard let sequence = node.sequence else { throw failure(at: node, "expected a list for '\(what)'") }
        return Array(sequence)
    }

    private static func integers<T: FixedWidthInteger>(_ node: Node, _ what: String) throws(RecordingError) -> [T] {
        var result: [T] = []
        for element in try list(node, what) { result.append(try int(element, what)) }
        return result
    }

    private static func pairs(_ node: Node?, _ what: String) throws(RecordingError) -> [(Node, Node)] {
        guard let node else { return [] }
        guard let mapping = node.mapping else { throw failure(at: node, "expected a mapping for '\(what)'") }
        return mapping.map { ($0.key, $0.value) }
    }

    private static func yamlError(_ error: any Error) -> RecordingError {
        switch error as? YamlError {
        case let .scanner(_, problem, mark, _), let .parser(_, problem, mark, _), let .composer(_, problem, mark, _):
            return RecordingError(line: mark.line, message: "invalid YAML: \(problem)")
        default:
            return RecordingError(line: 0, message: "invalid YAML: \(error)")
        }
    }
}
