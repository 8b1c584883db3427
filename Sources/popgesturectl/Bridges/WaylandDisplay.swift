import CWayland
import Glibc
import SystemPackage

/// Why the wlroots bridge cannot use its Wayland display; the description is the whole message.
struct WaylandError: Error, CustomStringConvertible {
    enum Kind: Equatable {
        /// No compositor at the display's socket.
        case cannotConnect
        /// The compositor does not offer `zwlr_foreign_toplevel_manager_v1`.
        case noToplevelProtocol
        /// Asked for the outputs only: the compositor does not offer `zwlr_output_manager_v1`.
        case noOutputProtocol
        /// The connection broke: the compositor went away (`EPIPE`), or a protocol error.
        case broken(ended: Bool)
    }

    var kind: Kind
    var description: String
}

/// A Wayland object of the compositor's, by its id: unique while the object lives, and the
/// bridge forgets an object when the compositor says it is gone, before the id comes back.
typealias WaylandObjectID = UInt32

/// What the compositor said through the two wlroots protocols, in its order, as Swift values.
/// Strings are as the compositor sent them (libwayland bounds a message to 4096 bytes);
/// `WlrootsTracker` bounds what it keeps.
enum WlrootsEvent: Equatable {
    /// zwlr_foreign_toplevel_handle_v1.app_id.
    case toplevelAppID(WaylandObjectID, String)
    /// zwlr_foreign_toplevel_handle_v1.state: whether `activated` is among the states.
    case toplevelActivated(WaylandObjectID, Bool)
    /// zwlr_foreign_toplevel_handle_v1.done: the changes before it apply together.
    case toplevelDone(WaylandObjectID)
    /// zwlr_foreign_toplevel_handle_v1.closed: the window is gone.
    case toplevelClosed(WaylandObjectID)
    /// zwlr_foreign_toplevel_manager_v1.finished: no more windows will be listed.
    case toplevelsFinished
    /// zwlr_output_head_v1.name, .enabled and .transform (a wl_output transform, 0 to 7).
    case headName(WaylandObjectID, String)
    case headEnabled(WaylandObjectID, Bool)
    case headTransform(WaylandObjectID, Int32)
    /// zwlr_output_head_v1.physical_size: millimetres, untransformed; 0 × 0 when unknown.
    case headPhysicalSize(WaylandObjectID, width: Int32, height: Int32)
    /// zwlr_output_head_v1.finished: the output is gone.
    case headFinished(WaylandObjectID)
    /// zwlr_output_manager_v1.done: the head changes before it apply together.
    case outputsDone
    /// zwlr_output_manager_v1.finished: no more output changes will come.
    case outputsFinished
    /// A new window or output was not followed: the bridge already follows
    /// `WaylandDisplay.defaultMaximumToplevels` windows or `defaultMaximumHeads` outputs.
    case overflow(String)
}

/// One connection to a Wayland compositor through libwayland-client, bound to
/// `zwlr_foreign_toplevel_manager_v1` and, when offered, `zwlr_output_manager_v1`; or,
/// for the sway bridge, which has its windows from sway's IPC, to the outputs alone.
/// The only file that sees libwayland's C types; the rest sees `WlrootsEvent`s.
final class WaylandDisplay {
    /// Windows followed at once. Default 1024: a tablet shows a handful; past it a new
    /// window is let go at once (its focus is never seen) and one `.overflow` says so.
    static let defaultMaximumToplevels = 1024
    /// Outputs followed at once. Default 64, for the same reason.
    static let defaultMaximumHeads = 64
    /// The protocol versions this file handles every event of (the XMLs in Sources/CWayland).
    static let toplevelVersion: UInt32 = 3
    static let outputVersion: UInt32 = 2

