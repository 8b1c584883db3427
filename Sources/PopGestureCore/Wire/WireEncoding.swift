import PopGestureProtocol

/// The newline-delimited JSON that clients receive (see docs/PROTOCOL.md).
///
/// Hand-written rather than `JSONEncoder`: the key order is part of the readable,
/// deterministic output (`"type"` first), and the core stays free of Foundation.
public enum WireEncoding {
    /// Encodes one event as a JSON object, without the trailing newline.
    public static func encode(_ event: EngineEvent) -> String {
        var out = JSONObjectWriter()
        switch event {
        case .popBegan(let target, let progress, let time):
            out.string("type", "pop-began")
            out.target(target)
            out.thousandths("progress", progress)
            out.integer("time_us", time.microseconds)
        case .popProgress(let target, let progress, let time):
            out.string("type", "pop-progress")
            out.target(target)
            out.thousandths("progress", progress)
            out.integer("time_us", time.microseconds)
        case .popFinished(let target, let reason, let time):
            out.string("type", "pop-finished")
            out.target(target)
            out.string("reason", reason.rawValue)
            out.integer("time_us", time.microseconds)
        case .popCancelled(let target, let reason, let time):
            out.string("type", "pop-cancelled")
            out.target(target)
            out.string("reason", reason.rawValue)
            out.integer("time_us", time.microseconds)
        case .back(let navigator, _, let popped, let top, let time):
            out.string("type", "back")
            out.string("navigator", navigator)
            out.string("popped", popped)
            out.string("top", top)
            out.integer("time_us", time.microseconds)
        case .bar(let navigator, _, let page, let hidden):
            out.string("type", "bar")
            out.string("navigator", navigator)
            out.string("page", page)
            out.bool("hidden", hidden)
        case .rejected(let reason, let device, let time):
            out.string("type", "rejected")
            out.string("reason", reason.rawValue)
            out.integer("device", Int64(device.rawValue))
            out.integer("time_us", time.microseconds)
        }
        return out.finish()
    }
}

/// Writes one flat JSON object, keys in the order they are added.
public struct JSONObjectWriter: Sendable {
    private var text = "{"
    private var empty = true

    public init() {}

    public mutating func string(_ key: String, _ value: String) {
        self.key(key)
        Self.appendQuoted(value, to: &text)
    }

    public mutating func integer(_ key: String, _ value: Int64) {
        self.key(key)
        text += String(value)
    }

    public mutating func bool(_ key: String, _ value: Bool) {
        self.key(key)
        text += value ? "true" : "false"
    }

    /// A fraction rounded to three decimals, written without trailing zeros.
    public mutating func thousandths(_ key: String, _ value: Double) {
        self.key(key)
        guard value.isFinite else {
            text += "null"  // JSON has no NaN or infinity.
            return
        }
        let milli = Int64((min(max(value, -1e12), 1e12) * 1000).rounded())
        let sign = milli < 0 ? "-" : ""
        let whole = abs(milli) / 1000, fraction = abs(milli) % 1000
        text += sign + String(whole)
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
    }

    /// Adds a value that is already JSON (an array or object).
    public mutating func raw(_ key: String, _ json: String) {
        self.key(key)
        text += json
    }

    mutating func target(_ target: PopTarget) {
        string("navigator", target.navigator)
        string("page", target.page)
    }

    public consuming func finish() -> String {
        text += "}"
        return text
    }

    private mutating func key(_ key: String) {
        if !empty { text += "," }
        empty = false
        Self.appendQuoted(key, to: &text)
        text += ":"
    }

    /// Appends `value` as a JSON string in double quotes: the protocol's one escaping
    /// routine, `JSONValue.quote` (RFC 8259 §7), writing straight into `text`.
    public static func appendQuoted(_ value: String, to text: inout String) {
        JSONValue.quote(value, to: &text)
    }
}
