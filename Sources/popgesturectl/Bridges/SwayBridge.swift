import ArgumentParser
import Glibc
import PopGestureClient
import PopGestureProtocol
import PopGestureSystem
import SystemPackage

/// `popgesturectl bridge sway`: sway's focus, from its IPC socket, to popgestured.
struct SwayBridge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sway",
        abstract: "Tell popgestured which window has focus in sway.",
        discussion: """
            Reads sway's IPC socket (--sway-socket, else $SWAYSOCK, which sway sets in \
            its session): the tree once for the window focused now, then window and \
            workspace events. A window's app id is its Wayland app_id, or for an \
            Xwayland window its WM_CLASS class. It also sends every active output's name \
            and rotation (its transform), with the inputs the config maps to it \
            (map_to_output), again at each output event. Ends with 0 when sway exits.

            Start it from the sway config, or as the user unit \
            popgesturectl-sway-bridge.service:
                exec popgesturectl bridge sway
                exec systemctl --user start popgesturectl-sway-bridge.service
            """)

    @Option(name: .customLong("sway-socket"), help: ArgumentHelp(
        "sway's IPC socket.", discussion: "Default: $SWAYSOCK.", valueName: "path"))
    var swaySocket: String?

    @OptionGroup var options: BridgeOptions

    static let name = "popgesturectl bridge sway"

    func run() throws {
        let environment = getenv("SWAYSOCK").map { String(cString: $0) }
        guard let path = swaySocket ?? environment.flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw CtlFailure("\(Self.name): $SWAYSOCK is not set and --sway-socket is not given: is this sway's session?",
                             exitCode: .usage)
        }
        try Self.run(swaySocket: path, options: options)
    }

    /// Runs the bridge on sway's socket at `path`: for `bridge sway` and `bridge auto`.
    static func run(swaySocket path: String, options: BridgeOptions) throws {
        try Bridge.run(try SwaySource(path: path), name: Self.name, options: options)
    }
}

/// sway's IPC socket as a `FocusSource`: subscribed to window, workspace and shutdown
/// events, and on their own to output events (which sway 1.7 refuses) and to input
/// events (for the virtual touchpad's scrolling), then asked for the tree, the outputs
/// and the inputs, so that no change falls between the two. With
/// `$WAYLAND_DISPLAY`, also sway's wlr-output-management, for the outputs' physical
/// sizes, which sway's IPC does not give: its connection is `otherDescriptor`.
struct SwaySource: FocusSource {
    let path: String
    /// sway's IPC socket.
    let socket: FileDescriptor
    var descriptor: FileDescriptor { socket }
    var otherDescriptor: FileDescriptor? { wayland?.descriptor }
    /// sway's Wayland display, bound to the outputs only; nil without it.
    private var wayland: WaylandDisplay?
    /// What the heads say; only their sizes (and that they changed) are used.
    private var heads = WlrootsTracker()
    private var waylandStarted = false
    /// Why there are no sizes, to say once at the first read; nil when there is nothing to say.
    private var waylandProblem: String?
    private var framer = SwayFramer()
    private var tracker = SwayFocusTracker()
    private var outputTracker = SwayOutputTracker()
    private var touchpad = SwayTouchpadScrolling()
    /// The subscriptions' answers so far: the first is the focus's, the second the
    /// outputs', the third the inputs'.
    private var subscriptionReplies = 0

    /// What the outputs need, in the order `SwayOutputTracker` reads the replies: the
    /// mapping (config and inputs) before the outputs.
    static let outputRequests = SwayIPC.encode(.getConfig) + SwayIPC.encode(.getInputs) + SwayIPC.encode(.getOutputs)

