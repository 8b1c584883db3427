import Glibc
import PopGestureClient
import PopGestureProtocol
import SystemPackage

/// `popgesturectl doctor`'s reasoning, without I/O of its own: from what the daemon's
/// `status` said (or why it could not be asked) and what ``SystemProbe`` reads of the
/// machine, the findings of each check in order and whether a swipe can work.
///
/// A swipe can work when the daemon is reachable, reads at least one touch device, and
/// something can receive a back: the back input device (on, and tagged by udev as a
/// keyboard, so that the compositor reads it) or a client's navigator.
struct Diagnosis {
    /// Why the daemon could not be asked.
    enum Failure: Error {
        /// `connect(2)` failed, or the path can be no socket.
        case connect(ConnectError)
        /// The daemon answered `hello` with an error (`not-permitted`, `too-many-clients`).
        case refused(ProtocolError)
        /// Anything else: no reply, the connection lost, an unexpected reply; a sentence.
        case other(String)
    }

    var socket: String
    /// The status, or why there is none.
    var status: Result<ServerReply.Status, Failure>
    var probe = SystemProbe()
    /// `CLOCK_MONOTONIC` now, in microseconds: the clock of the rejections' `time_us`.
    var now: Int64
    /// The doctor's own environment, for the focus bridge that fits the session.
    var environment: [String: String] = [:]
    /// The doctor's own uid, for the messages.
    var uid: uid_t = getuid()

    var isDefaultSocket: Bool { socket == PopGestureSocket.defaultPath }

    static let service = "popgestured.service"
    static let socketUnit = "popgestured.socket"
    /// The targets `systemctl enable` links each unit into (their `[Install]` sections;
    /// `multi-user.target` is the documented alternative for the service).
    static let serviceTargets = ["popgestured-touch.target", "multi-user.target"]
    static let socketTargets = ["sockets.target"]

    var report: DoctorReport {
        let status: ServerReply.Status
        switch self.status {
        case .failure(let failure):
            return DoctorReport(
                socket: socket, checks: [DoctorCheck(title: "daemon", findings: unreachable(failure))],
                blockers: ["popgestured is not reachable on \(socket)"], summary: "")
        case .success(let reached):
            status = reached
        }
        var blockers: [String] = []
        if status.deviceCount == 0 { blockers.append("popgestured reads no touchscreen or touchpad") }
        let back = backInputFindings(status)
        let navigators = status.navigatorCount
        if !back.works && navigators == 0 {
            blockers.append("nothing can receive a back: \(back.why), and no app owns a navigator")
        }
        // A finding that is a blocker's cause reads as a problem, else as a warning.
        let receives = back.findings.map { finding in
            var finding = finding
            if finding.level == .problem && navigators > 0 { finding.level = .warning }
            return finding
        }
        let checks = [
            DoctorCheck(title: "daemon", findings: daemonFindings(status)),
            DoctorCheck(title: "touch devices", findings: deviceFindings(status)),
            DoctorCheck(title: "back input", findings: receives),
            DoctorCheck(title: "grab mode", findings: grabFindings(status)),
            DoctorCheck(title: "focus and apps", findings: focusFindings(status)),
            DoctorCheck(title: "rotation and direction", findings: screenFindings(status)),
            DoctorCheck(title: "rejected pans", findings: rejectionFindings(status)),
        ]
        let receivers = [back.works ? "the back input (\(status.backInput?.input ?? "per app"))" : nil,
                         navigators > 0 ? StatusTable.count(navigators, "navigator") : nil].compactMap { $0 }
        let summary = "popgestured reads \(StatusTable.count(status.deviceCount, "touch device")), "
            + "and backs go to \(receivers.joined(separator: " and "))"
        return DoctorReport(socket: socket, checks: checks, blockers: blockers, summary: summary)
    }

    // MARK: - 1. The daemon

