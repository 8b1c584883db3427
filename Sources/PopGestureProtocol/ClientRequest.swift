/// One request a client sends (docs/PROTOCOL.md, "Requests"). `RequestCodec` reads and
/// writes it; the daemon gives navigation requests their meaning.
public enum ClientRequest: Sendable, Hashable {
    /// Must come first. `versions` are the protocol versions the client speaks (see
    /// `ProtocolVersion`); `name` is at most `ProtocolLimits.maximumIdentifierBytes`, and
    /// so is `app`, the app id of the client's windows (Wayland's `app_id`, X11's
    /// `WM_CLASS`), which a shell's focused window is matched against.
    case hello(versions: [Int64], name: String?, app: String? = nil, role: Role = .app)
    /// Become an observer: receive every event, `rejected` included.
    case subscribe
    case unsubscribe
    /// A new navigator, owned by this connection and brought to the front.
    /// `barFollowsTopPage` defaults to true.
    case create(navigator: String, pages: [Page], layout: Layout?, barFollowsTopPage: Bool)
    case push(navigator: String, page: Page, animated: Bool)
    case pop(navigator: String, animated: Bool)
    case replace(navigator: String, pages: [Page], animated: Bool)
    /// New properties for a page already on the stack.
    case update(navigator: String, page: Page)
    /// Changes a navigator's settings; nil keeps the current value.
    case configure(navigator: String, layout: Layout?, barFollowsTopPage: Bool?)
    /// The push or pop animation is done.
    case settle(navigator: String)
    case front(navigator: String)
    case remove(navigator: String)
    /// Read-only: one navigator's stack.
    case stack(navigator: String)
    /// Read-only: devices, navigators and clients.
    case status
    /// An app's window gained (`true`) or lost focus: only a focused client's
    /// navigators get the back gesture.
    case focus(focused: Bool)
    /// From the shell only: the window that has focus now, by app id and pid (either may
    /// be unknown; neither means no window has focus).
    case focusedWindow(app: String?, pid: Int64?)
    /// From the shell only: the screen the touchscreens map to is turned `degrees`
    /// clockwise (0, 90, 180 or 270, as the `rotation` setting counts them); `output` is
    /// the compositor's name for it, for `status` only.
    case rotation(degrees: Int64, output: String?)
    /// From the shell only: every enabled output, at most `ProtocolLimits.maximumOutputs`;
    /// the list replaces the last one. The daemon turns each touchscreen with its own
    /// output (docs/PROTOCOL.md, "The screen's rotation and text direction").
    case outputs([Output])
    /// From the shell only: the session's text direction, which navigators that did not
    /// choose a layout follow.
    case textDirection(Layout)
    /// From the shell only: whether the session scrolls touchpads naturally (the content
    /// follows the fingers), as it set the daemon's virtual touchpad ("popgestured
    /// touchpad"); the touchpad bridge plays its scroll the other way round then.
    /// `bridge` false: the session takes no touchpad bridge at all (GNOME Shell: any
    /// pointer device ends its touch mode, and with it the on-screen keyboard's showing
    /// up); the daemon then removes that seat's virtual touchpad and pointer, and the
    /// entries that want them get the standard back input.
    case touchpadScrolling(natural: Bool, bridge: Bool = true)
    /// The settings of the client's user for the client's seat, as the text of their
    /// `~/.config/popgestured/popgestured.conf` (the system file's format, the keys a user
    /// may set: docs/CONFIGURATION.md, "Settings per user"); at most
    /// `ProtocolLimits.maximumUserSettingsBytes`. The empty text puts the system's back.
    /// In force on that seat while that user is active there.
    case userSettings(text: String)

    /// The daemon's virtual touchpad, as the kernel, udev and the compositors name it:
    /// the device whose scrolling `touchpad-scrolling` reports.
    public static let virtualTouchpadName = "popgestured touchpad"

    /// What a client is: an app with navigators, or the shell, which reports the
    /// focused window (docs/PROTOCOL.md, "Focus").
    public enum Role: String, Sendable, Hashable, CaseIterable {
        case app, shell
    }

