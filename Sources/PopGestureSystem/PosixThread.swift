import Glibc

/// A thread of the daemon's own, started with `pthread_create`: the log writer, the
/// demo's engine thread. Not Foundation's `Thread`, so that the daemon's process
/// carries no Foundation, and not Swift concurrency, whose worker pool wakes an idle
/// process every second (docs/ARCHITECTURE.md).
public enum PosixThread {
    /// Runs `body` on a new detached thread named `name` (the kernel keeps 15 bytes of
    /// it, which `top -H` and `/proc/PID/task/*/comm` show). Stops the process when the
    /// thread cannot be made: the callers cannot work without it.
    public static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            PosixThread.setName(box.name)
            box.body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            fatalError("cannot start the thread \(name): \(String(cString: strerror(status)))")
        }
        pthread_detach(thread)
    }

    /// `pthread_setname_np`, which Glibc's Swift overlay lacks: the thread's `comm` file.
    private static func setName(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private final class Box {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
