import Foundation
import PopGestureClient
@testable import PopGestureDaemon
import PopGestureProtocol
@testable import popgesturectl
import SystemPackage
import Testing

/// `popgesturectl doctor`'s findings from a given `status` and a made-up machine: a
/// folder standing for `/`, with udev's database, sysfs and systemd's unit files in it.
@Suite struct DoctorDiagnosisTests {
    /// A folder laid out as the parts of `/` the doctor reads.
    final class Machine {
        let root: URL

        init() throws {
            root = try PopGestureCtlCommandTests.temporaryDirectory()
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        func write(_ path: String, _ text: String = "") throws {
            let url = root.appendingPathComponent(String(path.dropFirst()))
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }

        func folder(_ path: String) throws {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(String(path.dropFirst())), withIntermediateDirectories: true)
        }

        /// An event node udev has a record of, with these properties.
        func eventNode(_ number: Int, name: String, phys: String = "", _ properties: [String]) throws {
            try write("/sys/class/input/event\(number)/dev", "13:\(64 + number)\n")
            try write("/sys/class/input/event\(number)/device/name", name + "\n")
            try write("/sys/class/input/event\(number)/device/phys", phys + "\n")
            try write("/run/udev/data/c13:\(64 + number)", "I:1\n" + properties.map { "E:\($0)\n" }.joined() + "G:seat\n")
        }

        var probe: SystemProbe { SystemProbe(root: root.path) }
    }

    static let socket = PopGestureSocket.defaultPath

    static func device(
        grab: String? = nil, sizeAssumed: Bool = false, sizeSource: String? = nil, name: String = "ELAN Touchscreen"
    ) -> ServerReply.Status.Device {
        ServerReply.Status.Device(
            device: 0, name: name, path: "/dev/input/event5", kind: "touchscreen", widthMillimetres: 256,
            heightMillimetres: 144, sizeAssumed: sizeAssumed, sizeSource: sizeSource, rotation: 90, seat: "seat0", grab: grab,
            clone: grab == nil ? nil : "/dev/input/event9")
    }

    /// A daemon started by systemd, with a device and the back input on /dev/input/event7.
    static func status(
        devices: [ServerReply.Status.Device] = [device()], grab: String = "off",
        backInput: ServerReply.Status.BackInput? = .init(on: true, input: "alt+left", mode: "edge", device: "/dev/input/event7", problem: nil),
        navigators: [ServerReply.Status.Navigator] = [], clients: [ServerReply.Status.Client] = [],
        focus: ServerReply.Status.Focus = .init(source: "clients", app: nil, pid: nil)
    ) -> ServerReply.Status {
        ServerReply.Status(
            version: 1, devices: devices, navigators: navigators, clients: clients, focus: focus,
            daemon: .init(pid: 812, startedBy: "systemd", unit: "popgestured.service", socketFromSystemd: true, grab: grab),
            backInput: backInput, rejected: [], rejectedCount: 0,
            screen: .init(rotation: 90, rotationSource: "shell", output: "DSI-1", sensor: "left-up", direction: "ltr",
                          directionSource: "configuration"))
    }

    static func report(_ status: ServerReply.Status, on machine: Machine) -> DoctorReport {
        Diagnosis(socket: socket, status: .success(status), probe: machine.probe, now: 0).report
    }

    static func findings(_ report: DoctorReport, _ title: String) -> [Finding] {
        report.checks.first { $0.title == title }?.findings ?? []
    }

