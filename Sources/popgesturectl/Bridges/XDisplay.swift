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

    /// The next event already read or readable without blocking; nil when there is none now.
    func nextEvent() -> XEvent? {
        guard let event = xcb_poll_for_event(connection) else { return nil }
        defer { free(event) }
        // The top bit says the event was sent by a client (SendEvent); the kind is the rest.
        switch Int32(event.pointee.response_type & 0x7f) {
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
