import Foundation
import PopGestureCore
import PopGestureInput
import PopGestureProtocol
@testable import PopGestureServer
import Testing

/// The shell's `rotation` and `text-direction` over a real Unix socket (issue 20): what
/// `status` shows, who may send them, and what is left when the shell goes.
@Suite("the screen's rotation and direction over a real socket", .serialized)
struct ScreenTurnServerTests {
    /// `status`'s `screen`; events before the reply (a subscriber's) are skipped.
    static func screen(_ client: TestClient) throws -> [String: Any] {
        var reply = try client.request(#"{"type":"status"}"#)
        for _ in 0..<8 where reply["type"] as? String != "status" { reply = try client.readObject() }
        return try #require(reply["screen"] as? [String: Any])
    }

    static func shell(_ running: RunningServer) throws -> TestClient {
        let shell = try running.connect()
        let hello = try shell.request(#"{"type":"hello","version":1,"role":"shell"}"#)
        #expect(hello["type"] as? String == "hello")
        return shell
    }

    @Test("the shell turns the screen 90° and says rtl: status shows both from the shell, and the touchscreen turned")
    func shellTurnsTheScreen() async throws {
        try await RunningServer.with { running in
            let observer = try running.connect()
            try observer.hello(name: "observer")
            _ = try running.engine.sync { side in
                Result { () throws(InputError) in
                    try side.deviceAdded(
                        key: 3, path: "/dev/input/event3", name: "Fixture Touchscreen", description: Fixtures.touchscreen)
                }
            }.get()
            let before = try Self.screen(observer)
            #expect(before["rotation"] as? Int == 0)
            #expect(before["rotationSource"] as? String == "configuration")
            #expect(before["direction"] as? String == "ltr")
            #expect(before["directionSource"] as? String == "configuration")
            #expect(before["sensor"] == nil, "no sensor is followed here")

            #expect(try observer.request(#"{"type":"subscribe"}"#)["type"] as? String == "ok")
            let shell = try Self.shell(running)
            #expect(try shell.request(#"{"type":"rotation","rotation":90,"output":"DSI-1","id":1}"#)["type"] as? String == "ok")
            // The shell's hello changed the focus first.
            var changed = try observer.readObject()
            if changed["type"] as? String == "focus-changed" { changed = try observer.readObject() }
            #expect(changed["type"] as? String == "screen-changed")
            #expect(changed["rotation"] as? Int == 90)
            #expect(changed["rotationSource"] as? String == "shell")
            #expect(try shell.request(#"{"type":"text-direction","direction":"rtl"}"#)["type"] as? String == "ok")
            let after = try Self.screen(observer)
            #expect(after["rotation"] as? Int == 90)
            #expect(after["rotationSource"] as? String == "shell")
            #expect(after["output"] as? String == "DSI-1")
            #expect(after["direction"] as? String == "rtl")
            #expect(after["directionSource"] as? String == "shell")
            let status = try observer.request(#"{"type":"status"}"#)
            let devices = try #require(status["devices"] as? [[String: Any]])
            #expect(devices.first?["rotation"] as? Int == 90)
        }
    }

    @Test("an app sending rotation or text-direction gets not-shell, and nothing changes")
    func appIsNotShell() async throws {
        try await RunningServer.with { running in
            let app = try running.connect()
            try app.hello(name: "app")
            let rotation = try app.request(#"{"type":"rotation","rotation":180}"#)
            #expect(rotation["type"] as? String == "error")
            #expect(rotation["code"] as? String == "not-shell")
            let direction = try app.request(#"{"type":"text-direction","direction":"rtl"}"#)
            #expect(direction["code"] as? String == "not-shell")
            let screen = try Self.screen(app)
            #expect(screen["rotationSource"] as? String == "configuration")
            #expect(screen["direction"] as? String == "ltr")
        }
    }

    @Test("the shell says its session scrolls touchpads naturally: status shows it for the seat; an app may not say it; gone with the shell")
    func touchpadScrolling() async throws {
        try await RunningServer.with { running in
            let app = try running.connect()
            try app.hello(name: "app")
            func focus() throws -> [String: Any] {
                try #require(try app.request(#"{"type":"status"}"#)["focus"] as? [String: Any])
            }
            #expect(try focus()["touchpadScrolling"] == nil, "nobody said")
            #expect(try app.request(#"{"type":"touchpad-scrolling","natural":true}"#)["code"] as? String == "not-shell")
            var shell: TestClient? = try Self.shell(running)
            #expect(try shell!.request(#"{"type":"touchpad-scrolling","natural":true}"#)["type"] as? String == "ok")
            #expect(try focus()["touchpadScrolling"] as? String == "natural")
            #expect(try shell!.request(#"{"type":"touchpad-scrolling","natural":false}"#)["type"] as? String == "ok")
            #expect(try focus()["touchpadScrolling"] as? String == "traditional")
            shell = nil  // closes the connection
            #expect(try await eventually { try focus()["touchpadScrolling"] == nil })
        }
    }

    @Test("the shell disconnects: the sensor's rotation applies, and the configuration's direction")
    func shellGoneFallsBack() async throws {
        try await RunningServer.with { running in
            let observer = try running.connect()
            try observer.hello(name: "observer")
            running.engine.sync { side in side.sensorChanged(.rightUp, state: "right-up") }
            var screen = try Self.screen(observer)
            #expect(screen["rotation"] as? Int == 270)
            #expect(screen["rotationSource"] as? String == "sensor")
            #expect(screen["sensor"] as? String == "right-up")

            var shell: TestClient? = try Self.shell(running)
            _ = try shell!.request(#"{"type":"rotation","rotation":90}"#)
            _ = try shell!.request(#"{"type":"text-direction","direction":"rtl"}"#)
            screen = try Self.screen(observer)
            #expect(screen["rotationSource"] as? String == "shell")
            shell = nil  // closes the connection
            #expect(try await eventually { try Self.screen(observer)["rotationSource"] as? String == "sensor" })
            screen = try Self.screen(observer)
            #expect(screen["rotation"] as? Int == 270)
            #expect(screen["output"] == nil)
            #expect(screen["direction"] as? String == "ltr")
            #expect(screen["directionSource"] as? String == "configuration")

            running.engine.sync { side in side.sensorChanged(nil, state: "absent") }
            screen = try Self.screen(observer)
            #expect(screen["rotationSource"] as? String == "configuration")
            #expect(screen["sensor"] as? String == "absent")
        }
    }

    @Test("the shell's outputs reach the engine, a size no panel has as unknown; an app gets not-shell")
    func shellReportsOutputs() async throws {
        try await RunningServer.with { running in
            let app = try running.connect()
            try app.hello(name: "app")
            let refused = try app.request(#"{"type":"outputs","outputs":[{"name":"eDP-1","rotation":90}]}"#)
            #expect(refused["code"] as? String == "not-shell")
            #expect(running.engine.sync { $0.host.feed.engine.session.shellOutputs } == nil)

            let shell = try Self.shell(running)
            let line = #"{"type":"outputs","outputs":[{"name":"eDP-1","rotation":90,"widthMillimetres":256,"heightMillimetres":144,"builtIn":true,"inputs":["1267:10780:ELAN_Touchscreen"]},{"name":"HDMI-A-1","rotation":180,"widthMillimetres":0,"heightMillimetres":300},{"name":"DP-1","rotation":0,"widthMillimetres":20000,"heightMillimetres":10}],"id":7}"#
            let reply = try shell.request(line)
            #expect(reply["type"] as? String == "ok" && reply["request"] as? String == "outputs", "\(reply)")
            #expect(running.engine.sync { $0.host.feed.engine.session.shellOutputs } == [
                OutputReport(
                    name: "eDP-1", rotation: .clockwise90, size: PhysicalSize(width: 256, height: 144), isBuiltIn: true,
                    inputs: ["1267:10780:ELAN_Touchscreen"]),
                OutputReport(name: "HDMI-A-1", rotation: .upsideDown),
                OutputReport(name: "DP-1", rotation: .none),
            ])
            // The list replaces the last one.
            #expect(try shell.request(#"{"type":"outputs","outputs":[]}"#)["type"] as? String == "ok")
            #expect(running.engine.sync { $0.host.feed.engine.session.shellOutputs } == [])
            let bad = try shell.request(#"{"type":"outputs","outputs":[{"name":"a","rotation":45}]}"#)
            #expect(bad["code"] as? String == "invalid-field", "\(bad)")
            #expect(running.engine.sync { $0.host.feed.engine.session.shellOutputs } == [], "a refused list changes nothing")
        }
    }

    @Test("OutputReport from the protocol's output: sizes not positive, past 10 m or not finite are unknown")
    func outputReportSizes() {
        func size(_ width: Double?, _ height: Double?) -> PhysicalSize? {
            OutputReport(ClientRequest.Output(name: "a", rotation: 0, widthMillimetres: width, heightMillimetres: height))?.size
        }
        #expect(size(256, 144) == PhysicalSize(width: 256, height: 144))
        #expect(size(10_000, 0.5) == PhysicalSize(width: 10_000, height: 0.5))
        #expect(size(256, nil) == nil)
        #expect(size(0, 144) == nil)
        #expect(size(-256, 144) == nil)
        #expect(size(10_000.5, 144) == nil)
        #expect(size(.infinity, 144) == nil)
        #expect(size(256, .nan) == nil)
        #expect(OutputReport(ClientRequest.Output(name: "a", rotation: 45)) == nil)
        #expect(OutputReport(ClientRequest.Output(name: "a", rotation: 270, isBuiltIn: true))
            == OutputReport(name: "a", rotation: .clockwise270, isBuiltIn: true))
    }
}
