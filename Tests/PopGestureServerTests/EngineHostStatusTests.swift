import Foundation
import PopGestureCore
import PopGestureProtocol
@testable import PopGestureServer
import PopGestureSynthesis
import Testing

/// What `status` says beside devices, navigators and clients: each device's size,
/// rotation and seat, the shell, the last rejected pans, and the daemon's supplement.
@Suite("EngineHost status")
struct EngineHostStatusTests {
    /// The daemon's part, as a test sets it.
    final class Supplement: StatusSupplement {
        var daemon: ServerReply.Status.Daemon? = .init(
            pid: 812, startedBy: "systemd", unit: "popgestured.service", socketFromSystemd: true, grab: "on")
        var backInput: ServerReply.Status.BackInput? = .init(
            on: true, input: "alt+left", mode: "edge", device: "/dev/input/event7", problem: nil)
        var keys: [Int] = []

        func supplement(_ entry: inout ServerReply.Status.Device, ofDevice key: Int) {
            keys.append(key)
            entry.grab = "grabbed"
            entry.clone = "/dev/input/event9"
        }
    }

    /// `count` vertical strokes, one after another: each a scroll, rejected as too steep.
    static func scrolls(_ count: Int) -> TouchScript {
        var finger = TouchScript(device: Fixtures.touchscreen, start: Fixtures.start)
        for _ in 0..<count {
            finger.down(at: 0.5, 0.3)
            finger.move(byMillimetres: 2, 60, over: .milliseconds(200))
            finger.up()
            finger.rest(.milliseconds(100))
        }
        return finger
    }

    @Test("a device's entry has its size in mm, rotation and seat")
    func deviceEntry() throws {
        var h = Harness()
        let a = h.connect()
        try h.addTouchscreen()
        let answer = h.reply(#"{"type":"status"}"#, from: a)
        let reply = json(try #require(answer))
        let device = try #require((reply["devices"] as? [[String: Any]])?.first)
        #expect(device["widthMillimetres"] as? Double == 255.9)
        #expect(device["heightMillimetres"] as? Double == 255.9)
        #expect(device["sizeAssumed"] as? Bool == false)
        #expect(device["sizeSource"] as? String == "axes")
        #expect(device["rotation"] as? Int == 0)
        #expect(device["seat"] as? String == "seat0")
        #expect(device["grab"] == nil, "no supplement, no grab")
    }

    @Test("sizeSource says where a touchscreen without resolution got its size: udev, the display, or a guess")
    func sizeSource() throws {
        var noResolution = Fixtures.touchscreen
        for code in [ABS.x, ABS.y, ABS.mtPositionX, ABS.mtPositionY] { noResolution.axes[code]?.resolution = 0 }
        var reported = noResolution
        reported.reportedSize = PhysicalSize(width: 150, height: 94)
        let display = DeviceConfiguration(displaySize: PhysicalSize(width: 95, height: 54))
        var h = Harness()
        let a = h.connect()
        _ = try h.deviceAdded(key: 11, path: "/dev/input/event11", name: "guess", description: noResolution, at: Fixtures.start)
        _ = try h.deviceAdded(
            key: 12, path: "/dev/input/event12", name: "edid", description: noResolution, configuration: display,
            at: Fixtures.start)
        _ = try h.deviceAdded(
            key: 13, path: "/dev/input/event13", name: "udev", description: reported, configuration: display,
            at: Fixtures.start)
        let answer = h.reply(#"{"type":"status"}"#, from: a)
        let reply = json(try #require(answer))
        let devices = try #require(reply["devices"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: devices.map { ($0["name"] as? String ?? "", $0) })
        #expect(byName["guess"]?["sizeSource"] as? String == "assumed")
        #expect(byName["guess"]?["sizeAssumed"] as? Bool == true)
        #expect(byName["edid"]?["sizeSource"] as? String == "display")
        #expect(byName["edid"]?["sizeAssumed"] as? Bool == false)
        // 0…4095 on both axes: a square range keeps the display's own orientation.
        #expect(byName["edid"]?["widthMillimetres"] as? Double == 95)
        #expect(byName["edid"]?["heightMillimetres"] as? Double == 54)
        #expect(byName["udev"]?["sizeSource"] as? String == "udev", "udev's size comes before the display's")
        #expect(byName["udev"]?["widthMillimetres"] as? Double == 150)
    }

    @Test("the last 8 rejected pans, oldest first, and how many there were")
    func rejectionRing() throws {
        var h = Harness()
        let a = h.owner()
        try h.addTouchscreen()
        let events = h.play(Self.scrolls(11))
        #expect(events.lines(to: a).filter { $0.contains(#""type":"rejected""#) }.isEmpty, "owners get no rejected")
        #expect(h.host.rejectedCount == 11)
        #expect(h.host.recentRejections.count == EngineHost.recentRejectionLimit)
        #expect(h.host.recentRejections.allSatisfy { $0.reason == .tooSteep })
        let times = h.host.recentRejections.map(\.time)
        #expect(times == times.sorted(), "oldest first")

        let answer = h.reply(#"{"type":"status"}"#, from: a)
        let reply = json(try #require(answer))
        #expect(reply["rejectedCount"] as? Int == 11)
        let listed = try #require(reply["rejected"] as? [[String: Any]])
        #expect(listed.count == 8)
        #expect(listed.allSatisfy { $0["reason"] as? String == "too-steep" && $0["device"] as? Int == 0 })
        #expect(listed.map { $0["time_us"] as? Int ?? 0 } == times.map { Int($0.microseconds) })
    }

    @Test("before any rejection: an empty list and a count of 0")
    func noRejection() throws {
        var h = Harness()
        let a = h.connect()
        let answer = h.reply(#"{"type":"status"}"#, from: a)
        let line = try #require(answer)
        #expect(line.contains(#""rejected":[],"rejectedCount":0"#))
    }

    @Test("the shell's client number is in the focus")
    func shell() throws {
        var h = Harness()
        let shell = h.connect(greeted: false)
        _ = h.send(#"{"type":"hello","version":1,"name":"bridge","role":"shell"}"#, from: shell)
        let answer = h.reply(#"{"type":"status"}"#, from: shell)
        let reply = json(try #require(answer))
        let focus = try #require(reply["focus"] as? [String: Any])
        #expect(focus["source"] as? String == "shell")
        #expect(focus["shell"] as? Int == Int(shell.rawValue))
    }

    @Test("the supplement adds the daemon, the back input and each device's grab")
    func supplement() throws {
        var h = Harness()
        let supplement = Supplement()
        h.host = EngineHost(supplement: supplement, logger: quietLogger)
        let a = h.connect()
        try h.addTouchscreen()
        let answer = h.reply(#"{"type":"status"}"#, from: a)
        let line = try #require(answer)
        #expect(supplement.keys == [Harness.touchscreenKey])
        #expect(line.contains(#""seat":"seat0","grab":"grabbed","clone":"/dev/input/event9","rotationSource":"configuration"}"#))
        #expect(line.contains(
            #""daemon":{"pid":812,"startedBy":"systemd","unit":"popgestured.service","socketFromSystemd":true,"grab":"on"}"#))
        #expect(line.contains(#""backInput":{"on":true,"input":"alt+left","mode":"edge","device":"/dev/input/event7"}"#))
        guard case .reply(.status(let status), _) = try MessageCodec.decode(line) else {
            Issue.record("not a status: \(line)")
            return
        }
        #expect(status.daemon == supplement.daemon)
        #expect(status.backInput == supplement.backInput)
        #expect(status.devices.first?.grab == "grabbed")
    }
}
