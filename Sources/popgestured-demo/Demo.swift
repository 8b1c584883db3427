import ArgumentParser
import Glibc
import Logging
import PopGestureCore
import PopGestureDaemon
import PopGestureInput
import PopGestureProtocol
import PopGestureServer
import PopGestureServerThread
import PopGestureSynthesis
import PopGestureSystem
import SystemPackage

/// The daemon for a first look: its real socket and engine, a client of its own, and
/// a virtual touchscreen playing swipes when no real one is present. Its own program, so
/// that the daemon systemd runs carries neither the gesture scripts nor a command-line
/// library (issue 30).
@main
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "popgestured-demo",
        abstract: "Run the daemon with a demo client; swipes are generated when no touchscreen is present.",
        discussion: """
            Starts the daemon on a socket of its own and connects a demo client that owns the
            navigator `demo` (home → list → detail) and prints what it receives. With a
            touchscreen present, swipe on it; without one, a virtual touchscreen plays a few
            gestures in real time. Other clients can join: popgesturectl --socket PATH monitor.
            """)

    @Option(help: "Socket path. Default $XDG_RUNTIME_DIR/popgestured-demo.sock, else /tmp.")
    var socket: String?

    @Option(help: "Rounds of generated gestures to play (0: until Ctrl-C).")
    var rounds = 1

    @Flag(name: .shortAndLong, help: "Trace every state transition to stderr.")
    var verbose = false

    /// A 10.1-inch protocol B touchscreen with 10 slots and a resolution: the event
    /// pipe's (``EventPipe/description``), under a name of its own.
    static let virtualTouchscreen = {
        var description = EventPipe.description
        description.name = "popgestured virtual touchscreen"
        return description
    }()

    struct Scene: Sendable {
        var title: String
        var gesture: @Sendable (inout TouchScript) -> Void
    }

    static let scenes = [
        Scene(title: "A swipe from 2 % of the width, 60 mm to the right in 150 ms: back.") { finger in
            finger.down(at: 0.02, 0.5)
            finger.move(byMillimetres: 60, 0, over: .milliseconds(150))
            finger.up()
        },
        Scene(title: "A vertical scroll: no back.") { finger in
            finger.down(at: 0.5, 0.3)
            finger.move(byMillimetres: 2, 60, over: .milliseconds(200))
            finger.up()
        },
        Scene(title: "A slow 50 mm drag that rests before release: cancelled.") { finger in
            finger.down(at: 0.3, 0.5)
            finger.move(byMillimetres: 50, 0, over: .milliseconds(800))
            finger.rest(.milliseconds(300))
            finger.up()
        },
        Scene(title: "A second finger lands mid-swipe: cancelled.") { finger in
            finger.down(0, at: 0.1, 0.5)
            finger.move(0, byMillimetres: 20, 0, over: .milliseconds(100))
            finger.down(1, at: 0.5, 0.5)
            finger.move(0, byMillimetres: 20, 0, over: .milliseconds(100))
            finger.up(1)
            finger.up(0)
        },
    ]

    func run() throws {
        // A parent (a test runner) may have blocked these; the demo relies on their default action.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        for signal in [SIGINT, SIGTERM] { sigaddset(&stopSignals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)

        // The daemon's own logging: queued, so the event loop never waits on a slow terminal.
        let logging = DaemonLogging(level: verbose ? .debug : .warning)
        defer { logging.flush() }
        let logger = logging.makeLogger()
        let path = socket ?? Self.defaultSocketPath()

        let server = try SocketServer(listening: .path(path), host: EngineHost(logger: logger), logger: logger)
        // With a touchscreen, the daemon's own input loop serves the socket and runs the engine
        // beside the reads; without, a thread of the server's own, which the virtual
        // touchscreen's frames go to.
        let touchscreenPresent = try UdevInputMonitor().enumerate().contains(where: { $0.kind == .touchscreen })
        let mainLoop = touchscreenPresent ? try MainLoop(configuration: Configuration(), sink: server, logger: logger) : nil
        let serverThread = touchscreenPresent ? nil : try ServerThread(server)
        if let mainLoop { PosixThread.detach(name: "input") { mainLoop.run() } }

        let client = try DemoClient(socketPath: path)
        client.start()
        print("popgestured-demo: socket \(path); try `popgesturectl --socket \(path) monitor` in another terminal")

        if let serverThread {
            print("No touchscreen found: a virtual one plays the gestures.\n")
            // The client's requests reach the engine on its own thread: the first gesture
            // must find the navigator (at most 5 s, in steps of 10 ms).
            for _ in 0..<500 where !serverThread.sync({ $0.host.engine.navigation.navigators["demo"] != nil }) {
                usleep(10_000)
            }
            try playScenes(into: serverThread)
        } else {
            print("A touchscreen is present: swipe right on it. Ctrl-C stops.")
            while true { pause() }
        }
        client.stop()
        mainLoop?.stop()
        serverThread?.stop()
    }

    private func playScenes(into engine: ServerThread) throws {
        let key = -1  // udev's devices count up from 0
        _ = try engine.sync { side in
            Result { () throws(InputError) in
                try side.deviceAdded(
                    key: key, path: "(virtual)", name: Self.virtualTouchscreen.name,
                    description: Self.virtualTouchscreen)
            }
        }.get()
        var round = 0
        while rounds == 0 || round < rounds {
            round += 1
            for scene in Self.scenes {
                print("# \(scene.title)")
                var script = TouchScript(device: Self.virtualTouchscreen)
                scene.gesture(&script)
                Self.play(script.events, into: engine, key: key)
                usleep(700_000)
                print()
            }
        }
    }

    /// Plays frames in real time, restamped on the monotonic clock the server uses for requests.
    private static func play(_ events: [InputEvent], into engine: ServerThread, key: Int) {
        guard let first = events.first?.time else { return }
        let start = MonotonicClock.now()
        var frame: [InputEvent] = []
        for var event in events {
            event.time = Timestamp(microseconds: start.microseconds + event.time.microseconds - first.microseconds)
            frame.append(event)
            guard event.type == EV.syn, event.code == SYN.report else { continue }
            let wait = event.time.microseconds - MonotonicClock.now().microseconds
            if wait > 0 { usleep(useconds_t(wait)) }
            engine.sync { [frame] side in side.received(frame, fromDevice: key) }
            frame.removeAll(keepingCapacity: true)
        }
    }

    static func defaultSocketPath() -> String {
        let folder = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? "/tmp"
        return "\(folder)/popgestured-demo.sock"
    }
}

