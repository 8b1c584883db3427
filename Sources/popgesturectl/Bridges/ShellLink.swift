import PopGestureProtocol

/// A bridge's side of its connection to popgestured, as a state machine without I/O
/// or clock (`BridgeLoop` does both): say hello as the shell, then send the focused
/// window, the screen's rotation, the outputs, the session's text direction and how it
/// scrolls the daemon's virtual touchpad whenever they change; when the daemon goes away, connect again after a backoff and send them
/// all, as far as the source has said them, right after the new hello. The daemon answers
/// each request at once; an error reply (to a `focused-window` or anything else) is
/// logged, and nothing is sent again for it.
///
///     disconnected ──connected──▶ greeting ──hello reply──▶ ready ◀──resumed── paused
///          ▲                          │                       │ ──paused──────▶  │
///          └──── retry(after:) ◀──────┴── closed, shell-taken ┴──────────────────┘
///
/// A user switch pauses the bridge, never ends it: while another user is at the seat
/// the daemon sends `paused`, and the bridge sends nothing; at `resumed` it is the shell
/// again and sends everything the source has said, as after a hello.
struct ShellLink {
    enum State: Equatable {
        /// No connection; the driver connects when the last `.retry` delay is over.
        case disconnected
        /// Hello sent as the shell; its reply is awaited before any window or rotation is sent.
        case greeting
        /// The shell. `sent`: the window last sent on this connection; `sentRotation`:
        /// the rotation last sent on it.
        case ready(sent: FocusedWindow?, sentRotation: OutputRotation? = nil)
        /// Connected, but its user is not at the seat (`paused`): nothing is sent until `resumed`.
        case paused
    }

    /// What the driver does, in order.
    enum Action: Equatable {
        /// Write this line to the daemon.
        case send(String)
        /// Close the connection, if any, and connect again after this long.
        case retry(after: Duration)
        /// A line for stderr, always: a problem, or the end of one.
        case log(String)
        /// A line for stderr with --verbose only.
        case verbose(String)
        /// The daemon refused the bridge for good: stop with exit 1 and this message.
        case fail(String)
    }

    /// The first wait after a lost connection or a failed connect; it doubles at each
    /// failure up to `maximumRetryDelay`, and a hello answered resets it. Default 0.5 s.
    static let initialRetryDelay: Duration = .milliseconds(500)
    /// The longest wait between two tries. Default 5 s: a daemon that comes back is
    /// told the focused window within 5 s.
    static let maximumRetryDelay: Duration = .seconds(5)

    /// Hello's `name`.
    let name: String
    private(set) var state = State.disconnected
    /// The window with focus, once the source has said; nil before.
    private(set) var window: FocusedWindow?
    /// The screen's rotation, once the source has said; nil before (and from a source
    /// that never says: the daemon then keeps its own).
    private(set) var rotation: OutputRotation?
    /// The enabled outputs, once the source has said; nil before (and from a source that
    /// cannot list them: it says the rotation instead).
    private(set) var outputs: OutputList?
    /// The outputs sent on this connection; nil: none yet.
    private var sentOutputs: OutputList?
    /// The session's text direction, once the source has said; nil before.
    private(set) var textDirection: ClientRequest.Layout?
    /// The text direction sent on this connection; nil: nothing yet.
    private var sentTextDirection: ClientRequest.Layout?
    /// Whether the session scrolls the daemon's virtual touchpad naturally, once the
    /// source has said; nil before (and from a source that cannot tell).
    private(set) var naturalScrolling: Bool?
    /// What was sent of it on this connection; nil: nothing yet.
    private var sentNaturalScrolling: Bool?
    /// The user's settings for the seat (`~/.config/popgestured/popgestured.conf`), once
    /// read; "" when there is no such file (the system's then). Nil: not read yet.
    private(set) var userSettings: String?
    /// What was sent of them on this connection; nil: nothing yet.
    private var sentUserSettings: String?
    /// How long the next `.retry` waits.
    private(set) var retryDelay = initialRetryDelay
    private var nextID: Int64 = 1
    private var helloID: Int64?
    /// A problem reported on stderr and not yet over: its repeats are not logged again.
    private var outage: String?

    /// Whether the session takes the touchpad bridge (``FocusSource/takesTouchpadBridge``).
    let touchpadBridge: Bool

