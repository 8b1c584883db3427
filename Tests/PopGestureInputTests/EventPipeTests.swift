import Glibc
import PopGestureCore
@testable import PopGestureInput
import PopGestureSynthesis
import Testing

/// `--event-pipe`'s reader on a real FIFO: records as evdev gives them, cut anywhere.
@Suite struct EventPipeTests {
    static func fifo() throws -> String {
        var template = Array("/tmp/popgestured-pipe-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let folder = try #require(made.map { String(cString: $0) })
        let path = folder + "/events"
        #expect(mkfifo(path, 0o600) == 0)
        return path
    }

    static func write(_ bytes: [UInt8], to fd: CInt) {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        #expect(written == bytes.count)
    }

    static func readAll(_ pipe: EventPipe) throws -> [InputEvent] {
        var events: [InputEvent] = []
        try pipe.read { events.append($0) }
        return events
    }

    @Test func aSwipeWrittenInPiecesCutMidRecordReadsBackWhole() throws {
        let path = try Self.fifo()
        defer { unlink(path) }
        let pipe = try EventPipe(path: path)
        let writer = open(path, O_WRONLY | O_NONBLOCK)
        try #require(writer >= 0)
        defer { close(writer) }

        var script = TouchScript(device: EventPipe.description)
        script.down(at: 0.02, 0.5)
        script.move(byMillimetres: 40, 0, over: .milliseconds(100))
        script.up()
        let bytes = script.events.flatMap(EventPipe.record)
        #expect(bytes.count == script.events.count * EventPipe.recordSize)

        // Cut 10 bytes into the fourth record: the reader keeps the piece for the rest.
        let cut = 3 * EventPipe.recordSize + 10
        Self.write(Array(bytes[..<cut]), to: writer)
        #expect(try Self.readAll(pipe) == Array(script.events.prefix(3)))
        Self.write(Array(bytes[cut...]), to: writer)
        #expect(try Self.readAll(pipe) == Array(script.events.dropFirst(3)))
        #expect(try Self.readAll(pipe).isEmpty, "nothing more: EAGAIN, not end of file")
    }

    @Test func aWriterThatLeavesIsNoEndOfFile() throws {
        let path = try Self.fifo()
        defer { unlink(path) }
        let pipe = try EventPipe(path: path)
        let event = InputEvent(time: Timestamp(microseconds: 5_000_000), type: EV.syn, code: SYN.report, value: 0)
        for _ in 0..<2 {
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            try #require(writer >= 0)
            Self.write(EventPipe.record(event), to: writer)
            close(writer)
            #expect(try Self.readAll(pipe) == [event])
        }
    }

    @Test func oneReadStopsAtItsLimit() throws {
        let path = try Self.fifo()
        defer { unlink(path) }
        let pipe = try EventPipe(path: path)
        let writer = open(path, O_WRONLY | O_NONBLOCK)
        try #require(writer >= 0)
        defer { close(writer) }
        // A pipe holds 64 KiB by default: 2,730 records. Enlarge it to take more than one read's worth.
        let setPipeSize: CInt = 1031  // F_SETPIPE_SZ, which Glibc's Swift overlay lacks
        try #require(fcntl(writer, setPipeSize, CInt(1 << 20)) >= (EventPipe.maximumEventsPerRead + 100) * EventPipe.recordSize)
        let event = EventPipe.record(InputEvent(time: Timestamp(microseconds: 1), type: EV.syn, code: SYN.report, value: 0))
        let count = EventPipe.maximumEventsPerRead + 100
        Self.write(Array([[UInt8]](repeating: event, count: count).joined()), to: writer)
        #expect(try Self.readAll(pipe).count == EventPipe.maximumEventsPerRead)
        #expect(try Self.readAll(pipe).count == 100)
    }

    @Test func aRegularFileIsRefused() throws {
        let path = "/tmp/popgestured-not-a-fifo-\(getpid())"
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        defer { unlink(path) }
        let error = #expect(throws: InputError.self) { try EventPipe(path: path) }
        #expect(error?.code == .notEvdev)
        #expect(error?.message == "\(path) is not a FIFO (make one with mkfifo)")
    }
}
