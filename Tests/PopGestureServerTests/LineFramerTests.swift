import NIOCore
@testable import PopGestureServer
import Testing

@Suite("LineFramer")
struct LineFramerTests {
    /// A client's input as the server keeps it: bytes read so far, and their framer,
    /// run after each read as the server runs it.
    final class Input {
        var framer: LineFramer
        var buffer = ByteBuffer()
        var framed: [String] = []
        init(limit: Int) { framer = LineFramer(maximumLineLength: limit) }
    }

    /// A framer with a small limit, so over-long lines are cheap to write.
    static func channel(limit: Int = 8) throws -> Input { Input(limit: limit) }

    /// Bytes read from the client, framed at once.
    static func write(_ text: String, to input: Input) throws {
        input.buffer.writeString(text)
        while let frame = input.framer.next(&input.buffer) {
            switch frame {
            case .line(let buffer): input.framed.append("line " + String(buffer: buffer))
            case .tooLong: input.framed.append("too-long")
            case .unfinished: input.framed.append("unfinished")
            case .discardedLineEnded: input.framed.append("ended")
            }
        }
    }

    /// Everything framed since the last look: lines as text, `nil` for each
    /// line-too-long; the news about unfinished lines left out (``events(_:)`` has it).
    static func frames(_ input: Input) throws -> [String?] {
        try events(input).compactMap { event in
            if event.hasPrefix("line ") { String(event.dropFirst(5)) }
            else if event == "too-long" { .some(nil) }
            else { nil }
        }
    }

    /// Every frame since the last look: `line TEXT`, `too-long`, `unfinished`, `ended`
    /// (a discarded line's end).
    static func events(_ input: Input) throws -> [String] {
        defer { input.framed.removeAll() }
        return input.framed
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

    @Test("a partial line waits for its newline; the lines before it are handed on")
    func partialLine() throws {
        let channel = try Self.channel()
        try Self.write("a\nb", to: channel)
        #expect(try Self.frames(channel) == ["a"])
        #expect(try Self.frames(channel) == [])
        try Self.write("c\n", to: channel)
        #expect(try Self.frames(channel) == ["bc"])
    }

    @Test("the input stopping inside a line is reported once per line; its end follows")
    func unfinishedLines() throws {
        let channel = try Self.channel()
        try Self.write("ab", to: channel)
        try Self.write("c", to: channel)
        #expect(try Self.events(channel) == ["unfinished"])
        try Self.write("\nde", to: channel)
        #expect(try Self.events(channel) == ["line abc", "unfinished"])
        try Self.write("\nf\n", to: channel)
        #expect(try Self.events(channel) == ["line de", "line f"])
        // Over the limit: too long, still unfinished while discarding, then its end.
        try Self.write("1234567890", to: channel)
        try Self.write("more", to: channel)
        #expect(try Self.events(channel) == ["too-long", "unfinished"])
        try Self.write("\n", to: channel)
        #expect(try Self.events(channel) == ["ended"])
        // Started short, ended over the limit in one later write.
        try Self.write("12", to: channel)
        try Self.write("34567890\nok\n", to: channel)
        #expect(try Self.events(channel) == ["unfinished", "too-long", "ended", "line ok"])
    }
}
