import ArgumentParser
import PopGestureProtocol

struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stand in for an app: create a navigator with these pages and own it until Ctrl-C.",
        discussion: """
            Creates NAV with the pages given (the first is the root, the last is on top), \
            brings it to the front, and stays connected as its owner, printing the events \
            it receives: swipe back on the touchscreen and `back` appears. The first line \
            on stdout is the reply to the create. The navigator vanishes when this process \
            ends (Ctrl-C, SIGTERM, or the daemon stopping), as an app's would.

                popgesturectl push main home detail &

            A page is an id, or a JSON page object: '{"id":"detail","popDisabled":true}'.
            Only the connection that created a navigator may change it, so a later \
            `popgesturectl pop main` cannot work; to push, pop, or bring to the front \
            step by step, run the steps in one `popgesturectl session`.
            """)

    @Argument(help: "The navigator to create.")
    var navigator: String

    @Argument(help: "Its pages, root first.")
    var pages: [String]

    @Option(help: "ltr or rtl; default: the daemon's.")
    var layout: String?

    @Flag(help: "Also subscribe: print every event, including rejected pans.")
    var observer = false

    @Option(help: ArgumentHelp(
        "The app id to say in hello (Wayland app_id, X11 WM_CLASS): a shell's focused window is matched against it.",
        valueName: "app-id"))
    var app: String?

    @OptionGroup var socketOptions: SocketOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard !pages.isEmpty else { throw ValidationError("push needs at least one page: push NAV PAGE...") }
        if let layout, ClientRequest.Layout(rawValue: layout) == nil {
            throw ValidationError("--layout is ltr or rtl, not \(layout)")
        }
        for page in pages {
            do {
                _ = try SessionCommand.page(Self.word(page))
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    static func word(_ text: String) -> SessionWords.Word {
        SessionWords.Word(text: text, isJSON: text.hasPrefix("{"))
    }

    func run() throws {
        let signals = StopSignals.install()
        var printer = EventPrinter(json: output.json)
        let (client, _) = try Client.connect(
            socketOptions, name: "popgesturectl push \(navigator)", app: app, signals: signals,
            onLine: { printer.print($0) })
        let create = ClientRequest.create(
            navigator: navigator, pages: try pages.map { try SessionCommand.page(Self.word($0)) },
            layout: layout.flatMap(ClientRequest.Layout.init), barFollowsTopPage: true)
        let reply = try client.request(create, onLine: { printer.print($0) })
        printer.print(reply: reply, command: (["create", navigator] + pages).joined(separator: " "))
        if let error = reply.error { throw CtlFailure("create: \(error.summary)", exitCode: .errorReply) }
        if observer {
            try client.requireOK(.subscribe, onLine: { printer.print($0) })
        }
        standardError(
            "popgesturectl: client \(client.number.map(String.init) ?? "?") owns \(navigator); waiting for gestures. "
                + "Ctrl-C ends, and \(navigator) goes with it.")
        try watchEvents(client, printer: &printer)
    }
}

/// `pop` and `front` only make sense inside a session; say so instead of "unknown command".
struct StandalonePop: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pop", shouldDisplay: false)
    @Argument(parsing: .captureForPassthrough) var rest: [String] = []
    func run() throws { throw ValidationError(ownershipHint("pop")) }
}

struct StandaloneFront: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "front", shouldDisplay: false)
    @Argument(parsing: .captureForPassthrough) var rest: [String] = []
    func run() throws { throw ValidationError(ownershipHint("front")) }
}

func ownershipHint(_ command: String) -> String {
    """
    \(command) needs the connection that created the navigator: a navigator belongs to its
    creator's connection. Run it in a session, e.g.
        printf 'create main home detail\\n\(command) main\\n' | popgesturectl session
    """
}
