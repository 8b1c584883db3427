import CWayland
import Glibc
import SystemPackage

/// What KWin said through kde-output-device-v2, in its order, as Swift values. Each device
/// is known by its proxy's id (unique while it lives: a device's id is let go only after
/// `.removed`).
enum KDEOutputEvent: Equatable {
    /// kde_output_device_v2.geometry: the physical size in millimetres (untransformed; 0 or
    /// less when unknown) and the transform, numbered as wl_output's (0 to 7).
    case geometry(WaylandObjectID, widthMillimetres: Int32, heightMillimetres: Int32, transform: Int32)
    /// kde_output_device_v2.name (since version 2): the connector's name, `eDP-1`.
    case name(WaylandObjectID, String)
    /// kde_output_device_v2.enabled.
    case enabled(WaylandObjectID, Bool)
    /// kde_output_device_v2.done: this device's changes before it apply together.
    case done(WaylandObjectID)
    /// The device's global left the registry: the output is gone (unplugged).
    case removed(WaylandObjectID)
    /// A new device was not followed: `KDEOutputDevices.maximumDevices` are already.
    case overflow(String)
}

/// One Wayland connection to KWin that follows every `kde_output_device_v2` global: those
/// there at connect and those that come later. The only file of the KDE bridge that sees
/// libwayland's C types; the rest sees `KDEOutputEvent`s.
///
/// KWin offers the protocol to any client (5.27: version 2, checked with `wayland-info`
/// under `kwin_wayland --virtual`); it is what `kscreen-doctor` reads. Its scripts and
/// D-Bus interfaces show no output transform.
final class KDEOutputDevices {
    /// Devices followed at once. Default 64, as the wlroots bridge's outputs: past it a new
    /// one is let go at once and one `.overflow` says so.
    static let maximumDevices = 64
    /// The protocol version this file handles every event of (the XML in Sources/CWayland):
    /// KWin 6 offers later ones, whose new events a version-2 binding never receives.
    static let version: UInt32 = 2
    static let interfaceName = "kde_output_device_v2"

    /// `$WAYLAND_DISPLAY` or the name given (`wayland-0`).
    let name: String
    private let display: OpaquePointer
    private var registry: OpaquePointer?
    /// The devices followed, by their global's name (which `global_remove` gives).
    private var devices: [UInt32: OpaquePointer] = [:]
    /// Each device's mode objects, which the bridge never reads but must free: at the
    /// mode's `removed`, or with its device when the output goes. Not capped: a mode
    /// the server made cannot be freed early (a later `current_mode` naming it would
    /// break the connection), and KWin lists each output's own modes, a few dozen.
    private var modes: [OpaquePointer: [OpaquePointer]] = [:]
    private var events: [KDEOutputEvent] = []
    private var overflowed = false
    /// Whether KWin has listed any output device: one that lists none at connect does not
    /// offer the protocol (KWin before 5.23, or not KWin).
    private(set) var offersDevices = false

