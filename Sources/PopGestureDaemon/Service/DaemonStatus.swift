import Glibc
import PopGestureProtocol
import PopGestureServer

/// The daemon's part of `status` (``StatusSupplement``): how it was started, its back
/// input device, each device's grab mode. What `popgesturectl doctor` reads.
///
/// Lives on the input thread: ``Daemon`` sets it up before the loop runs and updates it
/// after a reload, on that thread; the ``EngineHost`` asks it there at each `status`.
final class DaemonStatus: StatusSupplement {
    var daemon: ServerReply.Status.Daemon?
    var backInput: ServerReply.Status.BackInput?
    /// Asked for each device's grab; nil until the loop exists (no `status` is answered before).
    weak var mainLoop: MainLoop?

    init(daemon: ServerReply.Status.Daemon, backInput: ServerReply.Status.BackInput) {
        self.daemon = daemon
        self.backInput = backInput
    }

    func supplement(_ entry: inout ServerReply.Status.Device, ofDevice key: Int) {
        guard let grab = mainLoop?.grabStage(ofDevice: key) else { return }
        entry.grab = grab.stage
        entry.clone = grab.clone
    }

    /// This process as `status` shows it: its pid, whether systemd started it (systemd
    /// sets `INVOCATION_ID` for every unit it runs) and in which unit (from the cgroup),
    /// whether the socket came from systemd, and grab mode.
    static func current(socketFromSystemd: Bool, grab: GrabMode) -> ServerReply.Status.Daemon {
        let bySystemd = getenv("INVOCATION_ID") != nil
        let cgroup = bySystemd ? Self.read("/proc/self/cgroup") : nil
        return ServerReply.Status.Daemon(
            pid: Int64(getpid()), startedBy: bySystemd ? "systemd" : "hand", unit: cgroup.flatMap(unit(inCgroup:)),
            socketFromSystemd: socketFromSystemd, grab: grab.rawValue)
    }

    /// The service or scope a `/proc/self/cgroup` text names: the last component of the
    /// unified hierarchy's path (`0::/system.slice/popgestured.service`), when it is a unit.
    static func unit(inCgroup text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") }),
              let last = line.split(separator: "/").last
        else { return nil }
        let name = String(last.prefix(256))
        return name.hasSuffix(".service") || name.hasSuffix(".scope") ? name : nil
    }

    /// A small file's text (at most 4 KiB); nil when it cannot be read.
    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
