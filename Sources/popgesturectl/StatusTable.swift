import PopGestureProtocol

/// The `status` and `stack` replies as tables for people.
enum StatusTable {
    /// What `status` says when the daemon has no input device: then no swipe can arrive.
    static let noDevices = "no devices: popgestured sees no touchscreen or touchpad"

    /// Devices, navigators and clients, each a table with a header, a blank line between,
    /// then how many there are. A list the daemon cut (`truncated`) says how many it left out.
    static func render(_ status: ServerReply.Status) -> [String] {
        var lines: [String] = []

        if status.deviceCount == 0 {
            lines.append(noDevices)
        } else {
            lines += table(
                ["DEVICE", "KIND", "PATH", "NAME", "ROTATION"],
                status.devices.map {
                    [String($0.device), cell($0.kind), cell($0.path), cell($0.name), rotationCell($0)]
                })
            lines += omitted(shown: status.devices.count, of: status.deviceCount, "devices")
        }
        lines.append("")

        if status.navigatorCount == 0 {
            lines.append("no navigators: no client has created one")
        } else {
            lines += table(
                ["NAVIGATOR", "OWNER", "PAGES", "FRONT"],
                status.navigators.map { [cell($0.navigator), String($0.owner), String($0.pages), yesNo($0.front)] })
            lines += omitted(shown: status.navigators.count, of: status.navigatorCount, "navigators")
        }
        lines.append("")

        lines += table(
            ["CLIENT", "NAME", "PID", "UID", "OBSERVER"],
            status.clients.map {
                [String($0.client), cell($0.name), cell($0.credentials.map { String($0.pid) }),
                 cell($0.credentials.map { String($0.uid) }), yesNo($0.observer)]
            })
        lines += omitted(shown: status.clients.count, of: status.clientCount, "clients")
        lines.append("")
        if let focus = status.focus { lines.append(focusLine(focus)) }
        if let scrolling = status.focus?.touchpadScrolling {
            lines.append("touchpad scrolling: \(cell(scrolling)), says the shell (the touchpad bridge plays its scroll so)")
        }
        if status.focus != nil || status.lastBack != nil { lines.append(lastBackLine(status.lastBack)) }
        if let screen = status.screen { lines.append(screenLine(screen)) }
        if let settings = status.settings { lines.append(settingsLine(settings)) }
        lines.append(
            "\(count(status.deviceCount, "device")), \(count(status.navigatorCount, "navigator")), "
                + "\(count(status.clientCount, "client"))" + (status.truncated ? " (the daemon listed only some)" : ""))
        return lines
    }

    /// `settings on seat0: mode edge, back input edge, edge 6 mm, commit 0.3, fling 180/60 mm/s;
    /// the user's: edge-width-mm; locked: none`.
    static func settingsLine(_ settings: ServerReply.Status.Settings) -> String {
        func number(_ value: Double) -> String { value.rounded() == value ? String(Int64(value)) : String(value) }
        let user = settings.user.isEmpty ? "none (the system file's)" : settings.user.map(cell).joined(separator: ", ")
        let locked = settings.locked.isEmpty ? "none" : settings.locked.map(cell).joined(separator: ", ")
        return "settings on \(cell(settings.seat)): mode \(cell(settings.mode)), back input \(cell(settings.backInputMode)), "
            + "edge \(number(settings.edgeWidthMillimetres)) mm, commit \(number(settings.commitProgress)), "
            + "fling \(number(settings.flingVelocity))/\(number(settings.edgeFlingVelocity)) mm/s; "
            + "the user's: \(user); locked: \(locked)"
    }

    /// `90° shell (eDP-1)`, `0° sensor`; `-` for a touchpad or a daemon that does not say.
    static func rotationCell(_ device: ServerReply.Status.Device) -> String {
        guard device.kind == "touchscreen", let rotation = device.rotation else { return "-" }
        let source = device.rotationSource.map { " \(cell($0))" } ?? ""
        return "\(rotation)°\(source)" + (device.output.map { " (\(cell($0)))" } ?? "")
    }

    /// `focus: org.gnome.Nautilus (pid 1234), from the shell`, or, without a shell,
    /// `focus: from the clients' own reports`.
    static func focusLine(_ focus: ServerReply.Status.Focus) -> String {
        guard focus.source == "shell" else { return "focus: from the clients' own reports (no shell connected)" }
        guard focus.app != nil || focus.pid != nil else { return "focus: no window, says the shell" }
        let pid = focus.pid.map { " (pid \($0))" } ?? ""
        return "focus: \(focus.app ?? "an app without an id")\(pid), says the shell"
    }

    /// `rotation 90° from the shell (DSI-1), text direction rtl from the shell`.
    static func screenFields(_ screen: ServerReply.Status.Screen) -> String {
        let rotation = screen.rotation.map { "\($0)°" } ?? "none (no touchscreen)"
        let output = screen.output.map { " (\(cell($0)))" } ?? ""
        return "rotation \(rotation) from the \(cell(screen.rotationSource))\(output), "
            + "text direction \(cell(screen.direction)) from the \(cell(screen.directionSource))"
    }

    /// `screen: rotation 90° from the sensor, text direction ltr from the configuration;
    /// sensor left-up`.
    static func screenLine(_ screen: ServerReply.Status.Screen) -> String {
        "screen: \(screenFields(screen))" + (screen.sensor.map { "; sensor \(cell($0))" } ?? "")
    }

    /// `last back: navigator main of client 3`, or `last back: alt+left for firefox`.
    static func lastBackLine(_ back: ServerReply.Status.LastBack?) -> String {
        "last back: \(back.map(\.description) ?? "none yet")"
    }

    /// `… 66 more devices not listed` when the daemon listed fewer than there are.
    static func omitted(shown: Int, of count: Int64, _ what: String) -> [String] {
        guard Int64(shown) < count else { return [] }
        return ["… \(count - Int64(shown)) more \(what) not listed"]
    }

    /// `1 device`, `2 clients`.
    static func count(_ n: Int64, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// `main  home → detail  (client 3, front)` for a `stack` reply.
    static func stackLine(_ stack: ServerReply.Stack) -> String {
        var notes = ["client \(stack.owner)"]
        if stack.front { notes.append("front") }
        if stack.transitioning { notes.append("transitioning") }
        return "\(stack.navigator)  \(stack.pages.joined(separator: " → "))  (\(notes.joined(separator: ", ")))"
    }

    /// One table cell: the text, `-` when absent or empty.
    static func cell(_ value: String?) -> String {
        guard let value, !value.isEmpty else { return "-" }
        return value
    }

    static func yesNo(_ flag: Bool) -> String { flag ? "yes" : "no" }

    /// Columns padded to their widest cell, two spaces apart, trailing spaces trimmed.
    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            var line = zip(row, widths).map { EventFormatter.padRight($0, to: $1) }.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
