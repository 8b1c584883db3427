/// Which app the user is looking at, as far as the daemon has been told.
///
/// Two sources, and one decides at a time:
/// - **A shell** (one privileged client, e.g. `popgesturectl bridge sway`) reports the
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
    /// The one shell client, when one is connected.
    public private(set) var shell: ClientID?
    /// The shell's last report; nil until it sends one, or when no shell is connected.
    public private(set) var window: Window?

    public init() {}

    public var source: Source { shell == nil ? .clients : .shell }

    /// The focused app's id, for the per-app back input: the shell's window's, or,
    /// without a shell, unknown (nil): a client that reports focus has a navigator.
    public var focusedApp: String? { shell == nil ? nil : window?.app }

    /// Whether the client's navigators may get the back gesture now.
    public func isFocused(_ id: ClientID) -> Bool {
        let client = clients[id]
        guard let shell else { return client?.reportedFocus ?? true }
        guard let window, let client else { return false }
        if let pid = window.pid {
            if pid == client.pid { return true }
            // The window's own process is a client: it alone has the focus.
            if windowProcessIsClient { return false }
        }
        guard let app = window.app, app == client.app else { return false }
        return client.uid == clients[shell]?.uid
    }

    /// Whether some client is the focused window's process. Kept up to date by every
    /// change, so that ``isFocused(_:)`` looks nothing up per navigator.
    private var windowProcessIsClient = false

    private mutating func updateWindowProcess() {
        guard let pid = window?.pid else {
            windowProcessIsClient = false
            return
        }
        windowProcessIsClient = clients.values.contains { $0.pid == pid }
    }

    /// Whether a shell says no window has focus (a bare desktop), or has said nothing yet.
    public var noWindowFocused: Bool {
        shell != nil && (window == nil || (window?.app == nil && window?.pid == nil))
    }

    // MARK: - Changes

    /// A client said who it is (`hello`). A shell replaces any shell before it: the
    /// server lets only one connect at a time.
    public mutating func identify(_ id: ClientID, app: String?, pid: Int32?, uid: UInt32?, isShell: Bool) {
        clients[id] = Client(app: app, pid: pid, uid: uid, reportedFocus: clients[id]?.reportedFocus)
        if isShell {
            shell = id
            window = nil
        }
        updateWindowProcess()
    }

    /// A client says its window gained or lost focus. Returns whether it gained it.
    @discardableResult
    public mutating func report(_ id: ClientID, focused: Bool) -> Bool {
        let before = clients[id]?.reportedFocus
        clients[id, default: Client()].reportedFocus = focused
        return focused && before != true
    }

    /// The shell says which window has focus. False when `id` is not the shell.
    public mutating func shellReports(_ window: Window, from id: ClientID) -> Bool {
        guard id == shell else { return false }
        self.window = window
        updateWindowProcess()
        return true
    }

    /// The client is gone; with the shell gone, the clients' own reports decide again.
    public mutating func remove(_ id: ClientID) {
        clients[id] = nil
        if shell == id {
            shell = nil
            window = nil
        }
        updateWindowProcess()
    }
}

/// What observers are told when focus changes: whose word decides, the focused window
/// (from a shell), and the navigator a back would reach now.
public struct FocusSummary: Sendable, Hashable {
    public var source: FocusState.Source
    public var app: String?
    public var pid: Int32?
    /// The navigator in front of a focused client; nil when a back would go to the back input or nowhere.
    public var navigator: String?

    public init(source: FocusState.Source, app: String?, pid: Int32?, navigator: String?) {
        self.source = source
        self.app = app
        self.pid = pid
        self.navigator = navigator
    }
}
