/// Which app the user is looking at, as far as the daemon has been told.
///
/// Two sources, and one decides at a time:
/// Each seat has its own: a client's navigators follow its session's seat's focus.
///
/// - **A shell** (one privileged client per seat, e.g. `popgesturectl bridge sway`) reports the
///   focused window: its app id and pid. While a shell is connected, its word decides:
///   a client is focused when the window's pid is the client's peer pid. When no
///   client has that pid (the window's process is not the one that connected, or the
///   shell knows no pid), a client whose `hello` gave the window's app id is focused,
///   if it runs as the shell's user: another user cannot claim an app's backs by
///   naming it.
/// - **The clients' own reports** decide otherwise: a client is focused unless its
///   last `focus` report said it lost focus. A client that never reports counts as
///   focused, so an app that only creates navigators works alone as it always did.
///
/// Pure state: the server checks who may be a shell, and the engine asks it which
/// navigator gets a back (``NavigationState/front``).
public struct FocusState: Sendable, Hashable {
    /// What a client said of itself.
    public struct Client: Sendable, Hashable {
        /// The app id from `hello` (Wayland's `app_id`, X11's `WM_CLASS`); nil when it gave none.
        public var app: String?
        /// The peer's pid and uid from `SO_PEERCRED`; nil when the transport has none (tests).
        public var pid: Int32?
        public var uid: UInt32?
        /// The seat of the client's session: its navigators get that seat's swipes only.
        public var seat: Seat = .seat0
        /// Its last `focus` report; nil when it never sent one.
        public var reportedFocus: Bool?
    }

    /// The window a shell says has focus. Both nil: it knows of none (a bare desktop).
    public struct Window: Sendable, Hashable {
        public var app: String?
        public var pid: Int32?

        public init(app: String?, pid: Int32?) {
            self.app = app
            self.pid = pid
        }
    }

    /// Whose word decides, as `status` names it.
    public enum Source: String, Sendable, Hashable {
        case shell
        case clients
    }

    public private(set) var clients: [ClientID: Client] = [:]
    /// Clients whose user is not a seat's active user now (a user switch): never
    /// focused, never a shell, until resumed.
    public private(set) var paused: Set<ClientID> = []
    /// The shell client of each seat that has one: one per seat.
    public private(set) var shells: [Seat: ClientID] = [:]
    /// Each shell's last report; none until it sends one, and none once it is gone.
    private var windows: [Seat: Window] = [:]
    /// Whether each seat's session scrolls touchpads naturally, as its shell last said
    /// (`touchpad-scrolling`); none until it says, and none once it is gone: the next
    /// user's desktop may scroll the other way.
    private var naturalScrolling: [Seat: Bool] = [:]
    /// The seats whose shell said their session takes no touchpad bridge.
    private var bridgeDeclined: Set<Seat> = []
    /// The seats on which some client is the focused window's process. Kept up to date
    /// by every change, so that ``isFocused(_:)`` looks nothing up per navigator.
    private var seatsWithWindowProcess: Set<Seat> = []

    public init() {}

    /// The seat's shell, when one is connected.
    public func shell(on seat: Seat) -> ClientID? { shells[seat] }

    /// The seat's shell's last report.
    public func window(on seat: Seat) -> Window? { windows[seat] }

    public func source(on seat: Seat) -> Source { shells[seat] == nil ? .clients : .shell }

    /// The seat's focused app id, for the per-app back input: its shell's window's, or,
    /// without a shell, unknown (nil): a client that reports focus has a navigator.
    public func focusedApp(on seat: Seat) -> String? { shells[seat] == nil ? nil : windows[seat]?.app }

    /// The seats with a client or a shell, seat0 always.
    public var seats: Set<Seat> { Set(clients.values.map(\.seat)).union([.seat0]) }

    /// Whether the client's navigators may get its seat's back gesture now.
    public func isFocused(_ id: ClientID) -> Bool {
        // Another user is at the screen.
        if paused.contains(id) { return false }
        let client = clients[id]
        let seat = client?.seat ?? .seat0
        guard let shell = shells[seat] else { return client?.reportedFocus ?? true }
        guard let window = windows[seat], let client else { return false }
        if let pid = window.pid {
            if pid == client.pid { return true }
            // The window's own process is a client: it alone has the focus.
            if seatsWithWindowProcess.contains(seat) { return false }
        }
        guard let app = window.app, app == client.app else { return false }
        return client.uid == clients[shell]?.uid
    }

    private mutating func updateWindowProcess(on seat: Seat) {
        if let pid = windows[seat]?.pid,
           clients.contains(where: { $0.value.seat == seat && $0.value.pid == pid && !paused.contains($0.key) }) {
            seatsWithWindowProcess.insert(seat)
        } else {
            seatsWithWindowProcess.remove(seat)
        }
    }