    /// What could not reach the daemon, and how to make it reachable.
    func unreachable(_ failure: Failure) -> [Finding] {
        switch failure {
        case .connect(let error):
            return [connectFinding(error)]
        case .refused(let error) where error.code == .notPermitted:
            return [.problem(
                "popgestured refused this user (uid \(uid)): \(error.message)",
                fixes: [
                    "run it as the user of the session at the screen (loginctl lists the seat's active session), or as root: sudo popgesturectl doctor",
                    "or let every local user connect: clients = any in /etc/popgestured/popgestured.conf, then sudo systemctl reload popgestured",
                ])]
        case .refused(let error) where error.code == .tooManyClients:
            return [.problem(
                "popgestured serves as many clients as it may: \(error.message)",
                fixes: ["close some of them (sudo popgesturectl status lists them), or raise max-clients in /etc/popgestured/popgestured.conf"])]
        case .refused(let error):
            return [.problem("popgestured refused the connection: \(error.summary)")]
        case .other(let text):
            return [.problem(text)]
        }
    }

    private func connectFinding(_ error: ConnectError) -> Finding {
        guard let errno = error.errno else { return .problem("cannot connect to \(socket): \(error.problem ?? "unknown error")") }
        switch errno {
        case .noSuchFileOrDirectory:
            return .problem("no socket at \(socket): popgestured is not listening there", fixes: startFixes(stale: false))
        case .connectionRefused:
            return .problem(
                "nothing listens on \(socket): the socket file is there, but the daemon that made it is gone",
                fixes: startFixes(stale: true))
        case .permissionDenied, .notPermitted:
            let folder = socket.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            return .problem(
                "permission denied: this user (uid \(uid)) may not open \(socket)",
                ["the socket must be writable by you and its folder searchable: popgestured.socket makes it 0666 in a 0755 folder"],
                fixes: ["ls -ld \(folder.isEmpty ? "/" : folder) \(socket)", "or run it as root: sudo popgesturectl doctor"])
        default:
            return .problem("cannot connect to \(socket): \(errno)")
        }
    }

    /// How to get a daemon listening on ``socket``: systemd's socket for the default
    /// path, the daemon by hand for another.
    private func startFixes(stale: Bool) -> [String] {
        guard isDefaultSocket else {
            return ["start popgestured on it\(stale ? " again (it replaces the dead socket)" : ""): popgestured run --socket \(socket)",
                    "or ask the right socket: --socket PATH, $POPGESTURED_SOCKET (default \(PopGestureSocket.defaultPath))"]
        }
        guard probe.systemdRunning else {
            return ["systemd does not run this machine: start the daemon by hand: sudo popgestured run"]
        }
        guard probe.unitInstalled(Self.socketUnit) else {
            return ["\(Self.socketUnit) is not installed: install the package (sudo apt install ./popgestured_*_amd64.deb; README, \"Install on a tablet\")"]
        }
        if probe.unitMasked(Self.socketUnit) || probe.unitMasked(Self.service) {
            return ["the units are masked (the package was removed?): sudo systemctl unmask \(Self.socketUnit) \(Self.service)",
                    "then: sudo systemctl enable --now \(Self.socketUnit)"]
        }
        return stale ? ["sudo systemctl restart \(Self.socketUnit)"] : ["sudo systemctl enable --now \(Self.socketUnit)"]
    }

    func daemonFindings(_ status: ServerReply.Status) -> [Finding] {
        guard let daemon = status.daemon else {
            return [.ok("reachable on \(socket) (protocol \(status.version))"),
                    .note("this popgestured does not say how it was started (an older version)")]
        }
        var findings: [Finding] = [.ok("reachable on \(socket): pid \(daemon.pid), protocol \(status.version)")]
        guard daemon.startedBy == "systemd" else {
            let asService = probe.systemdRunning && probe.unitInstalled(Self.service)
                ? ["to run the installed service instead, stop this one, then: sudo systemctl enable --now \(Self.socketUnit) \(Self.service)"]
                : []
            findings.append(.note(
                "started by hand, not by systemd: it stops with its terminal and does not start at boot", fixes: asService))
            return findings
        }
        let socketFrom = daemon.socketFromSystemd ? ", on the socket of \(Self.socketUnit)" : ", on a socket of its own"
        findings.append(.ok("started by systemd as \(daemon.unit ?? "a unit")\(socketFrom)"))
        if probe.systemdRunning {
            if !probe.unitEnabled(Self.service, wantedBy: Self.serviceTargets) {
                findings.append(.warning(
                    "\(Self.service) is not enabled: after a reboot the daemon starts only when a client connects, "
                        + "so apps that know nothing of popgestured get no back input",
                    fixes: ["sudo systemctl enable \(Self.service)"]))
            }
            if !probe.unitEnabled(Self.socketUnit, wantedBy: Self.socketTargets) {
                findings.append(.warning(
                    "\(Self.socketUnit) is not enabled: after a reboot clients find no socket until the daemon starts",
                    fixes: ["sudo systemctl enable \(Self.socketUnit)"]))
            }
        }
        return findings
    }

