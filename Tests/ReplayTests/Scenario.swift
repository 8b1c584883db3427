import PopGestureProtocol
import PopGestureCore
import PopGestureInput
import PopGestureSynthesis

/// A client with one navigator in front, one device, and a scripted gesture:
/// the scenario tests read like the gesture they describe.
struct Scenario {
    static let client = ClientID(7)

    var device: DeviceDescription
    var rotation: Rotation = .none
    /// The rotation the gesture is written in; nil is the engine's `rotation`.
    var scriptRotation: Rotation? = nil
    var calibration: CalibrationMatrix = .identity
    /// The calibration the gesture is written in; nil is the engine's `calibration`.
    var scriptCalibration: CalibrationMatrix? = nil
    var settings = GestureSettings()
    var layout: LayoutDirection = .leftToRight
    var pages = [Page(id: "root"), Page(id: "detail")]
    /// Run against the engine before the gesture, e.g. an animated push.
    var setup: (inout GestureEngine, Timestamp) throws -> Void = { _, _ in }
    /// Run against the engine after each event, e.g. a client popping mid-swipe.
    var duringGesture: ((inout GestureEngine, InputEvent) throws -> Void)? = nil

    init(on device: DeviceDescription) { self.device = device }

    /// How the gesture, written in screen terms, lands on the panel: the tests'
    /// own reference (``ScreenReference``), not the engine's transform.
    var reference: ScreenReference {
        ScreenReference(
            panel: ScreenTransform(device: device).deviceSize, rotation: scriptRotation ?? rotation,
            calibration: scriptCalibration ?? calibration)
    }

    /// The screen's width in millimetres, by the reference.
    var screenWidth: Double { reference.screenSize.width }

    /// Plays `gesture` and returns everything the engine produced (owner and observer events).
    func play(_ gesture: (inout ScreenGesture) -> Void) throws -> [EngineEvent] {
        var finger = ScreenGesture(script: TouchScript(device: device), reference: reference)
        let start = finger.script.time
        gesture(&finger)
        let script = finger.script

        var engine = GestureEngine(settings: settings)
        engine.defaultLayout = layout
        try engine.perform(.create(navigator: "main", pages: pages, layout: nil, barFollowsTopPage: true),
                           from: Self.client, at: start)
        try setup(&engine, start)
        engine.drainEvents { _ in }

        var feed = EngineFeed(engine: engine)
        let id = try feed.addDevice(
            device, configuration: DeviceConfiguration(rotation: rotation, calibration: calibration))
        var events: [EngineEvent] = []
        for event in script.events {
            feed.handle(event, from: id)
            if let duringGesture { try duringGesture(&feed.engine, event) }
            feed.engine.drainEvents { events.append($0) }
        }
        return events
    }
}

/// What a gesture came to, for assertions that read as the outcome.
enum Outcome: Equatable, CustomStringConvertible {
    case back(popped: String, top: String, by: CommitReason)
    case cancelled(PopCancelReason)
    case rejected(RejectionReason)
    case nothing

    init(_ events: [EngineEvent]) {
        self = .nothing
        for event in events {
            switch event {
            case .rejected(let reason, _, _): self = .rejected(reason)
            case .popCancelled(_, let reason, _): self = .cancelled(reason)
            case .popFinished(_, let reason, _):
                if case .back(_, _, let popped, let top, _)? = events.first(where: {
                    if case .back = $0 { return true } else { return false }
                }) {
                    self = .back(popped: popped, top: top, by: reason)
                }
            default: break
            }
        }
    }

    var description: String {
        switch self {
        case .back(let popped, let top, let by): "back(\(popped) → \(top), \(by.rawValue))"
        case .cancelled(let r): "cancelled(\(r.rawValue))"
        case .rejected(let r): "rejected(\(r.rawValue))"
        case .nothing: "nothing"
        }
    }
}

extension Array where Element == EngineEvent {
    var outcome: Outcome { Outcome(self) }

    /// The event types in order, with runs of progress collapsed: what a client's log would show.
    var kinds: [String] {
        var out: [String] = []
        for event in self {
            let kind = ServerEvent(event).kind.rawValue
            if kind == "pop-progress" && out.last == kind { continue }
            out.append(kind)
        }
        return out
    }

    var progressValues: [Double] {
        compactMap {
            switch $0 {
            case .popBegan(_, let p, _), .popProgress(_, let p, _): p
            default: nil
            }
        }
    }
}
