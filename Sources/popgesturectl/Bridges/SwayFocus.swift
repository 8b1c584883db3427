import PopGestureProtocol

/// What sway's messages mean for focus (sway-ipc(7)); pure, so each rule is tested
/// on sway's own JSON without sway. The only state is the focused window's container id.
///
/// - The `GET_TREE` reply: the node with `"focused":true`; a view (it has a `pid`) is
///   the focused window, anything else (a workspace, an output) means none.
/// - `window` events: `focus` names the focused view. `close` of the focused view
///   means none, until the `focus` event for the next one (sway sends none when the
///   workspace is left empty). Any other change of the focused view (`title`…)
///   reports it again, in case its app id changed.
/// - `workspace` events: `focus` onto an empty workspace means none; onto a non-empty
///   one, a `window` `focus` event follows, or the tree in `current` names the view.
/// - The `shutdown` event: sway is exiting.
struct SwayFocusTracker {
    /// The focused view's container id, as far as sway has said.
    private(set) var container: Int64?

    enum Outcome: Equatable {
        case focused(FocusedWindow)
        /// Nothing for focus in this message.
        case nothing
        case shutdown
    }

    /// What `message` means. Throws `bad-json` for a payload that is not JSON within
    /// `SwayIPC.maximumNestingDepth`, `unexpected` for a refused subscription or a tree
    /// that is not an object; a field missing from an event is ignored, as a newer
    /// sway might.
    mutating func handle(_ message: SwayMessage) throws(SwayIPCError) -> Outcome {
        let payload: JSONValue
        do {
            payload = try JSONParser.parse(message.payload, maximumDepth: SwayIPC.maximumNestingDepth)
        } catch {
            throw SwayIPCError(.badJSON, "sway sent a message that is not JSON: \(error)")
        }
        switch SwayIPC.MessageType(rawValue: message.type) {
        case .subscribe:
            guard payload["success"]?.bool == true else {
                throw SwayIPCError(.unexpected, "sway refused the subscription to window and workspace events: \(quoted(payload.text))")
            }
            return .nothing
        case .getTree:
            guard payload.object != nil else {
                throw SwayIPCError(.unexpected, "sway's tree is \(payload.kind), not an object")
            }
            return focus(onto: Self.focusedNode(in: payload) ?? .null)
        case .windowEvent:
            return windowEvent(payload)
        case .workspaceEvent:
            return workspaceEvent(payload)
        case .shutdownEvent:
            return .shutdown
        case .getOutputs, .getConfig, .getInputs, .outputEvent, .inputEvent, nil:
            return .nothing  // `SwayOutputTracker`'s and `SwayTouchpadScrolling`'s
        }
    }

    private mutating func windowEvent(_ payload: JSONValue) -> Outcome {
        guard let view = payload["container"], let id = view["id"]?.integer else { return .nothing }
        switch payload["change"]?.string {
        case "focus":
            return focus(onto: view)
        case "close":
            guard id == container else { return .nothing }
            return focus(onto: .null)
        default:
            guard id == container || view["focused"]?.bool == true else { return .nothing }
            return focus(onto: view)
        }
    }

    private mutating func workspaceEvent(_ payload: JSONValue) -> Outcome {
        guard payload["change"]?.string == "focus", let workspace = payload["current"] else { return .nothing }
        if let node = Self.focusedNode(in: workspace) { return focus(onto: node) }
        let empty = (workspace["nodes"]?.array ?? []).isEmpty && (workspace["floating_nodes"]?.array ?? []).isEmpty
        return empty ? focus(onto: .null) : .nothing
    }

    /// `node` has focus now: a view is the focused window; anything else means none.
    private mutating func focus(onto node: JSONValue) -> Outcome {
        guard Self.isView(node), let id = node["id"]?.integer else {
            container = nil
            return .focused(.none)
        }
        container = id
        // Xwayland windows have no app_id; their WM_CLASS class stands in.
        let appID = node["app_id"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        return .focused(FocusedWindow(app: appID ?? node["window_properties"]?["class"]?.string, pid: node["pid"]?.integer))
    }

    /// Only views carry `pid` (and `shell`); containers, workspaces and outputs do not.
    static func isView(_ node: JSONValue) -> Bool {
        node["pid"] != nil || node["shell"] != nil
    }

    /// The node with `"focused":true` under `node` (itself included), through `nodes`
    /// and `floating_nodes`. The recursion is as deep as the JSON, which the parser bounds.
    static func focusedNode(in node: JSONValue) -> JSONValue? {
        if node["focused"]?.bool == true { return node }
        for key in ["nodes", "floating_nodes"] {
            for child in node[key]?.array ?? [] {
                if let found = focusedNode(in: child) { return found }
            }
        }
        return nil
    }
}
