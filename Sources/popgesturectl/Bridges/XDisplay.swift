import CXcb
import Glibc
import SystemPackage

/// Why the X11 bridge cannot use its display; the description is the whole message.
struct XDisplayError: Error, CustomStringConvertible {
    var description: String
}

/// What `XDisplay.nextEvent` found.
enum XEvent: Equatable {
    /// A property of a window we watch changed (PropertyNotify).
    case propertyChanged(window: XWindow, atom: XAtom)
    /// A window we watch is gone (DestroyNotify).
    case destroyed(window: XWindow)
    /// An X error for one of our unchecked requests, by its code (3 is BadWindow: a window
    /// we asked about went away meanwhile).
    case error(code: UInt8)
    /// RandR says a screen, CRTC or output changed (RRScreenChangeNotify, RRNotify).
    case outputsChanged
    case other
}

/// What `XDisplay.property` found.
enum XPropertyRead: Equatable {
    case value(XProperty)
    case absent
    /// The window no longer exists (BadWindow).
    case windowGone
    /// Another X error, by its code, or the connection broke.
    case failed(code: UInt8?)

    var property: XProperty? {
        if case .value(let property) = self { property } else { nil }
    }
}

/// One connection to an X server through libxcb: the few requests the X11 bridge makes,
/// with typed values. The only file that sees xcb's C types.
final class XDisplay {
    private let connection: OpaquePointer
    /// RandR's first event number, once `watchOutputs` found RandR 1.2 or later; nil before.
    private var randrFirstEvent: UInt8?
    /// The default screen's root window, where the window manager keeps `_NET_ACTIVE_WINDOW`.
    let root: XWindow
    /// The display as named (`:0`), or `$DISPLAY` when none was.
    let name: String

    /// Connects to `name`, else to `$DISPLAY`.
    init(name: String?) throws(XDisplayError) {
        let shown = name ?? getenv("DISPLAY").map { String(cString: $0) } ?? ""
        self.name = shown.isEmpty ? "(no DISPLAY set)" : shown
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(name, &screenNumber) else {
            throw XDisplayError(description: "cannot open the X display \(self.name)")
        }
        let status = xcb_connection_has_error(connection)
        if status != 0 {
            xcb_disconnect(connection)
            throw XDisplayError(description: "cannot open the X display \(self.name): \(Self.reason(status))")
        }
        var screens = xcb_setup_roots_iterator(xcb_get_setup(connection))
        for _ in 0..<max(0, screenNumber) where screens.rem > 0 { xcb_screen_next(&screens) }
        guard screens.rem > 0, let screen = screens.data else {
            xcb_disconnect(connection)
            throw XDisplayError(description: "the X display \(self.name) has no screen \(screenNumber)")
        }
        self.connection = connection
        self.root = XWindow(rawValue: screen.pointee.root)
    }

    deinit {
        xcb_disconnect(connection)
    }

    /// The connection's socket, to poll with the others.
    var descriptor: FileDescriptor { FileDescriptor(rawValue: xcb_get_file_descriptor(connection)) }

    /// Why the connection broke (the server went away, or a protocol error); nil while it works.
    var failure: String? {
        let status = xcb_connection_has_error(connection)
        return status == 0 ? nil : Self.reason(status)
    }

