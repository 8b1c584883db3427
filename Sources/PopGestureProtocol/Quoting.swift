/// Text from outside (a client's line, a configuration file, a flag, what a compositor
/// or an X server sent) quoted in a message or a log line, so that the message stays
/// short and on one line whatever the text held.
///
/// At most `limit` bytes of UTF-8 go between the quotes, escapes included, cut at a
/// character or escape boundary; a cut text ends in `…` and its whole size follows:
/// `"aaaa…" (65000 bytes)`. A short text is quoted whole: `"lots"`. Inside the quotes
/// `\n`, `\r`, `\t`, `\"` and `\\` are escaped as in Swift, other control and format
/// characters (bidi overrides, zero-width spaces) and the line and paragraph separators
/// as `\u{1b}`, and, for bytes, each byte that is not part of valid UTF-8 as `\xFF`.
///
/// The default, 64 bytes, is `ProtocolLimits.maximumQuotedBytes`: the protocol's error
/// replies, the configuration's errors and the bridges' messages quote alike.
public func quoted(_ text: some StringProtocol, limit: Int = ProtocolLimits.maximumQuotedBytes) -> String {
    quoted(bytes: text.utf8, limit: limit)
}

/// `bytes` quoted as ``quoted(_:limit:)`` quotes text, for bytes that may not be UTF-8.
public func quoted(bytes: some Collection<UInt8>, limit: Int = ProtocolLimits.maximumQuotedBytes) -> String {
    // Every escape is at least as long as what it stands for, so the excerpt never
    // needs more than `limit` bytes of input, plus one character's to see it is cut.
    let head = Array(bytes.prefix(max(limit, 0) + 4))
    var excerpt = ""
    var used = 0
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = head.makeIterator()
    decoding: while true {
        let piece: String
        let width: Int
        switch parser.parseScalar(from: &iterator) {
        case .valid(let encoded):
            piece = escaped(Unicode.UTF8.decode(encoded))
            width = encoded.count
        case .error(let length):
            piece = head[used..<used + length].map(hexEscaped).joined()
            width = length
        case .emptyInput:
            break decoding
        }
        guard excerpt.utf8.count + piece.utf8.count <= limit else { break }
        excerpt += piece
        used += width
    }
    guard used < bytes.count else { return "\"\(excerpt)\"" }
    return "\"\(excerpt)…\" (\(bytes.count) bytes)"
}

/// `text` as it is when it is short and holds nothing to escape (a known key, a plain
/// app id: `firefox`), else ``quoted(_:limit:)``: for text that leads a message.
public func quotedIfNeeded(_ text: some StringProtocol, limit: Int = ProtocolLimits.maximumQuotedBytes) -> String {
    let whole = quoted(text, limit: limit)
    return text.utf8.count <= limit && whole.utf8.dropFirst().dropLast().elementsEqual(text.utf8) ? String(text) : whole
}

/// One character as it goes between the quotes.
private func escaped(_ scalar: Unicode.Scalar) -> String {
    switch scalar {
    case "\n": return "\\n"
    case "\r": return "\\r"
    case "\t": return "\\t"
    case "\"": return "\\\""
    case "\\": return "\\\\"
    default:
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator:
            return "\\u{\(String(scalar.value, radix: 16))}"
        default:
            return String(scalar)
        }
    }
}

/// A byte that is not part of valid UTF-8: `\xFF`.
private func hexEscaped(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return "\\x" + (byte < 0x10 ? "0" : "") + digits
}
