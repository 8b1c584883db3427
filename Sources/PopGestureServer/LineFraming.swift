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

/// Splits a client's byte stream at `\n`, with a bound on the line length: one frame
/// per call of ``next(_:)``, nil when the bytes read so far hold no more.
///
/// A line longer than `maximumLineLength` is reported once, as soon as it passes the
/// limit, and the rest of it is dropped without being buffered, so a client that never
/// sends a newline costs at most the limit. The next line is read normally. Whenever
/// the input stops inside a line the framer says so (once per line), so that the
/// server can time out a line that never ends.
struct LineFramer {
    let maximumLineLength: Int
    /// Dropping the rest of an over-long line, up to and including its newline.
    private var discarding = false
    /// How far the pending bytes have been searched for a newline, so each byte is
    /// searched once however the line arrives.
    private var searched = 0
    /// `.unfinished` was sent for the line in progress.
    private var reportedUnfinished = false
    /// A frame decided with the one before it, handed on by the next call.
    private var pending: LineFrame?

    init(maximumLineLength: Int = SocketServer.defaultMaximumLineLength) {
        self.maximumLineLength = maximumLineLength
    }

    /// The next frame of `buffer`, whose framed bytes it consumes.
    mutating func next(_ buffer: inout ByteBuffer) -> LineFrame? {
        if let frame = pending {
            pending = nil
            return frame
        }
        let view = buffer.readableBytesView
        let newline = view[(view.startIndex + searched)...].firstIndex(of: UInt8(ascii: "\n"))

        if discarding {
            guard let newline else {
                buffer.moveReaderIndex(forwardBy: view.count)
                return unfinished()
            }
            buffer.moveReaderIndex(forwardBy: newline - view.startIndex + 1)
            discarding = false
            return endLine(.discardedLineEnded)
        }

        guard let newline else {
            if view.count > maximumLineLength {
                buffer.moveReaderIndex(forwardBy: view.count)
                discarding = true
                searched = 0
                if !reportedUnfinished {
                    reportedUnfinished = true
                    pending = .unfinished
                }
                return .tooLong
            }
            searched = view.count
            return view.isEmpty ? nil : unfinished()
        }
        let length = newline - view.startIndex
        if length > maximumLineLength {
            buffer.moveReaderIndex(forwardBy: length + 1)
            pending = endLine(.discardedLineEnded)
            return .tooLong
        }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        return endLine(.line(line))
    }

    private mutating func unfinished() -> LineFrame? {
        guard !reportedUnfinished else { return nil }
        reportedUnfinished = true
        return .unfinished
    }

    private mutating func endLine(_ frame: LineFrame) -> LineFrame {
        searched = 0
        reportedUnfinished = false
        return frame
    }
}
