import PopGestureCore

/// The engine plus what each device needs before its events reach it: protocol A
/// devices go through mtdev. The daemon's readers and `replay` both feed events here.
public struct EngineFeed {
    public var engine: GestureEngine
    private var converters: [Int: ProtocolAConverter] = [:]

    public init(engine: GestureEngine) {
        self.engine = engine
    }

    /// Adds a device, converting protocol A to slots when needed.
    public mutating func addDevice(
        _ description: DeviceDescription, configuration: DeviceConfiguration = .init()
    ) throws(InputError) -> DeviceID {
        guard description.touchProtocol == .anonymousContacts else {
            return engine.addDevice(description, configuration: configuration)
        }
        let converter = try ProtocolAConverter(device: description)
        let id = engine.addDevice(converter.convertedDescription, configuration: configuration)
        converters[id.rawValue] = converter
        return id
    }

    public mutating func removeDevice(_ id: DeviceID, at time: Timestamp) {
        converters[id.rawValue] = nil
        engine.removeDevice(id, at: time)
    }

    /// Feeds one event as the device sent it.
    public mutating func handle(_ event: InputEvent, from id: DeviceID) {
        guard let converter = converters[id.rawValue] else {
            engine.handle(event, from: id)
            return
        }
        converter.convert(event) { engine.handle($0, from: id) }
    }
}