    /// `$WAYLAND_DISPLAY` or the name given (`wayland-0`).
    let name: String
    /// Whether the compositor offers `zwlr_output_manager_v1`; without it, no outputs.
    private(set) var hasOutputManagement = false
    private let display: OpaquePointer
    private var registry: OpaquePointer?
    private var toplevelManager: OpaquePointer?
    private var outputManager: OpaquePointer?
    /// The two globals the bridge binds, by interface, as the compositor offered them at
    /// connect; nil after. Nothing else is kept: a compositor offers dozens, and more
    /// later (an output plugged in).
    private var globals: [String: (name: UInt32, version: UInt32)]? = [:]
    static let wantedGlobals: Set<String> = ["zwlr_foreign_toplevel_manager_v1", "zwlr_output_manager_v1"]
    private var events: [WlrootsEvent] = []
    private var toplevels = 0
    private var heads = 0
    private var overflowed = false
    private let maximumToplevels: Int
    private let maximumHeads: Int

    /// Connects to `name` (nil: `$WAYLAND_DISPLAY`), binds the two protocols, and reads
    /// what they list at once (every window and output), which `dispatch` returns first.
    /// `outputsOnly`: bind `zwlr_output_manager_v1` alone, which is then the one required.
    /// The maximums are the defaults but in tests.
    init(
        name: String?, outputsOnly: Bool = false, maximumToplevels: Int = defaultMaximumToplevels,
        maximumHeads: Int = defaultMaximumHeads
    ) throws(WaylandError) {
        self.maximumToplevels = maximumToplevels
        self.maximumHeads = maximumHeads
        let shown = name ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? ""
        self.name = shown.isEmpty ? "wayland-0" : shown
        guard let display = wl_display_connect(name) else {
            throw WaylandError(kind: .cannotConnect, description: "cannot connect to the Wayland display \(self.name): \(Errno(rawValue: errno))")
        }
        self.display = display
        let context = Unmanaged.passUnretained(self).toOpaque()
        registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, Listeners.registry, context)
        guard wl_display_roundtrip(display) >= 0 else { throw brokenError() }

