/// The daemon's answer to one request (docs/PROTOCOL.md, "Replies"). The id it echoes
/// travels beside it, in `ServerMessage.reply`.
public enum ServerReply: Sendable, Hashable {
    /// `hello` accepted: the version agreed, the daemon's name, this connection's number.
    case hello(version: Int64, server: String, client: Int64)
    /// The request (named by its type) was carried out.
    case ok(request: String)
    /// The request was refused; it changed nothing. The error's own `id` is not written:
    /// the echoed id travels in `ServerMessage.reply` (`ServerMessage.error(_:)` moves it there).
    case error(ProtocolError)
    case stack(Stack)
    case status(Status)

    /// The reply types, as `"type"` names them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case hello, ok, error, stack, status
    }

    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .ok: .ok
        case .error: .error
        case .stack: .stack
        case .status: .status
        }
    }

    /// One navigator's pages, bottom (root) first.
    public struct Stack: Sendable, Hashable {
        public var navigator: String
        public var owner: Int64
        public var pages: [String]
        public var front: Bool
        /// An animated change waits for `settle` (or the timeout).
        public var transitioning: Bool

        public init(navigator: String, owner: Int64, pages: [String], front: Bool, transitioning: Bool) {
            self.navigator = navigator
            self.owner = owner
            self.pages = pages
            self.front = front
            self.transitioning = transitioning
        }
    }

    /// Devices, navigators and clients. Each list may show fewer entries than its count
    /// says there are (the daemon caps the reply's size); `truncated` says so.
    public struct Status: Sendable, Hashable {
        public var version: Int64
        public var devices: [Device]
        public var deviceCount: Int64
        public var navigators: [Navigator]
        public var navigatorCount: Int64
        public var clients: [Client]
        public var clientCount: Int64
        /// Who has focus, as far as the daemon knows; nil from a daemon that does not say.
        public var focus: Focus?
        /// Where the last committed back went; nil before the first.
        public var lastBack: LastBack?

        public init(
            version: Int64, devices: [Device], deviceCount: Int64? = nil, navigators: [Navigator],
            navigatorCount: Int64? = nil, clients: [Client], clientCount: Int64? = nil, focus: Focus? = nil,
            lastBack: LastBack? = nil
        ) {
            self.focus = focus
            self.lastBack = lastBack
            self.version = version
            self.devices = devices
            self.deviceCount = deviceCount ?? Int64(devices.count)
            self.navigators = navigators
            self.navigatorCount = navigatorCount ?? Int64(navigators.count)
            self.clients = clients
            self.clientCount = clientCount ?? Int64(clients.count)
        }

        /// Some list leaves entries out; written as `"truncated":true`, and only then.
        public var truncated: Bool {
            devices.count < deviceCount || navigators.count < navigatorCount || clients.count < clientCount
        }

        /// `{"source":"shell","app":"org.gnome.Nautilus","pid":1234}`: whose word decides
        /// (`shell` or `clients`) and, from a shell, the focused window's app and pid.
        public struct Focus: Sendable, Hashable {
            public var source: String
            public var app: String?
            public var pid: Int64?

            public init(source: String, app: String?, pid: Int64?) {
                self.source = source
                self.app = app
                self.pid = pid
            }
        }

        /// `{"target":"navigator","navigator":…,"owner":3}` or
        /// `{"target":"input","app":…,"input":"alt+left"}`.
        public enum LastBack: Sendable, Hashable, CustomStringConvertible {
            case navigator(navigator: String, owner: Int64)
            case input(app: String?, input: String)

            /// `navigator main of client 3`, or `back input alt+left for firefox`: for
            /// the daemon's log and `popgesturectl status`.
            public var description: String {
                switch self {
                case .navigator(let navigator, let owner): "navigator \(navigator) of client \(owner)"
                case .input(let app, let input): "back input \(input) for \(app ?? "the focused app")"
                }
            }
        }

        public struct Device: Sendable, Hashable {
            /// The number `rejected` events carry.
            public var device: Int64
            public var name: String
            public var path: String
            /// `touchscreen` or `touchpad`.
            public var kind: String

            public init(device: Int64, name: String, path: String, kind: String) {
                self.device = device
                self.name = name
                self.path = path
                self.kind = kind
            }
        }

        public struct Navigator: Sendable, Hashable {
            public var navigator: String
            public var owner: Int64
            /// How many pages its stack holds.
            public var pages: Int64
            public var front: Bool

            public init(navigator: String, owner: Int64, pages: Int64, front: Bool) {
                self.navigator = navigator
                self.owner = owner
                self.pages = pages
                self.front = front
            }
        }

        public struct Client: Sendable, Hashable {
            public var client: Int64
            /// From `hello`, when it gave one.
            public var name: String?
            /// The peer's credentials; nil when the transport has none.
            public var credentials: Credentials?
            public var observer: Bool

            public init(client: Int64, name: String?, credentials: Credentials?, observer: Bool) {
                self.client = client
                self.name = name
                self.credentials = credentials
                self.observer = observer
            }
        }

        public struct Credentials: Sendable, Hashable {
            public var pid: Int64
            public var uid: Int64
            public var gid: Int64

            public init(pid: Int64, uid: Int64, gid: Int64) {
                self.pid = pid
                self.uid = uid
                self.gid = gid
            }
        }
    }
}

/// Any line the daemon sends: a reply, with the id it echoes, or an event.
public enum ServerMessage: Sendable, Hashable {
    case reply(ServerReply, id: RequestID?)
    case event(ServerEvent)
}
