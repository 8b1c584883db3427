import NIOCore

/// What the framer hands on: a line, or news about the line in progress.
enum LineFrame: Sendable, Equatable {
    /// One line without its `\n`.
    case line(ByteBuffer)
    /// A line passed the limit; it is being discarded up to its `\n`. Sent once per line.
    case tooLong
    /// The input stopped inside a line: bytes (kept, or being discarded) wait for their
    /// `\n`. Sent once per line, the first time; `.line` or `.discardedLineEnded` ends it.
    case unfinished
    /// The `\n` of an over-long line came: that line, never handed on, is over.
    case discardedLineEnded
}

/// Splits the byte stream at `\n`, with a bound on the line length.
///
/// A line longer than `maximumLineLength` is reported once, as soon as it passes the
/// limit, and the rest of it is dropped without being buffered, so a client that never
/// sends a newline costs at most the limit. The next line is read normally. Whenever
/// the input stops inside a line the framer says so (once per line), so that the
/// server can time out a line that never ends.
struct LineFramer: ByteToMessageDecoder {
    typealias InboundOut = LineFrame

    let maximumLineLength: Int
    /// Dropping the rest of an over-long line, up to and including its newline.
    private var discarding = false
    /// How far the pending bytes have been searched for a newline, so each byte is
    /// searched once however the line arrives.
    private var searched = 0
    /// `.unfinished` was sent for the line in progress.
    private var reportedUnfinished = false

    init(maximumLineLength: Int = SocketServer.defaultMaximumLineLength) {
        self.maximumLineLength = maximumLineLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        let newline = view[(view.startIndex + searched)...].firstIndex(of: UInt8(ascii: "\n"))

        if discarding {
            guard let newline else {
                buffer.moveReaderIndex(forwardBy: view.count)
                reportUnfinished(context)
                return .needMoreData
            }
            buffer.moveReaderIndex(forwardBy: newline - view.startIndex + 1)
            discarding = false
            endLine(context, .discardedLineEnded)
            return .continue
        }

        guard let newline else {
            if view.count > maximumLineLength {
                buffer.moveReaderIndex(forwardBy: view.count)
                discarding = true
                searched = 0
                context.fireChannelRead(NIOAny(LineFrame.tooLong))
                reportUnfinished(context)
                return .needMoreData
            }
            searched = view.count
            if !view.isEmpty { reportUnfinished(context) }
            return .needMoreData
        }
        let length = newline - view.startIndex
        if length > maximumLineLength {
            buffer.moveReaderIndex(forwardBy: length + 1)
            context.fireChannelRead(NIOAny(LineFrame.tooLong))
            endLine(context, .discardedLineEnded)
            return .continue
        }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        endLine(context, .line(line))
        return .continue
    }

    private mutating func reportUnfinished(_ context: ChannelHandlerContext) {
        guard !reportedUnfinished else { return }
        reportedUnfinished = true
        context.fireChannelRead(NIOAny(LineFrame.unfinished))
    }

    private mutating func endLine(_ context: ChannelHandlerContext, _ frame: LineFrame) {
        searched = 0
        reportedUnfinished = false
        context.fireChannelRead(NIOAny(frame))
    }

    /// At end of input, complete lines still count; a last line without its newline
    /// is dropped, as the connection is closing and could not take the reply.
    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        return .needMoreData
    }
}
