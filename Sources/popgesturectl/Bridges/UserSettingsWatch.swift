import Glibc
import PopGestureProtocol
import SystemPackage

/// The user's own settings for their seat, `$XDG_CONFIG_HOME/popgestured/popgestured.conf`
/// (`~/.config/…`), which the bridge sends as `user-settings` at every connect and resume
/// and again when the file changes (issue 32). The daemon checks the text; the bridge
/// only reads it, at most ``maximumBytes``.
///
/// Watched with inotify: the folder for the file's writes, renames and removal, and its
/// parent for the folder's creation, so that a settings app's first save is seen at once.
final class UserSettingsWatch {
    /// The protocol's limit for the text: a longer file is not sent, and says so once.
    static let maximumBytes = ProtocolLimits.maximumUserSettingsBytes

    let path: String
    let folder: String
    private let parent: String
    /// The inotify descriptor, polled by the bridge's loop; nil when inotify is refused.
    let descriptor: FileDescriptor?
    private var folderWatch: Int32 = -1
    /// The last problem logged, so that it is logged once.
    private var lastProblem: String?

    /// The file of the user running the bridge: `XDG_CONFIG_HOME`, else `HOME/.config`.
    static func forThisUser() -> UserSettingsWatch? {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) } }
        if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") { return UserSettingsWatch(base: config) }
        if let home = environment("HOME"), home.hasPrefix("/") { return UserSettingsWatch(base: home + "/.config") }
        return nil
    }

    init(base: String) {
        parent = base
        folder = base + "/popgestured"
        path = folder + "/popgestured.conf"
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        descriptor = fd >= 0 ? FileDescriptor(rawValue: fd) : nil
        if let descriptor {
            _ = inotify_add_watch(descriptor.rawValue, parent, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR))
            watchFolder()
        }
    }

    deinit { try? descriptor?.close() }

    private func watchFolder() {
        guard let descriptor, folderWatch < 0 else { return }
        folderWatch = inotify_add_watch(
            descriptor.rawValue, folder,
            UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF | IN_ONLYDIR))
    }

    /// Drains what inotify says (the loop saw the descriptor readable) and watches the
    /// folder once it exists; the caller reads the file again.
    func drain() {
        guard let descriptor else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor.rawValue, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                if event.wd == folderWatch && event.mask & UInt32(IN_DELETE_SELF | IN_IGNORED) != 0 { folderWatch = -1 }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
        watchFolder()
    }

    /// The file's text; "" when there is none, or it cannot be sent (too long, not UTF-8,
    /// unreadable: the reason logged once through `log`): the system's settings then.
    func read(log: (String) -> Void) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { lastProblem = nil; return "" }
            return problem("cannot read \(path): \(Errno(rawValue: errno))", log)
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: Self.maximumBytes + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return problem("cannot read \(path): \(Errno(rawValue: errno))", log) }
            if count == 0 { break }
            filled += count
        }
        guard filled <= Self.maximumBytes else {
            return problem("\(path) has more than \(Self.maximumBytes) bytes: not sent; the system's settings apply", log)
        }
        guard let text = String(validating: bytes[..<filled], as: UTF8.self) else {
            return problem("\(path) is not UTF-8: not sent; the system's settings apply", log)
        }
        lastProblem = nil
        return text
    }

    private func problem(_ message: String, _ log: (String) -> Void) -> String {
        if message != lastProblem { log(message) }
        lastProblem = message
        return ""
    }
}
