import PopGestureProtocol

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
    /// Width of the type column: the longest pop type, `pop-cancelled`; the back
    /// input's `input-progress` and `input-cancelled` overflow it by one and two.
    static let typeWidth = 13

    init() {}

    /// One line from the daemon, formatted; a line that is not an event this version
    /// knows comes back as it came.
    mutating func format(line: String) -> String {
        guard case .event(let event)? = try? MessageCodec.decode(line) else { return line }
        return format(event)
    }

    /// An event, as one row.
    mutating func format(_ event: ServerEvent) -> String {
        var time: String?
        if let microseconds = event.timeMicroseconds {
            let origin = self.origin ?? microseconds
            self.origin = origin
            time = Self.seconds(microseconds &- origin)
        }
        return Self.row(time: time, type: event.kind.rawValue, Self.fields(of: event))
    }

    /// The key fields after the type column.
    static func fields(of event: ServerEvent) -> String {
        switch event {
        case .popBegan(let navigator, let page, let progress, _), .popProgress(let navigator, let page, let progress, _):
            "\(navigator)  \(page)  progress \(thousandths(progress))"
        case .popFinished(let navigator, let page, let reason, _):
            "\(navigator)  \(page)  \(reason)"
        case .popCancelled(let navigator, let page, let reason, _):
            "\(navigator)  \(page)  \(reason)"
        case .back(let navigator, let popped, let top, _):
            "\(navigator)  \(popped) → \(top)"
        case .bar(let navigator, let page, let hidden):
            "\(navigator)  \(page)  \(hidden ? "hidden" : "shown")"
        case .rejected(let reason, let device, _):
            "\(reason)  device \(device)"
        case .refused(let reason, let device, _):
            "\(reason)  device \(device)  (it went on like a back)"
        case .inputBegan(let app, _):
            "input  \(app ?? "(app unknown)")"
        case .inputProgress(let app, let progress, let commit, _):
            "input  \(app ?? "(app unknown)")  progress \(thousandths(progress)) of \(thousandths(commit))"
        case .inputCancelled(let app, let reason, _):
            "input  \(app ?? "(app unknown)")  \(reason)"
        case .backInput(let app, let input, let reason, _):
            "input  \(app ?? "(app unknown)")  \(input)  \(reason)"
        case .focusChanged(let source, let app, let pid, let navigator):
            "\(source == "shell" ? "\(app ?? "no app")\(pid.map { " (pid \($0))" } ?? ""), says the shell" : "clients' reports")"
                + "  → \(navigator.map { "navigator \($0)" } ?? "back input")"
        case .screenChanged(let screen):
            StatusTable.screenFields(screen)
        case .paused(let reason):
            "\(reason)  (until resumed)"
        case .resumed:
            "served again"
        }
    }

    /// A reply, as a session prints it; `command` is the request as the user wrote it.
    static func format(reply: ServerReply, command: String) -> String {
        switch reply {
        case .hello(let version, let server, let client):
            row(time: nil, type: "hello", "client \(client)  \(server) protocol \(version)")
        case .ok:
            row(time: nil, type: "ok", command)
        case .error(let error):
            row(time: nil, type: "error", "\(command)  \(error.summary)")
        case .stack(let stack):
            row(time: nil, type: "stack", StatusTable.stackLine(stack))
        case .status(let status):
            StatusTable.render(status).joined(separator: "\n")
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
