import Logging
import PopGestureCore

/// Values from the command line, which beat the file's. Nil leaves the file's
/// value (or the default). The daemon's flags fill this; flags named after the
/// keys (`--commit-progress`) match the error messages, which say
/// `command line: --commit-progress: …`.
public struct ConfigurationOverrides: Sendable, Hashable {
    public var mode: GestureMode?
    public var edgeWidthMillimetres: Double?
    public var decisionDistanceMillimetres: Double?
    public var maxAngleDegrees: Double?
    public var commitProgress: Double?
    public var flingVelocityMillimetresPerSecond: Double?
    public var layout: LayoutDirection?
    public var transitionTimeoutMilliseconds: Int?
    /// Degrees clockwise; checked like the file's (0, 90, 180 or 270).
    public var rotation: Int?
    public var touchpads: TouchpadMode?
    /// `all` or a touchscreen's `WL_OUTPUT` or name; checked like the file's.
    public var screen: String?
    public var socketPath: String?
    public var clients: ClientsMode?
    public var logLevel: Logger.Level?

    public init(
        mode: GestureMode? = nil,
        edgeWidthMillimetres: Double? = nil,
        decisionDistanceMillimetres: Double? = nil,
        maxAngleDegrees: Double? = nil,
        commitProgress: Double? = nil,
        flingVelocityMillimetresPerSecond: Double? = nil,
        layout: LayoutDirection? = nil,
        transitionTimeoutMilliseconds: Int? = nil,
        rotation: Int? = nil,
        touchpads: TouchpadMode? = nil,
        socketPath: String? = nil,
        clients: ClientsMode? = nil,
        logLevel: Logger.Level? = nil,
        screen: String? = nil
    ) {
        self.mode = mode
        self.edgeWidthMillimetres = edgeWidthMillimetres
        self.decisionDistanceMillimetres = decisionDistanceMillimetres
        self.maxAngleDegrees = maxAngleDegrees
        self.commitProgress = commitProgress
        self.flingVelocityMillimetresPerSecond = flingVelocityMillimetresPerSecond
        self.layout = layout
        self.transitionTimeoutMilliseconds = transitionTimeoutMilliseconds
        self.rotation = rotation
        self.touchpads = touchpads
        self.screen = screen
        self.socketPath = socketPath
        self.clients = clients
        self.logLevel = logLevel
    }

    /// The overrides that are set, as the file would spell them, so that they
    /// pass the same checks as the file's values.
    var assignments: [(Configuration.Key, String)] {
        let all: [(Configuration.Key, String?)] = [
            (.mode, mode?.rawValue),
            (.edgeWidth, edgeWidthMillimetres.map { "\($0)" }),
            (.decisionDistance, decisionDistanceMillimetres.map { "\($0)" }),
            (.maxAngle, maxAngleDegrees.map { "\($0)" }),
            (.commitProgress, commitProgress.map { "\($0)" }),
            (.flingVelocity, flingVelocityMillimetresPerSecond.map { "\($0)" }),
            (.layout, layout?.rawValue),
            (.transitionTimeout, transitionTimeoutMilliseconds.map { "\($0)" }),
            (.rotation, rotation.map { "\($0)" }),
            (.touchpads, touchpads?.rawValue),
            (.screen, screen),
            (.socket, socketPath),
            (.clients, clients?.rawValue),
            (.logLevel, logLevel?.rawValue),
        ]
        return all.compactMap { key, text in text.map { (key, $0) } }
    }
}
