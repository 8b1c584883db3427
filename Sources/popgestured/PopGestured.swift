import ArgumentParser

@main
struct PopGestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "popgestured",
        abstract: "The iOS swipe-back gesture for Linux tablets.",
        discussion: """
            Reads touchscreens and touchpads, recognises the back gesture, and tells the
            application in front over a Unix socket. `replay` runs a recording through
            the same engine; `demo` shows a generated swipe.
            """,
        subcommands: [Replay.self, Demo.self])
}