    /// The atom for `name`, created if the server has none yet (as `_NET_WM_PID` may not be
    /// before any client sets it).
    func atom(_ name: String) throws(XDisplayError) -> XAtom {
        let cookie = xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name)
        guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else {
            throw XDisplayError(description: "the X display \(self.name) did not answer InternAtom \(name)")
        }
        defer { free(reply) }
        return XAtom(rawValue: reply.pointee.atom)
    }

    /// The events to ask of a window.
    struct EventMask: OptionSet {
        var rawValue: UInt32
        /// PropertyNotify.
        static let properties = EventMask(rawValue: XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)
        /// DestroyNotify among others (StructureNotify).
        static let structure = EventMask(rawValue: XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue)
    }

    /// Asks for `events` from `window` from now on; empty asks for none.
    /// Unchecked: for a window that is gone meanwhile, a BadWindow comes as an event.
    func watch(_ window: XWindow, for events: EventMask) {
        var mask = events.rawValue
        xcb_change_window_attributes(connection, window.rawValue, XCB_CW_EVENT_MASK.rawValue, &mask)
    }

    /// Sends the requests buffered so far (event-mask changes) to the server.
    func flush() {
        _ = xcb_flush(connection)
    }

    /// `property` of `window`, at most `maximumBytes` of it (rounded up to whole 32-bit
    /// units, as GetProperty counts); `truncated` says whether there was more.
    func property(_ property: XAtom, of window: XWindow, maximumBytes: Int) -> XPropertyRead {
        let units = UInt32((maximumBytes + 3) / 4)
        let cookie = xcb_get_property(connection, 0, window.rawValue, property.rawValue, 0 /* AnyPropertyType */, 0, units)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard let reply = xcb_get_property_reply(connection, cookie, &error) else {
            guard let error else { return .failed(code: nil) }
            let code = error.pointee.error_code
            free(error)
            return code == 3 ? .windowGone : .failed(code: code)
        }
        defer { free(reply) }
        let type = XAtom(rawValue: reply.pointee.type)
        if type == .none { return .absent }
        let length = Int(xcb_get_property_value_length(reply))
        let bytes = Array(UnsafeRawBufferPointer(start: xcb_get_property_value(reply), count: max(0, length)))
        return .value(XProperty(
            type: type, format: reply.pointee.format, bytes: Array(bytes.prefix(maximumBytes)),
            truncated: reply.pointee.bytes_after > 0 || bytes.count > maximumBytes))
    }

    /// One output as RandR describes it (`GetOutputInfo`, and its CRTC's `GetCrtcInfo`).
    struct RandROutput: Equatable {
        var name: String
        /// Whether a monitor is connected (RandR's `Connected`, not `Disconnected` or `Unknown`).
        var connected: Bool
        /// Whether it shows part of the screen: it has a CRTC.
        var enabled: Bool
        /// The CRTC's rotation and reflection bits (`XCB_RANDR_ROTATION_*`); 0 without a CRTC.
        var rotation: UInt16
        /// The monitor's size as RandR has it (EDID), untransformed; 0 when unknown.
        var widthMillimetres: UInt32
        var heightMillimetres: UInt32
    }

    /// Asks for RandR's screen, CRTC and output changes on the root window, as
    /// `.outputsChanged` events. Returns why not: the server has no RandR 1.2 (which
    /// has outputs and CRTCs); nil when it watches.
    func watchOutputs() -> String? {
        guard let extensionData = popgesture_randr_extension(connection), extensionData.pointee.present != 0 else {
            return "the X display \(name) has no RandR extension"
        }
        let cookie = xcb_randr_query_version(connection, 1, 2)
        guard let reply = xcb_randr_query_version_reply(connection, cookie, nil) else {
            return "the X display \(name) did not answer RandR's QueryVersion"
        }
        defer { free(reply) }
        let (major, minor) = (reply.pointee.major_version, reply.pointee.minor_version)
        guard major > 1 || (major == 1 && minor >= 2) else {
            return "the X display \(name) has RandR \(major).\(minor), without outputs (1.2 has them)"
        }
        randrFirstEvent = extensionData.pointee.first_event
        let mask = XCB_RANDR_NOTIFY_MASK_SCREEN_CHANGE.rawValue | XCB_RANDR_NOTIFY_MASK_CRTC_CHANGE.rawValue
            | XCB_RANDR_NOTIFY_MASK_OUTPUT_CHANGE.rawValue
        xcb_randr_select_input(connection, root.rawValue, UInt16(mask))
        return nil
    }

    /// Every output of the root window's screen, in RandR's order, at most `limit` of them;
    /// nil when RandR does not answer (the connection broke).
    func outputs(limit: Int) -> [RandROutput]? {
        let cookie = xcb_randr_get_screen_resources_current(connection, root.rawValue)
        guard let resources = xcb_randr_get_screen_resources_current_reply(connection, cookie, nil) else { return nil }
        defer { free(resources) }
        let count = Int(xcb_randr_get_screen_resources_current_outputs_length(resources))
        guard count > 0, let ids = xcb_randr_get_screen_resources_current_outputs(resources) else { return [] }
        let timestamp = resources.pointee.config_timestamp
        var outputs: [RandROutput] = []
        for id in UnsafeBufferPointer(start: ids, count: min(count, limit)) {
            let infoCookie = xcb_randr_get_output_info(connection, id, timestamp)
            // An output gone meanwhile: the change's event follows, and with it a new read.
            guard let info = xcb_randr_get_output_info_reply(connection, infoCookie, nil) else { continue }
            defer { free(info) }
            let length = Int(xcb_randr_get_output_info_name_length(info))
            let name = String(decoding: UnsafeBufferPointer(start: xcb_randr_get_output_info_name(info), count: max(0, length)),
                              as: UTF8.self)
            let crtc = info.pointee.crtc
            var rotation: UInt16 = 0
            if crtc != 0 {
                let crtcCookie = xcb_randr_get_crtc_info(connection, crtc, timestamp)
                if let crtcInfo = xcb_randr_get_crtc_info_reply(connection, crtcCookie, nil) {
                    rotation = crtcInfo.pointee.rotation
                    free(crtcInfo)
                }
            }
            outputs.append(RandROutput(
                name: name, connected: info.pointee.connection == UInt8(XCB_RANDR_CONNECTION_CONNECTED.rawValue),
                enabled: crtc != 0, rotation: rotation, widthMillimetres: info.pointee.mm_width,
                heightMillimetres: info.pointee.mm_height))
        }
        return outputs
    }

    /// The next event already read or readable without blocking; nil when there is none now.
    func nextEvent() -> XEvent? {
        guard let event = xcb_poll_for_event(connection) else { return nil }
        defer { free(event) }
        // The top bit says the event was sent by a client (SendEvent); the kind is the rest.
        let kind = event.pointee.response_type & 0x7f
        if let first = randrFirstEvent,
           kind == first &+ UInt8(XCB_RANDR_SCREEN_CHANGE_NOTIFY) || kind == first &+ UInt8(XCB_RANDR_NOTIFY)
        {
            return .outputsChanged
        }
        switch Int32(kind) {
        case 0:
            let code = UnsafeRawPointer(event).load(as: xcb_generic_error_t.self).error_code
            return .error(code: code)
        case XCB_PROPERTY_NOTIFY:
            let notify = UnsafeRawPointer(event).load(as: xcb_property_notify_event_t.self)
            return .propertyChanged(window: XWindow(rawValue: notify.window), atom: XAtom(rawValue: notify.atom))
        case XCB_DESTROY_NOTIFY:
            let notify = UnsafeRawPointer(event).load(as: xcb_destroy_notify_event_t.self)
            return .destroyed(window: XWindow(rawValue: notify.window))
        default:
            return .other
        }
    }

    private static func reason(_ status: Int32) -> String {
        switch status {
        case XCB_CONN_ERROR: "the connection failed or was closed"
        case XCB_CONN_CLOSED_PARSE_ERR: "the display name is not valid"
        case XCB_CONN_CLOSED_INVALID_SCREEN: "the server has no such screen"
        case XCB_CONN_CLOSED_MEM_INSUFFICIENT: "out of memory"
        default: "libxcb error \(status)"
        }
    }
}