    /// Connects to `name` (nil: `$WAYLAND_DISPLAY`) and binds every device KWin lists; what
    /// they say first waits for the first `dispatch`.
    init(name: String?) throws(WaylandError) {
        let shown = name ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? ""
        self.name = shown.isEmpty ? "wayland-0" : shown
        guard let display = wl_display_connect(name) else {
            throw WaylandError(kind: .cannotConnect, description: "cannot connect to the Wayland display \(self.name): \(Errno(rawValue: errno))")
        }
        self.display = display
        registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, Listeners.registry, Unmanaged.passUnretained(self).toOpaque())
        // The first roundtrip lists the globals (each device bound as it comes), the second
        // brings each device's first state.
        guard wl_display_roundtrip(display) >= 0, wl_display_roundtrip(display) >= 0 else {
            throw WaylandError.broken(display, name: self.name)
        }
    }

    deinit {
        wl_display_disconnect(display)
    }

    /// The connection's socket, to poll with the bus.
    var descriptor: FileDescriptor { FileDescriptor(rawValue: wl_display_get_fd(display)) }

    /// True while events read in are not yet returned.
    var hasQueuedEvents: Bool { !events.isEmpty }

    /// Reads what the socket holds without blocking, and returns every event since the last
    /// call. Throws when the connection broke (`ended` when KWin closed it).
    func dispatch() throws(WaylandError) -> [KDEOutputEvent] {
        try WaylandError.readAvailable(display, name: name)
        defer { events = [] }
        return events
    }

    // MARK: Events, from libwayland's callbacks

    private static func this(_ data: UnsafeMutableRawPointer?) -> KDEOutputDevices {
        Unmanaged<KDEOutputDevices>.fromOpaque(data!).takeUnretainedValue()
    }

    private func global(_ globalName: UInt32, interface: String, version: UInt32) {
        guard interface == Self.interfaceName else { return }
        offersDevices = true
        guard devices.count < Self.maximumDevices else {
            if !overflowed { events.append(.overflow("more than \(Self.maximumDevices) outputs")) }
            overflowed = true
            return
        }
        let device = OpaquePointer(wl_registry_bind(
            registry, globalName, popgesture_kde_output_device_interface(), min(version, Self.version)))
        kde_output_device_v2_add_listener(device, Listeners.device, Unmanaged.passUnretained(self).toOpaque())
        devices[globalName] = device
    }

    private func globalRemoved(_ globalName: UInt32) {
        guard let device = devices.removeValue(forKey: globalName) else { return }
        events.append(.removed(wl_proxy_get_id(device)))
        for mode in modes.removeValue(forKey: device) ?? [] { kde_output_device_mode_v2_destroy(mode) }
        // Version 2 has no destructor request: the proxy goes on this side only.
        kde_output_device_v2_destroy(device)
    }

    private func modeAdded(_ mode: OpaquePointer, to device: OpaquePointer) {
        modes[device, default: []].append(mode)
        kde_output_device_mode_v2_add_listener(mode, Listeners.mode, Unmanaged.passUnretained(self).toOpaque())
    }

    private func modeRemoved(_ mode: OpaquePointer) {
        for (device, list) in modes where list.contains(mode) {
            modes[device] = list.filter { $0 != mode }
        }
        kde_output_device_mode_v2_destroy(mode)
    }

    /// The listeners, one copy each at a fixed address, as libwayland needs for the life of
    /// each object. None captures: each finds its `KDEOutputDevices` in `data`.
    private enum Listeners {
        static func pinned<Listener>(_ listener: Listener) -> UnsafeMutablePointer<Listener> {
            let pointer = UnsafeMutablePointer<Listener>.allocate(capacity: 1)
            pointer.initialize(to: listener)
            return pointer
        }

        static func id(_ device: OpaquePointer?) -> WaylandObjectID { wl_proxy_get_id(device) }

        nonisolated(unsafe) static let registry = pinned(wl_registry_listener(
            global: { data, _, name, interface, version in
                KDEOutputDevices.this(data).global(name, interface: WaylandDisplay.string(interface), version: version)
            },
            global_remove: { data, _, name in KDEOutputDevices.this(data).globalRemoved(name) }))

        nonisolated(unsafe) static let device = pinned(kde_output_device_v2_listener(
            geometry: { data, device, _, _, width, height, _, _, _, transform in
                KDEOutputDevices.this(data).events.append(
                    .geometry(id(device), widthMillimetres: width, heightMillimetres: height, transform: transform))
            },
            current_mode: { _, _, _ in },
            mode: { data, device, mode in
                guard let device, let mode else { return }
                KDEOutputDevices.this(data).modeAdded(mode, to: device)
            },
            done: { data, device in KDEOutputDevices.this(data).events.append(.done(id(device))) },
            scale: { _, _, _ in },
            edid: { _, _, _ in },
            enabled: { data, device, enabled in KDEOutputDevices.this(data).events.append(.enabled(id(device), enabled != 0)) },
            uuid: { _, _, _ in },
            serial_number: { _, _, _ in },
            eisa_id: { _, _, _ in },
            capabilities: { _, _, _ in },
            overscan: { _, _, _ in },
            vrr_policy: { _, _, _ in },
            rgb_range: { _, _, _ in },
            name: { data, device, name in
                KDEOutputDevices.this(data).events.append(.name(id(device), WaylandDisplay.string(name)))
            }))

        /// A mode is an object of its own; the bridge needs none, so each goes at its removal.
        nonisolated(unsafe) static let mode = pinned(kde_output_device_mode_v2_listener(
            size: { _, _, _, _ in },
            refresh: { _, _, _ in },
            preferred: { _, _ in },
            removed: { data, mode in
                guard let mode else { return }
                KDEOutputDevices.this(data).modeRemoved(mode)
            }))
    }
}
