extension JSONValue {
    /// Compact JSON text: no whitespace, object members in their stored order, numbers as written.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the compact JSON text to `out`.
    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .integer(let value): out += String(value)
        case .number(let number): out += number.literal
        case .string(let value): Self.quote(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { out += "," }
                Self.quote(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// `value` as a JSON string in double quotes (RFC 8259 §7): `"` and `\` escaped,
    /// control characters as `\n`, `\r`, `\t` or `\u00XX`, everything else as it is.
    public static func quote(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                // `\u00XX`, the two hex digits appended in place (no intermediate strings).
                out += "\\u00"
                out.unicodeScalars.append(hexDigit(scalar.value >> 4))
                out.unicodeScalars.append(hexDigit(scalar.value & 0xF))
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// The lowercase hex digit for `nibble` (0...15).
    private static func hexDigit(_ nibble: UInt32) -> Unicode.Scalar {
        Unicode.Scalar(UInt8(nibble < 10 ? 0x30 + nibble : 0x57 + nibble))
    }

    /// `value` as a JSON string in double quotes.
    public static func quoted(_ value: String) -> String {
        var out = ""
        quote(value, to: &out)
        return out
    }
}
