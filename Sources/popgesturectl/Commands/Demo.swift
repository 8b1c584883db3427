import ArgumentParser
import PopGestureProtocol

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Try the back gesture on the live daemon: a navigator that refills itself.",
        discussion: """
            Creates navigator `demo` with pages home → list → detail, brings it to the \
            front and prints every event, including pans the daemon refused and why. A \
            second after each back the page comes back, so you can keep swiping. Needs a \
            touchscreen or touchpad the daemon sees; without one, `popgestured-demo` shows \
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
        let status = try client.requireOK(.status, onLine: { printer.print($0) })
        let create = ClientRequest.create(
            navigator: Self.navigator, pages: Self.pages.map { ClientRequest.Page(id: $0) }, layout: nil,
            barFollowsTopPage: true)
        let created = try client.request(create, onLine: { printer.print($0) })
        if let error = created.error {
            let hint = error.code == .navigatorExists ? " (is another popgesturectl demo running?)" : ""
            throw CtlFailure("cannot create navigator \(Self.navigator): \(error.summary)\(hint)", exitCode: .errorReply)
        }
        try client.requireOK(.subscribe, onLine: { printer.print($0) })
        guard case .status(let devices) = status.message else {
            throw CtlFailure("status: popgestured answered with \(status.line)", exitCode: .errorReply)
        }
        Self.hint(devices: devices.devices).forEach(standardError)

        // Popped pages, last popped last; they return in reverse, which restores the order.
        var popped: [String] = []
        var returnAt: ContinuousClock.Instant?
        func handle(_ line: String) {
            printer.print(line)
            guard case .event(.back(Self.navigator, let page, _, _))? = try? MessageCodec.decode(line) else { return }
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
                    let push = ClientRequest.push(navigator: Self.navigator, page: ClientRequest.Page(id: page), animated: false)
                    let reply = try client.request(push, onLine: handle)
                    if let error = reply.error {
                        standardError("popgesturectl: push \(page): \(error.summary)")
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
    static func hint(devices: [ServerReply.Status.Device]) -> [String] {
        let stack = pages.joined(separator: " → ")
        guard !devices.isEmpty else {
            return [
                "popgesturectl: navigator \(navigator) (\(stack)) is in front, but \(StatusTable.noDevices),",
                "so no swipe can arrive. `popgestured-demo` shows a generated swipe without a device.",
                "Ctrl-C ends.",
            ]
        }
        let names = devices.map { StatusTable.cell($0.name) }.joined(separator: ", ")
        return [
            "popgesturectl: navigator \(navigator) (\(stack)) is in front. Swipe toward the right",
            "(left in a right-to-left layout) on \(names): one finger on a touchscreen, two on a",
            "touchpad. Each popped page comes back after \(returnDelay.components.seconds) s. Ctrl-C ends.",
        ]
    }
}
