import Foundation
import PopGestureCore
import PopGestureRecording
import Testing

/// A small hand-made touchpad description: 12 `B: 01` lines, BTN_TOUCH on the 6th.
private let padDescription = """
    # EVEMU 1.3
    # Input device name: "Test Pad"
    N: Test Pad #2
    I: 0011 0002 0007 01b1
    P: 05 00 00 00 00 00 00 00
    P: 01
    B: 00 0b 00 00 00 00 00 00 00

    """
    + String(repeating: "B: 01 00 00 00 00 00 00 00 00\n", count: 5)
    + "B: 01 20 04 00 00 00 00 00 00\n"
    + String(repeating: "B: 01 00 00 00 00 00 00 00 00\n", count: 6)
    + """
    B: 03 03 00 00 00 00 80 60 02
    A: 00 0 1279 0 0 12
    A: 01 -20 767 4 0
    A: 2f 0 1 0 0 0
    A: 35 0 1279 0 0 12
    A: 36 -20 767 4 0
    A: 39 0 65535 0 0 0

    """

private let events = """
    E: 1.000002 0003 0035 -001\t# EV_ABS / ABS_MT_POSITION_X    -1
    E: 1.000002 0003 0036 0021\t# EV_ABS / ABS_MT_POSITION_Y    21
    E: 1.000010 0003 0039 0008
    E: 1.000010 0000 0000 0000\t# ------------ SYN_REPORT (0) ----------

    """

@Suite("evemu parser")
struct EvemuParserTests {
    @Test func descriptionBitsAndAxes() throws {
        let device = try Recording.parseDescription(padDescription)
        #expect(device.name == "Test Pad #2")
        #expect([device.bustype, device.vendor, device.product, device.version] == [0x11, 0x02, 0x07, 0x1b1])
        #expect(device.eventTypes == [EV.syn, EV.key, EV.abs])
        // Byte 40 bit 5 is BTN_TOOL_FINGER (325); byte 41 bit 2 is BTN_TOUCH (330).
        #expect(device.keys == [BTN.toolFinger, BTN.touch])
        // The second P: line continues the bitmask at byte 8.
        #expect(device.properties == [InputProperty.pointer, InputProperty.buttonpad, 64])
        #expect(device.inferredKind == .touchpad)
        #expect(device.touchProtocol == .slots)
        #expect(device.slotCount == 2)
    }

    @Test func absLinesWithAndWithoutResolution() throws {
        let device = try Recording.parseDescription(padDescription)
        #expect(device.axes[ABS.x] == AbsoluteAxis(minimum: 0, maximum: 1279, resolution: 12))
        #expect(device.axes[ABS.y] == AbsoluteAxis(minimum: -20, maximum: 767, fuzz: 4, resolution: 0))
        #expect(device.axes.count == 6)
    }

    @Test func zeroPaddedNegativeValuesAndTabComments() throws {
        let recording = try Recording(parsing: padDescription + events)
        #expect(recording.device.name == "Test Pad #2")
        // Decimal, never octal: 0008 is 8 and -001 is -1.
        #expect(recording.events.map(\.value) == [-1, 21, 8, 0])
        #expect(recording.events.map(\.code) == [ABS.mtPositionX, ABS.mtPositionY, ABS.mtTrackingID, SYN.report])
        #expect(recording.events.map(\.time.microseconds) == [1_000_002, 1_000_002, 1_000_010, 1_000_010])
        #expect(recording.events.last?.isFrameEnd == true)
    }

    @Test func eventsOnlyTextTakesTheGivenDescription() throws {
        let description = try Recording.parseDescription(padDescription)
        let recording = try Recording(parsing: events, description: description)
        #expect(recording.device == description)
        #expect(recording.events.count == 4)
    }

    @Test func headerInTheTextWinsOverTheGivenDescription() throws {
        let other = DeviceDescription(name: "Other")
        let recording = try Recording(parsing: padDescription + events, description: other)
        #expect(recording.device.name == "Test Pad #2")
    }

