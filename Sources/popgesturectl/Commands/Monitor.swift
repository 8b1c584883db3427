import ArgumentParser
import PopGestureProtocol

struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every gesture event as it happens, like libinput debug-events.",
        discussion: """
            Subscribes as an observer: every event of every navigator, and each pan the \
            daemon refused with its reason (`rejected`). Each line shows the time since the \
            first event (from the events' own timestamps), the type, and the key fields:

                0.000s  pop-began      main  detail  progress 0.018
                0.150s  back           main  detail → root
                        bar            main  root  shown
                2.020s  rejected       too-steep  device 0
                        screen-changed  rotation 90° from the shell (DSI-1), text direction ltr from the configuration

            Ends with 0 on Ctrl-C, or when the daemon stops (with a message on stderr).
            """)

    @OptionGroup var socketOptions: SocketOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let signals = StopSignals.install()
        var printer = EventPrinter(json: output.json)
        let (client, _) = try Client.connect(
            socketOptions, name: "popgesturectl monitor", signals: signals, onLine: { printer.print($0) })
        if !output.json {
            let status = try client.requireOK(.status, onLine: { printer.print($0) })
            if case .status(let status) = status.message {
                standardError(Self.header(status, path: client.connection.path))
            }
        }
        try client.requireOK(.subscribe, onLine: { printer.print($0) })
        try watchEvents(client, printer: &printer)
    }

    /// What the monitor watches, for stderr: the devices, or why nothing will come.
    static func header(_ status: ServerReply.Status, path: String) -> String {
        let what = status.devices.isEmpty
            ? StatusTable.noDevices + "; events start when one appears"
            : status.devices.map { "\(StatusTable.cell($0.name)) (\(StatusTable.cell($0.kind)), \(StatusTable.cell($0.path)))" }
                .joined(separator: ", ")
        let screen = status.screen.map { "; \(StatusTable.screenFields($0))" } ?? ""
        return "popgesturectl: watching \(path): \(what)\(screen). Ctrl-C ends."
    }
}

/// Prints the daemon's lines until it closes the connection or a stop signal arrives;
/// both end the command cleanly.
func watchEvents(_ client: Client, printer: inout EventPrinter) throws {
    while true {
        switch try client.waiter.next() {
        case .daemon(let line):
            printer.print(line)
        case .daemonClosed:
            standardError("popgesturectl: popgestured closed the connection (it stopped or restarted)")
            return
        case .stop:
            return
        case .timeout, .command, .commandsEnded:
            continue
        }
    }
}