    // MARK: - 2. Touch devices

    func deviceFindings(_ status: ServerReply.Status) -> [Finding] {
        guard status.deviceCount > 0 else { return [noDevice(status)] }
        var findings = status.devices.map(deviceFinding)
        if Int64(status.devices.count) < status.deviceCount {
            findings.append(.note("\(status.deviceCount - Int64(status.devices.count)) more devices not listed by the daemon"))
        }
        // Touch devices udev knows that the daemon does not read.
        let used = Set(status.devices.map(\.path))
        for node in probe.touchNodes() where !used.contains(node.devnode) {
            findings.append(.note(
                "\(node.kind) \(quoted(node.name)) on \(node.devnode) is not used",
                accessDetails(node), fixes: ["its reason is in the daemon's log: journalctl -u popgestured | grep \(node.devnode)"]))
        }
        return findings
    }

    /// `device 0: touchscreen "ELAN Touchscreen" on /dev/input/event5, 256.0 × 144.0 mm, rotation 0°, seat seat0`.
    private func deviceFinding(_ device: ServerReply.Status.Device) -> Finding {
        var text = "device \(device.device): \(device.kind) \(quoted(device.name)) on \(device.path)"
        if let width = device.widthMillimetres, let height = device.heightMillimetres {
            text += ", \(Self.millimetres(width)) × \(Self.millimetres(height)) mm"
        }
        switch device.sizeSource {
        case "output"?: text += " (the size of the display it drives, as the shell reports it)"
        case "display"?: text += " (the size the EDID of the display it drives gives)"
        default: break
        }
        if let rotation = device.rotation { text += ", rotation \(rotation)°" + Self.rotationOrigin(of: device) }
        if let seat = device.seat { text += ", seat \(seat)" }
        // An older daemon says only sizeAssumed.
        guard device.sizeSource == "assumed" || (device.sizeSource == nil && device.sizeAssumed == true) else {
            return .ok(text)
        }
        var details = ["it reports no resolution and udev gives no ID_INPUT_WIDTH_MM/ID_INPUT_HEIGHT_MM"]
        if device.kind == "touchscreen" {
            details[0] += ", and the display it drives gives no size (the daemon's log says why: journalctl -u popgestured | grep \(device.path))"
        }
        details.append("so the edge zone and every distance in mm are measured on a 10.1-inch panel (217 × 136 mm): on a smaller one the edge zone is narrower than the 4.8 mm it should be")
        return .warning(text + "; that size is a guess", details, fixes: Self.sizeFixes(name: device.name, node: device.path))
    }

    /// The two ways to give a device its size, as lines to paste: udev's
    /// `ID_INPUT_WIDTH_MM`/`ID_INPUT_HEIGHT_MM` from a rule, or the axes' resolution
    /// from a hwdb entry (`EVDEV_ABS_00`/`01` for `ABS_X`/`ABS_Y`, `35`/`36` for the
    /// multitouch positions). The daemon reopens the device on udev's change.
    static func sizeFixes(name: String, node: String) -> [String] {
        // udev's rule and hwdb matches are globs: a quote would end the string, so match any character there.
        let pattern = String(name.map { $0 == "\"" || $0 == "'" || $0 == "\\" || $0.isNewline ? "?" : $0 })
        let rule = #"ACTION!="remove", KERNEL=="event*", ATTRS{name}==""# + pattern
            + #"", ENV{ID_INPUT_WIDTH_MM}="<width mm>", ENV{ID_INPUT_HEIGHT_MM}="<height mm>""#
        let hwdb = #"evdev:name:\#(pattern):*\n EVDEV_ABS_00=::<x units per mm>\n EVDEV_ABS_01=::<y units per mm>\n"#
            + #" EVDEV_ABS_35=::<x units per mm>\n EVDEV_ABS_36=::<y units per mm>\n"#
        return [
            "measure the visible screen in mm, then set udev's size for it: echo '\(rule)' | sudo tee /etc/udev/rules.d/61-popgestured-size.rules && sudo udevadm control --reload && sudo udevadm trigger --action=change \(node)",
            "or give its axes a resolution (units per mm: each axis's range, which libinput record shows, divided by that side in mm): printf '\(hwdb)' | sudo tee /etc/udev/hwdb.d/61-popgestured-size.hwdb && sudo systemd-hwdb update && sudo udevadm trigger --action=change \(node)",
        ]
    }

