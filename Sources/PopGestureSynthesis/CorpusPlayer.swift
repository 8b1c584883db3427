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

    /// The evdev events of `corpusCase` on this device, as its panel scans it: one frame
    /// per scan, every `frameInterval`, that finds a finger landed, moved or lifted. The
    /// first scan comes ``GestureCorpus/Case/scanPhase`` of an interval after the first
    /// finger lands; a finger is reported at each scan while it is down, where it is then,
    /// and its lift at the first scan after it lifted. A finger that lands between two
    /// scans is first seen, already moving, at the next.
    public func write(_ corpusCase: GestureCorpus.Case) -> TouchScript {
        var script = TouchScript(device: device, frameInterval: frameInterval)
        let start = script.time.microseconds
        let interval = Double(frameInterval.microsecondsRounded) / 1000
        let fingers = corpusCase.fingers
        let mirrored = corpusCase.hand == .right
        // Written offsets so far, per finger (leading-edge mm from where it landed).
        var written = Array(repeating: (dx: 0.0, dy: 0.0), count: fingers.count)
        var phase = Array(repeating: FingerPhase.waiting, count: fingers.count)
        var scan = corpusCase.scanPhase * interval
        while phase.contains(where: { $0 != .lifted }) {
            var landing: [(finger: Int, x: Double, y: Double)] = []
            var moving: [(finger: Int, dx: Double, dy: Double)] = []
            var lifting: [Int] = []
            for (index, f) in fingers.enumerated() {
                let lifted = scan > Double(f.landsAfter + f.holds + f.moves)
                switch phase[index] {
                case .waiting where Double(f.landsAfter) <= scan:
                    phase[index] = lifted ? .lifted : .down  // Lifted before any scan: never seen.
                    guard !lifted else { continue }
                    let now = Self.offset(f, at: scan)
                    written[index] = now
                    let x = f.x + now.dx
                    landing.append((index, (mirrored ? screen.width - x : x) / screen.width, (f.y + now.dy) / screen.height))
                case .down where lifted:
                    phase[index] = .lifted
                    lifting.append(index)
                case .down:
                    let now = Self.offset(f, at: scan)
                    let dx = now.dx - written[index].dx, dy = now.dy - written[index].dy
                    guard dx != 0 || dy != 0 else { continue }
                    written[index] = now
                    moving.append((index, mirrored ? -dx : dx, dy))
                case .waiting, .lifted:
                    continue
                }
            }
            if !landing.isEmpty || !moving.isEmpty || !lifting.isEmpty {
                let time = Timestamp(microseconds: start + Int64((scan * 1000).rounded()))
                script.scan(at: time, landing: landing, moving: moving, lifting: lifting)
            }
            scan += interval
        }
        return script
    }

    /// How many scans find the first finger down: below 2, the panel never saw it move.
    public func scansSeeingFirstFinger(_ corpusCase: GestureCorpus.Case) -> Int {
        guard let f = corpusCase.fingers.first else { return 0 }
        let interval = Double(frameInterval.microsecondsRounded) / 1000
        let phase = corpusCase.scanPhase * interval
        let first = phase + max(0, ((Double(f.landsAfter) - phase) / interval).rounded(.up)) * interval
        let end = Double(f.landsAfter + f.holds + f.moves)
        return first > end ? 0 : Int(((end - first) / interval).rounded(.down)) + 1
    }

    private enum FingerPhase { case waiting, down, lifted }

    /// Offset from the landing point at `time` ms after the case's first finger landed.
    private static func offset(_ f: GestureCorpus.Finger, at time: Double) -> (dx: Double, dy: Double) {
        let local = time - Double(f.landsAfter + f.holds)
        let u = f.moves > 0 ? local / Double(f.moves) : 1
        return f.path.offset(f.profile.fraction(u))
    }
}
