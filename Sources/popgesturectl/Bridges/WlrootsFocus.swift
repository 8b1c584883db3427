import PopGestureProtocol

/// What the wlroots bridge makes of the compositor's events: the window that is
/// activated, and how the output that touch maps to is turned. Pure: `WlrootsEvent`s in,
/// `FocusSourceEvent`s out, no Wayland and no clock, so the tests drive it directly.
///
/// Both protocols buffer their changes: a window's `app_id` and `state` apply at its
/// `done`, an output's `name`, `enabled` and `transform` at the manager's `done`. Only
/// then does the tracker look again, and it reports only what changed.
struct WlrootsTracker {
    /// The output names of a built-in panel, by prefix (the kernel's connector names
    /// `eDP-1`, `DSI-1`, `LVDS-1`): the touchscreen of a tablet or a phone is on it.
    static let builtInPrefixes = ["eDP", "DSI", "LVDS"]

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
    }

    private var toplevels: [WaylandObjectID: Toplevel] = [:]
    /// Changes since each window's last `done`.
    private var pendingToplevels: [WaylandObjectID: Toplevel] = [:]
    private var doneCount = 0
    private var heads: [WaylandObjectID: Head] = [:]
    private var pendingHeads: [WaylandObjectID: Head] = [:]
    /// The outputs in the order the compositor announced them: "the first" output.
    private var headOrder: [WaylandObjectID] = []
    private var reportedFocus: FocusedWindow?
    private var reportedRotation: OutputRotation?
    /// Problems already logged: each kind is logged once per run.
    private var logged: Set<String> = []

    /// The window the compositor says is activated: the most recently activated of those
    /// that say so; none when no window is.
    var focus: FocusedWindow {
        let active = toplevels.values.filter(\.activated).max { $0.activatedAt < $1.activatedAt }
        return active.map { FocusedWindow(app: $0.app, pid: nil) } ?? .none
    }

    /// The output touch maps to, by this rule: the first enabled built-in panel (a name
    /// starting with one of `builtInPrefixes`), else the first enabled output, in the order
    /// the compositor announced them; nil when no output is enabled.
    var touchOutput: (name: String?, transform: Int32)? {
        let enabled = headOrder.compactMap { heads[$0] }.filter(\.enabled)
        let builtIn = enabled.first { head in Self.builtInPrefixes.contains { head.name?.hasPrefix($0) == true } }
        return (builtIn ?? enabled.first).map { ($0.name, $0.transform) }
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
                    + "\(ProtocolLimits.maximumIdentifierBytes) (\(quoted(name, limit: 64))): it is sent as unnamed")
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
        case .headFinished(let id):
            pendingHeads[id] = nil
            heads[id] = nil
            headOrder.removeAll { $0 == id }
            return []
        case .outputsDone:
            for (id, head) in pendingHeads { heads[id] = head }
            pendingHeads = [:]
            return reportRotation()
        case .outputsFinished:
            return logOnce("outputs-finished", "the compositor stopped listing its outputs: the rotation is no longer followed")
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

    private mutating func reportRotation() -> [FocusSourceEvent] {
        guard let output = touchOutput else { return [] }
        guard let turn = Self.rotation(fromTransform: output.transform),
              let rotation = OutputRotation(degrees: turn.degrees, output: output.name)
        else {
            return logOnce("transform", "output \(Self.shown(output.name)) has transform \(output.transform), "
                + "which wl_output does not define (0 to 7): its rotation is not sent")
        }
        var events: [FocusSourceEvent] = []
        if turn.flipped {
            events += logOnce("flipped", "output \(Self.shown(rotation.output)) is mirrored (transform flipped"
                + (turn.degrees == 0 ? "" : "-\(turn.degrees)") + "): only its rotation, \(turn.degrees)°, is sent; "
                + "popgestured does not mirror touches")
        }
        guard rotation != reportedRotation else { return events }
        reportedRotation = rotation
        return events + [.rotated(rotation)]
    }

    /// An output's name for a log line: quoted when it holds anything odd.
    private static func shown(_ name: String?) -> String {
        name.map { quotedIfNeeded($0, limit: ProtocolLimits.maximumIdentifierBytes) } ?? "(unnamed)"
    }

    private mutating func logOnce(_ kind: String, _ line: String) -> [FocusSourceEvent] {
        logged.insert(kind).inserted ? [.log(line)] : []
    }
}
