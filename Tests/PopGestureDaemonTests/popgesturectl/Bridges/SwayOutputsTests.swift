import PopGestureProtocol
import Testing
@testable import popgesturectl

/// What sway's replies mean for the outputs, without sway: the JSON is sway 1.7's
/// `get_outputs`, `get_inputs` and `get_config`, trimmed to the fields that matter.
@Suite struct SwayOutputsTests {
    static func parse(_ json: String) throws -> JSONValue {
        try JSONParser.parse(Array(json.utf8), maximumDepth: SwayIPC.maximumNestingDepth)
    }

    static let config = #"""
        output HEADLESS-1 resolution 1280x800
        # input "1:2:Commented" map_to_output HEADLESS-9
        input "1267:10780:ELAN_Touchscreen" map_to_output eDP-1
        input 1046:911:Goodix_Capacitive_TouchScreen {
            tap enabled
            map_to_output 'DSI-1'
        }
        input type:touch map_to_output HDMI-A-1
        input * map_to_output HDMI-A-2
        input "10:20:Wacom Pen" map_to_region 0 0 100 100
        """#

    @Test("map_to_output from the config: one-line and block forms, quotes and comments")
    func mappings() {
        let found = SwayOutputTracker.mappings(inConfig: Self.config)
        #expect(found.map { "\($0.input) → \($0.output)" } == [
            "1267:10780:ELAN_Touchscreen → eDP-1",
            "1046:911:Goodix_Capacitive_TouchScreen → DSI-1",
            "type:touch → HDMI-A-1",
            "* → HDMI-A-2",
        ])
        #expect(SwayOutputTracker.words(#"input "a b" 'c d'  e"#) == ["input", "a b", "c d", "e"])
    }

    @Test("sway's transforms as rotation: named clockwise, so sway's 90 is wl_output's 270; flipped ones send their turn",
          arguments: [("normal", 0), ("90", 270), ("180", 180), ("270", 90), ("flipped", 0), ("flipped-90", 270),
                      ("flipped-180", 180), ("flipped-270", 90)] as [(String, Int64)])
    func transforms(name: String, degrees: Int64) {
        #expect(SwayOutputTracker.rotation(fromTransform: name) == degrees)
    }

    @Test("unknown transforms", arguments: ["", "45", "flipped90", "flipped-", "Normal", "360"])
    func unknownTransforms(name: String) {
        #expect(SwayOutputTracker.rotation(fromTransform: name) == nil)
    }

    @Test("active outputs in sway's order, with their inputs; types and * expanded from get_inputs; a change only once")
    func outputs() throws {
        var tracker = SwayOutputTracker()
        #expect(tracker.handle(.getConfig, .object(["config": .string(Self.config)])).isEmpty)
        let inputs = #"""
            [{"identifier":"1267:10780:ELAN_Touchscreen","name":"ELAN Touchscreen","type":"touch"},
             {"identifier":"1:1:AT_Translated_Set_2_keyboard","name":"AT Translated Set 2 keyboard","type":"keyboard"}]
            """#
        #expect(tracker.handle(.getInputs, try Self.parse(inputs)).isEmpty)
        let outputs = #"""
            [{"name":"eDP-1","active":true,"transform":"90","make":"BOE","rect":{"x":0,"y":0,"width":800,"height":1280}},
             {"name":"HDMI-A-1","active":true,"transform":"normal"},
             {"name":"HDMI-A-2","active":false,"transform":"normal"},
             {"name":"DSI-1","active":true,"transform":"flipped-270"}]
            """#
        let expected = OutputList([
            ClientRequest.Output(name: "eDP-1", rotation: 270, isBuiltIn: true, inputs: ["1267:10780:ELAN_Touchscreen"]),
            ClientRequest.Output(name: "HDMI-A-1", rotation: 0, inputs: ["1267:10780:ELAN_Touchscreen"]),
            ClientRequest.Output(name: "DSI-1", rotation: 90, isBuiltIn: true, inputs: ["1046:911:Goodix_Capacitive_TouchScreen"]),
        ])
        #expect(tracker.handle(.getOutputs, try Self.parse(outputs)) == [.outputs(expected)], "HDMI-A-2 is off")
        #expect(tracker.handle(.getOutputs, try Self.parse(outputs)).isEmpty, "the same list is not sent again")
        #expect(tracker.handle(.outputEvent, try Self.parse(#"{"change":"unspecified"}"#)) == [.askAgain])
        let odd = tracker.handle(.getOutputs, try Self.parse(#"[{"name":"eDP-1","active":true,"transform":"45"}]"#))
        #expect(odd == [
            .log(#"output eDP-1 has transform "45", which sway does not document: it is left out of the outputs"#),
            .outputs(OutputList([])),
        ])
        #expect(tracker.handle(.getOutputs, try Self.parse(#"{"error":"x"}"#))
            == [.log("sway's outputs are an object, not an array: they are not sent")])
        #expect(tracker.handle(.getTree, try Self.parse("{}")).isEmpty, "the tree is the focus tracker's")
    }

    @Test("output events ask for everything again; without them (sway 1.7) window and workspace events ask for the outputs")
    func outputEvents() throws {
        var modern = SwayOutputTracker()
        #expect(modern.handle(.subscribe, try Self.parse(#"{"success":true}"#)).isEmpty)
        #expect(modern.handle(.outputEvent, .null) == [.askAgain])
        #expect(modern.handle(.windowEvent, .null).isEmpty, "sway says when outputs change")

        var old = SwayOutputTracker()
        #expect(old.handle(.workspaceEvent, .null).isEmpty, "before the answer: nothing assumed")
        #expect(old.handle(.subscribe, try Self.parse(#"{"success":false}"#)) == [.log(
            "this sway sends no output events (sway 1.8 has them): the outputs are read again at each change sway's "
                + "Wayland display reports (wlr-output-management) and at each window and workspace event: without that "
                + "display, a turn is sent at the next focus change")])
        #expect(old.handle(.windowEvent, .null) == [.askOutputs])
        #expect(old.handle(.workspaceEvent, .null) == [.askOutputs])
    }

    @Test("sizes from wlr-output-management join the listed outputs by name; each change of the heads asks sway again")
    func sizes() throws {
        var tracker = SwayOutputTracker()
        #expect(tracker.sizesChanged(["eDP-1": (256, 144)]) == [.askOutputs], "nothing listed yet")
        let outputs = #"[{"name":"eDP-1","active":true,"transform":"normal"},{"name":"HDMI-A-1","active":true,"transform":"normal"}]"#
        #expect(tracker.handle(.getOutputs, try Self.parse(outputs)) == [.outputs(OutputList([
            ClientRequest.Output(name: "eDP-1", rotation: 0, widthMillimetres: 256, heightMillimetres: 144, isBuiltIn: true),
            ClientRequest.Output(name: "HDMI-A-1", rotation: 0),
        ]))])
        #expect(tracker.sizesChanged(["eDP-1": (256, 144), "HDMI-A-1": (600, 340)]) == [.outputs(OutputList([
            ClientRequest.Output(name: "eDP-1", rotation: 0, widthMillimetres: 256, heightMillimetres: 144, isBuiltIn: true),
            ClientRequest.Output(name: "HDMI-A-1", rotation: 0, widthMillimetres: 600, heightMillimetres: 340),
        ])), .askOutputs])
        #expect(tracker.sizesChanged(["eDP-1": (256, 144), "HDMI-A-1": (600, 340)]) == [.askOutputs], "the same list: only the question")
    }
}
