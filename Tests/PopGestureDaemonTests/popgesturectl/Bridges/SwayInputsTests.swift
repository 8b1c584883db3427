import PopGestureProtocol
import Testing
@testable import popgesturectl

/// How sway scrolls the daemon's virtual touchpad, without sway: the JSON is
/// sway-ipc(7)'s `GET_INPUTS` and `input` event, trimmed to the fields that matter.
/// The real sway, with the real device, is Tests/VM/scenarios/94-touchpad-bridge.sh.
@Suite struct SwayInputsTests {
    static func parse(_ json: String) throws -> JSONValue {
        try JSONParser.parse(Array(json.utf8), maximumDepth: SwayIPC.maximumNestingDepth)
    }

    static func input(_ name: String, type: String = "touchpad", natural: String? = "disabled") -> String {
        let libinput = natural.map { #","libinput":{"send_events":"enabled","natural_scroll":"\#($0)"}"# } ?? ""
        return #"{"identifier":"0:0:\#(name.replacingOccurrences(of: " ", with: "_"))","name":"\#(name)","type":"\#(type)"\#(libinput)}"#
    }

    @Test("GET_INPUTS: the virtual touchpad's natural_scroll, said once; other devices and a missing one say nothing")
    func inputs() throws {
        var scrolling = SwayTouchpadScrolling()
        let none = try Self.parse("[\(Self.input("SynPS/2 Synaptics TouchPad", natural: "enabled"))]")
        #expect(scrolling.inputs(none).isEmpty, "a real touchpad is not the daemon's")
        let list = try Self.parse("[\(Self.input("ELAN Touchscreen", type: "touch", natural: nil)),\(Self.input("popgestured touchpad"))]")
        #expect(scrolling.inputs(list) == [.touchpadScrolling(natural: false)])
        #expect(scrolling.inputs(list).isEmpty, "the same again is not news")
        #expect(scrolling.inputs(none).isEmpty && scrolling.natural == false, "gone: the session's setting stays")
        let keyboard = try Self.parse("[\(Self.input("popgestured touchpad", type: "keyboard"))]")
        #expect(scrolling.inputs(keyboard).isEmpty, "the name on another kind of device")
    }

    @Test("input events: added and libinput_config of the virtual touchpad carry the setting; the rest do not")
    func events() throws {
        var scrolling = SwayTouchpadScrolling()
        func event(_ change: String, _ natural: String) throws -> [FocusSourceEvent] {
            scrolling.inputEvent(try Self.parse(#"{"change":"\#(change)","input":\#(Self.input("popgestured touchpad", natural: natural))}"#))
        }
        #expect(try event("added", "enabled") == [.touchpadScrolling(natural: true)])
        #expect(try event("libinput_config", "disabled") == [.touchpadScrolling(natural: false)])
        #expect(try event("removed", "enabled").isEmpty)
        #expect(try event("xkb_layout", "enabled").isEmpty)
        #expect(try event("libinput_config", "sideways").isEmpty, "a value sway does not document")
        #expect(scrolling.inputEvent(try Self.parse(#"{"change":"added"}"#)).isEmpty)
    }
}
