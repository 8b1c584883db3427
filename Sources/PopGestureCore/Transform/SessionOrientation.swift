/// Where the rotation in force comes from, as `status` names it.
public enum RotationSource: String, Sendable, Hashable, CaseIterable {
    /// The shell (a bridge) reported the transform of the output the touchscreens map to.
    case shell
    /// iio-sensor-proxy's accelerometer (``SensorOrientation``).
    case sensor
    /// The `rotation` key of the configuration file: the fixed fallback.
    case configuration
}

/// Where the text direction in force comes from, as `status` names it.
public enum DirectionSource: String, Sendable, Hashable, CaseIterable {
    /// The shell reported the session's text direction.
    case shell
    /// The `layout` key of the configuration file.
    case configuration
}

/// iio-sensor-proxy's `AccelerometerOrientation` (`net.hadess.SensorProxy`): which side of
/// the device points up.
///
/// **Mapping to ``Rotation``**, as mutter maps the same orientation to an output
/// transform (`meta_orientation_to_transform`, src/backends/meta-orientation-manager.c;
/// `meta-monitor-manager.c` before mutter 46): `normal` → 0, `left-up` →
/// `META_MONITOR_TRANSFORM_90`, `bottom-up` → 180, `right-up` → 270. Mutter's (and
/// `wl_output`'s) transform 90 turns the picture 90° counter-clockwise on the panel, which
/// keeps it upright on a device turned 90° clockwise; a device turned clockwise has its
/// left side up, and its panel's top-left corner at the user's top-right, which is this
/// project's ``Rotation/clockwise90`` (``ScreenTransform``). So `left-up` is 90 and
/// `right-up` 270. `undefined` (flat on a table, or not known yet) changes nothing, as in
/// mutter, which keeps the current transform.
public enum SensorOrientation: String, Sendable, Hashable, CaseIterable {
    case undefined
    case normal
    case bottomUp = "bottom-up"
    case leftUp = "left-up"
    case rightUp = "right-up"

    /// The rotation this orientation means; nil for `undefined`.
    public var rotation: Rotation? {
        switch self {
        case .undefined: nil
        case .normal: Rotation.none
        case .leftUp: .clockwise90
        case .bottomUp: .upsideDown
        case .rightUp: .clockwise270
        }
    }
}

/// What the session says of the screen, over the configuration: the outputs (or the
/// single rotation) the shell reports, the sensor's orientation and the text direction
/// the shell reports. Pure state; the engine applies what it decides (``GestureEngine``).
///
/// **Precedence.** Rotation, per touchscreen: ``rotation(for:configured:)``. Text
/// direction: the shell's, else the configuration's (`layout`). The shell's word goes
/// with the shell: when it disconnects (or another shell takes its place) its outputs,
/// rotation and direction are forgotten.
public struct SessionOrientation: Sendable, Hashable {
    /// The shell's last single `rotation`; nil until it sends one.
    public var shellRotation: Rotation?
    /// The output the shell named with it, for `status` only.
    public var shellOutput: String?
    /// The sensor's last defined orientation's rotation; nil when there is no sensor, it
    /// has no accelerometer, or it never said anything but `undefined`.
    public var sensorRotation: Rotation?
    /// The shell's last `outputs`; nil until it sends them.
    public var shellOutputs: [OutputReport]?
    /// The shell's last `text-direction`; nil until it sends one.
    public var shellDirection: LayoutDirection?

    public init() {}

    /// The text direction in force over `configured`, and where it comes from.
    public func direction(configured: LayoutDirection) -> (direction: LayoutDirection, source: DirectionSource) {
        if let shellDirection { return (shellDirection, .shell) }
        return (configured, .configuration)
    }

    /// Forgets what the shell said (it disconnected, or another shell replaced it).
    public mutating func forgetShell() {
        forgetShellScreen()
        shellDirection = nil
    }

    /// Forgets what the shell said of the screen: its outputs and its single rotation.
    public mutating func forgetShellScreen() {
        shellRotation = nil
        shellOutput = nil
        shellOutputs = nil
    }
}

/// The rotation and text direction in force, and who says each, as observers are told.
public struct ScreenSummary: Sendable, Hashable {
    /// Nil when it comes from the configuration and no touchscreen is present.
    public var rotation: Rotation?
    public var rotationSource: RotationSource
    /// The output the shell named, while its rotation is in force.
    public var output: String?
    public var direction: LayoutDirection
    public var directionSource: DirectionSource

    public init(
        rotation: Rotation?, rotationSource: RotationSource, output: String?, direction: LayoutDirection,
        directionSource: DirectionSource
    ) {
        self.rotation = rotation
        self.rotationSource = rotationSource
        self.output = output
        self.direction = direction
        self.directionSource = directionSource
    }
}

/// Logs changes of the rotation or text direction at info, but not a flood of them: a
/// sensor on a tablet held near 45°, or a shell gone wrong, may flip many times a second.
///
/// An episode is a run of changes less than ``quietGap`` apart. Its first
/// ``changesLoggedPerEpisode`` changes are logged at info, the next one says that the
/// rest go to debug, and the first change after a quiet gap starts a new episode
/// (naming how many changes the previous one had, when some went unlogged). Time is
/// an input: the request's or the caller's clock.
public struct ChangeLogLimit: Sendable, Hashable {
    /// Changes closer together than this are one episode: 10 s, longer than anyone
    /// takes to turn a tablet and put it down.
    public static let quietGap: Duration = .seconds(10)
    /// Info lines per episode: 5, enough for turning a tablet back and forth.
    public static let changesLoggedPerEpisode = 5

    /// What to do with one change.
    public enum Verdict: Sendable, Hashable {
        /// Log it at info; `previousEpisode` is the size of the previous episode when it
        /// was cut short (some of it went to debug), else nil.
        case info(previousEpisode: Int?)
        /// Log it at info, saying that the rest of the episode goes to debug.
        case lastInfo
        /// Log it at debug.
        case debug
    }

    private var last: Timestamp?
    private var inEpisode = 0

    public init() {}

    public mutating func change(at time: Timestamp) -> Verdict {
        defer { last = time }
        if let last, time - last < Self.quietGap.microsecondsRounded {
            inEpisode += 1
        } else {
            let previous = inEpisode > Self.changesLoggedPerEpisode ? inEpisode : nil
            inEpisode = 1
            return .info(previousEpisode: previous)
        }
        if inEpisode < Self.changesLoggedPerEpisode { return .info(previousEpisode: nil) }
        return inEpisode == Self.changesLoggedPerEpisode ? .lastInfo : .debug
    }
}
