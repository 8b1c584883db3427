/// Turns the daemon's lines into aligned, readable ones, like `libinput debug-events`:
///
///     0.000s  pop-began      main  detail  progress 0.018
///     0.150s  back           main  detail → root
///             bar            main  root  shown
///
/// Time is the event's own `time_us`, in seconds since the first timed event, so it
/// shows the gesture's pace and not the socket's; `bar` has no time. A line that is
/// not JSON, or an event this version does not know, is printed as it came.
struct EventFormatter {
    /// `time_us` of the first timed event.
    private(set) var origin: Int64?

    /// Width of the time column: `123.456s`.
    static let timeWidth = 8
    /// Width of the type column: the longest type, `pop-cancelled`.
    static let typeWidth = 13

    init() {}

    /// One line from the daemon, formatted.
    mutating func format(line: String) -> String {
        guard let message = try? JSON(parsing: line) else { return line }
        return format(message) ?? line
    }

    /// An event, or nil when it is not one this version can show (print it raw).
    mutating func format(_ event: JSON) -> String? {
        guard let type = event.type, let fields = Self.fields(of: type, in: event) else { return nil }
        var time: String?
        if let microseconds = event["time_us"]?.integer {
            let origin = self.origin ?? microseconds
            self.origin = origin
            time = Self.seconds(microseconds &- origin)
        }
        return Self.row(time: time, type: type, fields)
    }

    /// The key fields after the type column, or nil when one is missing.
    static func fields(of type: String, in event: JSON) -> String? {
        let navigator = event["navigator"]?.string
        let page = event["page"]?.string
        switch type {
        case "pop-began", "pop-progress":
            guard let navigator, let page, let progress = event["progress"]?.double else { return nil }
            return "\(navigator)  \(page)  progress \(thousandths(progress))"
        case "pop-finished", "pop-cancelled":
            guard let navigator, let page, let reason = event["reason"]?.string else { return nil }
            return "\(navigator)  \(page)  \(reason)"
        case "back":
            guard let navigator, let popped = event["popped"]?.string, let top = event["top"]?.string else { return nil }
            return "\(navigator)  \(popped) → \(top)"
        case "bar":
            guard let navigator, let page, let hidden = event["hidden"]?.bool else { return nil }
            return "\(navigator)  \(page)  \(hidden ? "hidden" : "shown")"
        case "rejected":
            guard let reason = event["reason"]?.string, let device = event["device"]?.integer else { return nil }
            return "\(reason)  device \(device)"
        default:
            return nil
        }
    }

    /// A reply, as a session prints it; `command` is the request as the user wrote it.
    static func format(reply: JSON, command: String) -> String {
        switch reply.type {
        case "hello":
            let client = reply["client"]?.integer.map(String.init) ?? "?"
            let server = reply["server"]?.string ?? "?"
            let version = reply["version"]?.integer.map(String.init) ?? "?"
            return row(time: nil, type: "hello", "client \(client)  \(server) protocol \(version)")
        case "ok":
            return row(time: nil, type: "ok", command)
        case "error":
            return row(time: nil, type: "error", "\(command)  \(reply.errorSummary)")
        case "stack":
            return row(time: nil, type: "stack", StatusTable.stackLine(reply))
        case "status":
            return StatusTable.render(reply).joined(separator: "\n")
        default:
            return reply.text
        }
    }

    /// `  0.150s  back           main  detail → root`, trailing spaces trimmed.
    static func row(time: String?, type: String, _ fields: String) -> String {
        let timeColumn = padLeft(time ?? "", to: timeWidth)
        var line = timeColumn + "  " + padRight(type, to: typeWidth) + "  " + fields
        while line.last == " " { line.removeLast() }
        return line
    }

    /// `1.5` → `1.500`: three decimals, so progress lines up.
    static func thousandths(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        return milli(Int64((min(max(value, -1e12), 1e12) * 1000).rounded()))
    }

    /// Microseconds as seconds with three decimals and an `s`.
    static func seconds(_ microseconds: Int64) -> String {
        // Round to the millisecond, half away from zero.
        let milli = microseconds >= 0 ? (microseconds + 500) / 1000 : (microseconds - 500) / 1000
        return Self.milli(milli) + "s"
    }

    /// Thousandths as a decimal with three places: `-1500` → `-1.500`.
    private static func milli(_ value: Int64) -> String {
        let sign = value < 0 ? "-" : ""
        let fraction = String(value.magnitude % 1000)
        return sign + String(value.magnitude / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    static func padLeft(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    static func padRight(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
