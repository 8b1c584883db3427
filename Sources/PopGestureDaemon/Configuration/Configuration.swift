import Logging
import PopGestureCore
import PopGestureInput
import PopGestureServer

/// Whether the daemon grabs the touchscreens (grab mode).
public enum GrabMode: String, Sendable, Hashable, CaseIterable {
    /// The daemon only reads: the app under a back swipe gets its touches too.
    case off
    /// Each touchscreen (protocol B) is grabbed while no finger is down, and the
    /// compositor reads a uinput clone that gets every touch but those of a back.
    case on
}

/// How touchpads take part in the back gesture.
public enum TouchpadMode: String, Sendable, Hashable, CaseIterable {
    /// Touchpads are left alone.
    case off
    /// Two fingers move together and their centroid is the pan, as browsers do.
    case twoFinger = "two-finger"
    /// One finger is the pan, as on a touchscreen.
    case oneFinger = "one-finger"

    public init(_ source: PanSource) {
        switch source {
        case .oneFinger: self = .oneFinger
        case .twoFingerCentroid: self = .twoFinger
        }
    }

    /// Nil when touchpads are off.
    public var panSource: PanSource? {
        switch self {
        case .off: nil
        case .twoFinger: .twoFingerCentroid
        case .oneFinger: .oneFinger
        }
    }
}

/// Everything the daemon can be told, from `/etc/popgestured/popgestured.conf` and
/// the command line. Every value has a default, taken from the core's own types,
/// so the daemon works with no file at all.
public struct Configuration: Sendable, Hashable {
    /// Read when `--config` is not given; a missing default file means defaults.
    public static let defaultPath = "/etc/popgestured/popgestured.conf"
    /// Where `popgestured.socket` listens; used only without socket activation.
    public static let defaultSocketPath = "/run/popgestured/popgestured.sock"

