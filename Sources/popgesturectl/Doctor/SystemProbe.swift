import Glibc
import SystemPackage

/// What `doctor` reads of the machine beside the daemon's `status`: udev's database,
/// sysfs, `/dev/uinput`, systemd's unit files. Files only: it runs no program, and
/// every path is read under `root` (`""`, the machine's own; a folder in tests).
struct SystemProbe {
    var root = ""

    /// A touchscreen or touchpad as udev sees it.
    struct TouchNode: Equatable {
        /// `/dev/input/event5`.
        var devnode: String
        var name: String
        /// `touchscreen` or `touchpad`.
        var kind: String
    }

    /// Where systemd looks for unit files, the administrator's first.
    static let unitFolders = [
        "/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system", "/usr/lib/systemd/system",
        "/lib/systemd/system",
    ]

    // MARK: - systemd

    /// Whether systemd runs the machine (`sd_booted`: `/run/systemd/system` exists).
    var systemdRunning: Bool { isDirectory("/run/systemd/system") }

    /// Whether a unit file of that name is installed, in any of ``unitFolders``.
    func unitInstalled(_ unit: String) -> Bool {
        Self.unitFolders.contains { exists("\($0)/\(unit)") }
    }

    /// `systemctl mask` links the unit to `/dev/null` (`apt remove` of the package does).
    func unitMasked(_ unit: String) -> Bool {
        linkTarget("/etc/systemd/system/\(unit)") == "/dev/null"
    }

    /// Whether `systemctl enable` linked the unit into one of `targets`' `.wants`.
    func unitEnabled(_ unit: String, wantedBy targets: [String]) -> Bool {
        targets.contains { exists("/etc/systemd/system/\($0).wants/\(unit)") }
    }

    // MARK: - udev

    /// Whether udev keeps its database here (`/run/udev/data`): without udevd there is
    /// none, and libinput, so every compositor, sees no device.
    var udevRunning: Bool { isDirectory("/run/udev/data") }

    /// udev's properties of an input event node (`/dev/input/event7`), from its
    /// database: `E:ID_INPUT_KEY=1` lines of `/run/udev/data/c13:71`. Nil when udev has
    /// no record of it (or it is no `/dev/input/event*` node).
    func udevProperties(ofNode devnode: String) -> [String: String]? {
        guard let event = Self.eventName(devnode),
              let number = read("/sys/class/input/\(event)/dev")?.split(separator: "\n").first,
              let record = read("/run/udev/data/c\(number)")
        else { return nil }
        return Self.properties(inUdevRecord: record)
    }

    /// The `E:KEY=VALUE` lines of a udev database record.
    static func properties(inUdevRecord text: String) -> [String: String] {
        var properties: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("E:") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            properties[String(line[line.index(line.startIndex, offsetBy: 2)..<equals])] = String(line[line.index(after: equals)...])
        }
        return properties
    }

    /// `event7` of `/dev/input/event7`; nil for any other path.
    static func eventName(_ devnode: String) -> String? {
        guard devnode.hasPrefix("/dev/input/event") else { return nil }
        let name = String(devnode.dropFirst("/dev/input/".count))
        let number = name.dropFirst("event".count)
        return !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber } ? name : nil
    }

    /// Every event node udev tags `ID_INPUT_TOUCHSCREEN` or `ID_INPUT_TOUCHPAD`, but grab
    /// mode's clones (their `phys` is `popgestured/…`), in the order of their numbers.
    func touchNodes() -> [TouchNode] {
        let events = list("/sys/class/input").filter { $0.hasPrefix("event") }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
        return events.compactMap { event in
            let devnode = "/dev/input/\(event)"
            guard let properties = udevProperties(ofNode: devnode) else { return nil }
            let kind = properties["ID_INPUT_TOUCHSCREEN"] == "1" ? "touchscreen"
                : properties["ID_INPUT_TOUCHPAD"] == "1" ? "touchpad" : nil
            guard let kind else { return nil }
            if read("/sys/class/input/\(event)/device/phys")?.hasPrefix("popgestured/") == true { return nil }
            let name = read("/sys/class/input/\(event)/device/name")?.split(separator: "\n").first.map(String.init)
            return TouchNode(devnode: devnode, name: name ?? event, kind: kind)
        }
    }

    // MARK: - Access

    /// The group's id, from the machine's group database (`getgrnam`, not under `root`).
    static func groupID(_ name: String) -> gid_t? {
        guard let group = getgrnam(name) else { return nil }
        return group.pointee.gr_gid
    }

    /// Whether the node's ACL lets group `gid` read it (an entry `group:NAME:r--`, within
    /// the mask); nil when the ACL cannot be read (no such node, no ACL support).
    func aclGrantsRead(_ path: String, toGroup gid: gid_t) -> Bool? {
        guard let getxattr = Self.getxattr else { return nil }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { getxattr(root + path, "system.posix_acl_access", $0.baseAddress, $0.count) }
        if count < 0 { return errno == ENODATA ? false : nil }
        return Self.aclGrantsRead(Array(bytes[..<count]), toGroup: gid)
    }

    /// glibc's `getxattr(2)`, which Swift's Glibc module leaves out (`sys/xattr.h`).
    private static let getxattr: (@convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getxattr") else { return nil }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int).self)
    }()

    /// The kernel's `system.posix_acl_access` value: a 4-byte version (2), then 8-byte
    /// entries (tag, permissions, id; little-endian). True when a group entry (tag 8) for
    /// `gid` has read (4), and the mask entry (tag 0x10), if any, keeps it.
    static func aclGrantsRead(_ value: [UInt8], toGroup gid: gid_t) -> Bool {
        guard value.count >= 4, value[0] == 2 else { return false }
        func little(_ offset: Int, _ size: Int) -> UInt32 {
            (0..<size).reduce(0) { $0 | UInt32(value[offset + $1]) << (8 * $1) }
        }
        var granted = false
        var mask: UInt32 = 7
        for offset in stride(from: 4, to: value.count - 7, by: 8) {
            let tag = little(offset, 2), permissions = little(offset + 2, 2), id = little(offset + 4, 4)
            if tag == 0x08, id == gid, permissions & 4 != 0 { granted = true }
            if tag == 0x10 { mask = permissions }
        }
        return granted && mask & 4 != 0
    }

    /// `/dev/uinput`'s owner group and mode, or the `errno` of `stat` (`ENOENT`: no module).
    func uinput() -> Result<(group: String, mode: mode_t), Errno> {
        var info = stat()
        guard stat(root + "/dev/uinput", &info) == 0 else { return .failure(Errno(rawValue: errno)) }
        let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? String(info.st_gid)
        return .success((group, info.st_mode & 0o7777))
    }

    // MARK: - Files

    /// A small file's text (at most 64 KiB); nil when it cannot be read.
    func read(_ path: String) -> String? {
        let fd = open(root + path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 64 << 10 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(root + path, &info) == 0
    }

    func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(root + path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Where a symbolic link points; nil when it is none.
    func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(root + path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names in a folder, `.` and `..` left out; empty when it cannot be read.
    func list(_ path: String) -> [String] {
        guard let folder = opendir(root + path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