    @Test func eventsWithoutDescriptionNameTheFirstEventLine() {
        let error = #expect(throws: RecordingError.self) {
            try Recording(parsing: "# EVEMU 1.0\n\n" + events)
        }
        #expect(error?.line == 3)
        #expect(error?.message.contains(".desc") == true)
        #expect(error?.description.hasPrefix("line 3: ") == true)
    }

    @Test(arguments: [
        "E: 0.000001 0003 0035",              // no value
        "E: 0.000001 0003 0035 12 13",        // one too many
        "E: 0.1 0003 0035 12",                // usec must have six digits
        "E: 0.000001 0003 zz35 12",           // code not hex
        "E: 0.000001 0003 0035 0x12",         // value not decimal
        "E: 0.000001 0003 0035 4294967296",   // value out of range
        "E: -1.000001 0003 0035 12",          // negative time
    ])
    func malformedEventLine(_ line: String) {
        let error = #expect(throws: RecordingError.self) {
            try Recording(parsing: padDescription + events + line + "\n")
        }
        let expectedLine = (padDescription + events).split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(error?.line == expectedLine)
        #expect(error?.message.contains("E:") == true)
    }

    @Test(arguments: [
        ("A: 00 0 1279", "A:"),
        ("A: 00 0 1279 0 0 12 7", "A:"),
        ("B: 01", "B:"),
        ("B: 01 0g", "B:"),
        ("I: 0011 0002 0007", "I:"),
        ("P: zz", "P:"),
        ("S: 00 00", "'S:'"),
        ("no colon here", "expected"),
    ])
    func malformedDescriptionLine(_ line: String, _ mentions: String) {
        let error = #expect(throws: RecordingError.self) {
            try Recording.parseDescription("# comment\n" + line + "\n" + padDescription)
        }
        #expect(error?.line == 2)
        #expect(error?.message.contains(mentions) == true)
    }

    @Test func descriptionWithoutNameIsRejected() {
        let error = #expect(throws: RecordingError.self) {
            try Recording.parseDescription("# no name\nI: 0003 0001 0002 0003\n")
        }
        #expect(error?.line == 2)
        #expect(error?.message.contains("N:") == true)
    }

    @Test func windowsLineEndingsAreAccepted() throws {
        let crlf = (padDescription + events).replacingOccurrences(of: "\n", with: "\r\n")
        let recording = try Recording(parsing: crlf)
        #expect(recording.device.name == "Test Pad #2")
        #expect(recording.events.count == 4)
    }

    @Test func errorDescriptionFormat() {
        #expect(RecordingError(line: 12, message: "boom").description == "line 12: boom")
        #expect(RecordingError(line: 12, message: "boom", file: "a.events").description == "a.events: line 12: boom")
        #expect(RecordingError(line: 0, message: "boom", file: "a.events").description == "a.events: boom")
    }

    @Test func formatDetection() {
        #expect(RecordingFormat.detect(padDescription) == .evemu)
        #expect(RecordingFormat.detect(events) == .evemu)
        #expect(RecordingFormat.detect("# recorded by hand\nversion: 1\ndevices: []\n") == .libinputRecord)
        #expect(RecordingFormat.detect("ndevices: 1\nlibinput:\n  version: 1.25.0\n") == .libinputRecord)
    }
}

@Suite("recording files")
struct RecordingFileTests {
    private func temporaryFile(_ name: String, _ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("PopGestureRecordingTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func splitFilesFromDisk() throws {
        let desc = try temporaryFile("pad.desc", padDescription)
        let eventsPath = try temporaryFile("pad.events", events)
        let recording = try Recording(contentsOf: eventsPath, descriptionPath: desc)
        #expect(recording.device.name == "Test Pad #2")
        #expect(recording.events.count == 4)
    }

    @Test func errorsNameTheFile() throws {
        let missing = "/nonexistent/popgesture/none.events"
        let readError = #expect(throws: RecordingError.self) { try Recording(contentsOf: missing) }
        #expect(readError?.description.contains(missing) == true)

        let eventsPath = try temporaryFile("pad.events", events)
        let noDescription = #expect(throws: RecordingError.self) { try Recording(contentsOf: eventsPath) }
        #expect(noDescription?.description.hasPrefix(eventsPath + ": line 1: ") == true)

        let badDesc = try temporaryFile("bad.desc", "N: x\nA: 00 1\n")
        let descError = #expect(throws: RecordingError.self) {
            try Recording(contentsOf: eventsPath, descriptionPath: badDesc)
        }
        #expect(descError?.description.hasPrefix(badDesc + ": line 2: ") == true)
    }
}