        if outputsOnly {
            guard globals?["zwlr_output_manager_v1"] != nil else {
                throw WaylandError(
                    kind: .noOutputProtocol,
                    description: "the Wayland compositor at \(self.name) does not offer zwlr_output_manager_v1 (wlr-output-management)")
            }
        } else if globals?["zwlr_foreign_toplevel_manager_v1"] == nil {
            throw WaylandError(
                kind: .noToplevelProtocol,
                description: "the Wayland compositor at \(self.name) does not offer zwlr_foreign_toplevel_manager_v1 "
                    + "(wlr-foreign-toplevel-management): it is not a wlroots compositor that lists its windows")
        }
        if !outputsOnly, let toplevels = globals?["zwlr_foreign_toplevel_manager_v1"] {
            toplevelManager = OpaquePointer(wl_registry_bind(
                registry, toplevels.name, popgesture_foreign_toplevel_manager_interface(),
                min(toplevels.version, Self.toplevelVersion)))
            zwlr_foreign_toplevel_manager_v1_add_listener(toplevelManager, Listeners.toplevelManager, context)
        }
        if let outputs = globals?["zwlr_output_manager_v1"] {
            outputManager = OpaquePointer(wl_registry_bind(
                registry, outputs.name, popgesture_output_manager_interface(), min(outputs.version, Self.outputVersion)))
            zwlr_output_manager_v1_add_listener(outputManager, Listeners.outputManager, context)
            hasOutputManagement = true
        }
        globals = nil
        guard wl_display_roundtrip(display) >= 0 else { throw brokenError() }
    }

    deinit {
        wl_display_disconnect(display)
    }

    /// The connection's socket, to poll with the others.
    var descriptor: FileDescriptor { FileDescriptor(rawValue: wl_display_get_fd(display)) }

    /// True while events read in are not yet returned: the first `dispatch` need not wait.
    var hasQueuedEvents: Bool { !events.isEmpty }

    /// Reads what the socket holds without blocking, and returns every event since the last
    /// call. Throws when the connection broke (`ended` when the compositor closed it).
    func dispatch() throws(WaylandError) -> [WlrootsEvent] {
        try WaylandError.readAvailable(display, name: name)
        defer { events = [] }
        return events
    }

    private func brokenError() -> WaylandError {
        WaylandError.broken(display, name: name)
    }

    // MARK: Events, from libwayland's callbacks

    private static func this(_ data: UnsafeMutableRawPointer?) -> WaylandDisplay {
        Unmanaged<WaylandDisplay>.fromOpaque(data!).takeUnretainedValue()
    }

    /// A C string from libwayland as Swift text; invalid UTF-8 is repaired, nil is empty.
    static func string(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
    }

    private func newToplevel(_ handle: OpaquePointer?) {
        guard toplevels < maximumToplevels else {
            zwlr_foreign_toplevel_handle_v1_destroy(handle)
            noteOverflow("more than \(maximumToplevels) windows")
            return
        }
        toplevels += 1
        zwlr_foreign_toplevel_handle_v1_add_listener(handle, Listeners.toplevel, Unmanaged.passUnretained(self).toOpaque())
    }

    private func newHead(_ head: OpaquePointer?) {
        guard heads < maximumHeads else {
            zwlr_output_head_v1_destroy(head)
            noteOverflow("more than \(maximumHeads) outputs")
            return
        }
        heads += 1
        zwlr_output_head_v1_add_listener(head, Listeners.head, Unmanaged.passUnretained(self).toOpaque())
    }

    private func noteOverflow(_ what: String) {
        guard !overflowed else { return }
        overflowed = true
        events.append(.overflow(what))
    }

    /// The listeners, one copy each at a fixed address: libwayland keeps the address for
    /// the life of each object. None captures: each finds its `WaylandDisplay` in `data`.
    private enum Listeners {
        static func pinned<Listener>(_ listener: Listener) -> UnsafeMutablePointer<Listener> {
            let pointer = UnsafeMutablePointer<Listener>.allocate(capacity: 1)
            pointer.initialize(to: listener)
            return pointer
        }

        nonisolated(unsafe) static let registry = pinned(wl_registry_listener(
            global: { data, _, name, interface, version in
                let this = WaylandDisplay.this(data)
                let interface = WaylandDisplay.string(interface)
                if WaylandDisplay.wantedGlobals.contains(interface), this.globals?[interface] == nil {
                    this.globals?[interface] = (name, version)
                }
            },
            global_remove: { _, _, _ in }))

        nonisolated(unsafe) static let toplevelManager = pinned(zwlr_foreign_toplevel_manager_v1_listener(
            toplevel: { data, _, handle in WaylandDisplay.this(data).newToplevel(handle) },
            finished: { data, manager in
                WaylandDisplay.this(data).events.append(.toplevelsFinished)
                zwlr_foreign_toplevel_manager_v1_destroy(manager)
            }))

        nonisolated(unsafe) static let toplevel = pinned(zwlr_foreign_toplevel_handle_v1_listener(
            title: { _, _, _ in },
            app_id: { data, handle, appID in
                WaylandDisplay.this(data).events.append(.toplevelAppID(wl_proxy_get_id(handle), WaylandDisplay.string(appID)))
            },
            output_enter: { _, _, _ in },
            output_leave: { _, _, _ in },
            state: { data, handle, states in
                // An array of uint32 states; `activated` (2) is the one the bridge needs.
                var activated = false
                if let states, let values = states.pointee.data {
                    let count = states.pointee.size / MemoryLayout<UInt32>.size
                    let list = UnsafeBufferPointer(start: values.assumingMemoryBound(to: UInt32.self), count: count)
                    activated = list.contains(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.rawValue)
                }
                WaylandDisplay.this(data).events.append(.toplevelActivated(wl_proxy_get_id(handle), activated))
            },
            done: { data, handle in WaylandDisplay.this(data).events.append(.toplevelDone(wl_proxy_get_id(handle))) },
            closed: { data, handle in
                let this = WaylandDisplay.this(data)
                this.events.append(.toplevelClosed(wl_proxy_get_id(handle)))
                this.toplevels -= 1
                zwlr_foreign_toplevel_handle_v1_destroy(handle)
            },
            parent: { _, _, _ in }))

        nonisolated(unsafe) static let outputManager = pinned(zwlr_output_manager_v1_listener(
            head: { data, _, head in WaylandDisplay.this(data).newHead(head) },
            done: { data, _, _ in WaylandDisplay.this(data).events.append(.outputsDone) },
            finished: { data, manager in
                WaylandDisplay.this(data).events.append(.outputsFinished)
                zwlr_output_manager_v1_destroy(manager)
            }))

        nonisolated(unsafe) static let head = pinned(zwlr_output_head_v1_listener(
            name: { data, head, name in
                WaylandDisplay.this(data).events.append(.headName(wl_proxy_get_id(head), WaylandDisplay.string(name)))
            },
            description: { _, _, _ in },
            physical_size: { data, head, width, height in
                WaylandDisplay.this(data).events.append(.headPhysicalSize(wl_proxy_get_id(head), width: width, height: height))
            },
            mode: { _, _, mode in zwlr_output_mode_v1_add_listener(mode, Listeners.mode, nil) },
            enabled: { data, head, enabled in
                WaylandDisplay.this(data).events.append(.headEnabled(wl_proxy_get_id(head), enabled != 0))
            },
            current_mode: { _, _, _ in },
            position: { _, _, _, _ in },
            transform: { data, head, transform in
                WaylandDisplay.this(data).events.append(.headTransform(wl_proxy_get_id(head), transform))
            },
            scale: { _, _, _ in },
            finished: { data, head in
                let this = WaylandDisplay.this(data)
                this.events.append(.headFinished(wl_proxy_get_id(head)))
                this.heads -= 1
                zwlr_output_head_v1_destroy(head)
            },
            make: { _, _, _ in },
            model: { _, _, _ in },
            serial_number: { _, _, _ in }))

        /// A mode is an object of its own; the bridge needs none, so each goes at its end.
        nonisolated(unsafe) static let mode = pinned(zwlr_output_mode_v1_listener(
            size: { _, _, _, _ in },
            refresh: { _, _, _ in },
            preferred: { _, _ in },
            finished: { _, mode in zwlr_output_mode_v1_destroy(mode) }))
    }
}

