import PopGestureCore

/// Plays cases of ``GestureCorpus`` on a device description through the whole engine
/// (touch state, pan recognizer, arbiter, navigation): one client whose navigator
/// ("main": root, detail) is in front, the layout the case's hand reads.
public struct CorpusPlayer: Sendable {
    /// What a case came to.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        case back(CommitReason)
        case cancelled(PopCancelReason)
        case rejected(RejectionReason)
        /// No pan was decided: released before the decision distance.
        case nothing

        public var isBack: Bool {
            if case .back = self { return true }
            return false
        }

        /// Why it did not go back, for the report.
        public var reason: String {
            switch self {
            case .back(let r): "back (\(r.rawValue))"
            case .cancelled(let r): "cancelled: \(r.rawValue)"
            case .rejected(let r): r.rawValue
            case .nothing: "undecided"
            }
        }

        public var description: String { reason }
    }

    public enum PlayerError: Error, CustomStringConvertible {
        /// The corpus writes slots; protocol A needs mtdev and single touch has no second finger.
        case needsSlots(String)

        public var description: String {
            switch self {
            case .needsSlots(let name): "\(name): the corpus needs a protocol B (slots) touchscreen"
            }
        }
    }

    public let device: DeviceDescription
    /// The screen as the engine sees it (no rotation, no calibration): the panel.
    public let screen: PhysicalSize
    /// Default 10 ms: a 100 Hz touchscreen.
    public var frameInterval: Duration = .milliseconds(10)

    public init(device: DeviceDescription) throws(PlayerError) {
        guard device.touchProtocol == .slots, device.slotCount >= 2 else { throw .needsSlots(device.name) }
        self.device = device
        screen = ScreenTransform(device: device).screenSize
    }

    /// Every case generated for this device's screen.
    public var cases: [GestureCorpus.Case] { GestureCorpus.cases(for: screen) }

    /// Plays `corpusCase` with `settings` in `mode`.
    public func play(_ corpusCase: GestureCorpus.Case, settings: GestureSettings, mode: GestureMode) -> Outcome {
        var settings = settings
        settings.mode = mode
        let script = write(corpusCase)
        var engine = GestureEngine(settings: settings)
        engine.defaultLayout = corpusCase.hand.layout
        let start = script.events.first?.time ?? .zero
        let pages = [Page(id: "root"), Page(id: "detail", exclusionZones: corpusCase.exclusion.map { [$0] } ?? [])]
        do {
            try engine.perform(.create(navigator: "main", pages: pages, layout: nil, barFollowsTopPage: true),
                               from: ClientID(1), at: start)
        } catch {
            preconditionFailure("a fresh engine refused a fresh navigator: \(error)")
        }
        engine.drainEvents { _ in }
        let id = engine.addDevice(device, configuration: DeviceConfiguration(kind: .touchscreen))
        var outcome = Outcome.nothing
        for event in script.events {
            engine.handle(event, from: id)
            engine.drainEvents { event in
                switch event {
                case .popFinished(_, let reason, _): outcome = .back(reason)
                case .popCancelled(_, let reason, _): outcome = .cancelled(reason)
                case .rejected(let reason, _, _): if !outcome.isBack { outcome = .rejected(reason) }
                default: break
                }
            }
        }
        return outcome
    }

    /// The evdev events of `corpusCase` on this device: one frame per `frameInterval`
    /// while any finger moves, each finger lifting one frame after the last movement.
    public func write(_ corpusCase: GestureCorpus.Case) -> TouchScript {
        var script = TouchScript(device: device, frameInterval: frameInterval)
        let frame = Int(frameInterval.microsecondsRounded / 1000)
        let fingers = corpusCase.fingers
        let mirrored = corpusCase.hand == .right
        // Written offsets so far, per finger (leading-edge mm from where it landed).
        var written = Array(repeating: (dx: 0.0, dy: 0.0), count: fingers.count)
        let end = fingers.map { $0.landsAfter + $0.holds + $0.moves }.max() ?? 0

        func land(_ index: Int) {
            let f = fingers[index]
            let x = mirrored ? screen.width - f.x : f.x
            script.down(index, at: x / screen.width, f.y / screen.height)
        }
        for index in fingers.indices where fingers[index].landsAfter == 0 { land(index) }
        var t = 0
        while t < end {
            t += frame
            var moves: [(finger: Int, dx: Double, dy: Double)] = []
            for (index, f) in fingers.enumerated() where f.landsAfter < t {
                let local = t - f.landsAfter - f.holds
                guard local > 0 else { continue }
                let u = f.moves > 0 ? Double(local) / Double(f.moves) : 1
                let now = f.path.offset(f.profile.fraction(u))
                let dx = now.dx - written[index].dx, dy = now.dy - written[index].dy
                guard dx != 0 || dy != 0 else { continue }
                written[index] = now
                moves.append((index, mirrored ? -dx : dx, dy))
            }
            let landing = fingers.indices.filter { fingers[$0].landsAfter > t - frame && fingers[$0].landsAfter <= t }
            if moves.isEmpty { script.rest(frameInterval) } else { script.step(moves) }
            for index in landing { land(index) }
        }
        for index in fingers.indices { script.up(index) }
        return script
    }
}
