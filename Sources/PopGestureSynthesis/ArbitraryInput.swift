import PopGestureCore

/// A device description and an event stream decoded from arbitrary bytes, for the
/// engine's fuzz target (`Fuzz/Sources/FuzzEngine`) and its regression tests. Every
/// byte string decodes to something: short input gives defaults, never an error.
///
/// The first bytes describe the device: its protocol (slots, protocol A, single touch),
/// its kind, its axes with their ranges and resolutions (often extreme: ±2³¹, empty,
/// inverted) and the slot count. The rest are events of 6 bytes each, biased toward
/// the codes the engine reads, with values, codes and timestamps that may be anything
/// a device could send, out-of-range codes and clocks running backwards included.
public struct ArbitraryInput: Sendable {
    public var device: DeviceDescription
    public var events: [InputEvent]

    /// The size of one encoded event.
    public static let bytesPerEvent = 6

    public init(_ bytes: some Collection<UInt8>) {
        var reader = Reader(Array(bytes))
        device = Self.device(&reader)
        events = Self.events(&reader)
    }

    // MARK: - Device

    private static func device(_ r: inout Reader) -> DeviceDescription {
        let shape = r.byte()
        var device = DeviceDescription(name: "fuzz", eventTypes: [EV.syn, EV.key, EV.abs])
        if shape & 0x04 != 0 { device.properties.insert(InputProperty.direct) }
        if shape & 0x08 != 0 { device.keys.formUnion([BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap]) }
        if shape & 0x10 != 0 { device.keys.insert(BTN.touch) }
        if shape & 0x20 != 0 { device.properties.insert(InputProperty.pointer) }
        let x = axis(&r), y = axis(&r)
        switch shape & 0x03 {
        case 0:  // protocol B
            device.axes[ABS.mtPositionX] = x
            device.axes[ABS.mtPositionY] = y
            device.axes[ABS.mtTrackingID] = AbsoluteAxis(minimum: 0, maximum: 65535)
            device.axes[ABS.mtSlot] = slotAxis(&r)
        case 1:  // protocol A
            device.axes[ABS.mtPositionX] = x
            device.axes[ABS.mtPositionY] = y
        default:  // single touch
            device.axes[ABS.x] = x
            device.axes[ABS.y] = y
        }
        if shape & 0x40 != 0 { device.axes[ABS.mtTouchMajor] = axis(&r) }
        if shape & 0x80 != 0 {
            // One more axis with any code, ABS_MAX and beyond included.
            device.axes[UInt16(r.byte())] = axis(&r)
        }
        return device
    }

    /// Interesting ends of Int32 more often than uniform values would give them.
    private static func int32(_ r: inout Reader) -> Int32 {
        let pick = r.byte()
        switch pick {
        case 0: return .min
        case 1: return .max
        case 2: return 0
        case 3: return -1
        case 4...127: return Int32(pick) * 64
        default: return r.int32()
        }
    }

    private static func axis(_ r: inout Reader) -> AbsoluteAxis {
        let minimum = int32(&r), maximum = int32(&r)
        let resolution = r.byte()
        return AbsoluteAxis(
            minimum: minimum, maximum: maximum,
            resolution: resolution < 128 ? Int32(resolution) : resolution == 255 ? .max : -Int32(resolution))
    }

    private static func slotAxis(_ r: inout Reader) -> AbsoluteAxis {
        let pick = r.byte()
        switch pick {
        case 0: return AbsoluteAxis(minimum: 0, maximum: .max)
        case 1: return AbsoluteAxis(minimum: 5, maximum: 2)
        case 2: return AbsoluteAxis(minimum: -1, maximum: 9)
        default: return AbsoluteAxis(minimum: 0, maximum: Int32(pick % 80))
        }
    }

    // MARK: - Events

    private static let keyCodes: [UInt16] = [
        BTN.touch, BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap, BTN.toolQuintTap,
        BTN.left, BTN.toolPen,
    ]
    private static let absCodes: [UInt16] = [
        ABS.x, ABS.y, ABS.mtSlot, ABS.mtPositionX, ABS.mtPositionY, ABS.mtTrackingID, ABS.mtTouchMajor,
        ABS.mtToolType, ABS.mtPressure,
    ]

    private static func events(_ r: inout Reader) -> [InputEvent] {
        var events: [InputEvent] = []
        events.reserveCapacity(r.remaining / bytesPerEvent)
        var time: Int64 = 1_000_000
        while r.remaining >= bytesPerEvent {
            let kind = r.byte(), selector = r.byte()
            let raw = r.int32()
            // Small values mostly: positions, slots and ids that can meet; any value sometimes.
            let value = kind & 0x80 != 0 ? raw : Int32(Int16(truncatingIfNeeded: raw))
            if kind & 0x60 == 0x60 {
                // The clock jumps: to either end of Int64, back a second, or anywhere.
                switch selector & 0x03 {
                case 0: time = .max - Int64(raw & 0xffff)
                case 1: time = .min + Int64(raw & 0xffff)
                case 2: time = time.saturatingSubtracting(1_000_000)
                default: time = Int64(raw) << 32
                }
            }
            let type: UInt16, code: UInt16
            switch kind & 0x07 {
            case 0, 1:
                type = EV.syn
                code = selector >= 0xf0 ? UInt16(selector) : UInt16(selector % 4)
            case 2:
                type = EV.key
                code = selector >= 0xf0 ? UInt16(selector) << 4 : keyCodes[Int(selector) % keyCodes.count]
            case 3, 4, 5:
                type = EV.abs
                code = selector >= 0xe0 ? UInt16(selector) : absCodes[Int(selector) % absCodes.count]
            case 6:
                type = EV.msc
                code = MSC.timestamp
            default:
                type = UInt16(selector)
                code = UInt16(truncatingIfNeeded: raw >> 16)
            }
            events.append(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value))
            if type == EV.syn && code == SYN.report { time = time.saturatingAdding(10_000) }
        }
        return events
    }

    /// Reads bytes in order; past the end, zeros.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var remaining: Int { bytes.count - offset }

        mutating func byte() -> UInt8 {
            guard offset < bytes.count else { return 0 }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func int32() -> Int32 {
            var value: UInt32 = 0
            for shift in stride(from: 0, to: 32, by: 8) { value |= UInt32(byte()) << UInt32(shift) }
            return Int32(bitPattern: value)
        }
    }
}