    /// `mode`, `edge-width-mm`, `decision-distance-mm`, the angle, fling and long-press
    /// keys (``Key/gestureKeys``). Defaults: ``GestureSettings``.
    public var gesture: GestureSettings
    /// `layout`: for navigators that do not choose one. Default: ``NavigationState/defaultLayout``.
    public var defaultLayout: LayoutDirection
    /// `transition-timeout-ms`. Default: ``NavigationState/transitionTimeout``.
    public var transitionTimeout: Duration
    /// `rotation`: of every touchscreen, clockwise, fixed; nil (`auto`, the default):
    /// the shell's outputs say it, else the accelerometer (docs/CONFIGURATION.md).
    public var rotation: Rotation?
    /// `touchpads`. Default: ``PanSettings/defaults(for:)`` for a touchpad (two-finger).
    public var touchpads: TouchpadMode
    /// `screen`: which touchscreens show the apps. Default ``ScreenSelection/all``.
    public var screen: ScreenSelection
    /// `grab`: grab mode, where the touches of a back swipe never reach the app
    /// underneath (docs/ARCHITECTURE.md). Default ``GrabMode/off``: it needs
    /// `/dev/uinput`, and the compositor then reads a clone of each touchscreen.
    public var grab: GrabMode
    /// `max-clients`: connections served at once. Default
    /// ``ServerLimits/maximumClients`` (128): a tablet runs a handful of apps; a shell
    /// overlay with many observers, or a benchmark, may want more. At most
    /// ``maximumClientsRange``'s upper bound, well inside `LimitNOFILE=4096`.
    public var maximumClients: Int
    /// The values `max-clients` takes: 1…2048.
    public static let maximumClientsRange = 1...2048
    /// `socket`: ignored under socket activation. Default ``defaultSocketPath``.
    public var socketPath: String
    /// `clients`: who may connect. Default ``ClientsMode/seat``.
    public var clients: ClientsMode
    /// `log-level`. Default `info`, swift-log's own.
    public var logLevel: Logger.Level
    /// What a committed back sends, through the daemon's virtual device, to an app
    /// with no navigator in front. `standard` is `back-input`, default ``defaultBackInput``
    /// (Alt+Left: docs/CONFIGURATION.md says why); `apps` and `ownSwipe` are the
    /// `[back-input]` section, default empty (the shipped file names the apps with
    /// their own swipe-back).
    public var backInput: BackInputMap
    /// `user-locked`: the keys of ``userSettableNames`` that a seat's user may not set
    /// for their seat (`user-settings`). Default none: a user may set all of them.
    public var userLocked: [String]
    /// What a user may set for their seat, as `user-locked` names them: the keys of
    /// ``UserSettingsFile/userKeys`` and `back-input`, the per-app table.
    public static var userSettableNames: [String] {
        UserSettingsFile.userKeys.map(\.rawValue) + [UserSettingsFile.backInputSection]
    }
    /// `user-locked`'s text: `none`, or names of ``userSettableNames`` separated by commas
    /// (spaces around them are trimmed), each at most once; nil when refused.
    static func parseUserLocked(_ text: String) -> [String]? {
        if text == "none" { return [] }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { name in
            String(name.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        }
        guard !names.isEmpty, names.allSatisfy(userSettableNames.contains), Set(names).count == names.count else { return nil }
        return names
    }
    /// `back-input-mode`: where a swipe may start when it goes to the back input.
    /// Default `.edge`, as Android's system back: the app under the finger gets those
    /// touches too, so a swipe from mid-screen would pan a map and go back at once.
    public var backInputMode: GestureMode

    /// Alt+Left: `KEY_LEFTALT`, `KEY_LEFT`.
    public static let defaultBackInput: BackInput? = try? BackInputNames.parse("alt+left")

    /// The defaults.
    public init() {
        let navigation = NavigationState()
        gesture = GestureSettings()
        defaultLayout = navigation.defaultLayout
        transitionTimeout = navigation.transitionTimeout
        rotation = DeviceConfiguration().rotation
        touchpads = TouchpadMode(PanSettings.defaults(for: .touchpad).source)
        screen = .all
        grab = .off
        maximumClients = ServerLimits().maximumClients
        socketPath = Self.defaultSocketPath
        clients = .seat
        logLevel = .info
        backInput = BackInputMap(standard: Self.defaultBackInput)
        backInputMode = .edge
        userLocked = []
    }

    // MARK: - Loading

    /// Reads the file, then applies the command line's overrides.
    ///
    /// - Parameter path: nil reads ``defaultPath`` if it exists; a path given here
    ///   must exist.
    /// - Throws: the first problem, naming the file, line and key. The daemon must
    ///   not start with it.
    public static func load(
        file path: String? = nil, overrides: ConfigurationOverrides = .init()
    ) throws(ConfigurationError) -> Configuration {
        try load(file: path, defaultPath: defaultPath, overrides: overrides)
    }

    /// ``load(file:overrides:)`` with another default file, for tests.
    static func load(
        file path: String?, defaultPath: String, overrides: ConfigurationOverrides
    ) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        if let file = try ConfigurationFile.read(path ?? defaultPath, required: path != nil) {
            try configuration.merge(file)
        }
        try configuration.merge(overrides)
        return configuration
    }

