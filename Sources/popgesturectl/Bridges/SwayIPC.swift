/// The i3 IPC framing that sway speaks on `$SWAYSOCK`, in both directions: the six
/// bytes `i3-ipc`, the payload's length and the message type (each a uint32 in the
/// host's byte order: sway copies them from memory as they are), then the payload,
/// JSON. A type with the high bit set is an event; every other is the reply to the
/// request of that type. Pure: no socket here, so the framing is tested on its own.
enum SwayIPC {
    static let magic: [UInt8] = Array("i3-ipc".utf8)
    /// Magic, length and type.
    static let headerBytes = 14

    /// A longer payload is refused (`too-long`) before it is buffered. sway's whole
    /// tree, the largest message it sends, is about 2 KiB a window, so 16 MiB is
    /// thousands of windows.
    static let maximumPayloadBytes = 16 << 20

    /// The JSON of a message may nest this deep, else `bad-json`. Each container in the
    /// tree adds two levels (a `nodes` array and the node), and root, output and
    /// workspace take eight, so 128 holds splits 60 deep: more than anyone nests.
    static let maximumNestingDepth = 128

    /// The request and event types the bridge uses (sway-ipc(7)).
    enum MessageType: UInt32 {
        case subscribe = 2
        case getOutputs = 3
        case getTree = 4
        case getConfig = 9
        case getInputs = 100
        case workspaceEvent = 0x8000_0000
        case outputEvent = 0x8000_0001
        case windowEvent = 0x8000_0003
        case shutdownEvent = 0x8000_0006
        case inputEvent = 0x8000_0015
    }

    /// One request, framed.
    static func encode(_ type: MessageType, payload: String = "") -> [UInt8] {
        let body = Array(payload.utf8)
        var bytes = magic
        withUnsafeBytes(of: UInt32(body.count)) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: type.rawValue) { bytes.append(contentsOf: $0) }
        return bytes + body
    }
}

/// One message from sway: its type (see `SwayIPC.MessageType`) and its JSON payload.
struct SwayMessage: Equatable {
    var type: UInt32
    var payload: [UInt8]
}

/// Why sway's byte stream cannot be read on. The description is the whole message.
struct SwayIPCError: Error, Equatable, CustomStringConvertible {
    /// Stable codes, so that new ones do not break callers.
    struct Code: RawRepresentable, Hashable {
        let rawValue: String
        static let badMagic = Code(rawValue: "bad-magic")
        /// A payload over `SwayIPC.maximumPayloadBytes`.
        static let tooLong = Code(rawValue: "too-long")
        /// A payload that is not JSON, or nests deeper than `SwayIPC.maximumNestingDepth`.
        static let badJSON = Code(rawValue: "bad-json")
        /// Valid JSON, but not what sway-ipc(7) says this message holds.
        static let unexpected = Code(rawValue: "unexpected")
    }

    var code: Code
    var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }
}

/// Cuts sway's byte stream into messages; bytes of an unfinished one wait for the next read.
struct SwayFramer {
    private var buffer: [UInt8] = []

    /// Bytes as they were read, in order.
    mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, or nil until more bytes arrive. A bad header or an
    /// oversized length is an error: the stream cannot be resynchronised after it.
    mutating func next() throws(SwayIPCError) -> SwayMessage? {
        let magicCount = min(buffer.count, SwayIPC.magic.count)
        guard buffer[..<magicCount].elementsEqual(SwayIPC.magic[..<magicCount]) else {
            throw SwayIPCError(.badMagic, "sway sent a message that does not start with \"i3-ipc\"; is that sway's socket?")
        }
        guard buffer.count >= SwayIPC.headerBytes else { return nil }
        let length = Int(word(at: 6))
        guard length <= SwayIPC.maximumPayloadBytes else {
            throw SwayIPCError(.tooLong, "sway sent a \(length)-byte message; the limit is \(SwayIPC.maximumPayloadBytes >> 20) MiB")
        }
        guard buffer.count >= SwayIPC.headerBytes + length else { return nil }
        let message = SwayMessage(type: word(at: 10), payload: Array(buffer[SwayIPC.headerBytes..<SwayIPC.headerBytes + length]))
        buffer.removeSubrange(..<(SwayIPC.headerBytes + length))
        return message
    }

    /// A uint32 in the host's byte order.
    private func word(at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: buffer[offset..<offset + 4]) }
        return value
    }
}
