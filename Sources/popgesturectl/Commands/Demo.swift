import ArgumentParser

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Try the back gesture on the live daemon: a navigator that refills itself.",
        discussion: """
            Creates navigator `demo` with pages home → list → detail, brings it to the \
            front and prints every event, including pans the daemon refused and why. A \
            second after each back the page comes back, so you can keep swiping. Needs a \
            touchscreen or touchpad the daemon sees; without one, `popgestured demo` shows \
            a generated swipe instead.
            """)

    /// The demo's stack, root first.
    static let pages = ["home", "list", "detail"]
    static let navigator = "demo"
    /// How long a popped page stays away: long enough to see the back, short enough to go on.
    static let returnDelay: Duration = .seconds(1)

    @OptionGroup var socketOptions: SocketOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let signals = StopSignals.install()
        var printer = EventPrinter(json: output.json)
        let (client, _) = try Client.connect(
            socketOptions, name: "popgesturectl demo", signals: signals, onLine: { printer.print($0) })
        let status = try client.requireOK(.request("status"), onLine: { printer.print($0) })
        let create = SessionCommand.create(
            navigator: Self.navigator, pages: Self.pages.map { .object(["id": .string($0)]) }, layout: nil)
        let created = try client.request(create.request!, onLine: { printer.print($0) })
        if created.isError {
            let hint = created.message["code"]?.string == "navigator-exists" ? " (is another popgesturectl demo running?)" : ""
            throw CtlFailure("cannot create navigator \(Self.navigator): \(created.message.errorSummary)\(hint)",
                             exitCode: .errorReply)
        }
        try client.requireOK(.request("subscribe"), onLine: { printer.print($0) })
        Self.hint(devices: status.message["devices"]?.array ?? []).forEach(standardError)

        // Popped pages, last popped last; they return in reverse, which restores the order.
        var popped: [String] = []
        var returnAt: ContinuousClock.Instant?
        func handle(_ line: String) {
            printer.print(line)
            guard let event = try? JSON(parsing: line), event.type == "back",
                  event["navigator"]?.string == Self.navigator, let page = event["popped"]?.string
            else { return }
            popped.append(page)
            returnAt = ContinuousClock.now + Self.returnDelay
        }
        while true {
            switch try client.waiter.next(until: returnAt) {
            case .daemon(let line):
                handle(line)
            case .timeout:
                returnAt = nil
                while let page = popped.popLast() {
                    let push = SessionCommand.push(navigator: Self.navigator, page: .object(["id": .string(page)]), animated: false)
                    let reply = try client.request(push.request!, onLine: handle)
                    if reply.isError {
                        standardError("popgesturectl: push \(page): \(reply.message.errorSummary)")
                    } else if !output.json {
                        printer.print(reply: reply, command: "push \(Self.navigator) \(page)")
                    }
                }
            case .daemonClosed:
                standardError("popgesturectl: popgestured closed the connection (it stopped or restarted)")
                return
            case .stop:
                return
            case .command, .commandsEnded:
                continue
            }
        }
    }

    /// How to make a swipe happen, or why none will.
    static func hint(devices: [JSON]) -> [String] {
        let stack = pages.joined(separator: " → ")
        guard !devices.isEmpty else {
            return [
                "popgesturectl: navigator \(navigator) (\(stack)) is in front, but \(StatusTable.noDevices),",
                "so no swipe can arrive. `popgestured demo` shows a generated swipe without a device.",
                "Ctrl-C ends.",
            ]
        }
        let names = devices.map { StatusTable.cell($0["name"]) }.joined(separator: ", ")
        return [
            "popgesturectl: navigator \(navigator) (\(stack)) is in front. Swipe toward the right",
            "(left in a right-to-left layout) on \(names): one finger on a touchscreen, two on a",
            "touchpad. Each popped page comes back after \(returnDelay.components.seconds) s. Ctrl-C ends.",
        ]
    }
}
