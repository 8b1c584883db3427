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
    /// The largest recording read: 64 MiB. The recordings in the evemu-devices and
    /// libinput collections are at most a few MiB; a bound keeps a mistaken path such as
    /// `/dev/zero` or a huge file from exhausting memory.
    public static let maximumFileSize = 64 << 20

    /// Parses the bytes of a recording file, as ``init(contentsOf:descriptionPath:)`` reads
    /// them: at most ``maximumFileSize`` bytes of UTF-8. Invalid UTF-8 is an error naming
    /// its line.
    public init(parsing bytes: some Collection<UInt8>, description: DeviceDescription? = nil) throws(RecordingError) {
        try self.init(parsing: Self.decode(bytes), description: description)
    }

    /// Checks the size and decodes UTF-8; an error names the first line that is not UTF-8.
    static func decode(_ bytes: some Collection<UInt8>) throws(RecordingError) -> String {
        guard bytes.count <= maximumFileSize else {
            throw RecordingError(
                line: 0, message: "too large: \(bytes.count) bytes, recordings are read up to \(maximumFileSize) bytes (64 MiB)")
        }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var number = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            guard String(validating: line, as: UTF8.self) == nil else { continue }
            let isName = line.starts(with: "N:".utf8) || line.drop(while: { $0 == UInt8(ascii: " ") }).starts(with: "name:".utf8)
            throw RecordingError(line: number, message: isName ? "invalid UTF-8 in the device name" : "invalid UTF-8")
        }
        // A sequence cut by a newline is invalid on its own line; this is not reached.
        throw RecordingError(line: 0, message: "invalid UTF-8")
    }

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
