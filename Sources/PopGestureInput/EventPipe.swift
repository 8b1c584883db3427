import CEvdev
import Glibc
import PopGestureCore
import SystemPackage

/// Raw `struct input_event` records from a FIFO, read as if they came from an evdev
/// node: the daemon's way in for benchmarks and tests on a machine without uinput
/// (`popgestured run --event-pipe PATH`). The bytes are exactly what `read(2)` on an
/// evdev node returns (24 bytes an event on x86-64), frames ending with `SYN_REPORT`,
/// and they go through the same engine as a real device's: this is no mock of the
/// engine, only of the kernel's evdev node.
///
/// The device behind it is ``description``, a 10.1-inch protocol B touchscreen. The
/// times are the writer's: write `CLOCK_MONOTONIC`, the clock of live devices, so that
/// latencies measured from them mean what they say.
///
/// The FIFO is opened read-write, so it never reads end-of-file when a writer closes:
/// writers may come and go. Not thread-safe; one reader.
public final class EventPipe {
    /// The touchscreen the pipe's events are from: 217 × 136 mm, 10 slots, 20 units/mm.
    public static let description = DeviceDescription(
        name: "popgestured event pipe", bustype: 0x06,
        properties: [InputProperty.direct], keys: [BTN.touch], eventTypes: [EV.syn, EV.key, EV.abs],
        axes: [
            ABS.x: AbsoluteAxis(minimum: 0, maximum: 4339, resolution: 20),
            ABS.y: AbsoluteAxis(minimum: 0, maximum: 2719, resolution: 20),
            ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
            ABS.mtPositionX: AbsoluteAxis(minimum: 0, maximum: 4339, resolution: 20),
            ABS.mtPositionY: AbsoluteAxis(minimum: 0, maximum: 2719, resolution: 20),
            ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
        ])

    /// The size of one record: the kernel's `struct input_event`.
    public static let recordSize = MemoryLayout<input_event>.stride
    /// Events one ``read(into:)`` returns at most, as ``EvdevDevice/maximumEventsPerRead``:
    /// a writer that never stops cannot keep the loop from its other descriptors.
    public static let maximumEventsPerRead = EvdevDevice.maximumEventsPerRead

    public let path: String
    private let fd: FileDescriptor
    /// Bytes of a record not yet complete (fewer than ``recordSize``).
    private var partial: [UInt8] = []
    private var chunk: [UInt8]

    public var fileDescriptor: CInt { fd.rawValue }

    /// Opens the FIFO at `path`. Throws `.openFailed` when it cannot be opened, and
    /// `.notEvdev` when `path` is not a FIFO (a regular file would read as endless
    /// input, a device node is for ``EvdevDevice``).
    public init(path: String) throws(InputError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readWrite, options: [.nonBlocking, .closeOnExec])
        } catch {
            let errno = error as? Errno
            throw InputError(.openFailed, "cannot open \(path): \(errno?.description ?? "\(error)")", errno: errno)
        }
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else {
            try? fd.close()
            throw InputError(.notEvdev, "\(path) is not a FIFO (make one with mkfifo)")
        }
        self.path = path
        self.fd = fd
        chunk = [UInt8](repeating: 0, count: Self.maximumEventsPerRead * Self.recordSize)
        partial.reserveCapacity(Self.recordSize)
    }

    deinit { try? fd.close() }

    /// Reads what the pipe holds now, up to ``maximumEventsPerRead`` events, and passes
    /// each complete record to `body`, in order; a record cut by the pipe waits for its
    /// rest. Throws `.readFailed` when `read(2)` fails other than with `EAGAIN`.
    public func read(into body: (InputEvent) -> Void) throws(InputError) {
        let wanted = Self.maximumEventsPerRead * Self.recordSize - partial.count
        let count: Int
        do {
            count = try chunk.withUnsafeMutableBytes { buffer in
                try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]), retryOnInterrupt: true)
            }
        } catch Errno.wouldBlock {
            return
        } catch {
            let errno = error as? Errno
            throw InputError(.readFailed, "\(path): read failed: \(errno?.description ?? "\(error)")", errno: errno)
        }
        var index = 0
        if !partial.isEmpty {
            let missing = min(Self.recordSize - partial.count, count)
            partial.append(contentsOf: chunk[0..<missing])
            index = missing
            guard partial.count == Self.recordSize else { return }
            partial.withUnsafeBytes { body(Self.event(from: $0)) }
            partial.removeAll(keepingCapacity: true)
        }
        chunk.withUnsafeBytes { bytes in
            while index + Self.recordSize <= count {
                body(Self.event(from: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + Self.recordSize)])))
                index += Self.recordSize
            }
        }
        if index < count { partial.append(contentsOf: chunk[index..<count]) }
    }

    private static func event(from bytes: UnsafeRawBufferPointer) -> InputEvent {
        InputEvent(bytes.loadUnaligned(as: input_event.self))
    }

    /// The record for `event`, as a writer puts it into the pipe (tests, benchmarks).
    public static func record(_ event: InputEvent) -> [UInt8] {
        withUnsafeBytes(of: input_event(event)) { Array($0) }
    }
}
