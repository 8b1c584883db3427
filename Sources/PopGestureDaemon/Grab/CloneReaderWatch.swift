import CLinux
import Glibc
import PopGestureInput

/// Who opens grab mode's clones: an inotify watch on `/dev/input`, whose `IN_OPEN` and
/// `IN_CLOSE_*` events name the node opened or closed (docs/ARCHITECTURE.md, "Grab
/// mode"). The directory is watched, not each clone: inotify needs read access to what
/// it watches, and a clone's node is `root:input 0660`, which the daemon's user may not
/// read (it writes the clone through `/dev/uinput`); `/dev/input` is readable by all.
/// The daemon's own opens are of the real nodes, never of a clone's.
///
/// Made before the first clone, so that no open of a clone is missed; one for all.
final class CloneReaderWatch {
    enum Change: Equatable {
        case opened(String)
        case closed(String)
        /// The kernel's queue overflowed: opens may have been lost.
        case overflow
    }

    /// The fd to `poll(2)` for `POLLIN`. Owned by this object.
    let fileDescriptor: CInt
    let directory: String
    private var buffer = [UInt8](repeating: 0, count: 4096)

    init(directory: String = "/dev/input") throws(InputError) {
        let fd = inotify_init1(CInt(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            throw InputError(.loopSetup, "cannot create an inotify instance: \(String(cString: strerror(errno)))")
        }
        let mask = UInt32(IN_OPEN) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_CLOSE_NOWRITE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw InputError(.loopSetup, "cannot watch \(directory) with inotify: \(reason)")
        }
        fileDescriptor = fd
        self.directory = directory
    }

    deinit { close(fileDescriptor) }

    /// Every open and close waiting, oldest first, as full paths. Never blocks.
    func read() -> [Change] {
        var changes: [Change] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return changes }
            Self.parse(buffer[..<count], directory: directory, into: &changes)
        }
    }

    /// The `inotify_event` records in `bytes`: a 16-byte header (wd, mask, cookie,
    /// len) and `len` bytes of NUL-padded name.
    static func parse(_ bytes: ArraySlice<UInt8>, directory: String, into changes: inout [Change]) {
        var offset = bytes.startIndex
        func word(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while offset + 16 <= bytes.endIndex {
            let mask = word(offset + 4)
            let length = Int(word(offset + 12))
            let nameStart = offset + 16
            let end = min(bytes.endIndex, nameStart + length)
            offset = nameStart + length
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                changes.append(.overflow)
                continue
            }
            let name = String(decoding: bytes[nameStart..<end].prefix { $0 != 0 }, as: UTF8.self)
            guard !name.isEmpty else { continue }  // the directory itself
            let path = directory + "/" + name
            if mask & UInt32(IN_OPEN) != 0 { changes.append(.opened(path)) }
            if mask & (UInt32(IN_CLOSE_WRITE) | UInt32(IN_CLOSE_NOWRITE)) != 0 { changes.append(.closed(path)) }
        }
    }
}
