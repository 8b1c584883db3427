import ArgumentParser

/// Prints the daemon's lines as they arrive: readable, or raw with `--json`.
struct EventPrinter {
    var json: Bool
    var formatter = EventFormatter()

    init(json: Bool) { self.json = json }

    mutating func print(_ line: String) {
        standardOutput(json ? line : formatter.format(line: line))
    }

    /// A reply to `command`: the raw line with `--json`, else one readable line (or a table).
    func print(reply: Client.Reply, command: String) {
        standardOutput(json ? reply.line : EventFormatter.format(reply: reply.message, command: command))
    }
}

/// Options of the commands that print events.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the daemon's JSON lines as they are.")
    var json = false
}