    /// ` from the shell (output eDP-1)`, ` from the sensor`; empty from a daemon that does not say.
    static func rotationOrigin(of device: ServerReply.Status.Device) -> String {
        guard let source = device.rotationSource else { return "" }
        return " from the \(source)" + (device.output.map { " (output \($0))" } ?? "")
    }

    /// 256.04 → `256.0`.
    static func millimetres(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    private func noDevice(_ status: ServerReply.Status) -> Finding {
        var details: [String] = []
        let nodes = probe.touchNodes()
        if !probe.udevRunning {
            details.append("udev keeps no database here (/run/udev/data is missing): the daemon finds devices through udev")
        } else if nodes.isEmpty {
            details.append("udev knows no touchscreen or touchpad on this machine")
        } else {
            for node in nodes {
                details.append("udev knows the \(node.kind) \(quoted(node.name)) on \(node.devnode)")
                details += accessDetails(node)
            }
        }
        return .problem(
            "no touch device in use: popgestured reads no touchscreen or touchpad", details,
            checks: [
                "is there one? libinput list-devices shows it with \"Capabilities: touch\"; udevadm info /dev/input/eventN shows ID_INPUT_TOUCHSCREEN=1 or ID_INPUT_TOUCHPAD=1",
                "may the daemon read it? getfacl /dev/input/eventN must show group:popgestured-touch:r-- (systemd/udev/72-popgestured-touch-access.rules)",
                "does the configuration leave it alone? screen = and touchpads = in /etc/popgestured/popgestured.conf; the daemon's log says why: journalctl -u popgestured",
            ],
            fixes: [
                "no ACL entry: sudo udevadm trigger --action=change --subsystem-match=input (the rule adds it, and the daemon opens the device on that change)",
            ])
    }

    /// Whether the daemon's group may read the node: the ACL entry of the touch access rule.
    private func accessDetails(_ node: SystemProbe.TouchNode) -> [String] {
        guard let gid = SystemProbe.groupID("popgestured-touch") else {
            return ["there is no popgestured-touch group: install systemd/sysusers.d/popgestured.conf and run sudo systemd-sysusers"]
        }
        switch probe.aclGrantsRead(node.devnode, toGroup: gid) {
        case true?: return ["\(node.devnode) is readable by popgestured-touch"]
        case false?: return ["\(node.devnode) has no ACL entry for popgestured-touch, so the service cannot read it"]
        case nil: return []
        }
    }

    // MARK: - 3. The back input

    /// The back input's findings; `works` when it exists and udev made it a keyboard (or
    /// that cannot be checked), else `why` not.
    func backInputFindings(_ status: ServerReply.Status) -> (findings: [Finding], works: Bool, why: String) {
        guard let back = status.backInput else {
            return ([.note("this popgestured does not report its back input (an older version)")], false,
                    "the back input is not reported")
        }
        guard back.on else {
            guard let problem = back.problem else {
                return ([.problem(
                    "off: the configuration sends no back input (back-input = none)",
                    ["apps without a navigator get nothing from a swipe"],
                    fixes: ["set back-input = alt+left in /etc/popgestured/popgestured.conf, then: sudo systemctl reload popgestured"])],
                    false, "the configuration turns the back input off")
            }
            return ([uinputFinding(daemonSays: problem)], false, "the back input is off")
        }
        let input = back.input.map { "sends \($0)" } ?? "sends only the inputs of [back-input]'s apps"
        let mode = back.mode.map { " (\($0) mode)" } ?? ""
        var findings: [Finding] = [.ok("\(quoted("popgestured back input")) on \(back.device ?? "a node udev had not named yet") \(input) to apps without a navigator\(mode)")]
        guard let node = back.device else { return (findings, true, "") }
        let tags = keyboardTags(node)
        findings.append(tags.finding)
        return (findings, tags.works, "udev did not make the back input a keyboard")
    }

    /// `/dev/uinput` from here, under the daemon's own words.
    private func uinputFinding(daemonSays problem: String) -> Finding {
        let words = problem.hasPrefix("back input off: ") ? String(problem.dropFirst("back input off: ".count)) : problem
        // A restart, not a reload: systemd resolves the unit's DeviceAllow=/dev/uinput when the
        // service starts, so a node that appeared later stays closed to it (EPERM) until then.
        let reload = "then: sudo systemctl restart popgestured (systemd lets the service open /dev/uinput only if it was there when the service started)"
        switch probe.uinput() {
        case .failure(.noSuchFileOrDirectory):
            return .problem(
                "off: /dev/uinput does not exist, so the daemon cannot make its back input device",
                ["the uinput module is not loaded, or this kernel has none (CONFIG_INPUT_UINPUT)", "the daemon says: \(words)"],
                fixes: ["sudo modprobe uinput (systemd/modules-load.d/popgestured.conf loads it at every boot)", reload])
        case .success(let node) where node.group != "popgestured-uinput" || node.mode & 0o060 != 0o060:
            return .problem(
                "off: /dev/uinput is group \(node.group), mode \(String(node.mode, radix: 8)): the daemon may not write it",
                ["the daemon says: \(words)"],
                fixes: ["sudo udevadm trigger --action=change --sysname-match=uinput (systemd/udev/70-popgestured-uinput.rules gives it to popgestured-uinput, mode 0660)", reload])
        default:
            return .problem("off: \(words)", fixes: [reload])
        }
    }

    /// Whether udev tagged the back input device so that libinput takes it: a keyboard
    /// (`ID_INPUT_KEY`, `ID_INPUT_KEYBOARD`), or a mouse for a button (`ID_INPUT_MOUSE`).
    private func keyboardTags(_ node: String) -> (finding: Finding, works: Bool) {
        guard probe.udevRunning else {
            return (.warning(
                "cannot check how udev tagged \(node): udev keeps no database here (/run/udev/data is missing)",
                ["a compositor (libinput) takes only devices udev has tagged"]), true)
        }
        guard let properties = probe.udevProperties(ofNode: node) else {
            return (.warning(
                "udev has no record of \(node) yet",
                fixes: ["udevadm info \(node)", "sudo udevadm trigger --action=change \(node)"]), true)
        }
        let tags = ["ID_INPUT_KEY", "ID_INPUT_KEYBOARD", "ID_INPUT_MOUSE"].filter { properties[$0] == "1" }
        guard !tags.isEmpty else {
            return (.problem(
                "udev did not tag \(node) as a keyboard (no ID_INPUT_KEY or ID_INPUT_KEYBOARD): libinput, and so the compositor, ignores it",
                fixes: ["udevadm info \(node) shows what it has; a local rule may clear ID_INPUT_* (grep -r ID_INPUT /etc/udev/rules.d)",
                        "then: sudo udevadm trigger --action=change \(node)"]), false)
        }
        if let seat = properties["ID_SEAT"], seat != "seat0" {
            return (.warning("udev put \(node) on \(seat): compositors of seat0 do not read it"), true)
        }
        return (.ok("udev tagged \(node) \(tags.joined(separator: ", ")): the compositor reads it"), true)
    }

    // MARK: - 4. Grab mode

    func grabFindings(_ status: ServerReply.Status) -> [Finding] {
        guard let grab = status.daemon?.grab else {
            return [.note("this popgestured does not report grab mode (an older version)")]
        }
        guard grab == "on" else {
            return [.ok("off (grab = off): apps get every touch, a back swipe's too, as with any touchscreen")]
        }
        let devices = status.devices.filter { $0.grab != nil }
        guard !devices.isEmpty else { return [.note("on (grab = on), but no device to grab")] }
        return devices.map { device in
            let name = "device \(device.device)"
            let clone = device.clone.map { " the clone \($0)" } ?? " its clone"
            switch device.grab {
            case "grabbed":
                return .ok("\(name): grabbed; the compositor reads\(clone)")
            case "waiting-for-lift":
                return .warning("\(name): waiting for every finger to lift before the grab", ["touches reach the app underneath until then"])
            case "waiting-for-reader":
                return .warning(
                    "\(name): nothing has opened\(clone) yet, so the real device is not grabbed",
                    ["swipes work, but the app underneath gets their touches too; a compositor opens the clone when udev announces it"])
            case "waiting-for-udev":
                return .warning("\(name): waiting for udev to announce\(clone) (10 s at most), then for a reader and the lift")
            case "unsupported":
                return .note("\(name): grab mode takes protocol B touchscreens only; read without a grab")
            case "failed":
                return .warning(
                    "\(name): grab mode failed for it (its clone or the grab); read without a grab",
                    fixes: ["the reason is in the daemon's log: journalctl -u popgestured | grep 'grab mode'"])
            default:
                return .note("\(name): grab mode \(device.grab ?? "unknown")")
            }
        }
    }

    // MARK: - Rotation and direction

    /// The rotation and text direction in force and who says each, and what the sensor says.
    func screenFindings(_ status: ServerReply.Status) -> [Finding] {
        guard let screen = status.screen else {
            return [.note("this popgestured does not say its rotation (older than issue 20)")]
        }
        let rotation = screen.rotation.map { "\($0)°" } ?? "none yet (no touchscreen)"
        var findings: [Finding] = []
        switch screen.rotationSource {
        case "shell":
            findings.append(.ok("rotation \(rotation), from the focus bridge\(screen.output.map { " (output \($0))" } ?? ""): the compositor's own transform, over the sensor and the file"))
        case "sensor":
            findings.append(.ok("rotation \(rotation), from iio-sensor-proxy's accelerometer: no focus bridge reports the screen and `rotation` is auto"))
        default:
            findings.append(.ok("rotation \(rotation), from the configuration (`rotation`): no focus bridge reports the screen, and the file fixes it or no sensor speaks"))
        }
        switch screen.sensor {
        case nil:
            break
        case "absent"?:
            findings.append(.note(
                "iio-sensor-proxy is not running: the screen does not turn by itself without a focus bridge",
                fixes: ["on a tablet with an accelerometer: sudo apt install iio-sensor-proxy"]))
        case "no-accelerometer"?:
            findings.append(.note("iio-sensor-proxy runs but has no accelerometer"))
        case "unavailable"?:
            findings.append(.note(
                "the system bus or iio-sensor-proxy cannot be used: the rotation comes from a focus bridge or the configuration",
                ["the reason is in the daemon's log: journalctl -u popgestured | grep -iE 'sensor|system bus'",
                 "dbus-daemon refuses a uid it cannot resolve: a dynamic one (DynamicUser= without the popgestured user of sysusers.d)"],
                fixes: ["if the log says the bus refused it: sudo systemd-sysusers (makes the popgestured user), then sudo systemctl restart popgestured"]))
        case "unused"?:
            findings.append(.ok("iio-sensor-proxy has an accelerometer, not claimed: a focus bridge reports the screen, or `rotation` is fixed"))
        case let orientation?:
            let used = screen.rotationSource == "sensor" ? "" : "; the focus bridge's rotation takes precedence"
            findings.append(.ok("iio-sensor-proxy says \(orientation)\(used)"))
        }
        let from = screen.directionSource == "shell" ? "from the focus bridge" : "from the configuration (`layout`)"
        findings.append(.ok("text direction \(screen.direction), \(from), for navigators that choose none"))
        return findings
    }

    // MARK: - 5. Focus and apps

    func focusFindings(_ status: ServerReply.Status) -> [Finding] {
        var findings: [Finding] = []
        if let focus = status.focus, focus.source == "shell" {
            let shell = focus.shell.flatMap { number in status.clients.first { $0.client == number } }
            let who = focus.shell.map { "client \($0)" } ?? "a shell"
            let name = shell?.name.map { " \(quoted($0))" } ?? ""
            let pid = shell?.credentials.map { " (pid \($0.pid))" } ?? ""
            findings.append(.ok("focus bridge connected: \(who)\(name)\(pid)"))
            findings.append(.ok(StatusTable.focusLine(focus).replacingFirst("focus: ", with: "window in focus: ")))
        } else {
            findings.append(.note(
                "no focus bridge connected: apps' own reports decide the focus, and [back-input]'s per-app entries do not apply",
                fixes: [bridgeFix]))
        }
        if status.navigatorCount == 0 {
            findings.append(.note("no app owns a navigator: backs go to the back input only"))
        } else {
            let listed = status.navigators.map { navigator in
                let owner = status.clients.first { $0.client == navigator.owner }?.name.map { " \(quoted($0))" } ?? ""
                return "\(navigator.navigator) of client \(navigator.owner)\(owner)\(navigator.front ? ", in front" : "")"
            }
            let more = Int64(listed.count) < status.navigatorCount ? ", …" : ""
            findings.append(.ok("\(StatusTable.count(status.navigatorCount, "navigator")): \(listed.joined(separator: "; "))\(more)"))
        }
        if let lastBack = status.lastBack { findings.append(.ok(StatusTable.lastBackLine(lastBack))) }
        return findings
    }

    /// The bridge for the session the doctor runs in, as `bridge auto` would choose it.
    private var bridgeFix: String {
        let decision = AutoBridge.choose(SessionEnvironment(environment))
        switch decision.choice {
        case .sway, .x11, .wlroots, .kde, .gnome:
            return "systemctl --user start popgesturectl-bridge.service (the package enables it for every graphical session; "
                + "it runs popgesturectl bridge auto: \(decision.reason); docs/BRIDGES.md)"
        case .none:
            return "popgesturectl bridge auto says: \(decision.reason)"
        }
    }

    // MARK: - 6. Rejected pans

    func rejectionFindings(_ status: ServerReply.Status) -> [Finding] {
        guard let rejected = status.rejected, let count = status.rejectedCount else {
            return [.note("this popgestured does not report rejected pans (an older version); popgesturectl monitor shows them live")]
        }
        guard count > 0 else { return [.ok("no pan rejected since the daemon started")] }
        let last = rejected.count < count ? ", the last \(rejected.count)" : ""
        let lines = rejected.map { rejection in
            "\(when(rejection.timeMicroseconds))  device \(rejection.device)  \(rejection.reason): \(Self.plainWords(rejection.reason))"
        }
        return [.note("\(count) pan\(count == 1 ? "" : "s") rejected since the daemon started\(last), oldest first:", lines)]
    }

    /// `3.2 s ago`, or the time itself when it is not on this clock (a recording's).
    private func when(_ microseconds: Int64) -> String {
        // A frame stamped up to a second ahead (an --event-pipe writer that stamps a whole
        // stroke at once) is "now"; the kernel never stamps ahead of the clock.
        var ago = now &- microseconds
        if ago < 0 && ago > -1_000_000 { ago = 0 }
        guard ago >= 0, ago < 86_400_000_000 else { return "at \(EventFormatter.seconds(microseconds))" }
        return EventFormatter.padLeft(Self.millimetres(Double(ago) / 1_000_000), to: 7) + " s ago"
    }

    /// A rejection reason in plain words (docs/PROTOCOL.md, the table of reasons).
    static func plainWords(_ reason: ServerEvent.RejectionReason) -> String {
        switch reason {
        case .noNavigator: "no app to go back in: no navigator in front, and the focused app gets no back input"
        case .stackTooShallow: "the navigator in front shows its root page: nothing to go back to"
        case .popDisabled: "the top page turned the gesture off (popDisabled)"
        case .tooFarFromEdge: "it started farther from the edge than the top page allows (maxStartDistance)"
        case .transitioning: "a push or pop was still animating"
        case .wrongDirection: "it moved toward the leading side (left in a left-to-right layout), or straight up or down"
        case .outsideEdgeZone: "edge mode, and it started outside the edge zone (edge-width-mm)"
        case .tooSteep: "steeper than the angle limit (max-angle-degrees): taken for a scroll"
        case .longPress: "the finger rested before it moved: a long press, the app's (text selection)"
        case .excluded: "it started in one of the top page's exclusion zones"
        case .extraFinger: "another finger landed before it was decided"
        case .palm: "a palm touched"
        case .eventsDropped: "the kernel dropped events while fingers were down"
        case .deviceRemoved: "the device went away"
        case .busy: "another device's swipe was under way"
        case .rotated: "the screen turned while it was being decided"
        case .ownSwipe: "the focused app goes back by its own swipe (own-swipe in [back-input]): left to it, so it goes back once"
        default: "a reason this popgesturectl does not know"
        }
    }
}

extension String {
    /// The text with the first `prefix` replaced when it starts with it.
    fileprivate func replacingFirst(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
