import ArgumentParser

@main
struct PopGestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "popgestured",
        abstract: "The iOS swipe-back gesture for Linux tablets.",
        discussion: """
            Reads touchscreens and touchpads, recognises the back gesture, and tells the
            application in front over a Unix socket (`run`, the default); `demo` shows a
            generated swipe. `popgestured-replay` runs a recording through the same engine.
            """,
        subcommands: [Run.self, Demo.self, DebugClone.self], defaultSubcommand: Run.self)
}
