import Foundation
import PopGestureBus
import Testing
@testable import popgesturectl

/// How KWin scrolls the daemon's virtual touchpad: the event nodes from a sysfs of our
/// own, KWin's property through a getter that answers as KWin's D-Bus does. KWin with
/// the real device is the VM's business (the host has no uinput).
@Suite struct KDETouchpadTests {
    /// A folder standing in for `/`, with `/sys/class/input/eventN/device/name` for each name.
    static func sysfs(_ names: [Int: String]) throws -> SystemProbe {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kde-touchpad-\(UUID().uuidString)")
        for (number, name) in names {
            let device = root.appendingPathComponent("sys/class/input/event\(number)/device")
            try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
            try Data("\(name)\n".utf8).write(to: device.appendingPathComponent("name"))
        }
        return SystemProbe(root: root.path)
    }

    @Test("the virtual touchpads' nodes by number; other devices left out")
    func nodes() throws {
        let probe = try Self.sysfs([3: "ELAN Touchscreen", 12: "popgestured touchpad", 9: "popgestured touchpad", 4: "popgestured"])
        #expect(KWinTouchpadScrolling.eventNodes(in: probe) == ["event9", "event12"])
        #expect(KWinTouchpadScrolling.eventNodes(in: SystemProbe(root: "/nonexistent")) == [])
    }

    @Test("the first node KWin knows gives the setting, once; a node KWin does not know is skipped")
    func reads() {
        var scrolling = KWinTouchpadScrolling()
        var natural = true
        var asked: [String] = []
        let kwin: (String, String, String) throws -> DBusValue? = { path, interface, property in
            asked.append("\(path) \(interface).\(property)")
            guard path.hasSuffix("/event12") else {
                throw DBusError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no such object")
            }
            return .bool(natural)
        }
        #expect(scrolling.read(nodes: ["event9", "event12"], kwin) == [.touchpadScrolling(natural: true)])
        #expect(asked == ["/org/kde/KWin/InputDevice/event9 org.kde.KWin.InputDevice.naturalScroll",
                          "/org/kde/KWin/InputDevice/event12 org.kde.KWin.InputDevice.naturalScroll"])
        #expect(scrolling.read(nodes: ["event9", "event12"], kwin).isEmpty, "unchanged")
        natural = false
        #expect(scrolling.read(nodes: ["event9", "event12"], kwin) == [.touchpadScrolling(natural: false)])
        #expect(scrolling.read(nodes: [], kwin).isEmpty && scrolling.natural == false, "no device: the last word stays")
        #expect(scrolling.read(nodes: ["event12"]) { _, _, _ in .string("yes") }.isEmpty, "not a boolean")
    }
}
