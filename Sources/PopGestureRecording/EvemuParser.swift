import PopGestureCore

/// Reads evemu text line by line: the description lines (`N:`, `I:`, `P:`, `B:`, `A:`)
/// and the event lines (`E:`), in any mix; `#` starts a comment.
struct EvemuParser {
    private(set) var events: [InputEvent] = []
    private(set) var firstEventLine: Int?

    private var name: String?
    private var id: [UInt16] = [0, 0, 0, 0]
    private var firstDescriptionLine: Int?
    /// Set bits per `B:` event type; index 0 is the event types themselves.
    private var bits: [UInt16: Set<Int>] = [:]
    /// Bytes read so far per `B:` type: a repeated `B: <type>` line continues that bitmask.
    private var byteOffsets: [UInt16: Int] = [:]
    private var properties: Set<Int> = []
    private var propertyByteOffset = 0
    private var axes: [UInt16: AbsoluteAxis] = [:]

    mutating func parse(_ text: String) throws(RecordingError) {
        var number = 0
        // Splitting on isNewline also takes "\r\n", which Swift treats as one Character.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            try parseLine(line, number: number)
        }
    }

    /// The description, or nil when the text had no description lines.
    func device() throws(RecordingError) -> DeviceDescription? {
        guard let firstDescriptionLine else { return nil }
        guard let name else {
            throw RecordingError(line: firstDescriptionLine, message: "device description has no N: (name) line")
        }
        return DeviceDescription(
            name: name, bustype: id[0], vendor: id[1], product: id[2], version: id[3],
            properties: properties,
            keys: Set((bits[EV.key] ?? []).compactMap { UInt16(exactly: $0) }),
            eventTypes: Set((bits[EV.syn] ?? []).compactMap { UInt16(exactly: $0) }),
            axes: axes)
    }

    private mutating func parseLine(_ line: Substring, number: Int) throws(RecordingError) {
        let line = line.drop(while: \.isWhitespace)
        if line.isEmpty || line.first == "#" { return }
        func fail(_ message: String) -> RecordingError {
            RecordingError(line: number, message: message)
        }
        guard let colon = line.firstIndex(of: ":") else {
            throw fail("expected '<prefix>: ...', got '\(line)'")
        }
        let prefix = line[..<colon]
        let rest = line[line.index(after: colon)...]
        if prefix == "N" {
            // The name is the rest of the line, '#' included: names may contain one.
            name = String(rest.trimmingWhitespace())
            firstDescriptionLine = firstDescriptionLine ?? number
            return
        }
        // evemu 1.1+ allows a trailing comment (after a tab) on any other line.
        let fields = rest.prefix { $0 != "#" }.split(whereSeparator: \.isWhitespace)

        switch prefix {
        case "E":
            guard fields.count == 4,
                  let time = Self.timestamp(fields[0]),
                  let type: UInt16 = fields[1].hex(), let code: UInt16 = fields[2].hex(),
                  let value: Int32 = fields[3].decimal()
            else { throw fail("malformed E: line, expected '<sec>.<usec> <type hex> <code hex> <value>': '\(line)'") }
            events.append(InputEvent(time: time, type: type, code: code, value: value))
            firstEventLine = firstEventLine ?? number
            return
        case "I":
            let values = fields.compactMap { $0.hex() as UInt16? }
            guard fields.count == 4, values.count == 4 else {
                throw fail("malformed I: line, expected '<bus> <vendor> <product> <version>' in hex: '\(line)'")
            }
            id = values
        case "P":
            let bytes = fields.compactMap { $0.hex() as UInt8? }
            guard !bytes.isEmpty, bytes.count == fields.count else {
                throw fail("malformed P: line, expected property bytes in hex: '\(line)'")
            }
            properties.formUnion(Self.setBits(bytes, byteOffset: propertyByteOffset))
            propertyByteOffset += bytes.count
        case "B":
            let bytes = fields.dropFirst().compactMap { $0.hex() as UInt8? }
            guard let type: UInt16 = fields.first?.hex(), !bytes.isEmpty, bytes.count == fields.count - 1 else {
                throw fail("malformed B: line, expected '<type> <bytes...>' in hex: '\(line)'")
            }
            let offset = byteOffsets[type, default: 0]
            bits[type, default: []].formUnion(Self.setBits(bytes, byteOffset: offset))
            byteOffsets[type] = offset + bytes.count
        case "A":
            // Resolution is a later addition: old files have five fields.
            let numbers = fields.dropFirst().compactMap { $0.decimal() as Int32? }
            guard let code: UInt16 = fields.first?.hex(), (4...5).contains(numbers.count),
                  numbers.count == fields.count - 1
            else {
                throw fail("malformed A: line, expected '<code hex> <min> <max> <fuzz> <flat> [<resolution>]': '\(line)'")
            }
            axes[code] = AbsoluteAxis(
                minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                resolution: numbers.count == 5 ? numbers[4] : 0)
        default:
            throw fail("unknown line prefix '\(prefix):'")
        }
        firstDescriptionLine = firstDescriptionLine ?? number
    }

    /// `<sec>.<usec>` with exactly six digits of microseconds, as evemu prints it;
    /// anything else (`1.5`) would be ambiguous.
    private static func timestamp(_ field: Substring) -> Timestamp? {
        let parts = field.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 6,
              parts[0].allSatisfy(\.isASCIIDigit), parts[1].allSatisfy(\.isASCIIDigit),
              let seconds = Int64(parts[0]), let microseconds = Int64(parts[1])
        else { return nil }
        return Timestamp(seconds: seconds, microseconds: microseconds)
    }

    /// The highest bit number kept from a `B:` or `P:` bitmask: `KEY_MAX` (0x2ff), the
    /// largest code of any event type. Bits past it name nothing; keeping them would let
    /// one long line of `ff` bytes fill memory with set bits.
    static let maximumBitNumber = 0x2ff

    /// Bit numbers set in a little-endian run of bitmask bytes starting at `byteOffset`,
    /// up to ``maximumBitNumber``.
    private static func setBits(_ bytes: [UInt8], byteOffset: Int) -> [Int] {
        var result: [Int] = []
        for (index, byte) in bytes.enumerated() where byte != 0 {
            guard (byteOffset + index) * 8 <= maximumBitNumber else { break }
            for bit in 0..<8 where byte & (1 << bit) != 0 && (byteOffset + index) * 8 + bit <= maximumBitNumber {
                result.append((byteOffset + index) * 8 + bit)
            }
        }
        return result
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        guard let start = firstIndex(where: { !$0.isWhitespace }),
              let end = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[start...end]
    }

    /// Hex digits only: no sign, no `0x`.
    func hex<T: FixedWidthInteger>() -> T? {
        guard !isEmpty, allSatisfy(\.isHexDigit) else { return nil }
        return T(self, radix: 16)
    }

    /// Decimal with an optional '-'. Leading zeros are decimal too: evemu pads `-001`, `0021`.
    func decimal<T: FixedWidthInteger>() -> T? {
        let digits = first == "-" ? dropFirst() : self
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        return T(self, radix: 10)
    }
}