    @Test("a tablet where all is well: every finding ok, exit 0")
    func allWell() throws {
        let machine = try Machine()
        try machine.folder("/run/systemd/system")
        try machine.write("/usr/lib/systemd/system/popgestured.service")
        try machine.write("/usr/lib/systemd/system/popgestured.socket")
        try machine.write("/etc/systemd/system/popgestured-touch.target.wants/popgestured.service")
        try machine.write("/etc/systemd/system/sockets.target.wants/popgestured.socket")
        try machine.eventNode(5, name: "ELAN Touchscreen", ["ID_INPUT=1", "ID_INPUT_TOUCHSCREEN=1"])
        try machine.eventNode(7, name: "popgestured back input", ["ID_INPUT=1", "ID_INPUT_KEY=1", "ID_INPUT_KEYBOARD=1"])
        let shell = ServerReply.Status.Client(
            client: 5, name: "popgesturectl bridge sway", credentials: .init(pid: 1234, uid: 1000, gid: 1000), observer: false)
        let report = Self.report(Self.status(
            clients: [shell], focus: .init(source: "shell", app: "firefox", pid: 4321, shell: 5)), on: machine)
        #expect(report.swipeCanWork)
        #expect(report.checks.flatMap(\.findings).allSatisfy { $0.level == .ok || $0.level == .note },
                "\(report.lines.joined(separator: "\n"))")
        #expect(report.lines == [
            "popgesturectl doctor: popgestured on /run/popgestured/popgestured.sock",
            "",
            "daemon",
            "  ok       reachable on /run/popgestured/popgestured.sock: pid 812, protocol 1",
            "  ok       started by systemd as popgestured.service, on the socket of popgestured.socket",
            "",
            "touch devices",
            "  ok       device 0: touchscreen \"ELAN Touchscreen\" on /dev/input/event5, 256.0 × 144.0 mm, rotation 90°, seat seat0",
            "",
            "back input",
            "  ok       \"popgestured back input\" on /dev/input/event7 sends alt+left to apps without a navigator (edge mode)",
            "  ok       udev tagged /dev/input/event7 ID_INPUT_KEY, ID_INPUT_KEYBOARD: the compositor reads it",
            "",
            "grab mode",
            "  ok       off (grab = off): apps get every touch, a back swipe's too, as with any touchscreen",
            "",
            "focus and apps",
            "  ok       focus bridge connected: client 5 \"popgesturectl bridge sway\" (pid 1234)",
            "  ok       window in focus: firefox (pid 4321), says the shell",
            "  note     no app owns a navigator: backs go to the back input only",
            "",
            "rotation and direction",
            "  ok       rotation 90°, from the focus bridge (output DSI-1): the compositor's own transform, over the sensor and the file",
            "  ok       iio-sensor-proxy says left-up; the focus bridge's rotation takes precedence",
            "  ok       text direction ltr, from the configuration (`layout`), for navigators that choose none",
            "",
            "rejected pans",
            "  ok       no pan rejected since the daemon started",
            "",
            "verdict: a swipe can work: popgestured reads 1 touch device, and backs go to the back input (alt+left)",
        ])
    }

    @Test("no focus bridge and no iio-sensor-proxy: the configuration's rotation, and how to get a turning screen")
    func rotationFromTheConfiguration() throws {
        let machine = try Machine()
        var status = Self.status()
        status.screen = .init(rotation: 0, rotationSource: "configuration", sensor: "absent", direction: "rtl",
                              directionSource: "configuration")
        let findings = Self.findings(Self.report(status, on: machine), "rotation and direction")
        #expect(findings.map(\.text) == [
            "rotation 0°, from the configuration (`rotation`): no focus bridge reports the screen, and the file fixes it or no sensor speaks",
            "iio-sensor-proxy is not running: the screen does not turn by itself without a focus bridge",
            "text direction rtl, from the configuration (`layout`), for navigators that choose none",
        ])
        #expect(findings.map(\.level) == [.ok, .note, .ok])
    }

    @Test("the back input is there but udev did not make it a keyboard: no swipe reaches an app without a navigator")
    func notTaggedAsKeyboard() throws {
        let machine = try Machine()
        try machine.eventNode(7, name: "popgestured back input", ["ID_INPUT=1"])
        let report = Self.report(Self.status(), on: machine)
        #expect(!report.swipeCanWork)
        let tag = try #require(Self.findings(report, "back input").last)
        #expect(tag.level == .problem)
        #expect(tag.text.hasPrefix("udev did not tag /dev/input/event7 as a keyboard (no ID_INPUT_KEY or ID_INPUT_KEYBOARD)"))
        #expect(tag.fixes.last == "then: sudo udevadm trigger --action=change /dev/input/event7")
        #expect(report.verdict == "verdict: no swipe can work: nothing can receive a back: udev did not make the back input a keyboard, and no app owns a navigator")

        // An app's navigator can still receive: a warning then, and exit 0.
        let withApp = Self.report(Self.status(navigators: [.init(navigator: "main", owner: 3, pages: 2, front: true)]), on: machine)
        #expect(withApp.swipeCanWork)
        #expect(Self.findings(withApp, "back input").last?.level == .warning)
    }

    @Test("no udev database: the tags cannot be checked, which is said, and the swipe counts as possible")
    func noUdev() throws {
        let machine = try Machine()
        let report = Self.report(Self.status(), on: machine)
        #expect(report.swipeCanWork)
        #expect(Self.findings(report, "back input").last?.text
            == "cannot check how udev tagged /dev/input/event7: udev keeps no database here (/run/udev/data is missing)")
    }

    @Test("the back input off in the configuration, and no navigator: a problem with the key to set")
    func backInputNone() throws {
        let machine = try Machine()
        let report = Self.report(
            Self.status(backInput: .init(on: false, input: nil, mode: "edge", device: nil, problem: nil)), on: machine)
        #expect(!report.swipeCanWork)
        let finding = try #require(Self.findings(report, "back input").first)
        #expect(finding.text == "off: the configuration sends no back input (back-input = none)")
        #expect(finding.fixes == ["set back-input = alt+left in /etc/popgestured/popgestured.conf, then: sudo systemctl reload popgestured"])
    }

    @Test("systemd started it, but the units are not enabled: warnings with the enable commands")
    func notEnabled() throws {
        let machine = try Machine()
        try machine.folder("/run/systemd/system")
        let findings = Self.findings(Self.report(Self.status(), on: machine), "daemon")
        #expect(findings.map(\.level) == [.ok, .ok, .warning, .warning])
        #expect(findings[2].text.hasPrefix("popgestured.service is not enabled: after a reboot the daemon starts only when a client connects"))
        #expect(findings[2].fixes == ["sudo systemctl enable popgestured.service"])
        #expect(findings[3].fixes == ["sudo systemctl enable popgestured.socket"])
    }

    @Test("a touchscreen udev knows and the daemon does not read: named, with its ACL")
    func touchscreenNotUsed() throws {
        let machine = try Machine()
        try machine.eventNode(5, name: "ELAN Touchscreen", ["ID_INPUT=1", "ID_INPUT_TOUCHSCREEN=1"])
        try machine.eventNode(9, name: "ELAN Touchscreen", phys: "popgestured//dev/input/event5", ["ID_INPUT_TOUCHSCREEN=1"])
        try machine.eventNode(3, name: "AT Keyboard", ["ID_INPUT_KEYBOARD=1"])
        #expect(machine.probe.touchNodes() == [.init(devnode: "/dev/input/event5", name: "ELAN Touchscreen", kind: "touchscreen")],
                "grab mode's clone and the keyboard are left out")
        let report = Self.report(Self.status(devices: []), on: machine)
        #expect(!report.swipeCanWork)
        let finding = try #require(Self.findings(report, "touch devices").first)
        #expect(finding.level == .problem)
        #expect(finding.text == "no touch device in use: popgestured reads no touchscreen or touchpad")
        #expect(finding.details.first == "udev knows the touchscreen \"ELAN Touchscreen\" on /dev/input/event5")
        #expect(report.verdict.hasPrefix("verdict: no swipe can work: popgestured reads no touchscreen or touchpad"))
    }

    @Test("a size the daemon had to guess is a warning with the udev property to set")
    func assumedSize() throws {
        let machine = try Machine()
        let finding = try #require(Self.findings(Self.report(Self.status(devices: [Self.device(sizeAssumed: true)]), on: machine),
                                                 "touch devices").first)
        #expect(finding.level == .warning)
        #expect(finding.text.hasSuffix("; that size is a guess"))
    }

    @Test("sizeSource assumed: a warning naming the device, with the udev rule and the hwdb entry to paste")
    func assumedSizeFixes() throws {
        let machine = try Machine()
        let status = Self.status(devices: [Self.device(sizeAssumed: true, sizeSource: "assumed")])
        let finding = try #require(Self.findings(Self.report(status, on: machine), "touch devices").first)
        #expect(finding.level == .warning)
        #expect(finding.text == "device 0: touchscreen \"ELAN Touchscreen\" on /dev/input/event5, 256.0 × 144.0 mm, rotation 90°, seat seat0; that size is a guess")
        #expect(finding.details.first == "it reports no resolution and udev gives no ID_INPUT_WIDTH_MM/ID_INPUT_HEIGHT_MM, and the display it drives gives no size (the daemon's log says why: journalctl -u popgestured | grep /dev/input/event5)")
        #expect(finding.fixes == [
            #"measure the visible screen in mm, then set udev's size for it: echo 'ACTION!="remove", KERNEL=="event*", ATTRS{name}=="ELAN Touchscreen", ENV{ID_INPUT_WIDTH_MM}="<width mm>", ENV{ID_INPUT_HEIGHT_MM}="<height mm>"' | sudo tee /etc/udev/rules.d/61-popgestured-size.rules && sudo udevadm control --reload && sudo udevadm trigger --action=change /dev/input/event5"#,
            #"or give its axes a resolution (units per mm: each axis's range, which libinput record shows, divided by that side in mm): printf 'evdev:name:ELAN Touchscreen:*\n EVDEV_ABS_00=::<x units per mm>\n EVDEV_ABS_01=::<y units per mm>\n EVDEV_ABS_35=::<x units per mm>\n EVDEV_ABS_36=::<y units per mm>\n' | sudo tee /etc/udev/hwdb.d/61-popgestured-size.hwdb && sudo systemd-hwdb update && sudo udevadm trigger --action=change /dev/input/event5"#,
        ])
    }

    @Test("a quote in the device's name cannot end the rule's string or the shell's: it matches any character")
    func quotedName() {
        let fixes = Diagnosis.sizeFixes(name: #"Bad "Panel" it's"#, node: "/dev/input/event5")
        #expect(fixes[0].contains(#"ATTRS{name}=="Bad ?Panel? it?s""#))
        #expect(fixes[1].contains("printf 'evdev:name:Bad ?Panel? it?s:*"))
    }

    @Test("a size from the display is no guess: ok, and the finding says where it came from", arguments: [
        ("display", " (the size the EDID of the display it drives gives)"),
        ("output", " (the size of the display it drives, as the shell reports it)"),
        ("udev", ""), ("axes", ""),
    ])
    func sizeFromTheDisplay(source: String, words: String) throws {
        let machine = try Machine()
        let status = Self.status(devices: [Self.device(sizeSource: source)])
        let finding = try #require(Self.findings(Self.report(status, on: machine), "touch devices").first)
        #expect(finding.level == .ok)
        #expect(finding.text == "device 0: touchscreen \"ELAN Touchscreen\" on /dev/input/event5, 256.0 × 144.0 mm\(words), rotation 90°, seat seat0")
    }

    @Test("grab mode per device: its stage in words", arguments: [
        ("grabbed", Finding.Level.ok, "device 0: grabbed; the compositor reads the clone /dev/input/event9"),
        ("waiting-for-lift", .warning, "device 0: waiting for every finger to lift before the grab"),
        ("waiting-for-udev", .warning, "device 0: waiting for udev to announce the clone /dev/input/event9 (10 s at most), then for a reader and the lift"),
        ("waiting-for-reader", .warning, "device 0: nothing has opened the clone /dev/input/event9 yet, so the real device is not grabbed"),
        ("failed", .warning, "device 0: grab mode failed for it (its clone or the grab); read without a grab"),
        ("unsupported", .note, "device 0: grab mode takes protocol B touchscreens only; read without a grab"),
    ])
    func grab(stage: String, level: Finding.Level, text: String) throws {
        let machine = try Machine()
        let findings = Self.findings(Self.report(Self.status(devices: [Self.device(grab: stage)], grab: "on"), on: machine), "grab mode")
        #expect(findings.map(\.level) == [level])
        #expect(findings.first?.text == text)
    }

    @Test("refused as not-permitted: the daemon's words, then who may connect and how to let everyone in")
    func notPermitted() {
        let error = ProtocolError(.notPermitted, "uid 1001 may not connect: clients = seat admits root, the daemon's user and the user of a seat's active session")
        let report = Diagnosis(socket: Self.socket, status: .failure(.refused(error)), now: 0, uid: 1001).report
        #expect(!report.swipeCanWork)
        let finding = report.checks[0].findings[0]
        #expect(finding.text == "popgestured refused this user (uid 1001): \(error.message)")
        #expect(finding.fixes.last == "or let every local user connect: clients = any in /etc/popgestured/popgestured.conf, then sudo systemctl reload popgestured")
        #expect(report.verdict == "verdict: no swipe can work: popgestured is not reachable on /run/popgestured/popgestured.sock")
    }

    @Test("no socket at the default path: what to run depends on systemd and the installed units")
    func defaultSocketMissing() throws {
        let machine = try Machine()
        func fixes() -> [String] {
            Diagnosis(socket: Self.socket, status: .failure(.connect(ConnectError(path: Self.socket, errno: .noSuchFileOrDirectory))),
                      probe: machine.probe, now: 0).report.checks[0].findings[0].fixes
        }
        #expect(fixes() == ["systemd does not run this machine: start the daemon by hand: sudo popgestured run"])
        try machine.folder("/run/systemd/system")
        #expect(fixes().first?.hasPrefix("popgestured.socket is not installed: install the package") == true)
        try machine.write("/usr/lib/systemd/system/popgestured.socket")
        #expect(fixes() == ["sudo systemctl enable --now popgestured.socket"])
        try FileManager.default.createDirectory(
            at: machine.root.appendingPathComponent("etc/systemd/system"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: machine.root.appendingPathComponent("etc/systemd/system/popgestured.socket").path, withDestinationPath: "/dev/null")
        #expect(fixes().first == "the units are masked (the package was removed?): sudo systemctl unmask popgestured.socket popgestured.service")
    }

    @Test("a POSIX ACL grants read to the group only within its mask")
    func acl() {
        func entry(_ tag: UInt16, _ permissions: UInt16, _ id: UInt32) -> [UInt8] {
            [UInt8(tag & 0xff), UInt8(tag >> 8), UInt8(permissions & 0xff), UInt8(permissions >> 8),
             UInt8(id & 0xff), UInt8((id >> 8) & 0xff), UInt8((id >> 16) & 0xff), UInt8(id >> 24)]
        }
        let header: [UInt8] = [2, 0, 0, 0]
        let owner = entry(0x01, 6, UInt32.max), group = entry(0x04, 6, UInt32.max), other = entry(0x20, 0, UInt32.max)
        let touch = entry(0x08, 4, 998)
        #expect(SystemProbe.aclGrantsRead(header + owner + group + touch + entry(0x10, 6, UInt32.max) + other, toGroup: 998))
        #expect(!SystemProbe.aclGrantsRead(header + owner + group + touch + entry(0x10, 2, UInt32.max) + other, toGroup: 998))
        #expect(!SystemProbe.aclGrantsRead(header + owner + group + touch + other, toGroup: 999))
        #expect(!SystemProbe.aclGrantsRead([1, 0, 0, 0] + touch, toGroup: 998))
    }

    @Test("the unit the daemon runs in, from its cgroup")
    func unitFromCgroup() {
        #expect(DaemonStatus.unit(inCgroup: "0::/system.slice/popgestured.service\n") == "popgestured.service")
        #expect(DaemonStatus.unit(inCgroup: "0::/user.slice/user-1000.slice/session-2.scope\n") == "session-2.scope")
        #expect(DaemonStatus.unit(inCgroup: "0::/\n") == nil)
        #expect(DaemonStatus.unit(inCgroup: "12:pids:/x.service\n") == nil)
    }
}
