import Foundation
import PopGestureCore
import PopGestureRecording
import Testing

/// Hand-written in the shape `libinput record` produces (see libinput-record(1), FILE FORMAT):
/// a touchscreen, two frames with an hid entry between them, and a second device to ignore.
private let fixture = """
    # libinput record
    version: 1
    ndevices: 2
    libinput:
      version: "1.25.0"
    system:
      os: "debian:12"
      kernel: "6.1.0-13-amd64"
    devices:
    - node: /dev/input/event7
      evdev:
        # Name: Hand Made Touchscreen
        # ID: bus 0x3 vendor 0x4f3 product 0x10c version 0x110
        name: Hand Made Touchscreen
        id: [3, 1267, 268, 272]
        codes:
          0: [0, 1, 2, 3] # EV_SYN
          1: [330] # EV_KEY
          3: [0, 1, 47, 53, 54, 57] # EV_ABS
        absinfo:
          0: [0, 3312, 0, 0, 10]
          1: [0, 1872, 0, 0, 10]
          47: [0, 9, 0, 0, 0]
          53: [0, 3312, 0, 0, 10]
          54: [-5, 1872, 2, 0, 10]
          57: [0, 65535, 0, 0, 0]
        properties: [1]
      udev:
        properties:
        - ID_INPUT=1
        - ID_INPUT_TOUCHSCREEN=1
        - ID_INPUT_WIDTH_MM=331
        - ID_INPUT_HEIGHT_MM=187
      events:
      - evdev:
        - [  0,      0,   3,  47,     0] # EV_ABS / ABS_MT_SLOT           0
        - [  0,      0,   3,  57,    12] # EV_ABS / ABS_MT_TRACKING_ID   12
        - [  0,      0,   3,  53,   100] # EV_ABS / ABS_MT_POSITION_X   100
        - [  0,      0,   3,  54,    -3] # EV_ABS / ABS_MT_POSITION_Y    -3
        - [  0,      0,   1, 330,     1] # EV_KEY / BTN_TOUCH             1
        - [  0,      0,   0,   0,     0] # ------------ SYN_REPORT (0) ------- +0ms
      - hid:
          time: [0, 5000]
          hidraw0: [1, 2, 3]
      - evdev:
        - [  1,  11879,   3,  57,    -1] # EV_ABS / ABS_MT_TRACKING_ID   -1
        - [  1,  11879,   1, 330,     0] # EV_KEY / BTN_TOUCH             0
        - [  1,  11879,   0,   0,     0] # ------------ SYN_REPORT (0) ------- +1011ms
    - node: /dev/input/event3
      evdev:
        name: Second Device
        id: [17, 2, 7, 433]
      events: []

    """

@Suite("libinput record")
struct LibinputRecordTests {
    @Test func detectsTheFormat() {
        #expect(RecordingFormat.detect(fixture) == .libinputRecord)
    }

    @Test func readsTheFirstDevice() throws {
        let device = try Recording(parsing: fixture).device
        #expect(device.name == "Hand Made Touchscreen")
        #expect([device.bustype, device.vendor, device.product, device.version] == [3, 0x4f3, 0x10c, 0x110])
        #expect(device.eventTypes == [EV.syn, EV.key, EV.abs])
        #expect(device.keys == [BTN.touch])
        #expect(device.properties == [InputProperty.direct])
        #expect(device.axes.count == 6)
        #expect(device.axes[ABS.mtPositionY] == AbsoluteAxis(minimum: -5, maximum: 1872, fuzz: 2, resolution: 10))
        #expect(device.slotCount == 10)
        #expect(device.inferredKind == .touchscreen)
        #expect(device.reportedSize == PhysicalSize(width: 331, height: 187))
        #expect(try Recording.parseDescription(fixture) == device)
    }

    @Test func readsTheEvdevFramesAndSkipsOtherEntries() throws {
        let events = try Recording(parsing: fixture).events
        #expect(events.count == 9)
        #expect(events.filter(\.isFrameEnd).count == 2)
        #expect(events.map(\.value) == [0, 12, 100, -3, 1, 0, -1, 0, 0])
        #expect(events[6].time == Timestamp(seconds: 1, microseconds: 11879))
        #expect(events[6].code == ABS.mtTrackingID)
    }

    @Test func malformedEventNamesItsLine() throws {
        let text = fixture.replacingFirst("[  1,  11879,   1, 330,     0]", with: "[1, 11879, 1, 330]")
        let line = try #require(
            text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("[1, 11879, 1, 330]") }) + 1
        let error = #expect(throws: RecordingError.self) { try Recording(parsing: text) }
        #expect(error?.line == line)
    }

    @Test(arguments: [
        ("version: 2\ndevices: []\n", "version"),
        ("version: 1\ndevices: []\n", "empty"),
        ("version: 1\nndevices: 0\n", "devices"),
        ("version: 1\ndevices:\n- evdev:\n    id: [1, 2, 3, 4]\n", "name"),
        ("version: 1\ndevices:\n- evdev:\n    name: x\n    id: [1, 2, 3]\n", "id"),
        ("version: 1\ndevices: [\n", "YAML"),
    ])
    func rejectsBrokenDocuments(_ text: String, _ mentions: String) {
        let error = #expect(throws: RecordingError.self) { try Recording(parsing: text) }
        #expect(error?.message.contains(mentions) == true, "\(error?.description ?? "")")
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
