import PopGestureProtocol

/// What the wlroots bridge makes of the compositor's events: the window that is
/// activated, and the enabled outputs, each with its transform and physical size. Pure: `WlrootsEvent`s in,
/// `FocusSourceEvent`s out, no Wayland and no clock, so the tests drive it directly.
///
/// Both protocols buffer their changes: a window's `app_id` and `state` apply at its
/// `done`, an output's `name`, `enabled`, `transform` and `physical_size` at the manager's
/// `done`. Only
/// then does the tracker look again, and it reports only what changed.
struct WlrootsTracker {
    private struct Toplevel: Equatable {
        /// The app id, when it is one the protocol takes (1 to 256 bytes); else unknown.
        var app: String?
        var activated = false
        /// When it was last activated, by a count of `done`s: the latest wins when a
        /// compositor with several seats activates more than one.
        var activatedAt = 0
    }

    private struct Head: Equatable {
        /// The output's name (`DSI-1`, `HEADLESS-1`); nil when unknown or past 256 bytes.
        var name: String?
        var enabled = false
        /// A wl_output transform, 0 to 7.
        var transform: Int32 = 0
        /// `physical_size` in millimetres, untransformed; 0 when the compositor does not know.
        var widthMillimetres: Int32 = 0
        var heightMillimetres: Int32 = 0
    }

    private var toplevels: [WaylandObjectID: Toplevel] = [:]
    /// Changes since each window's last `done`.
    private var pendingToplevels: [WaylandObjectID: Toplevel] = [:]
    private var doneCount = 0
    private var heads: [WaylandObjectID: Head] = [:]
    private var pendingHeads: [WaylandObjectID: Head] = [:]
    /// The outputs in the order the compositor announced them, the order they are listed in.
    private var headOrder: [WaylandObjectID] = []
    private var reportedFocus: FocusedWindow?
    private var reportedOutputs: OutputList?
    /// Problems already logged: each kind is logged once per run.
    private var logged: Set<String> = []

    /// The window the compositor says is activated: the most recently activated of those
    /// that say so; none when no window is.
    var focus: FocusedWindow {
        let active = toplevels.values.filter(\.activated).max { $0.activatedAt < $1.activatedAt }
        return active.map { FocusedWindow(app: $0.app, pid: nil) } ?? .none
    }

    /// A wl_output transform as the daemon's `rotation`: the degrees the screen is turned
    /// clockwise, and whether the transform also mirrors. `transform` N × 90° (`90`, …) is
    /// `rotation` N × 90°; the flipped ones (4 to 7) are a mirror and then the same turn.
    /// nil for a value outside 0…7.
    ///
    /// Why 90 is 90: wayland.xml says transform 90 turns the *content* 90° counter-clockwise
    /// on the panel, which is what a panel turned 90° clockwise needs to show it upright;
    /// and Phosh (`src/rotation-manager.c`) and mutter (`meta_orientation_to_transform`)
    /// both set transform 90 for iio-sensor-proxy's `left-up`, the device turned 90°
    /// clockwise. The daemon's `rotation` 90 is that same turn (ScreenTransform: the panel's
    /// top-left corner is then at the top right of what the user sees).
    static func rotation(fromTransform transform: Int32) -> (degrees: Int64, flipped: Bool)? {
        guard (0...7).contains(transform) else { return nil }
        return (Int64(transform % 4) * 90, transform >= 4)
    }

    /// What is odd about an output's transform, as a kind to log once and its line: one
    /// outside 0…7 leaves the output out; a flipped one sends only its turn. nil for a plain
    /// turn. For every bridge whose compositor numbers transforms as wl_output does.
    static func transformProblem(output name: String, transform: Int32) -> (kind: String, line: String)? {
        guard let turn = rotation(fromTransform: transform) else {
            return ("transform", "output \(shown(name)) has transform \(transform), "
                + "which wl_output does not define (0 to 7): it is left out of the outputs")
        }
        guard turn.flipped else { return nil }
        return ("flipped", "output \(shown(name)) is mirrored (transform flipped"
            + (turn.degrees == 0 ? "" : "-\(turn.degrees)") + "): only its rotation, \(turn.degrees)°, is sent; "
            + "popgestured does not mirror touches")
    }

