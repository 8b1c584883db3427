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
        /// How the daemon was started; nil from a daemon that does not say.
        public var daemon: Daemon?
        /// The daemon's back input device; nil from a daemon that does not say.
        public var backInput: BackInput?
        /// The last rejected pans, oldest first (at most 8); nil from a daemon that does not say.
        public var rejected: [Rejection]?
        /// How many pans were rejected since the daemon started; nil from a daemon that does not say.
        public var rejectedCount: Int64?
        /// The rotation and text direction in force, and where each comes from; nil from a
        /// daemon that does not say.
        public var screen: Screen?
        /// The gesture settings in force on the asker's seat, and whose; nil from a daemon
        /// that does not say.
        public var settings: Settings?

        /// `{"seat":"seat0","mode":"edge","backInputMode":"edge","edgeWidthMm":6,
        /// "commitProgress":0.3,"flingVelocityMmPerS":180,"edgeFlingVelocityMmPerS":60,
        /// "user":["mode","edge-width-mm"],"locked":[]}`: the keys a user may set, as in
        /// force on the asker's seat; `user`: the ones its active user set
        /// (`user-settings`), as the file names them; `locked`: the ones the administrator
        /// locked (`user-locked`).
        public struct Settings: Sendable, Hashable {
            public var seat: String
            public var mode: String
            public var backInputMode: String
            public var edgeWidthMillimetres: Double
            public var commitProgress: Double
            public var flingVelocity: Double
            public var edgeFlingVelocity: Double
            public var user: [String]
            public var locked: [String]

            public init(
                seat: String, mode: String, backInputMode: String, edgeWidthMillimetres: Double, commitProgress: Double,
                flingVelocity: Double, edgeFlingVelocity: Double, user: [String], locked: [String]
            ) {
                self.seat = seat
                self.mode = mode
                self.backInputMode = backInputMode
                self.edgeWidthMillimetres = edgeWidthMillimetres
                self.commitProgress = commitProgress
                self.flingVelocity = flingVelocity
                self.edgeFlingVelocity = edgeFlingVelocity
                self.user = user
                self.locked = locked
            }
        }

        public init(
            version: Int64, devices: [Device], deviceCount: Int64? = nil, navigators: [Navigator],
            navigatorCount: Int64? = nil, clients: [Client], clientCount: Int64? = nil, focus: Focus? = nil,
            lastBack: LastBack? = nil, daemon: Daemon? = nil, backInput: BackInput? = nil,
            rejected: [Rejection]? = nil, rejectedCount: Int64? = nil, screen: Screen? = nil, settings: Settings? = nil
        ) {
            self.screen = screen
            self.settings = settings
            self.focus = focus
            self.lastBack = lastBack
            self.daemon = daemon
            self.backInput = backInput
            self.rejected = rejected
            self.rejectedCount = rejectedCount
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
            /// The seat this is the focus of: the asker's. Nil from a daemon that does not say.
            public var seat: String?
            public var source: String
            public var app: String?
            public var pid: Int64?
            /// The seat's shell's client number while one is connected; nil otherwise, and
            /// from a daemon that does not say.
            public var shell: Int64?
            /// `natural` or `traditional`: how the seat's session scrolls touchpads, as its
            /// shell said (`touchpad-scrolling`); nil while it has not, and from a daemon
            /// that does not say.
            public var touchpadScrolling: String?

            public init(
                seat: String? = nil, source: String, app: String?, pid: Int64?, shell: Int64? = nil,
                touchpadScrolling: String? = nil
            ) {
                self.seat = seat
                self.source = source
                self.app = app
                self.pid = pid
                self.shell = shell
                self.touchpadScrolling = touchpadScrolling
            }
        }

        /// `{"rotation":90,"rotationSource":"shell","output":"DSI-1","sensor":"left-up","direction":"rtl","directionSource":"shell"}`:
        /// how the touchscreens are turned and which way the session writes, and who said so.
        public struct Screen: Sendable, Hashable {
            /// Degrees clockwise, 0, 90, 180 or 270; nil when it comes from the configuration
            /// and no touchscreen is present.
            public var rotation: Int64?
            /// `shell`, `sensor` or `configuration`.
            public var rotationSource: String
            /// The output the shell named with its rotation, while the shell's rotation is in force.
            public var output: String?
            /// What iio-sensor-proxy says: an `AccelerometerOrientation` (`normal`,
            /// `left-up`, `right-up`, `bottom-up`, `undefined`), or why there is none
            /// (`absent`, `no-accelerometer`, `unavailable`); nil when the daemon does not
            /// follow a sensor.
            public var sensor: String?
            /// `ltr` or `rtl`: the layout of navigators that choose none.
            public var direction: String
            /// `shell` or `configuration`.
            public var directionSource: String

            public init(
                rotation: Int64?, rotationSource: String, output: String? = nil, sensor: String? = nil,
                direction: String, directionSource: String
            ) {
                self.rotation = rotation
                self.rotationSource = rotationSource
                self.output = output
                self.sensor = sensor
                self.direction = direction
                self.directionSource = directionSource
            }
        }

        /// `{"pid":812,"startedBy":"systemd","unit":"popgestured.service","socketFromSystemd":true,"grab":"off"}`:
        /// how the daemon runs.
        public struct Daemon: Sendable, Hashable {
            public var pid: Int64
            /// `systemd` (a unit started it) or `hand` (anything else: a shell, a test).
            public var startedBy: String
            /// The systemd unit it runs in, when systemd started it (`popgestured.service`).
            public var unit: String?
            /// Whether systemd passed the listening socket (`popgestured.socket`), rather
            /// than the daemon binding a path itself.
            public var socketFromSystemd: Bool
            /// Grab mode as configured: `on` or `off`.
            public var grab: String?

            public init(pid: Int64, startedBy: String, unit: String?, socketFromSystemd: Bool, grab: String?) {
                self.pid = pid
                self.startedBy = startedBy
                self.unit = unit
                self.socketFromSystemd = socketFromSystemd
                self.grab = grab
            }
        }

        /// `{"on":true,"input":"alt+left","mode":"edge","device":"/dev/input/event7"}`, or
        /// `{"on":false,"problem":"cannot create … ; load the uinput module …"}`: the
        /// daemon's virtual keyboard for apps without a navigator.
        public struct BackInput: Sendable, Hashable {
            /// The device exists, so backs can reach apps that have no navigator.
            public var on: Bool
            /// What it sends by default (`alt+left`); nil when only some apps get one.
            public var input: String?
            /// `back-input-mode`: `edge` or `fullscreen`.
            public var mode: String?
            /// Its event node, when udev had named it.
            public var device: String?
            /// Why it is off although the configuration wants it, with the fix; nil
            /// when it is on, or off because the configuration says `none`.
            public var problem: String?

            public init(on: Bool, input: String?, mode: String?, device: String?, problem: String?) {
                self.on = on
                self.input = input
                self.mode = mode
                self.device = device
                self.problem = problem
            }
        }

        /// `{"reason":"too-steep","device":0,"time_us":…}`: a pan that did not become a
        /// back, as its `rejected` event said.
        public struct Rejection: Sendable, Hashable {
            public var reason: ServerEvent.RejectionReason
            public var device: Int64
            public var timeMicroseconds: Int64

            public init(reason: ServerEvent.RejectionReason, device: Int64, timeMicroseconds: Int64) {
                self.reason = reason
                self.device = device
                self.timeMicroseconds = timeMicroseconds
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
            /// The screen's size as the engine measures swipes on it, after calibration
            /// and rotation, in millimetres; nil from a daemon that does not say.
            public var widthMillimetres: Double?
            public var heightMillimetres: Double?
            /// The size is the fallback guess (the device reports no resolution, udev no size).
            public var sizeAssumed: Bool?
            /// Where the size came from: `axes` (their resolution), `udev`
            /// (`ID_INPUT_WIDTH_MM`/`ID_INPUT_HEIGHT_MM`), `output` (the shell's report of
            /// the display it drives), `display` (that display's EDID) or `assumed`; nil
            /// from a daemon that does not say.
            public var sizeSource: String?
            /// Clockwise degrees: 0, 90, 180 or 270 (always 0 for a touchpad).
            public var rotation: Int64?
            /// Who says the rotation: `shell`, `sensor` or `configuration` (as `screen`'s).
            public var rotationSource: String?
            /// The shell's output the touchscreen turns with, while the shell says it.
            public var output: String?
            /// The seat it belongs to (`seat0`).
            public var seat: String?
            /// Grab mode's stage for it: `off`, `unsupported`, `failed`, `waiting-for-udev`,
            /// `waiting-for-reader`, `waiting-for-lift` or `grabbed`; nil from a daemon
            /// that does not say.
            public var grab: String?
            /// Grab mode's clone, the node the compositor reads instead, when there is one.
            public var clone: String?

            public init(
                device: Int64, name: String, path: String, kind: String, widthMillimetres: Double? = nil,
                heightMillimetres: Double? = nil, sizeAssumed: Bool? = nil, sizeSource: String? = nil,
                rotation: Int64? = nil, seat: String? = nil, grab: String? = nil, clone: String? = nil,
                rotationSource: String? = nil, output: String? = nil
            ) {
                self.rotationSource = rotationSource
                self.output = output
                self.device = device
                self.name = name
                self.path = path
                self.kind = kind
                self.widthMillimetres = widthMillimetres
                self.heightMillimetres = heightMillimetres
                self.sizeAssumed = sizeAssumed
                self.sizeSource = sizeSource
                self.rotation = rotation
                self.seat = seat
                self.grab = grab
                self.clone = clone
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
