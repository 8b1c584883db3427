import NIOCore
import NIOEmbedded
@testable import PopGestureServer
import Testing

@Suite("LineFramer")
struct LineFramerTests {
    /// A channel that frames with a small limit, so over-long lines are cheap to write.
    static func channel(limit: Int = 8) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFramer(maximumLineLength: limit)))
        return channel
    }

    static func write(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    /// Everything framed so far: lines as text, `nil` for each line-too-long.
    static func frames(_ channel: EmbeddedChannel) throws -> [String?] {
        var out: [String?] = []
        while let frame = try channel.readInbound(as: LineFrame.self) {
            switch frame {
            case .line(let buffer): out.append(String(buffer: buffer))
            case .tooLong: out.append(nil)
            }
        }
        return out
    }

    @Test("lines split however the bytes arrive")
    func splitting() throws {
        let channel = try Self.channel()
        try Self.write("ab\ncd", to: channel)
        #expect(try Self.frames(channel) == ["ab"])
        try Self.write("e\n\nfg\nh", to: channel)
        #expect(try Self.frames(channel) == ["cde", "", "fg"])
        try Self.write("\n", to: channel)
        #expect(try Self.frames(channel) == ["h"])
    }

    @Test("a line of exactly the limit passes; one byte more is too long")
    func limit() throws {
        let channel = try Self.channel()
        try Self.write("12345678\n123456789\nok\n", to: channel)
        #expect(try Self.frames(channel) == ["12345678", nil, "ok"])
    }

    @Test("an over-long line is reported once, as soon as it passes the limit, and the rest dropped")
    func overlongAcrossWrites() throws {
        let channel = try Self.channel()
        try Self.write("1234567890", to: channel)
        #expect(try Self.frames(channel) == [nil])
        try Self.write("more and more", to: channel)
        try Self.write("still the same line", to: channel)
        #expect(try Self.frames(channel) == [])
        try Self.write(" end\nnext\n", to: channel)
        #expect(try Self.frames(channel) == ["next"])
    }

    @Test("at end of input, complete lines count and a partial one is dropped")
    func endOfInput() throws {
        let channel = try Self.channel()
        try Self.write("a\nb", to: channel)
        #expect(try Self.frames(channel) == ["a"])
        _ = try channel.finish()
        #expect(try Self.frames(channel) == [])
    }
}
