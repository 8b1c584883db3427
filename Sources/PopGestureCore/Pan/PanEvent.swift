/// One moment of a single-touch pan, in screen coordinates.
public struct PanSample: Sendable, Hashable {
    public var position: ScreenPoint
    /// mm/s on the screen, x to the right and y down.
    public var velocityX: Double
    public var velocityY: Double
    /// The kernel timestamp of the frame.
    public var time: Timestamp

    public init(position: ScreenPoint, velocityX: Double = 0, velocityY: Double = 0, time: Timestamp) {
        self.position = position
        self.velocityX = velocityX
        self.velocityY = velocityY
        self.time = time
    }
}

/// Why a pan stopped without a release.
public enum PanCancelReason: String, Sendable, Hashable {
    /// Another finger landed (UIKit's `maximumNumberOfTouches = 1`).
    case extraFinger = "extra-finger"
    /// The finger turned out to be a palm (`MT_TOOL_PALM` or a large touch).
    case palm
    /// Events were lost (`SYN_DROPPED`); what happened in between is unknown.
    case eventsDropped = "events-dropped"
    /// The device went away.
    case deviceRemoved = "device-removed"
}

/// The single-touch pan stream of one device: `began` when one finger lands,
/// `changed` as it moves, then `ended` when it lifts or `cancelled`.
public enum PanEvent: Sendable, Hashable {
    case began(PanSample)
    case changed(PanSample)
    case ended(PanSample)
    case cancelled(PanCancelReason, time: Timestamp)
}