    /// Parses a file's text, for tests and for checking a file before installing it.
    public static func parse(
        _ text: String, path: String, overrides: ConfigurationOverrides = .init()
    ) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        try configuration.merge(ConfigurationFile(parsing: text, path: path))
        try configuration.merge(overrides)
        return configuration
    }

    /// For SIGHUP: loads anew with the same arguments as at start. On success,
    /// replaces `self` and returns the keys whose value changed; on failure,
    /// leaves `self` as it was, so the daemon keeps running on the old values and
    /// only has to log the error.
    public mutating func reload(
        file path: String?, overrides: ConfigurationOverrides = .init()
    ) -> Result<Set<Key>, ConfigurationError> {
        do {
            let fresh = try Self.load(file: path, overrides: overrides)
            let changed = fresh.changedKeys(since: self)
            self = fresh
            return .success(changed)
        } catch {
            return .failure(error)
        }
    }

    /// Applies the file's values over `self`; errors name the entry's line. The
    /// `[back-input]` section, when the file has one, replaces the table.
    public mutating func merge(_ file: ConfigurationFile) throws(ConfigurationError) {
        for entry in file.entries {
            do {
                try set(entry.key, to: entry.value)
            } catch {
                throw ConfigurationError(
                    .invalidValue, origin: .file(path: file.path, line: entry.line), key: entry.key.rawValue,
                    error.message)
            }
        }
        guard let section = file.backInputApps else { return }
        var apps: [String: BackInput?] = [:]
        var ownSwipe: Set<String> = []
        for entry in section {
            if entry.value.lowercased() == BackInputNames.ownSwipe {
                ownSwipe.insert(entry.app)
                continue
            }
            do {
                apps[entry.app] = .some(try BackInputNames.parse(entry.value))
            } catch {
                throw ConfigurationError(
                    .invalidValue, origin: .file(path: file.path, line: entry.line),
                    key: ConfigurationFile.Section.backInput.key(entry.app), error.message)
            }
        }
        backInput.apps = apps
        backInput.ownSwipe = ownSwipe
    }

    /// Command-line values go through the same parser and checks as the file's, so
    /// `--commit-progress 2` is refused with the same words as `commit-progress = 2`.
    public mutating func merge(_ overrides: ConfigurationOverrides) throws(ConfigurationError) {
        for (key, text) in overrides.assignments {
            do {
                try set(key, to: text)
            } catch {
                throw ConfigurationError(.invalidValue, origin: .commandLine, key: key.rawValue, error.message)
            }
        }
    }

    /// The defaults with the command line's values on top, and no file: what
    /// `replay` runs with.
    public init(overrides: ConfigurationOverrides) throws(ConfigurationError) {
        self.init()
        try merge(overrides)
    }

    // MARK: - Values as text

    struct ValueError: Error {
        let message: String
    }

    /// Sets one key from its text, checking type and range.
    mutating func set(_ key: Key, to text: String) throws(ValueError) {
        try key.set(text, in: &self)
    }

    /// A client that never says its animation settled blocks the back gesture for
    /// this long at most, so more than a minute is a mistake.
    static let transitionTimeoutRange = 0...60_000

    /// A key's value as the file would spell it.
    public func value(of key: Key) -> String {
        key.value(in: self)
    }

    /// The keys whose value differs from `previous`'s. `back-input` is among them
    /// when the `[back-input]` table changed too; ``changedBackInputApps(since:)`` says
    /// which apps.
    public func changedKeys(since previous: Configuration) -> Set<Key> {
        var keys = Set(Key.allCases.filter { value(of: $0) != previous.value(of: $0) })
        if backInput.apps != previous.backInput.apps || backInput.ownSwipe != previous.backInput.ownSwipe {
            keys.insert(.backInput)
        }
        return keys
    }

    /// The app ids whose `[back-input]` entry was added, removed or changed since
    /// `previous`, sorted: for the reload's log line.
    public func changedBackInputApps(since previous: Configuration) -> [String] {
        let ids = Set(backInput.apps.keys).union(previous.backInput.apps.keys)
            .union(backInput.ownSwipe).union(previous.backInput.ownSwipe)
        return ids.filter {
            backInput.apps[$0] != previous.backInput.apps[$0]
                || backInput.ownSwipe.contains($0) != previous.backInput.ownSwipe.contains($0)
        }.sorted()
    }

    // MARK: - Applying

    /// Sets the gesture thresholds, transition timeout and default layout.
    /// Safe between any two events, so a reload can call it on the live engine.
    public func apply(to engine: inout GestureEngine) {
        engine.settings = gesture
        engine.transitionTimeout = transitionTimeout
        engine.defaultLayout = defaultLayout
    }

    /// How to add a device of this kind, udev's, to the engine; nil means leave it
    /// alone (a touchpad while `touchpads = off`, a touchscreen that is not the
    /// `screen`). The calibration comes from the device's udev
    /// `LIBINPUT_CALIBRATION_MATRIX`, `name` is the kernel's and `output` udev's `WL_OUTPUT`.
    public func deviceConfiguration(
        for kind: DeviceKind, calibration: CalibrationMatrix = .identity, name: String = "", output: String? = nil,
        hints: OutputHints? = nil
    ) -> DeviceConfiguration? {
        switch kind {
        case .touchscreen:
            guard screen.includes(name: name, output: output) else { return nil }
            return DeviceConfiguration(
                kind: .touchscreen, rotation: rotation, calibration: calibration,
                output: hints ?? OutputHints(wlOutput: output, names: [name]))
        case .touchpad:
            guard let source = touchpads.panSource else { return nil }
            return DeviceConfiguration(kind: .touchpad, calibration: calibration, pan: PanSettings(source: source))
        }
    }
}
