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
/// events, and on their own to output events (which sway 1.7 refuses), then asked for
/// the tree and the outputs, so that no change falls between the two.
struct SwaySource: FocusSource {
    let path: String
    let descriptor: FileDescriptor
    private var framer = SwayFramer()
    private var tracker = SwayFocusTracker()
    private var outputTracker = SwayOutputTracker()
    /// The subscriptions' answers so far: the first is the focus's, the second the outputs'.
    private var subscriptionReplies = 0

    /// What the outputs need, in the order `SwayOutputTracker` reads the replies: the
    /// mapping (config and inputs) before the outputs.
    static let outputRequests = SwayIPC.encode(.getConfig) + SwayIPC.encode(.getInputs) + SwayIPC.encode(.getOutputs)

    /// Connects and sends both requests. Throws `CtlFailure` (exit 2) when sway is not there.
    init(path: String) throws {
        self.path = path
        do {
            descriptor = try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(path: path))
        } catch {
            throw CtlFailure("cannot connect to sway at \(path): \(error)", exitCode: .cannotConnect)
        }
        do {
            try descriptor.sendAll(
                SwayIPC.encode(.subscribe, payload: #"["window","workspace","shutdown"]"#)
                    + SwayIPC.encode(.subscribe, payload: #"["output"]"#) + SwayIPC.encode(.getTree) + Self.outputRequests)
        } catch {
            try? descriptor.close()
            throw CtlFailure("writing to sway at \(path) failed: \(error)", exitCode: .cannotConnect)
        }
    }

    /// The socket stays open for the life of the process: the bridge ends with sway.
    mutating func readAvailable() throws -> [FocusSourceEvent] {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count: Int
        do {
            count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
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
                if [.getOutputs, .getConfig, .getInputs, .outputEvent].contains(type)
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

    /// What an outputs message means; an output event asks for the outputs again.
    private mutating func outputs(_ type: SwayIPC.MessageType?, _ message: SwayMessage) throws -> [FocusSourceEvent] {
        let payload: JSONValue
        do {
            payload = try JSONParser.parse(message.payload, maximumDepth: SwayIPC.maximumNestingDepth)
        } catch {
            throw SwayIPCError(.badJSON, "sway sent a message that is not JSON: \(error)")
        }
        return try outputs(type, payload: payload)
    }

    private mutating func outputs(_ type: SwayIPC.MessageType?, payload: JSONValue) throws -> [FocusSourceEvent] {
        var events: [FocusSourceEvent] = []
        for outcome in outputTracker.handle(type, payload) {
            switch outcome {
            case .outputs(let list): events.append(.outputs(list))
            case .log(let line): events.append(.log(line))
            case .askAgain: try descriptor.sendAll(Self.outputRequests)
            case .askOutputs: try descriptor.sendAll(SwayIPC.encode(.getOutputs))
            }
        }
        return events
    }
}
