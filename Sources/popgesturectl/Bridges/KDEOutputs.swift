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
    private var reported: OutputList?
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

    /// The enabled outputs with a name, in KWin's order, as the protocol takes them
    /// (`OutputList` keeps the first 16). An output whose transform wl_output does not
    /// define is left out; a size is sent only when KWin knows both sides.
    var outputs: OutputList {
        OutputList(order.compactMap { devices[$0] }.compactMap { device in
            guard device.enabled, let name = device.name,
                  let turn = WlrootsTracker.rotation(fromTransform: device.transform)
            else { return nil }
            let known = device.widthMillimetres > 0 && device.heightMillimetres > 0
            return ClientRequest.Output(
                name: name, rotation: turn.degrees,
                widthMillimetres: known ? Double(device.widthMillimetres) : nil,
                heightMillimetres: known ? Double(device.heightMillimetres) : nil,
                isBuiltIn: OutputList.isBuiltIn(name))
        })
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
            // An unnamed output is left out (its name was logged); a named one's odd transform is logged here.
            guard let name = device.name,
                  let problem = WlrootsTracker.transformProblem(output: name, transform: device.transform)
            else { continue }
            events += logOnce(problem.kind, problem.line)
        }
        if order.compactMap({ devices[$0] }).filter(\.enabled).count > ProtocolLimits.maximumOutputs {
            events += logOnce("too-many", "more than \(ProtocolLimits.maximumOutputs) outputs are enabled: "
                + "only the first \(ProtocolLimits.maximumOutputs) are sent")
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