    init(name: String, touchpadBridge: Bool = true) {
        self.name = name
        self.touchpadBridge = touchpadBridge
    }

    /// The connection is made: say hello as the shell.
    mutating func connected() -> [Action] {
        state = .greeting
        sentTextDirection = nil
        sentNaturalScrolling = nil
        sentUserSettings = nil
        sentOutputs = nil
        let id = takeID()
        helloID = id
        return [.send(encode(.hello(versions: ProtocolVersion.supported, name: name, role: .shell), id: id))]
    }

    /// A connect failed (`reason`: the message, e.g. "cannot connect to …: No such file").
    mutating func connectFailed(_ reason: String) -> [Action] {
        state = .disconnected
        return report("\(reason); trying again until it answers") + [retry()]
    }

    /// The daemon closed the connection, or reading or writing it failed.
    mutating func closed(_ reason: String = "popgestured closed the connection") -> [Action] {
        state = .disconnected
        return report("\(reason); connecting again") + [retry()]
    }

    /// A line from the daemon, without its newline.
    mutating func received(_ line: String) -> [Action] {
        let message = try? MessageCodec.decode(line)
        if case .event(let event)? = message { return received(event) }
        guard case .reply(let reply, let id)? = message else {
            return []  // a line this version cannot read: nothing a bridge needs
        }
        // A reply without an id answers a line the daemon could not read: while greeting, the hello.
        let answersHello = id == helloID.map(RequestID.integer) || (id == nil && state == .greeting)
        switch reply {
        case .hello where answersHello && state == .greeting:
            state = .ready(sent: nil, sentRotation: nil)
            retryDelay = Self.initialRetryDelay
            // After a logged problem, the journal says that it is over.
            let note = "connected to popgestured as the shell"
            defer { outage = nil }
            return [outage != nil ? .log(note) : .verbose(note)] + sendAll()
        case .error(let error) where answersHello && state == .greeting:
            if error.code == .shellTaken {
                state = .disconnected
                return report("popgestured has another shell (\(error.summary)); trying again until it leaves") + [retry()]
            }
            return [.fail("popgestured refused the shell's hello: \(error.summary)")]
        case .error(let error) where error.code == .seatInactive:
            return [.verbose("popgestured: \(error.summary)")]  // sent before the pause was read
        case .error(let error):
            return [.log("popgestured refused a request: \(error.summary)")]
        default:
            return []
        }
    }

    /// The daemon's events a bridge acts on: `paused` and `resumed`.
    private mutating func received(_ event: ServerEvent) -> [Action] {
        switch event {
        case .paused(let reason) where isReady:
            state = .paused
            return [.log("paused: \(reason); the bridge waits for its user to be back at the seat")]
        case .resumed where state == .paused:
            state = .ready(sent: nil, sentRotation: nil)
            sentOutputs = nil
            sentTextDirection = nil
            sentNaturalScrolling = nil
            sentUserSettings = nil
            return [.log("resumed: the shell again")] + sendAll()
        default:
            return []
        }
    }

    /// The source says this window has focus now.
    mutating func focused(_ window: FocusedWindow) -> [Action] {
        guard window != self.window else { return [] }
        self.window = window
        return [.verbose("focus: \(window)" + unsentNote)] + sendWindow()
    }

    /// The source says the screen that touch maps to is turned so now.
    mutating func rotated(_ rotation: OutputRotation) -> [Action] {
        guard rotation != self.rotation else { return [] }
        self.rotation = rotation
        return [.verbose("rotation: \(rotation)" + unsentNote)] + sendRotation()
    }

    /// The source says the enabled outputs are these now.
    mutating func outputsChanged(_ outputs: OutputList) -> [Action] {
        guard outputs != self.outputs else { return [] }
        self.outputs = outputs
        return [.verbose("outputs: \(outputs)" + unsentNote)] + sendOutputs()
    }

    /// The source says the session's text direction is this now.
    mutating func textDirectionChanged(_ direction: ClientRequest.Layout) -> [Action] {
        guard direction != textDirection else { return [] }
        textDirection = direction
        return [.verbose("text direction: \(direction.rawValue)" + unsentNote)]
            + sendTextDirection()
    }