    mutating func handle(_ event: WlrootsEvent) -> [FocusSourceEvent] {
        switch event {
        case .toplevelAppID(let id, let app):
            var toplevel = pendingToplevels[id] ?? toplevels[id] ?? Toplevel()
            toplevel.app = FocusedWindow(app: app, pid: nil).app
            pendingToplevels[id] = toplevel
            if toplevel.app == nil, !app.isEmpty {
                return logOnce(
                    "app-id", "a window's app id is \(app.utf8.count) bytes, past the protocol's "
                        + "\(ProtocolLimits.maximumIdentifierBytes) (\(quoted(app, limit: 64))): its app is sent as unknown")
            }
            return []
        case .toplevelActivated(let id, let activated):
            var toplevel = pendingToplevels[id] ?? toplevels[id] ?? Toplevel()
            toplevel.activated = activated
            pendingToplevels[id] = toplevel
            return []
        case .toplevelDone(let id):
            guard var toplevel = pendingToplevels.removeValue(forKey: id) else { return [] }
            doneCount += 1
            if toplevel.activated, toplevels[id]?.activated != true { toplevel.activatedAt = doneCount }
            toplevels[id] = toplevel
            return reportFocus()
        case .toplevelClosed(let id):
            pendingToplevels[id] = nil
            guard toplevels.removeValue(forKey: id) != nil else { return [] }
            return reportFocus()
        case .toplevelsFinished:
            return [.ended("the compositor stopped listing its windows (zwlr_foreign_toplevel_manager_v1 finished); done")]
        case .headName(let id, let name):
            var head = pendingHead(id)
            head.name = OutputRotation(degrees: 0, output: name)?.output
            setPending(id, head)
            if head.name == nil {
                return logOnce("output-name", "an output's name is \(name.utf8.count) bytes, past "
                    + "\(ProtocolLimits.maximumIdentifierBytes) (\(quoted(name, limit: 64))): it is left out of the outputs")
            }
            return []
        case .headEnabled(let id, let enabled):
            var head = pendingHead(id)
            head.enabled = enabled
            setPending(id, head)
            return []
        case .headTransform(let id, let transform):
            var head = pendingHead(id)
            head.transform = transform
            setPending(id, head)
            return []
        case .headPhysicalSize(let id, let width, let height):
            var head = pendingHead(id)
            (head.widthMillimetres, head.heightMillimetres) = (width, height)
            setPending(id, head)
            return []
        case .headFinished(let id):
            pendingHeads[id] = nil
            heads[id] = nil
            headOrder.removeAll { $0 == id }
            return []
        case .outputsDone:
            for (id, head) in pendingHeads { heads[id] = head }
            pendingHeads = [:]
            return reportOutputs()
        case .outputsFinished:
            return logOnce("outputs-finished", "the compositor stopped listing its outputs: they are no longer followed")
        case .overflow(let what):
            return logOnce("overflow", "\(what): the ones past it are not followed")
        }
    }

    /// At start, once the compositor's first lists are in: the focus even when no window
    /// is activated (so the daemon hears "no window" rather than nothing).
    mutating func settle() -> [FocusSourceEvent] {
        reportedFocus == nil ? reportFocus() : []
    }

    private func pendingHead(_ id: WaylandObjectID) -> Head {
        pendingHeads[id] ?? heads[id] ?? Head()
    }

    /// An output's change until the manager's `done`; a new output takes its place in the
    /// order at its first event (`WaylandDisplay` bounds how many there are).
    private mutating func setPending(_ id: WaylandObjectID, _ head: Head) {
        if heads[id] == nil, pendingHeads[id] == nil, !headOrder.contains(id) { headOrder.append(id) }
        pendingHeads[id] = head
    }

    private mutating func reportFocus() -> [FocusSourceEvent] {
        let now = focus
        guard now != reportedFocus else { return [] }
        reportedFocus = now
        return [.focused(now)]
    }

    /// The enabled outputs with a name, in the compositor's order, when they differ from
    /// the last report. An output whose transform wl_output does not define is left out.
    private mutating func reportOutputs() -> [FocusSourceEvent] {
        var events: [FocusSourceEvent] = []
        var outputs: [ClientRequest.Output] = []
        for head in headOrder.compactMap({ heads[$0] }) where head.enabled {
            guard let name = head.name else { continue }  // logged at its name
            if let problem = Self.transformProblem(output: name, transform: head.transform) {
                events += logOnce(problem.kind, problem.line)
            }
            guard let turn = Self.rotation(fromTransform: head.transform) else { continue }
            // physical_size is 0 × 0 when the compositor does not know; OutputList leaves it out.
            outputs.append(ClientRequest.Output(
                name: name, rotation: turn.degrees, widthMillimetres: Double(head.widthMillimetres),
                heightMillimetres: Double(head.heightMillimetres), isBuiltIn: OutputList.isBuiltIn(name)))
        }
        let list = OutputList(outputs)
        guard list != reportedOutputs else { return events }
        reportedOutputs = list
        return events + [.outputs(list)]
    }

    /// An output's name for a log line: quoted when it holds anything odd.
    private static func shown(_ name: String?) -> String {
        name.map { quotedIfNeeded($0, limit: ProtocolLimits.maximumIdentifierBytes) } ?? "(unnamed)"
    }

    private mutating func logOnce(_ kind: String, _ line: String) -> [FocusSourceEvent] {
        logged.insert(kind).inserted ? [.log(line)] : []
    }
}
