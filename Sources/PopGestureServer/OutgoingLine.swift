import NIOCore
import PopGestureProtocol

/// One line for clients, its newline included, encoded once: every client it goes to
/// shares the same bytes (a `ByteBuffer` copies on write), so a line fanned out to a
/// thousand observers is one allocation, not a thousand.
public struct OutgoingLine: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The line and its `\n`, ready to write.
    public let bytes: ByteBuffer

    /// The line `text`, which must hold no newline.
    public init(_ text: String) {
        var bytes = ByteBuffer()
        bytes.reserveCapacity(text.utf8.count + 1)
        bytes.writeString(text)
        bytes.writeInteger(UInt8(ascii: "\n"))
        self.bytes = bytes
    }

    /// The JSON `writer` holds, and a newline.
    public init(_ writer: JSONWriter) {
        // Allocated at its size at once (an empty buffer's reserveCapacity reallocates),
        // and written in one call: each of ByteBuffer's writes costs some 250
        // instructions of checks, and a line of every frame comes through here.
        let length = writer.count + 1
        var bytes = Self.allocator.buffer(capacity: length)
        bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { target in
            writer.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer($0)) }
            target[length - 1] = UInt8(ascii: "\n")
            return length
        }
        self.bytes = bytes
    }

    private static let allocator = ByteBufferAllocator()

    /// The line for a reply.
    public static func encoding(_ reply: ServerReply, id: RequestID?) -> OutgoingLine {
        var writer = JSONWriter()
        MessageCodec.write(reply, id: id, to: &writer)
        return OutgoingLine(writer)
    }

    /// The error reply for `error`, echoing its request type and id.
    public static func encoding(_ error: ProtocolError) -> OutgoingLine {
        encoding(.error(error), id: error.id)
    }

    /// A line written out in a test.
    public init(stringLiteral text: String) { self.init(text) }

    public init(stringInterpolation: DefaultStringInterpolation) { self.init(String(stringInterpolation: stringInterpolation)) }

    /// The line without its newline.
    public var text: String { String(decoding: bytes.readableBytesView.dropLast(), as: UTF8.self) }

    /// Its length on the wire, newline included.
    public var count: Int { bytes.readableBytes }

    public var description: String { text }
}
