import ArgumentParser
import PopGestureProtocol

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's devices, navigators and clients.")

    @OptionGroup var socketOptions: SocketOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (client, _) = try Client.connect(socketOptions, name: "popgesturectl status", signals: nil)
        let reply = try client.requireOK(.status, onLine: { _ in })
        if output.json {
            standardOutput(reply.line)
        } else {
            guard case .status(let status) = reply.message else {
                throw CtlFailure("status: popgestured answered with \(reply.line)", exitCode: .errorReply)
            }
            StatusTable.render(status).forEach(standardOutput)
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
            .stack(navigator: navigator), onLine: { _ in })
        if output.json {
            standardOutput(reply.line)
        } else {
            guard case .stack(let stack) = reply.message else {
                throw CtlFailure("stack: popgestured answered with \(reply.line)", exitCode: .errorReply)
            }
            stack.pages.forEach(standardOutput)
        }
    }
}