    /// The source says how the session scrolls the daemon's virtual touchpad now.
    mutating func touchpadScrollingChanged(natural: Bool) -> [Action] {
        guard natural != naturalScrolling else { return [] }
        naturalScrolling = natural
        return [.verbose("touchpad scrolling: \(natural ? "natural" : "traditional")" + unsentNote)]
            + sendTouchpadScrolling()
    }

    private var isReady: Bool { if case .ready = state { true } else { false } }

    /// Everything the source has said, after a hello or a resume.
    private mutating func sendAll() -> [Action] {
        sendWindow() + sendRotation() + sendOutputs() + sendTextDirection() + sendTouchpadScrolling() + sendUserSettings()
    }

    /// The user's settings file says this now ("" when it is gone).
    mutating func userSettingsChanged(_ text: String) -> [Action] {
        guard text != userSettings else { return [] }
        let first = userSettings == nil
        userSettings = text
        // Nothing to say for a user who never had a file.
        if first && text.isEmpty { return [] }
        return [.verbose("user settings: \(text.utf8.count) bytes" + unsentNote)] + sendUserSettings()
    }

    /// `user-settings`, when ready and not what was sent last.
    private mutating func sendUserSettings() -> [Action] {
        guard isReady, let userSettings, userSettings != sentUserSettings else { return [] }
        // A user with no file, on a fresh connection: the daemon has nothing of theirs.
        if userSettings.isEmpty && sentUserSettings == nil { return [] }
        sentUserSettings = userSettings
        return [.send(encode(.userSettings(text: userSettings), id: takeID()))]
    }

    /// `touchpad-scrolling`, when ready and not what was sent last.
    private mutating func sendTouchpadScrolling() -> [Action] {
        guard isReady, let naturalScrolling, naturalScrolling != sentNaturalScrolling else { return [] }
        sentNaturalScrolling = naturalScrolling
        return [.send(encode(.touchpadScrolling(natural: naturalScrolling, bridge: touchpadBridge), id: takeID()))]
    }

    /// Why a change is not sent now, for the verbose line: nothing when it is.
    private var unsentNote: String {
        switch state {
        case .ready: ""
        case .paused: " (paused: sent when the user is back)"
        case .disconnected, .greeting: " (popgestured not connected)"
        }
    }

    /// `text-direction` with the current direction, when ready and not what was sent last.
    private mutating func sendTextDirection() -> [Action] {
        guard isReady, let textDirection, textDirection != sentTextDirection else { return [] }
        sentTextDirection = textDirection
        return [.send(encode(.textDirection(textDirection), id: takeID()))]
    }

    /// `outputs` with the current list, when ready and not what was sent last.
    private mutating func sendOutputs() -> [Action] {
        guard isReady, let outputs, outputs != sentOutputs else { return [] }
        sentOutputs = outputs
        return [.send(encode(.outputs(outputs.outputs), id: takeID()))]
    }

    /// `focused-window` with the current window, when ready and it is not what was sent last.
    private mutating func sendWindow() -> [Action] {
        guard case .ready(let sent, let sentRotation) = state, let window, window != sent else { return [] }
        state = .ready(sent: window, sentRotation: sentRotation)
        return [.send(encode(.focusedWindow(app: window.app, pid: window.pid), id: takeID()))]
    }

    /// `rotation` with the current rotation, when ready and it is not what was sent last.
    private mutating func sendRotation() -> [Action] {
        guard case .ready(let sent, let sentRotation) = state, let rotation, rotation != sentRotation else { return [] }
        state = .ready(sent: sent, sentRotation: rotation)
        return [.send(encode(.rotation(degrees: rotation.degrees, output: rotation.output), id: takeID()))]
    }

    /// A problem logged the first time it happens in a row, so a long outage is one line.
    private mutating func report(_ problem: String) -> [Action] {
        defer { outage = problem }
        return outage == problem ? [] : [.log(problem)]
    }

    private mutating func retry() -> Action {
        defer { retryDelay = min(retryDelay * 2, Self.maximumRetryDelay) }
        return .retry(after: retryDelay)
    }

    private mutating func takeID() -> Int64 {
        defer { nextID += 1 }
        return nextID
    }

    private func encode(_ request: ClientRequest, id: Int64) -> String {
        RequestCodec.encode(IdentifiedRequest(request, id: .integer(id)))
    }
}