    /// The request types, as `"type"` names them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case hello, subscribe, unsubscribe, create, push, pop, replace, update, configure, settle, front, remove, stack,
             status, focus
        case focusedWindow = "focused-window"
        case rotation, outputs
        case textDirection = "text-direction"
        case touchpadScrolling = "touchpad-scrolling"
        case userSettings = "user-settings"
    }

    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .create: .create
        case .push: .push
        case .pop: .pop
        case .replace: .replace
        case .update: .update
        case .configure: .configure
        case .settle: .settle
        case .front: .front
        case .remove: .remove
        case .stack: .stack
        case .status: .status
        case .focus: .focus
        case .focusedWindow: .focusedWindow
        case .rotation: .rotation
        case .outputs: .outputs
        case .textDirection: .textDirection
        case .touchpadScrolling: .touchpadScrolling
        case .userSettings: .userSettings
        }
    }

    /// The request's `"type"`, echoed as `"request"` in replies.
    public var type: String { kind.rawValue }

    /// The navigator the request is about; nil for the requests about no navigator.
    public var navigator: String? {
        switch self {
        case .hello, .subscribe, .unsubscribe, .status, .focus, .focusedWindow, .rotation, .outputs, .textDirection,
             .touchpadScrolling, .userSettings:
            nil
        case .create(let n, _, _, _), .push(let n, _, _), .pop(let n, _), .replace(let n, _, _), .update(let n, _),
             .configure(let n, _, _), .settle(let n), .front(let n), .remove(let n), .stack(let n):
            n
        }
    }

    /// Which side is leading: `"ltr"` (back is a swipe to the right) or `"rtl"`.
    public enum Layout: String, Sendable, Hashable, CaseIterable {
        case leftToRight = "ltr"
        case rightToLeft = "rtl"
    }

    /// A page object: `{"id":…,"popDisabled":…,"prefersBarHidden":…,"maxStartDistance":…,"exclusionZones":[…]}`.
    /// Only `id` is required; the rest default to false, 0 and none. The daemon checks
    /// the ranges (a negative `maxStartDistance` is its `invalid-value`).
    public struct Page: Sendable, Hashable {
        public var id: String
        public var popDisabled: Bool
        public var prefersBarHidden: Bool
        /// In millimetres from the leading edge; 0 means no limit.
        public var maxStartDistance: Double
        public var exclusionZones: [Zone]

        public init(
            id: String, popDisabled: Bool = false, prefersBarHidden: Bool = false, maxStartDistance: Double = 0,
            exclusionZones: [Zone] = []
        ) {
            self.id = id
            self.popDisabled = popDisabled
            self.prefersBarHidden = prefersBarHidden
            self.maxStartDistance = maxStartDistance
            self.exclusionZones = exclusionZones
        }
    }

    /// One output of `outputs`: `{"name":"eDP-1","rotation":90,"widthMillimetres":256,
    /// "heightMillimetres":144,"builtIn":true,"inputs":["1267:10780:ELAN_Touchscreen"]}`.
    /// `name` and `rotation` are required; the rest default to unknown, false and none.
    public struct Output: Sendable, Hashable {
        /// The compositor's name (`eDP-1`, `HEADLESS-1`): 1 to 256 bytes of UTF-8.
        public var name: String
        /// Clockwise degrees, 0, 90, 180 or 270, counted as `rotation` counts them.
        public var rotation: Int64
        /// The panel's physical size in millimetres, in its native (untransformed)
        /// orientation; nil when unknown. The daemon takes a size that is not positive
        /// or is past its bound as unknown.
        public var widthMillimetres: Double?
        public var heightMillimetres: Double?
        /// A built-in panel (eDP, LVDS, DSI, or the compositor says so). Default false.
        public var isBuiltIn: Bool
        /// The input devices the compositor maps to this output (sway's `map_to_output`),
        /// as `vendor:product:name` identifiers or evdev names; at most
        /// `ProtocolLimits.maximumInputsPerOutput`, each at most 256 bytes.
        public var inputs: [String]

        public init(
            name: String, rotation: Int64, widthMillimetres: Double? = nil, heightMillimetres: Double? = nil,
            isBuiltIn: Bool = false, inputs: [String] = []
        ) {
            self.name = name
            self.rotation = rotation
            self.widthMillimetres = widthMillimetres
            self.heightMillimetres = heightMillimetres
            self.isBuiltIn = isBuiltIn
            self.inputs = inputs
        }
    }

    /// An exclusion zone, `[x, y, width, height]` in screen fractions (0…1, origin top-left).
    public struct Zone: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double

        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }
}

/// The optional `"id"` of a request, echoed in its reply so scripts can match them:
/// an integer literal (`1.0` is refused, not echoed as `1`) or a string of at most
/// `ProtocolLimits.maximumIdentifierBytes`.
public enum RequestID: Sendable, Hashable {
    case integer(Int64)
    case string(String)
}

/// A request with the id to echo.
public struct IdentifiedRequest: Sendable, Hashable {
    public var request: ClientRequest
    public var id: RequestID?

    public init(_ request: ClientRequest, id: RequestID? = nil) {
        self.request = request
        self.id = id
    }
}
