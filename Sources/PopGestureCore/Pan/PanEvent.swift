/// One moment of a single-touch pan, in screen coordinates.
public struct PanSample: Sendable, Hashable {
    public var position: ScreenPoint
    /// mm/s on the screen, x to the right and y down, at the release: only `ended`
    /// samples carry it (0 in `began` and `changed`), since only the release uses it
    /// and the fit over the window is not free on every frame.
    public var velocityX: Double
    public var velocityY: Double
    /// The kernel timestamp of the frame.
    public var time: Timestamp
    /// The device's scan interval as its frames so far show it (``ScanInterval``), in
    /// microseconds; 0 when unknown (a sample not from a device), and then the arbiter
    /// takes the reports' times as the finger's.
    public var scanInterval: Int64

    public init(
        position: ScreenPoint, velocityX: Double = 0, velocityY: Double = 0, time: Timestamp, scanInterval: Int64 = 0
    ) {
        self.position = position
        self.velocityX = velocityX
        self.velocityY = velocityY
        self.time = time
        self.scanInterval = scanInterval
    }
}

/// Why a pan stopped without a release, or never began.
public enum PanCancelReason: String, Sendable, Hashable {
    /// Another finger landed (UIKit's `maximumNumberOfTouches = 1`), or more fingers
    /// than the pan takes landed in one frame.
    case extraFinger = "extra-finger"
    /// The pan's finger turned out to be a palm (`MT_TOOL_PALM` or a large touch) or
    /// another tool that is not a finger.
    case palm
    /// Events were lost (`SYN_DROPPED`); what happened in between is unknown.
    case eventsDropped = "events-dropped"
    /// The device went away.
    case deviceRemoved = "device-removed"
    /// The screen turned under the finger (``GestureEngine/reportRotation``): where the
    /// pan began and where it is now are no longer on the same screen.
    case rotated
}

/// The single-touch pan stream of one device: `began` when one finger lands,
/// `changed` as it moves, then `ended` when it lifts or `cancelled`. Fingers that
/// can never be a pan (too many at once, or down across lost events) give `failed`
/// instead of `began`, as UIKit's recognizers fail.
public enum PanEvent: Sendable, Hashable {
    case began(PanSample)
    case changed(PanSample)
    case ended(PanSample)
    case cancelled(PanCancelReason, time: Timestamp)
    /// No pan began: nothing else follows until every finger has lifted.
    case failed(PanCancelReason, time: Timestamp)

    /// Where the finger is, for a pan still down or just lifted.
    public var position: ScreenPoint? {
        switch self {
        case .began(let sample), .changed(let sample), .ended(let sample): sample.position
        case .cancelled, .failed: nil
        }
    }
}
