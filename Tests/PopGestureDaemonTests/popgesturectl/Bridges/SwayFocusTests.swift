import Foundation
import Testing
@testable import popgesturectl

/// The sway bridge's pure parts without sway: the i3 IPC framing and what sway's
/// messages mean for focus. The JSON is sway 1.7's (Tests/Fixtures/sway, and events
/// captured from it trimmed to the fields that matter).
@Suite struct SwayFocusTests {
    static func message(_ type: SwayIPC.MessageType, _ json: String) -> SwayMessage {
        SwayMessage(type: type.rawValue, payload: Array(json.utf8))
    }

    static func view(id: Int64, app: String?, pid: Int64 = 4242, focused: Bool = true, classed: String? = nil) -> String {
        let appID = app.map { "\"\($0)\"" } ?? "null"
        let properties = classed.map { #","window_properties":{"class":"\#($0)","instance":"x","title":"t"}"# } ?? ""
        return #"{"id":\#(id),"type":"con","focused":\#(focused),"nodes":[],"floating_nodes":[],"pid":\#(pid),"app_id":\#(appID),"shell":"\#(classed == nil ? "xdg_shell" : "xwayland")"\#(properties)}"#
    }

    static func windowEvent(_ change: String, _ container: String) -> SwayMessage {
        message(.windowEvent, #"{"change":"\#(change)","container":\#(container)}"#)
    }

    static func workspaceFocus(id: Int64, focused: Bool, nodes: [String]) -> SwayMessage {
        message(.workspaceEvent, #"""
            {"change":"focus","old":null,"current":{"id":\#(id),"type":"workspace","name":"2","focused":\#(focused),
             "nodes":[\#(nodes.joined(separator: ","))],"floating_nodes":[]}}
            """#)
    }

    // MARK: Framing

    @Test("a request is framed as magic, length and type in the host's order, then the payload")
    func encode() {
        let bytes = SwayIPC.encode(.subscribe, payload: #"["window"]"#)
        #expect(Array(bytes[0..<6]) == Array("i3-ipc".utf8))
        #expect(Array(bytes[6..<14]) == [10, 0, 0, 0, 2, 0, 0, 0])  // little-endian on x86 and arm64
        #expect(String(decoding: bytes[14...], as: UTF8.self) == #"["window"]"#)
        #expect(SwayIPC.encode(.getTree).count == SwayIPC.headerBytes)
    }

    @Test("messages split across reads and several in one read come out whole, in order")
    func framing() throws {
        let stream = SwayIPC.encode(.getTree, payload: "{}") + SwayIPC.encode(.subscribe, payload: #"{"success":true}"#)
        for cut in [1, 5, 13, 14, 15, 16, 20, stream.count - 1] {
            var framer = SwayFramer()
            framer.append(stream[..<cut])
            var messages: [SwayMessage] = []
            while let message = try framer.next() { messages.append(message) }
            framer.append(stream[cut...])
            while let message = try framer.next() { messages.append(message) }
            #expect(messages == [
                SwayMessage(type: 4, payload: Array("{}".utf8)),
                SwayMessage(type: 2, payload: Array(#"{"success":true}"#.utf8)),
            ], "cut at \(cut)")
        }
    }

    @Test("an event keeps its high bit; a zero-length payload is a message")
    func eventType() throws {
        var framer = SwayFramer()
        framer.append(SwayIPC.magic + [0, 0, 0, 0, 6, 0, 0, 0x80])
        #expect(try framer.next() == SwayMessage(type: 0x8000_0006, payload: []))
        #expect(try framer.next() == nil)
    }

    @Test("a stream that is not i3 IPC is refused at its first wrong byte")
    func badMagic() {
        var framer = SwayFramer()
        framer.append(Array("i3-x".utf8))
        #expect(throws: SwayIPCError.self) { try framer.next() }
        var http = SwayFramer()
        http.append(Array("HTTP/1.1 200 OK\r\n".utf8))
        #expect(throws: SwayIPCError(.badMagic, #"sway sent a message that does not start with "i3-ipc"; is that sway's socket?"#)) {
            try http.next()
        }
    }

    @Test("a length over 16 MiB is refused before its payload is buffered")
    func tooLong() throws {
        var framer = SwayFramer()
        let length = UInt32(SwayIPC.maximumPayloadBytes + 1)
        framer.append(SwayIPC.magic)
        withUnsafeBytes(of: length) { framer.append($0) }
        framer.append([4, 0, 0, 0])
        do {
            _ = try framer.next()
            Issue.record("no error")
        } catch {
            #expect(error.code == .tooLong)
            #expect(error.description.contains("16 MiB"))
        }
        var atLimit = SwayFramer()
        atLimit.append(SwayIPC.magic)
        withUnsafeBytes(of: UInt32(SwayIPC.maximumPayloadBytes)) { atLimit.append($0) }
        atLimit.append([4, 0, 0, 0])
        #expect(try atLimit.next() == nil, "16 MiB exactly waits for its payload")
    }

    // MARK: Decoding

    @Test("sway's own tree: the focused view is the focused window")
    func realTree() throws {
        let url = Repository.root.appendingPathComponent("Tests/Fixtures/sway/tree-two-windows.json")
        var tracker = SwayFocusTracker()
        let tree = SwayMessage(type: SwayIPC.MessageType.getTree.rawValue, payload: Array(try Data(contentsOf: url)))
        #expect(try tracker.handle(tree) == .focused(FocusedWindow(app: "one", pid: 14883)))
        #expect(tracker.container == 5)
    }

    @Test("a tree whose focus is on a workspace, an output or nothing: no window")
    func treeWithoutFocusedView() throws {
        var tracker = SwayFocusTracker()
        let empty = Self.message(.getTree, #"""
            {"id":1,"type":"root","focused":false,"nodes":[{"id":3,"type":"output","focused":false,"nodes":[
             {"id":4,"type":"workspace","focused":true,"nodes":[],"floating_nodes":[]}],"floating_nodes":[]}],"floating_nodes":[]}
            """#)
        #expect(try tracker.handle(empty) == .focused(.none))
        #expect(try tracker.handle(Self.message(.getTree, #"{"id":1,"type":"root","nodes":[]}"#)) == .focused(.none))
    }

    @Test("a floating view is found through floating_nodes")
    func floating() throws {
        var tracker = SwayFocusTracker()
        let tree = Self.message(.getTree, #"""
            {"id":1,"focused":false,"nodes":[{"id":4,"type":"workspace","focused":false,"nodes":[\#(Self.view(id: 8, app: "tiled", focused: false))],
             "floating_nodes":[\#(Self.view(id: 9, app: "float", pid: 77))]}]}
            """#)
        #expect(try tracker.handle(tree) == .focused(FocusedWindow(app: "float", pid: 77)))
    }

    @Test("window focus events name the window; an Xwayland window's app is its WM_CLASS class")
    func windowFocus() throws {
        var tracker = SwayFocusTracker()
        #expect(try tracker.handle(Self.windowEvent("focus", Self.view(id: 5, app: "one", pid: 10))) == .focused(FocusedWindow(app: "one", pid: 10)))
        #expect(try tracker.handle(Self.windowEvent("focus", Self.view(id: 7, app: nil, pid: 11, classed: "firefox-esr")))
            == .focused(FocusedWindow(app: "firefox-esr", pid: 11)))
        #expect(tracker.container == 7)
    }

    @Test("closing the focused window means none; closing another means nothing")
    func close() throws {
        var tracker = SwayFocusTracker()
        _ = try tracker.handle(Self.windowEvent("focus", Self.view(id: 5, app: "one")))
        #expect(try tracker.handle(Self.windowEvent("close", Self.view(id: 6, app: "two", focused: false))) == .nothing)
        #expect(try tracker.handle(Self.windowEvent("close", Self.view(id: 5, app: "one"))) == .focused(.none))
        #expect(tracker.container == nil)
    }

    @Test("another change of the focused window reports it again; of an unfocused one, nothing")
    func otherChanges() throws {
        var tracker = SwayFocusTracker()
        _ = try tracker.handle(Self.windowEvent("focus", Self.view(id: 5, app: "one")))
        #expect(try tracker.handle(Self.windowEvent("title", Self.view(id: 5, app: "one.renamed"))) == .focused(FocusedWindow(app: "one.renamed", pid: 4242)))
        #expect(try tracker.handle(Self.windowEvent("title", Self.view(id: 6, app: "two", focused: false))) == .nothing)
        #expect(try tracker.handle(Self.windowEvent("focus", #"{"id":3}"#)) == .focused(.none), "a focus event without a view")
        #expect(try tracker.handle(Self.message(.windowEvent, #"{"change":"focus"}"#)) == .nothing)
    }

    @Test("focus onto an empty workspace means none; onto a full one, the window event decides")
    func workspaces() throws {
        var tracker = SwayFocusTracker()
        _ = try tracker.handle(Self.windowEvent("focus", Self.view(id: 5, app: "one")))
        #expect(try tracker.handle(Self.workspaceFocus(id: 7, focused: true, nodes: [])) == .focused(.none))
        #expect(try tracker.handle(Self.workspaceFocus(id: 4, focused: false, nodes: [Self.view(id: 5, app: "one", focused: false)])) == .nothing)
        #expect(try tracker.handle(Self.workspaceFocus(id: 4, focused: false, nodes: [Self.view(id: 5, app: "one")]))
            == .focused(FocusedWindow(app: "one", pid: 4242)))
        #expect(try tracker.handle(Self.message(.workspaceEvent, #"{"change":"init","current":{"id":9,"nodes":[]}}"#)) == .nothing)
    }

    @Test("shutdown ends; a refused subscription, a tree that is no object and bad JSON are errors")
    func endsAndErrors() throws {
        var tracker = SwayFocusTracker()
        #expect(try tracker.handle(Self.message(.shutdownEvent, #"{"change":"exit"}"#)) == .shutdown)
        #expect(try tracker.handle(Self.message(.subscribe, #"{"success":true}"#)) == .nothing)
        #expect(throws: SwayIPCError(.unexpected, #"sway refused the subscription to window and workspace events: "{\"success\":false}""#)) {
            try tracker.handle(Self.message(.subscribe, #"{"success":false}"#))
        }
        #expect(throws: SwayIPCError.self) { try tracker.handle(Self.message(.getTree, "[]")) }
        #expect(throws: SwayIPCError.self) { try tracker.handle(Self.message(.windowEvent, "{")) }
        #expect(try tracker.handle(SwayMessage(type: 0x8000_0005, payload: Array("{}".utf8))) == .nothing, "an event not asked for")
    }

    @Test("nesting past 128 is refused; a tree as deep as 128 is read")
    func depth() throws {
        var tracker = SwayFocusTracker()
        let deep = String(repeating: #"{"nodes":["#, count: 64) + "{}" + String(repeating: "]}", count: 64)
        #expect(throws: SwayIPCError.self) { try tracker.handle(Self.message(.getTree, deep)) }
        let fits = String(repeating: #"{"nodes":["#, count: 63) + #"{"id":2,"focused":true,"pid":5,"app_id":"deep"}"#
            + String(repeating: "]}", count: 63)
        #expect(try tracker.handle(Self.message(.getTree, fits)) == .focused(FocusedWindow(app: "deep", pid: 5)))
    }

    @Test("what the protocol would refuse becomes unknown: an empty or 257-byte app id, pid 0 or past Int32")
    func bounds() {
        #expect(FocusedWindow(app: "", pid: 0) == .none)
        #expect(FocusedWindow(app: String(repeating: "a", count: 257), pid: Int64(Int32.max) + 1) == .none)
        #expect(FocusedWindow(app: String(repeating: "a", count: 256), pid: Int64(Int32.max)).pid == Int64(Int32.max))
        #expect(FocusedWindow(app: String(repeating: "a", count: 256), pid: 1).app?.utf8.count == 256)
    }
}
