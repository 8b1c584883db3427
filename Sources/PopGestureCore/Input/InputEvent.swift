/// A point in time on the kernel's clock, in microseconds.
///
/// Every timestamp in the core comes from an event (the kernel's `input_event.time`
/// or a recording); the core never reads a clock. A device or a file can send any
/// value, so every operation here saturates at `Int64.min`/`Int64.max` instead of
/// trapping: a nonsense time gives nonsense velocities, never a crash. Time may also
/// go backwards; differences are then negative.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }
    public init(seconds: Int64, microseconds: Int64) {
        self.microseconds = seconds.saturatingMultiplied(by: 1_000_000).saturatingAdding(microseconds)
    }

    public static let zero = Timestamp(microseconds: 0)

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }
    public static func + (a: Timestamp, b: Duration) -> Timestamp {
        Timestamp(microseconds: a.microseconds.saturatingAdding(b.microsecondsRounded))
    }
    /// Microseconds from `b` to `a`, saturated.
    public static func - (a: Timestamp, b: Timestamp) -> Int64 { a.microseconds.saturatingSubtracting(b.microseconds) }

    public var description: String {
        let s = microseconds / 1_000_000, us = abs(Int(microseconds % 1_000_000))
        let sign = microseconds < 0 && s == 0 ? "-" : ""
        return sign + "\(s)." + String(repeating: "0", count: 6 - String(us).count) + String(us)
    }
}

extension Duration {
    /// Whole microseconds, toward zero, clamped to `Int64`: the resolution of evdev timestamps.
    public var microsecondsRounded: Int64 {
        let (seconds, attoseconds) = components
        return seconds.saturatingMultiplied(by: 1_000_000).saturatingAdding(attoseconds / 1_000_000_000_000)
    }
}

extension Int64 {
    /// `self + other`, clamped to `Int64.min...Int64.max`.
    @inline(__always)
    public func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, clamped to `Int64.min...Int64.max`.
    @inline(__always)
    public func saturatingSubtracting(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }

    /// `self * other`, clamped to `Int64.min...Int64.max`.
    @inline(__always)
    public func saturatingMultiplied(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}

/// One evdev event: what `struct input_event` carries, as Swift values.
public struct InputEvent: Hashable, Sendable {
    public var time: Timestamp
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    public var isFrameEnd: Bool { type == EV.syn && code == SYN.report }
}

/// Event types (`linux/input-event-codes.h`).
public enum EV {
    public static let syn: UInt16 = 0x00
    public static let key: UInt16 = 0x01
    public static let rel: UInt16 = 0x02
    public static let abs: UInt16 = 0x03
    public static let msc: UInt16 = 0x04
    public static let max: UInt16 = 0x1f
}

public enum SYN {
    public static let report: UInt16 = 0
    public static let config: UInt16 = 1
    public static let mtReport: UInt16 = 2
    /// The kernel's buffer overflowed: events were lost. See `TouchState` for what follows.
    public static let dropped: UInt16 = 3
}

public enum BTN {
    public static let toolFinger: UInt16 = 0x145
    public static let toolPen: UInt16 = 0x140
    public static let toolRubber: UInt16 = 0x141
    public static let touch: UInt16 = 0x14a
    public static let toolDoubleTap: UInt16 = 0x14d
    public static let toolTripleTap: UInt16 = 0x14e
    public static let toolQuadTap: UInt16 = 0x14f
    public static let toolQuintTap: UInt16 = 0x148
    public static let left: UInt16 = 0x110
}

public enum ABS {
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    public static let mtSlot: UInt16 = 0x2f
    public static let mtTouchMajor: UInt16 = 0x30
    public static let mtTouchMinor: UInt16 = 0x31
    public static let mtPositionX: UInt16 = 0x35
    public static let mtPositionY: UInt16 = 0x36
    public static let mtToolType: UInt16 = 0x37
    public static let mtTrackingID: UInt16 = 0x39
    public static let mtPressure: UInt16 = 0x3a
    public static let max: UInt16 = 0x3f
}

public enum MSC {
    public static let timestamp: UInt16 = 0x05
}

/// `ABS_MT_TOOL_TYPE` values.
public enum MTTool {
    public static let finger: Int32 = 0
    public static let pen: Int32 = 1
    public static let palm: Int32 = 2
}

/// Input properties (`INPUT_PROP_*`).
public enum InputProperty {
    public static let pointer: Int = 0
    public static let direct: Int = 1
    public static let buttonpad: Int = 2
}
