import PopGestureCore
import PopGestureProtocol

/// What the KDE bridge makes of KWin's output devices: the enabled outputs, each with its
/// name, rotation and physical size. Pure: `KDEOutputEvent`s in, `FocusSourceEvent`s out,
/// no Wayland and no clock, so the tests drive it directly.
///
/// kde-output-device-v2 buffers each device's changes until that device's `done`; only
/// then does the tracker look again, and it reports the list only when it changed.
struct KDEOutputTracker {
    private struct Device: Equatable {
        /// The connector's name (`eDP-1`, `Virtual-0`); nil until named, or past 256 bytes.
        var name: String?
        var enabled = false
        /// kde_output_device_v2's transform, numbered as wl_output's: 0 to 7.
        var transform: Int32 = 0
        /// The physical size in millimetres, untransformed; 0 or less when KWin does not
        /// know (5.27's virtual outputs say -1 × -1).
        var widthMillimetres: Int32 = 0
        var heightMillimetres: Int32 = 0
    }

    private var devices: [WaylandObjectID: Device] = [:]
    /// Changes since each device's last `done`.
    private var pending: [WaylandObjectID: Device] = [:]
    /// The devices in the order KWin announced them, the order they are listed in.
    private var order: [WaylandObjectID] = []
    private var reported: [OutputReport]?
    /// Problems already logged: each kind is logged once per run.
    private var logged: Set<String> = []

    mutating func handle(_ event: KDEOutputEvent) -> [FocusSourceEvent] {
        switch event {
        case .geometry(let id, let width, let height, let transform):
            var device = pendingDevice(id)
            (device.widthMillimetres, device.heightMillimetres, device.transform) = (width, height, transform)
            setPending(id, device)
            return []
        case .name(let id, let name):
            var device = pendingDevice(id)
            device.name = (1...ProtocolLimits.maximumIdentifierBytes).contains(name.utf8.count) ? name : nil
            setPending(id, device)
            if device.name == nil {
                return logOnce("output-name", "an output's name is \(name.utf8.count) bytes, not 1 to "
                    + "\(ProtocolLimits.maximumIdentifierBytes) (\(quoted(name, limit: 64))): it is left out of the outputs")
            }
            return []
        case .enabled(let id, let enabled):
            var device = pendingDevice(id)
            device.enabled = enabled
            setPending(id, device)
            return []
        case .done(let id):
            guard let device = pending.removeValue(forKey: id) else { return [] }
            devices[id] = device
            return report()
        case .removed(let id):
            pending[id] = nil
            order.removeAll { $0 == id }
            guard devices.removeValue(forKey: id) != nil else { return [] }
            return report()
        case .overflow(let what):
            return logOnce("overflow", "\(what): the ones past it are not followed")
        }
    }

    /// The enabled outputs with a name, in KWin's order, at most `OutputReport.maximumOutputs`.
    /// An output whose transform wl_output does not define is left out.
    var outputs: [OutputReport] {
        let listed = order.compactMap { devices[$0] }.compactMap { device -> OutputReport? in
            guard device.enabled, let name = device.name,
                  let turn = WlrootsTracker.rotation(fromTransform: device.transform),
                  let rotation = Rotation(degrees: Int(turn.degrees))
            else { return nil }
            return OutputReport(
                name: name, rotation: rotation,
                size: Self.size(width: device.widthMillimetres, height: device.heightMillimetres),
                isBuiltIn: WlrootsTracker.builtInPrefixes.contains { name.hasPrefix($0) })
        }
        return Array(listed.prefix(OutputReport.maximumOutputs))
    }

    /// A physical size KWin gave, in millimetres: nil when either side is not above 0 (KWin
    /// does not know: a projector, a virtual output) or past `OutputReport.maximumSideMillimetres`.
    static func size(width: Int32, height: Int32) -> PhysicalSize? {
        let sides = (1...OutputReport.maximumSideMillimetres)
        guard sides.contains(Double(width)), sides.contains(Double(height)) else { return nil }
        return PhysicalSize(width: Double(width), height: Double(height))
    }

    private func pendingDevice(_ id: WaylandObjectID) -> Device {
        pending[id] ?? devices[id] ?? Device()
    }

    /// A device's change until its `done`; a new device takes its place in the order at its
    /// first event (`KDEOutputDevices` bounds how many there are).
    private mutating func setPending(_ id: WaylandObjectID, _ device: Device) {
        if !order.contains(id) { order.append(id) }
        pending[id] = device
    }

    private mutating func report() -> [FocusSourceEvent] {
        var events: [FocusSourceEvent] = []
        for device in order.compactMap({ devices[$0] }) where device.enabled {
            let shown = device.name.map { quotedIfNeeded($0, limit: ProtocolLimits.maximumIdentifierBytes) } ?? "(unnamed)"
            guard let turn = WlrootsTracker.rotation(fromTransform: device.transform) else {
                events += logOnce("transform", "output \(shown) has transform \(device.transform), which "
                    + "wl_output does not define (0 to 7): it is left out of the outputs")
                continue
            }
            if turn.flipped {
                events += logOnce("flipped", "output \(shown) is mirrored (transform flipped"
                    + (turn.degrees == 0 ? "" : "-\(turn.degrees)") + "): only its rotation, \(turn.degrees)°, is sent; "
                    + "popgestured does not mirror touches")
            }
        }
        if order.compactMap({ devices[$0] }).filter(\.enabled).count > OutputReport.maximumOutputs {
            events += logOnce("too-many", "more than \(OutputReport.maximumOutputs) outputs are enabled: "
                + "only the first \(OutputReport.maximumOutputs) are sent")
        }
        let now = outputs
        guard now != reported else { return events }
        reported = now
        return events + [.outputs(now)]
    }

    private mutating func logOnce(_ kind: String, _ line: String) -> [FocusSourceEvent] {
        logged.insert(kind).inserted ? [.log(line)] : []
    }
}

/// `Virtual-0 90° 344×193 mm, eDP-1 0° built-in`, for `--verbose`; `no enabled output`.
func describeOutputs(_ outputs: [OutputReport]) -> String {
    guard !outputs.isEmpty else { return "no enabled output" }
    return outputs.map { output in
        var text = quotedIfNeeded(output.name, limit: ProtocolLimits.maximumIdentifierBytes) + " \(output.rotation.rawValue)°"
        if let size = output.size { text += " \(Int(size.width))×\(Int(size.height)) mm" }
        if output.isBuiltIn { text += " built-in" }
        return text
    }.joined(separator: ", ")
}
