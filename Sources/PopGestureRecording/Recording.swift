import PopGestureCore

/// A device and the events it sent, as read from a recording (evemu or `libinput record`).
public struct Recording: Sendable {
    public var device: DeviceDescription
    public var events: [InputEvent]

    public init(device: DeviceDescription, events: [InputEvent]) {
        self.device = device
        self.events = events
    }
}

/// A recording that could not be read. `line` is 1-based; 0 when no line is at fault
/// (an unreadable file, an empty text).
public struct RecordingError: Error, CustomStringConvertible, Sendable {
    public var line: Int
    public var message: String
    /// The file the text came from, when it came from one.
    public var file: String?

    public init(line: Int, message: String, file: String? = nil) {
        self.line = line
        self.message = message
        self.file = file
    }

    public var description: String {
        let place = line > 0 ? "line \(line): " : ""
        return (file.map { "\($0): " } ?? "") + place + message
    }
}

/// The recording formats `Recording` reads.
public enum RecordingFormat: Sendable, Hashable {
    /// `evemu-describe` / `evemu-record` text: `N:`, `I:`, `P:`, `B:`, `A:` and `E:` lines.
    case evemu
    /// The YAML that `libinput record` writes.
    case libinputRecord

    /// Tells the format from the text alone. Anything that is not recognisably
    /// `libinput record` YAML is taken for evemu, whose parser then names the bad line.
    public static func detect(_ text: String) -> RecordingFormat {
        var first = true
        for line in text.split(whereSeparator: \.isNewline) {
            if line.allSatisfy(\.isWhitespace) || line.first == "#" { continue }
            // libinput record starts with `version:`; evemu lines are `X: ...`.
            if first {
                if line.hasPrefix("version:") { return .libinputRecord }
                if line.count >= 2, line.first?.isUppercase == true,
                   line[line.index(after: line.startIndex)] == ":" { return .evemu }
                first = false
            }
            // Otherwise look for its top-level keys (no indentation).
            if line.hasPrefix("libinput:") || line.hasPrefix("devices:") { return .libinputRecord }
        }
        return .evemu
    }
}

extension Recording {
    /// Parses text. `description` supplies the device when the events file has no header
    /// (old split .desc/.events); a header in the text takes precedence over it.
    public init(parsing text: String, description: DeviceDescription? = nil) throws(RecordingError) {
        switch RecordingFormat.detect(text) {
        case .libinputRecord:
            self = try LibinputRecordParser.parse(text)
        case .evemu:
            var parser = EvemuParser()
            try parser.parse(text)
            guard let device = try parser.device() ?? description else {
                throw RecordingError(
                    line: parser.firstEventLine ?? 0,
                    message: parser.firstEventLine == nil
                        ? "no device description and no events"
                        : "events without a device description: this looks like the events half of a "
                            + "split .desc/.events pair; supply the matching .desc")
            }
            self.init(device: device, events: parser.events)
        }
    }

    /// Parses a description-only text (evemu .desc) into a DeviceDescription.
    /// A full recording is accepted too; its events are ignored.
    public static func parseDescription(_ text: String) throws(RecordingError) -> DeviceDescription {
        if RecordingFormat.detect(text) == .libinputRecord {
            return try LibinputRecordParser.parse(text).device
        }
        var parser = EvemuParser()
        try parser.parse(text)
        guard let device = try parser.device() else {
            throw RecordingError(line: 0, message: "no device description (N:, I:, P:, B: or A: lines)")
        }
        return device
    }
}
