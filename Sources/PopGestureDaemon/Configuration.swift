import Logging
import PopGestureCore

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

    /// The keys of the file, in the order the documentation lists them.
    public enum Key: String, Sendable, Hashable, CaseIterable {
        case mode
        case edgeWidth = "edge-width-mm"
        case decisionDistance = "decision-distance-mm"
        case maxAngle = "max-angle-degrees"
        case commitProgress = "commit-progress"
        case flingVelocity = "fling-velocity-mm-per-s"
        case layout
        case transitionTimeout = "transition-timeout-ms"
        case rotation
        case touchpads
        case screen
        case socket
        case clients
        case logLevel = "log-level"
    }

    /// `mode`, `edge-width-mm`, `decision-distance-mm`, `max-angle-degrees`,
    /// `commit-progress`, `fling-velocity-mm-per-s`. Defaults: ``GestureSettings``.
    public var gesture: GestureSettings
    /// `layout`: for navigators that do not choose one. Default: ``NavigationState/defaultLayout``.
    public var defaultLayout: LayoutDirection
    /// `transition-timeout-ms`. Default: ``NavigationState/transitionTimeout``.
    public var transitionTimeout: Duration
    /// `rotation`: of every touchscreen, clockwise. Default: ``DeviceConfiguration``'s.
    public var rotation: Rotation
    /// `touchpads`. Default: ``PanSettings/defaults(for:)`` for a touchpad (two-finger).
    public var touchpads: TouchpadMode
    /// `screen`: which touchscreens show the apps. Default ``ScreenSelection/all``.
    public var screen: ScreenSelection
    /// `socket`: ignored under socket activation. Default ``defaultSocketPath``.
    public var socketPath: String
    /// `clients`: who may connect. Default ``ClientsMode/seat``.
    public var clients: ClientsMode
    /// `log-level`. Default `info`, swift-log's own.
    public var logLevel: Logger.Level

    /// The defaults.
    public init() {
        let navigation = NavigationState()
        gesture = GestureSettings()
        defaultLayout = navigation.defaultLayout
        transitionTimeout = navigation.transitionTimeout
        rotation = DeviceConfiguration().rotation
        touchpads = TouchpadMode(PanSettings.defaults(for: .touchpad).source)
        screen = .all
        socketPath = Self.defaultSocketPath
        clients = .seat
        logLevel = .info
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

    /// Applies the file's values over `self`; errors name the entry's line.
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
    }

    /// Command-line values go through the same checks as the file's, so
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

    // MARK: - Values as text

    struct ValueError: Error {
        let message: String
    }

    /// Sets one key from its text, checking type and range.
    mutating func set(_ key: Key, to text: String) throws(ValueError) {
        func refuse() -> ValueError {
            // A trailing comment is the likeliest reason for a puzzling value.
            let hint = text.contains("#") ? " (comments must be on a line of their own)" : ""
            return ValueError(message: "expected \(key.expected), got \"\(text)\"\(hint)")
        }
        func number(_ accepts: (Double) -> Bool) throws(ValueError) -> Double {
            guard let value = Double(text), value.isFinite, accepts(value) else { throw refuse() }
            return value
        }
        switch key {
        case .mode:
            guard let mode = GestureMode(rawValue: text) else { throw refuse() }
            gesture.mode = mode
        case .edgeWidth:
            gesture.edgeWidthMillimetres = try number { $0 > 0 }
        case .decisionDistance:
            gesture.decisionDistanceMillimetres = try number { $0 > 0 }
        case .maxAngle:
            gesture.maxAngleDegrees = try number { $0 > 0 && $0 <= 90 }
        case .commitProgress:
            gesture.commitProgress = try number { (0...1).contains($0) }
        case .flingVelocity:
            gesture.flingVelocityMillimetresPerSecond = try number { $0 > 0 }
        case .layout:
            guard let layout = LayoutDirection(rawValue: text) else { throw refuse() }
            defaultLayout = layout
        case .transitionTimeout:
            guard let milliseconds = Int(text), Self.transitionTimeoutRange.contains(milliseconds) else { throw refuse() }
            transitionTimeout = .milliseconds(milliseconds)
        case .rotation:
            // Exactly one of the four, not Rotation(degrees:) which would take -90 or 450.
            guard let degrees = Int(text), let rotation = Rotation(rawValue: degrees) else { throw refuse() }
            self.rotation = rotation
        case .touchpads:
            guard let mode = TouchpadMode(rawValue: text) else { throw refuse() }
            touchpads = mode
        case .screen:
            guard let selection = ScreenSelection(text) else { throw refuse() }
            screen = selection
        case .socket:
            // sun_path holds 108 bytes, the last one the terminating NUL.
            guard text.hasPrefix("/"), text.utf8.count <= 107, !text.utf8.contains(0) else { throw refuse() }
            socketPath = text
        case .clients:
            guard let mode = ClientsMode(rawValue: text) else { throw refuse() }
            clients = mode
        case .logLevel:
            guard let level = Logger.Level(rawValue: text) else { throw refuse() }
            logLevel = level
        }
    }

    /// A client that never says its animation settled blocks the back gesture for
    /// this long at most, so more than a minute is a mistake.
    static let transitionTimeoutRange = 0...60_000

    /// A key's value as the file would spell it.
    public func value(of key: Key) -> String {
        switch key {
        case .mode: gesture.mode.rawValue
        case .edgeWidth: "\(gesture.edgeWidthMillimetres)"
        case .decisionDistance: "\(gesture.decisionDistanceMillimetres)"
        case .maxAngle: "\(gesture.maxAngleDegrees)"
        case .commitProgress: "\(gesture.commitProgress)"
        case .flingVelocity: "\(gesture.flingVelocityMillimetresPerSecond)"
        case .layout: defaultLayout.rawValue
        case .transitionTimeout: "\(transitionTimeout.wholeMilliseconds)"
        case .rotation: "\(rotation.rawValue)"
        case .touchpads: touchpads.rawValue
        case .screen: screen.text
        case .socket: socketPath
        case .clients: clients.rawValue
        case .logLevel: logLevel.rawValue
        }
    }

    /// The whole configuration as a file that parses back to it: for a
    /// `--print-configuration` flag or a starting point in /etc.
    public var fileContents: String {
        Key.allCases.map { "\($0.rawValue) = \(value(of: $0))\n" }.joined()
    }

    /// The keys whose value differs from `previous`'s.
    public func changedKeys(since previous: Configuration) -> Set<Key> {
        Set(Key.allCases.filter { value(of: $0) != previous.value(of: $0) })
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
        for kind: DeviceKind, calibration: CalibrationMatrix = .identity, name: String = "", output: String? = nil
    ) -> DeviceConfiguration? {
        switch kind {
        case .touchscreen:
            guard screen.includes(name: name, output: output) else { return nil }
            return DeviceConfiguration(kind: .touchscreen, rotation: rotation, calibration: calibration)
        case .touchpad:
            guard let source = touchpads.panSource else { return nil }
            return DeviceConfiguration(kind: .touchpad, calibration: calibration, pan: PanSettings(source: source))
        }
    }
}

extension Configuration.Key {
    /// What a value must look like, as error messages say it.
    public var expected: String {
        switch self {
        case .mode: "fullscreen or edge"
        case .edgeWidth, .decisionDistance: "a number of millimetres above 0"
        case .maxAngle: "a number of degrees above 0 and at most 90"
        case .commitProgress: "a number between 0 and 1"
        case .flingVelocity: "a number of millimetres per second above 0"
        case .layout: "ltr or rtl"
        case .transitionTimeout:
            "a whole number of milliseconds between \(Configuration.transitionTimeoutRange.lowerBound) and \(Configuration.transitionTimeoutRange.upperBound)"
        case .rotation: "0, 90, 180 or 270"
        case .touchpads: "off, two-finger or one-finger"
        case .screen: "all, or the WL_OUTPUT or name of a touchscreen (no control characters)"
        case .socket: "an absolute path of at most 107 bytes"
        case .clients: "seat or any"
        case .logLevel: "trace, debug, info, notice, warning, error or critical"
        }
    }
}

extension Duration {
    fileprivate var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
