import PopGestureCore

/// The engine plus what each device needs before its events reach it: the checks at
/// the edge where a device's description and events enter, and mtdev for protocol A.
/// The daemon's readers and `replay` both feed events here, so both get the same checks:
///
/// - a description that fails ``DeviceDescription/validate()`` is refused
///   (`InputError` `invalid-description`), for the caller to log and skip;
/// - a frame of more than ``GestureEngine/maximumFrameEvents`` events is cut there and
///   treated like `SYN_DROPPED` (``GestureEngine/dropFrame(from:at:)``);
/// - protocol A events go to mtdev only when it can take them (``ProtocolAConverter``).
public struct EngineFeed {
    public var engine: GestureEngine
    /// Indexed by `DeviceID.rawValue`, like the engine's own devices.
    private var inputs: ContiguousArray<DeviceInput?> = []

    private struct DeviceInput {
        var converter: ProtocolAConverter?
        /// Events since the last `SYN_REPORT`.
        var frameEvents = 0
        /// The frame grew too long: its events are dropped until its `SYN_REPORT`.
        var droppingFrame = false
    }

    public init(engine: GestureEngine) {
        self.engine = engine
    }

    /// Adds a device, converting protocol A to slots when needed. `state` is what the
    /// kernel held at open (``EvdevDevice/stateAtOpen``; nil for a recording): contacts
    /// down then never start a pan. Throws, adding nothing, when the description is
    /// refused or mtdev cannot be set up.
    public mutating func addDevice(
        _ description: DeviceDescription, configuration: DeviceConfiguration = .init(),
        atOpen state: DeviceStateAtOpen? = nil
    ) throws(InputError) -> DeviceID {
        do {
            try description.validate()
        } catch {
            throw InputError(.invalidDescription, "\(description.name): refused: \(error.message)")
        }
        var input = DeviceInput()
        let id: DeviceID
        if description.touchProtocol == .anonymousContacts {
            let converter = try ProtocolAConverter(device: description)
            id = engine.addDevice(
                converter.convertedDescription, configuration: configuration,
                atOpen: state.map(ProtocolAConverter.convertedState))
            input.converter = converter
        } else {
            id = engine.addDevice(description, configuration: configuration, atOpen: state)
        }
        while inputs.count <= id.rawValue { inputs.append(nil) }
        inputs[id.rawValue] = input
        return id
    }

    public mutating func removeDevice(_ id: DeviceID, at time: Timestamp) {
        if inputs.indices.contains(id.rawValue) { inputs[id.rawValue] = nil }
        engine.removeDevice(id, at: time)
    }

    /// Feeds one event as the device sent it.
    public mutating func handle(_ event: InputEvent, from id: DeviceID) {
        let index = id.rawValue
        guard inputs.indices.contains(index), inputs[index] != nil else { return }
        if event.isFrameEnd {
            if inputs[index]!.droppingFrame { engine.dropFrame(from: id, at: event.time) }
            inputs[index]!.frameEvents = 0
            inputs[index]!.droppingFrame = false
        } else {
            if inputs[index]!.droppingFrame { return }
            inputs[index]!.frameEvents += 1
            if inputs[index]!.frameEvents > GestureEngine.maximumFrameEvents {
                inputs[index]!.droppingFrame = true
                return
            }
        }
        guard let converter = inputs[index]!.converter else {
            engine.handle(event, from: id)
            return
        }
        converter.convert(event) { engine.handle($0, from: id) }
    }
}