/// The demo's application: owns `demo`, prints each line it gets, and pushes a page
/// back after each back so there is always something to go back from.
final class DemoClient: @unchecked Sendable {
    private let socket: FileDescriptor
    /// pop-progress lines since the last other line; touched only by the reading thread.
    private var progressLines = 0

    init(socketPath: String) throws {
        do {
            socket = try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(path: socketPath))
        } catch {
            throw ValidationError("cannot connect to \(socketPath): \(error)")
        }
        send(.hello(versions: ProtocolVersion.supported, name: "popgestured-demo"))
        send(.create(
            navigator: "demo", pages: ["home", "list", "detail"].map { ClientRequest.Page(id: $0) }, layout: nil,
            barFollowsTopPage: true))
        send(.subscribe)  // also see why a pan was rejected
    }

    func start() {
        PosixThread.detach(name: "demo client") { [self] in readLines() }
    }

    func stop() {
        shutdown(socket.rawValue, Int32(SHUT_RDWR))
    }

    private func send(_ request: ClientRequest) {
        _ = try? socket.writeAll((RequestCodec.encode(IdentifiedRequest(request)) + "\n").utf8)
    }

    private func readLines() {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            guard let count = try? chunk.withUnsafeMutableBytes({ try socket.read(into: $0) }), count > 0 else { break }
            pending.append(contentsOf: chunk[..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                handle(line)
            }
        }
        try? socket.close()
    }

    private func handle(_ line: String) {
        let message = try? MessageCodec.decode(line)
        switch message {
        case .reply(.ok, _)?, .reply(.hello, _)?: return
        case .event(.popProgress)?:
            progressLines += 1
            return
        default: break
        }
        if progressLines > 0 {
            print("  app received: (\(progressLines) pop-progress lines)")
            progressLines = 0
        }
        print("  app received: \(line)")
        if case .event(.back(_, "detail", _, _))? = message {
            send(.push(navigator: "demo", page: ClientRequest.Page(id: "detail"), animated: false))
            print("  app pushed detail again")
        }
    }
}