extension WaylandError {
    /// Reads what `display`'s socket holds without blocking and calls the listeners for it,
    /// then sends what they asked for (the destroy requests for closed windows): every
    /// Wayland connection of the bridges reads this way. Throws when the connection broke.
    static func readAvailable(_ display: OpaquePointer, name: String) throws(WaylandError) {
        while wl_display_prepare_read(display) != 0 {
            guard wl_display_dispatch_pending(display) >= 0 else { throw broken(display, name: name) }
        }
        var readable = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
        if poll(&readable, 1, 0) > 0 {
            guard wl_display_read_events(display) >= 0 else { throw broken(display, name: name) }
        } else {
            wl_display_cancel_read(display)
        }
        guard wl_display_dispatch_pending(display) >= 0 else { throw broken(display, name: name) }
        _ = wl_display_flush(display)
    }

    /// Why `display` (shown as `name`) failed, once libwayland said it did: shared by
    /// every Wayland connection of the bridges.
    static func broken(_ display: OpaquePointer, name: String) -> WaylandError {
        let code = wl_display_get_error(display)
        if code == EPIPE || code == ECONNRESET {
            return Self(kind: .broken(ended: true), description: "the Wayland compositor at \(name) went away")
        }
        if code == EPROTO {
            var interface: UnsafePointer<wl_interface>?
            var id: UInt32 = 0
            let protocolCode = wl_display_get_protocol_error(display, &interface, &id)
            let object = interface.map { String(cString: $0.pointee.name) } ?? "an object"
            return Self(
                kind: .broken(ended: false),
                description: "the Wayland compositor at \(name) ended the connection: protocol error \(protocolCode) on \(object)@\(id)")
        }
        return Self(kind: .broken(ended: false), description: "the Wayland display \(name) failed: \(Errno(rawValue: code))")
    }
}
