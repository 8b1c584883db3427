/// The `status` and `stack` replies as tables for people.
enum StatusTable {
    /// What `status` says when the daemon has no input device: then no swipe can arrive.
    static let noDevices = "no devices: popgestured sees no touchscreen or touchpad"

    /// Devices, navigators and clients, each a table with a header, a blank line between.
    static func render(_ status: JSON) -> [String] {
        var lines: [String] = []

        let devices = status["devices"]?.array ?? []
        if devices.isEmpty {
            lines.append(noDevices)
        } else {
            lines += table(
                ["DEVICE", "KIND", "PATH", "NAME"],
                devices.map { [cell($0["device"]), cell($0["kind"]), cell($0["path"]), cell($0["name"])] })
        }
        lines.append("")

        let navigators = status["navigators"]?.array ?? []
        if navigators.isEmpty {
            lines.append("no navigators: no client has created one")
        } else {
            lines += table(
                ["NAVIGATOR", "OWNER", "PAGES", "FRONT"],
                navigators.map { [cell($0["navigator"]), cell($0["owner"]), cell($0["pages"]), cell($0["front"])] })
        }
        lines.append("")

        let clients = status["clients"]?.array ?? []
        lines += table(
            ["CLIENT", "NAME", "PID", "UID", "OBSERVER"],
            clients.map { [cell($0["client"]), cell($0["name"]), cell($0["pid"]), cell($0["uid"]), cell($0["observer"])] })
        return lines
    }

    /// `main  home → detail  (client 3, front)` for a `stack` reply.
    static func stackLine(_ stack: JSON) -> String {
        let pages = (stack["pages"]?.array ?? []).map { $0.string ?? $0.text }
        var notes: [String] = []
        if let owner = stack["owner"]?.integer { notes.append("client \(owner)") }
        if stack["front"]?.bool == true { notes.append("front") }
        if stack["transitioning"]?.bool == true { notes.append("transitioning") }
        let navigator = stack["navigator"]?.string ?? "?"
        return "\(navigator)  \(pages.joined(separator: " → "))" + (notes.isEmpty ? "" : "  (\(notes.joined(separator: ", ")))")
    }

    /// One table cell: strings bare, booleans as yes/no, absent fields as `-`.
    static func cell(_ value: JSON?) -> String {
        switch value {
        case nil, .null?: "-"
        case .string(let text)?: text.isEmpty ? "-" : text
        case .bool(let flag)?: flag ? "yes" : "no"
        case .integer(let value)?: String(value)
        case .number(let number)?: number.literal
        case let other?: other.text
        }
    }

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
