import ArgumentParser

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's devices, navigators and clients.")

    @OptionGroup var socketOptions: SocketOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (client, _) = try Client.connect(socketOptions, name: "popgesturectl status", signals: nil)
        let reply = try client.requireOK(.request("status"), onLine: { _ in })
        if output.json {
            standardOutput(reply.line)
        } else {
            StatusTable.render(reply.message).forEach(standardOutput)
        }
    }
}

struct Stack: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a navigator's pages, bottom (root) first, one per line.",
        discussion: "Read-only: any client may look at any navigator.")

    @Argument(help: "The navigator.")
    var navigator: String

    @OptionGroup var socketOptions: SocketOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (client, _) = try Client.connect(socketOptions, name: "popgesturectl stack", signals: nil)
        let reply = try client.requireOK(
            .request("stack", navigator: navigator), onLine: { _ in })
        if output.json {
            standardOutput(reply.line)
        } else {
            for page in reply.message["pages"]?.array ?? [] { standardOutput(page.string ?? page.text) }
        }
    }
}
