import Glibc
import PopGestureCore
import PopGestureInput

/// A hidden test tool for grab mode's device layer, without the engine: clones a
/// protocol B touchscreen, grabs it, and forwards every frame to the clone; with
/// `--cancel-after N`, a touch still down after N frames is cancelled on the clone,
/// and its frames are left out until every finger has lifted. The VM's scenario 91
/// reads the clone with `libinput debug-events`.
///
/// Prints one line per step on stdout: `clone DEVNODE`, `announced` (udev has
/// processed the clone: grab mode grabs only then), `grabbed` (or
/// `not grabbed: WHY` when a finger is down at the grab), `cancelled slot S`,
/// `released` on SIGTERM or SIGINT, after which it cancels what is down, ungrabs
/// and exits 0.
struct DebugClone {
    /// The touchscreen's event node (protocol B).
    var devnode: String
    /// Grab the real device (EVIOCGRAB).
    var grab = false
    /// Cancel a touch on the clone once it has been down this many frames (0: never).
    var cancelAfter = 0

    func run() throws {
        let device = try EvdevDevice(path: devnode)
        let clone = try TouchClone(cloning: device)
        say("clone \(clone.devnode ?? "?")")
        // As grab mode does: grab only once udev has announced the clone.
        let monitor = try UdevInputMonitor()
        var waited = 0
        while !monitor.hasProcessed(devnode: clone.devnode ?? "") {
            guard waited < 600 else { throw DebugCloneError("udev never processed \(clone.devnode ?? "the clone")") }
            usleep(100_000)
            waited += 1
        }
        say("announced")
        if grab {
            try device.grab()
            if try device.kernelContactsDown() {
                try device.ungrab()
                say("not grabbed: a finger is down")
            } else {
                say("grabbed")
            }
        }
        signal(SIGTERM, debugCloneStop)
        signal(SIGINT, debugCloneStop)

        var frame: [InputEvent] = []
        var slot = Int32(device.stateAtOpen.currentSlot)
        var down = Set<Int32>()
        var framesDown = 0
        var cancelled = false
        var poller = pollfd(fd: device.fileDescriptor, events: Int16(POLLIN), revents: 0)
        while debugCloneStopRequested == 0 {
            guard poll(&poller, 1, 100) > 0 else { continue }
            var failure: InputError?
            do {
                try device.read { event in
                    guard failure == nil else { return }
                    frame.append(event)
                    if event.type == EV.abs && event.code == ABS.mtSlot { slot = event.value }
                    if event.type == EV.abs && event.code == ABS.mtTrackingID {
                        if event.value >= 0 { down.insert(slot) } else { down.remove(slot) }
                    }
                    guard event.isFrameEnd else { return }
                    defer { frame.removeAll(keepingCapacity: true) }
                    if cancelled {
                        if down.isEmpty { cancelled = false; framesDown = 0 }
                        return
                    }
                    do throws(InputError) {
                        try clone.forward(frame)
                        framesDown = down.isEmpty ? 0 : framesDown + 1
                        if cancelAfter > 0, framesDown >= cancelAfter, let first = clone.slotsDown.first {
                            try clone.cancel(slot: first, at: event.time)
                            cancelled = true
                            say("cancelled slot \(first)")
                        }
                    } catch {
                        failure = error
                    }
                }
            }
            if let failure { throw failure }
        }
        try clone.releaseAll()
        try device.ungrab()
        say("released")
    }

    private func say(_ line: String) {
        print(line)
        fflush(nil)  // every stream: stdout is a file in the VM
    }
}

struct DebugCloneError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

nonisolated(unsafe) private var debugCloneStopRequested: sig_atomic_t = 0
private func debugCloneStop(_: Int32) { debugCloneStopRequested = 1 }