    /// Connects and sends both requests; with `waylandDisplay` (default: `$WAYLAND_DISPLAY`
    /// when set) also connects there for the sizes. Throws `CtlFailure` (exit 2) when sway
    /// is not there.
    init(path: String, waylandDisplay: String? = nil) throws {
        self.path = path
        let socket: FileDescriptor
        do {
            socket = try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(path: path))
        } catch {
            throw CtlFailure("cannot connect to sway at \(path): \(error)", exitCode: .cannotConnect)
        }
        self.socket = socket
        // Only a display named: libwayland's default, wayland-0, may be another compositor.
        let name = waylandDisplay ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) }
        if let name, !name.isEmpty {
            do {
                wayland = try WaylandDisplay(name: name, outputsOnly: true)
            } catch {
                waylandProblem = "\(error): outputs are sent without their physical sizes"
            }
        }
        do {
            try socket.sendAll(
                SwayIPC.encode(.subscribe, payload: #"["window","workspace","shutdown"]"#)
                    + SwayIPC.encode(.subscribe, payload: #"["output"]"#) + SwayIPC.encode(.subscribe, payload: #"["input"]"#)
                    + SwayIPC.encode(.getTree) + Self.outputRequests)
        } catch {
            try? socket.close()
            throw CtlFailure("writing to sway at \(path) failed: \(error)", exitCode: .cannotConnect)
        }
    }

    /// Before the first read the heads' first lists wait in libwayland's queue.
    var hasBufferedEvents: Bool { wayland.map { !waylandStarted || $0.hasQueuedEvents } ?? false }

    /// Reads what is there: sway's IPC when its socket is readable, the heads when the
    /// Wayland display is (or holds queued events).
    mutating func readAvailable() throws -> [FocusSourceEvent] {
        var events: [FocusSourceEvent] = []
        if let problem = waylandProblem {
            waylandProblem = nil
            events.append(.log(problem))
        }
        guard let wayland else { return events + (try readIPC()) }
        var ready = [
            pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wayland.descriptor.rawValue, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&ready, 2, 0)
        if ready[1].revents != 0 || hasBufferedEvents {
            waylandStarted = true
            events += try readHeads(wayland)
        }
        if ready[0].revents != 0 {
            events += try readIPC()
        }
        return events
    }

    /// The heads' sizes, by name, into the output tracker; a broken Wayland connection
    /// costs the sizes only, said once.
    private mutating func readHeads(_ display: WaylandDisplay) throws -> [FocusSourceEvent] {
        let changes: [WlrootsEvent]
        do {
            changes = try display.dispatch()
        } catch {
            wayland = nil  // the loop polls it no more
            return [.log("\(error): outputs are sent without their physical sizes from now on")]
        }
        // Whatever the heads said (a turn may come as the manager's `done` alone, the head's
        // own events left out when sway reads its configuration before the commit): sway's
        // IPC is the word on transforms, so ask it again; its answer is sent only if new.
        var events: [FocusSourceEvent] = changes.isEmpty ? [] : try perform([.askOutputs])
        for change in changes {
            for event in heads.handle(change) {
                switch event {
                case .outputs(let list):
                    var sizes: [String: (width: Double, height: Double)] = [:]
                    for output in list.outputs {
                        guard let width = output.widthMillimetres, let height = output.heightMillimetres else { continue }
                        sizes[output.name] = (width, height)
                    }
                    events += try perform(outputTracker.sizesChanged(sizes))
                case .log(let line):
                    events.append(.log(line))
                case .focused, .rotated, .textDirection, .touchpadScrolling, .ended:
                    break  // none come from the heads
                }
            }
        }
        return events
    }

    /// The socket stays open for the life of the process: the bridge ends with sway.
    private mutating func readIPC() throws -> [FocusSourceEvent] {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count: Int
        do {
            count = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
        } catch let error as Errno where error == .connectionReset {
            count = 0
        } catch {
            throw CtlFailure("reading from sway at \(path) failed: \(error)", exitCode: .cannotConnect)
        }
        guard count > 0 else { return [.ended("sway closed its IPC socket; done")] }
        framer.append(chunk[..<count])
        var events: [FocusSourceEvent] = []
        do {
            while let message = try framer.next() {
                let type = SwayIPC.MessageType(rawValue: message.type)
                if type == .subscribe { subscriptionReplies += 1 }
                if type == .inputEvent || type == .getInputs || (type == .subscribe && subscriptionReplies == 3) {
                    // GET_INPUTS is read once, for the touchpad's scrolling and the outputs' mapping.
                    let payload = try Self.parse(message)
                    events += inputs(type, payload)
                    if type == .getInputs { events += try outputs(type, payload: payload) }
                    continue
                }
                if [.getOutputs, .getConfig, .outputEvent].contains(type)
                    || (type == .subscribe && subscriptionReplies == 2)
                {
                    events += try outputs(type, message)
                    continue
                }
                // The output tracker reads nothing of these: it only learns that they came.
                if type == .windowEvent || type == .workspaceEvent { events += try outputs(type, payload: .null) }
                switch try tracker.handle(message) {
                case .focused(let window): events.append(.focused(window))
                case .nothing: break
                case .shutdown: return events + [.ended("sway is exiting; done")]
                }
            }
        } catch {
            throw CtlFailure("sway at \(path): \(error)", exitCode: .cannotConnect)
        }
        return events
    }

    /// What an inputs message means for the virtual touchpad's scrolling. A sway that
    /// refuses input events is told once: the setting is then read again with the
    /// outputs only.
    private mutating func inputs(_ type: SwayIPC.MessageType?, _ payload: JSONValue) -> [FocusSourceEvent] {
        switch type {
        case .getInputs: return touchpad.inputs(payload)
        case .inputEvent: return touchpad.inputEvent(payload)
        default:
            return payload["success"]?.bool == true ? [] : [.log(
                "this sway sends no input events: a change of natural scrolling reaches popgestured at the next output change")]
        }
    }

    private static func parse(_ message: SwayMessage) throws(SwayIPCError) -> JSONValue {
        do {
            return try JSONParser.parse(message.payload, maximumDepth: SwayIPC.maximumNestingDepth)
        } catch {
            throw SwayIPCError(.badJSON, "sway sent a message that is not JSON: \(error)")
        }
    }

    /// What an outputs message means; an output event asks for the outputs again.
    private mutating func outputs(_ type: SwayIPC.MessageType?, _ message: SwayMessage) throws -> [FocusSourceEvent] {
        try outputs(type, payload: try Self.parse(message))
    }

    private mutating func outputs(_ type: SwayIPC.MessageType?, payload: JSONValue) throws -> [FocusSourceEvent] {
        try perform(outputTracker.handle(type, payload))
    }

    /// The output tracker's outcomes: lines for the link, requests to sway.
    private func perform(_ outcomes: [SwayOutputTracker.Outcome]) throws -> [FocusSourceEvent] {
        var events: [FocusSourceEvent] = []
        for outcome in outcomes {
            switch outcome {
            case .outputs(let list): events.append(.outputs(list))
            case .log(let line): events.append(.log(line))
            case .askAgain: try socket.sendAll(Self.outputRequests)
            case .askOutputs: try socket.sendAll(SwayIPC.encode(.getOutputs))
            }
        }
        return events
    }
}
