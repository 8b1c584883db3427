/// One ``TouchpadBridge`` per seat: each seat's back swipes play on that seat's virtual
/// touchpad with fingers of their own, so that two seats' swipes never mix into one
/// touch. Events go to the bridge of the seat they name; the deadline is the earliest
/// of any seat's.
public struct TouchpadBridges: Sendable {
    public private(set) var bridges: [Seat: TouchpadBridge] = [:]

    public init() {}

    /// The seat an engine event of the back input's swipe is about; nil for the others.
    public static func seat(of event: EngineEvent) -> Seat? {
        switch event {
        case .inputBegan(_, let seat, _, _), .inputProgress(_, _, let seat, _, _, _), .backInput(_, _, let seat, _, _),
             .inputCancelled(_, let seat, _, _):
            seat
        default:
            nil
        }
    }

    /// Feeds one engine event to its seat's bridge (``TouchpadBridge/handle(_:at:)``).
    public mutating func handle(_ event: EngineEvent, at now: Timestamp) -> TouchpadBridge.Output? {
        guard let seat = Self.seat(of: event) else { return nil }
        // A seat's bridge is made by its first swipe; an end for a seat without one is no swipe of its.
        if bridges[seat] == nil {
            switch event {
            case .inputBegan, .inputProgress: bridges[seat] = TouchpadBridge()
            default: break
            }
        }
        return bridges[seat]?.handle(event, at: now)
    }

    /// The earliest deadline of any seat's bridge.
    public var deadline: Timestamp? { bridges.values.compactMap(\.deadline).min() }

    /// Every bridge whose deadline passed by `now` plays its next frame, seats in order.
    public mutating func expire(at now: Timestamp) -> [TouchpadBridge.Output] {
        var outputs: [TouchpadBridge.Output] = []
        for seat in bridges.keys.sorted() {
            guard let due = bridges[seat]?.deadline, due <= now, let output = bridges[seat]?.expire(at: now) else { continue }
            outputs.append(output)
        }
        return outputs
    }

    /// `seat`'s touchpad wrote its last output by `time` (``TouchpadBridge/played(at:)``).
    public mutating func played(on seat: Seat, at time: Timestamp) {
        bridges[seat]?.played(at: time)
    }

    /// Lifts every seat's fingers where they are (``TouchpadBridge/abandon()``).
    public mutating func abandonAll() -> [TouchpadBridge.Output] {
        bridges.keys.sorted().compactMap { bridges[$0]?.abandon() }
    }

    /// Lifts `seat`'s fingers where they are: its touchpad failed.
    public mutating func abandon(on seat: Seat) -> TouchpadBridge.Output? {
        bridges[seat]?.abandon()
    }
}
