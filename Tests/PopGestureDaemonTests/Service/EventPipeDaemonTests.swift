import Foundation
import PopGestureCore
import PopGestureInput
import PopGestureSynthesis
import Testing

/// `popgestured run --event-pipe FIFO`: a swipe written into the FIFO as raw
/// `input_event`s goes through the real daemon, its engine and its socket, to a client.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct EventPipeDaemonTests {
    @Test("a back swipe written into the event pipe pops the client's page", .timeLimit(.minutes(1)))
    func aSwipeThroughThePipeGoesBack() throws {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        let fifo = directory.appendingPathComponent("events").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let daemon = try PopGestureCtlDaemonTests.Daemon(["run", "--event-pipe", fifo], in: directory)
        #expect(daemon.logContains("\(fifo): reading input_event records as a touchscreen"), "\(daemon.log)")

        let session = try PopGestureCtlDaemonTests.Background(
            ["session", "--socket", daemon.socket], in: directory, name: "session",
            stdin: "create main home detail\nwait back main --timeout 30\n")
        let created = session.waitForOutput(seconds: 15) { $0.contains("ok") }
        #expect(created, "\(session.out)\n\(session.err)")

        // Now, in the evdev clock, so the events are as fresh as a live device's.
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var script = TouchScript(
            device: EventPipe.description, start: Timestamp(seconds: Int64(now.tv_sec), microseconds: Int64(now.tv_nsec / 1000)))
        script.down(at: 0.02, 0.5)
        script.move(byMillimetres: 60, 0, over: .milliseconds(150))
        script.up()
        let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
        try writer.write(contentsOf: Data(script.events.flatMap(EventPipe.record)))
        try writer.close()

        PopGestureCtlDaemonTests.waitForExit(session.process, seconds: 30)
        #expect(session.process.terminationStatus == 0, "\(session.out)\n\(session.err)\n\(daemon.log)")
        #expect(session.out.contains("back           main  detail → home"), "\(session.out)")
    }

    @Test("a path that is no FIFO stops the daemon at start with the reason")
    func aRegularFileIsRefusedAtStart() throws {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        let file = directory.appendingPathComponent("events").path
        try Data().write(to: URL(fileURLWithPath: file))
        let error = #expect(throws: PopGestureCtlDaemonTests.DaemonDidNotStart.self) {
            try PopGestureCtlDaemonTests.Daemon(["run", "--event-pipe", file], in: directory)
        }
        #expect(error?.log.contains("\(file) is not a FIFO (make one with mkfifo)") == true, "\(error?.log ?? "")")
    }
}