    /// Whether the seat's session scrolls touchpads naturally, as its shell said; nil
    /// when it has not said, or the seat has no shell.
    /// A seat whose session takes no touchpad bridge has none either.
    public func touchpadScrolling(on seat: Seat) -> Bool? {
        bridgeDeclined.contains(seat) ? nil : naturalScrolling[seat]
    }

    /// Whether the client's user is not its seat's active user now (``pause(_:)``).
    public func isPaused(_ id: ClientID) -> Bool { paused.contains(id) }

    /// Whether the seat's shell said its session takes no touchpad bridge.
    public func touchpadBridgeDeclined(on seat: Seat) -> Bool { bridgeDeclined.contains(seat) }

    /// Whether the seat's shell says no window has focus (a bare desktop), or has said nothing yet.
    public func noWindowFocused(on seat: Seat) -> Bool {
        guard shells[seat] != nil else { return false }
        guard let window = windows[seat] else { return true }
        return window.app == nil && window.pid == nil
    }

    // MARK: - Changes

    /// A client said who it is (`hello`). A shell replaces any shell of its seat before
    /// it: the server lets only one per seat connect at a time.
    public mutating func identify(
        _ id: ClientID, app: String?, pid: Int32?, uid: UInt32?, seat: Seat = .seat0, isShell: Bool
    ) {
        clients[id] = Client(app: app, pid: pid, uid: uid, seat: seat, reportedFocus: clients[id]?.reportedFocus)
        if isShell {
            shells[seat] = id
            forgetReports(on: seat)
        }
        updateWindowProcess(on: seat)
    }

    /// A client says its window gained or lost focus. Returns whether it gained it.
    @discardableResult
    public mutating func report(_ id: ClientID, focused: Bool) -> Bool {
        let before = clients[id]?.reportedFocus
        clients[id, default: Client()].reportedFocus = focused
        return focused && before != true
    }

    /// A shell says which window has focus on its seat. False when `id` is no seat's shell.
    public mutating func shellReports(_ window: Window, from id: ClientID) -> Bool {
        guard let seat = clients[id]?.seat, shells[seat] == id else { return false }
        windows[seat] = window
        updateWindowProcess(on: seat)
        return true
    }

    /// A shell came or went: what the one before said of its seat counts no more.
    private mutating func forgetReports(on seat: Seat) {
        windows[seat] = nil
        naturalScrolling[seat] = nil
        bridgeDeclined.remove(seat)
    }

    /// A shell says whether its seat's session scrolls touchpads naturally, and whether
    /// it takes the touchpad bridge. False when `id` is no seat's shell.
    public mutating func shellReportsTouchpadScrolling(natural: Bool, bridge: Bool = true, from id: ClientID) -> Bool {
        guard let seat = clients[id]?.seat, shells[seat] == id else { return false }
        naturalScrolling[seat] = natural
        if bridge { bridgeDeclined.remove(seat) } else { bridgeDeclined.insert(seat) }
        return true
    }

    /// The client's user lost the seat: it is focused nowhere, and a shell is its seat's
    /// shell no more (the clients' own reports, or the next user's shell, decide there).
    public mutating func pause(_ id: ClientID) {
        guard let seat = clients[id]?.seat, paused.insert(id).inserted else { return }
        if shells[seat] == id {
            shells[seat] = nil
            forgetReports(on: seat)
        }
        updateWindowProcess(on: seat)
    }

    /// The client's user is active again; `asShell`: it takes its seat's shell back, with
    /// no window until it reports one (the server checked the seat has no other).
    public mutating func resume(_ id: ClientID, asShell: Bool) {
        guard let seat = clients[id]?.seat, paused.remove(id) != nil else { return }
        if asShell {
            shells[seat] = id
            forgetReports(on: seat)
        }
        updateWindowProcess(on: seat)
    }

    /// The client is gone; with its seat's shell gone, the clients' own reports decide
    /// again there.
    public mutating func remove(_ id: ClientID) {
        paused.remove(id)
        guard let seat = clients.removeValue(forKey: id)?.seat else { return }
        if shells[seat] == id {
            shells[seat] = nil
            forgetReports(on: seat)
        }
        updateWindowProcess(on: seat)
    }
}

/// What observers are told when focus changes: whose word decides, the focused window
/// (from a shell), and the navigator a back would reach now.
public struct FocusSummary: Sendable, Hashable {
    /// The seat this is about; the server tells only that seat's people.
    public var seat: Seat
    public var source: FocusState.Source
    public var app: String?
    public var pid: Int32?
    /// The navigator in front of a focused client; nil when a back would go to the back input or nowhere.
    public var navigator: String?
    /// False when the seat's shell said its session takes no touchpad bridge: the daemon
    /// removes that seat's virtual touchpad. Not on the wire.
    public var touchpadBridge: Bool

    public init(
        seat: Seat = .seat0, source: FocusState.Source, app: String?, pid: Int32?, navigator: String?,
        touchpadBridge: Bool = true
    ) {
        self.seat = seat
        self.source = source
        self.app = app
        self.pid = pid
        self.navigator = navigator
        self.touchpadBridge = touchpadBridge
    }
}
