import CSystemd
import Glibc
import PopGestureBus
import SystemPackage

/// The user's session bus through libsystemd's sd-bus, as the KDE and GNOME bridges use
/// it: own a name, serve one object's method calls, watch signals, call methods with
/// string arguments. The only file of popgesturectl that sees sd-bus's C types (its
/// messages are read by PopGestureBus's `BusMessageReader`); the rest sees `DBusValue`,
/// `DBusCall` and `DBusError`.
final class SessionBus {
    private let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    /// Answers a method call on the served object; nil: the call succeeded, with no reply values.
    private var serve: ((DBusCall) -> DBusError?)?
    private var introspection = ""
    /// Handles a signal that a match let through.
    private var onSignal: ((DBusSignal) -> Void)?
    /// True after a `call`: while sd-bus waited for its reply it may have read other
    /// messages into its own queue, where `poll` on `descriptor` cannot see them.
    private(set) var mayHoldMessages = false

    /// The most arguments a served call or a watched signal is read for; the rest are left
    /// unread (what the bridges take has at most 2).
    static let maximumArguments = 4
    /// The longest string or byte array read from the bus, in bytes; a longer one is read
    /// as `.tooLong`, never copied (the bus allows 128 MiB messages).
    static let maximumValueBytes = 4096

    /// Connects to `address` (a D-Bus address, `unix:path=…`), by default
    /// `$DBUS_SESSION_BUS_ADDRESS`, else the user's bus in `$XDG_RUNTIME_DIR`.
    init(address: String? = nil) throws(DBusError) {
        var bus: OpaquePointer?
        guard let address else {
            let result = sd_bus_open_user(&bus)
            guard result >= 0, let bus else { throw DBusError(errno: -result, "cannot connect to the session bus") }
            self.bus = bus
            return
        }
        var result = sd_bus_new(&bus)
        guard result >= 0, let bus else { throw DBusError(errno: -result, "cannot make a bus connection") }
        result = sd_bus_set_address(bus, address)
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            sd_bus_unref(bus)
            throw DBusError(errno: -result, "cannot connect to the bus at \(address)")
        }
        self.bus = bus
    }

    /// This connection's unique name on the bus (`:1.42`).
    var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// Readable when the bus has something for `process()`.
    var descriptor: FileDescriptor { FileDescriptor(rawValue: sd_bus_get_fd(bus)) }

    /// Takes `name` for this connection; throws when another connection has it.
    func requestName(_ name: String) throws(DBusError) {
        let result = sd_bus_request_name(bus, name, 0)
        guard result >= 0 else {
            throw DBusError(errno: -result, result == -EEXIST ? "another process owns \(name) on the session bus" : "cannot own \(name)")
        }
    }

    /// Serves method calls to `path` (any interface) with `handler`; answers
    /// `org.freedesktop.DBus.Introspectable.Introspect` with `introspection`.
    func serve(path: String, introspection: String, _ handler: @escaping (DBusCall) -> DBusError?) throws(DBusError) {
        serve = handler
        self.introspection = introspection
        var slot: OpaquePointer?
        let result = sd_bus_add_object(bus, &slot, path, { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            return Unmanaged<SessionBus>.fromOpaque(userdata).takeUnretainedValue().handleCall(message)
        }, Unmanaged.passUnretained(self).toOpaque())
        guard result >= 0, let slot else { throw DBusError(errno: -result, "cannot serve \(path)") }
        slots.append(slot)
    }

    /// Hands every signal that `rule` (a D-Bus match rule) lets through to `handler`.
    func watch(_ rule: String, _ handler: @escaping (DBusSignal) -> Void) throws(DBusError) {
        onSignal = handler
        var slot: OpaquePointer?
        let result = sd_bus_add_match(bus, &slot, rule, { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            let bus = Unmanaged<SessionBus>.fromOpaque(userdata).takeUnretainedValue()
            let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
            let sender = sd_bus_message_get_sender(message).map { String(cString: $0) } ?? ""
            bus.onSignal?(DBusSignal(member: member, sender: sender, arguments: SessionBus.arguments(of: message)))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard result >= 0, let slot else { throw DBusError(errno: -result, "cannot watch \(rule)") }
        slots.append(slot)
    }

    /// Handles what has arrived, each call and signal through its handler; returns when
    /// nothing is left. Throws when the bus connection ended.
    func process() throws(DBusError) {
        mayHoldMessages = false
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 { throw DBusError(errno: -result, "the session bus connection ended") }
            if result == 0 { break }
        }
        // Replies are a few bytes: written out now, so poll need not wait for POLLOUT.
        let flushed = sd_bus_flush(bus)
        if flushed < 0 { throw DBusError(errno: -flushed, "writing to the session bus failed") }
    }

    /// Calls `member` with string arguments and waits (at most 5 s) for the reply's values.
    @discardableResult
    func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
              _ arguments: [String] = []) throws(DBusError) -> [DBusValue] {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw DBusError(errno: -result, "cannot make a call to \(member)") }
        defer { sd_bus_message_unref(message) }
        for argument in arguments {
            result = argument.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
            guard result >= 0 else { throw DBusError(errno: -result, "cannot make a call to \(member)") }
        }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        mayHoldMessages = true
        result = sd_bus_call(bus, message, 5_000_000, &error, &reply)
        guard result >= 0, let reply else {
            let name = error.name.map { String(cString: $0) } ?? "errno \(-result)"
            let text = error.message.map { String(cString: $0) } ?? String(cString: strerror(-result))
            throw DBusError(name: name, message: "\(destination) \(member): \(text)")
        }
        defer { sd_bus_message_unref(reply) }
        return Self.arguments(of: reply)
    }

    /// The unique name of `name`'s owner, or nil when no one owns it.
    func owner(of name: String) -> String? {
        guard let values = try? call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [name]),
              case .string(let owner)? = values.first
        else { return nil }
        return owner
    }

    // MARK: - The C side

    private func handleCall(_ message: OpaquePointer) -> Int32 {
        let interface = sd_bus_message_get_interface(message).map { String(cString: $0) } ?? ""
        let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
        if interface == "org.freedesktop.DBus.Introspectable", member == "Introspect" {
            return reply(to: message, string: introspection)
        }
        var senderUID: uid_t?
        var creds: OpaquePointer?
        if sd_bus_query_sender_creds(message, UInt64(SD_BUS_CREDS_EUID), &creds) >= 0, let creds {
            var uid = uid_t()
            if sd_bus_creds_get_euid(creds, &uid) >= 0 { senderUID = uid }
            sd_bus_creds_unref(creds)
        }
        let call = DBusCall(
            interface: interface, member: member,
            sender: sd_bus_message_get_sender(message).map { String(cString: $0) } ?? "",
            senderUID: senderUID, arguments: Self.arguments(of: message))
        if let failure = serve?(call) {
            var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
            let result = failure.name.withCString { name in
                failure.message.withCString { text in
                    error.name = name
                    error.message = text
                    return sd_bus_reply_method_error(message, &error)
                }
            }
            return result < 0 ? result : 1
        }
        return reply(to: message, string: nil)
    }

    private func reply(to call: OpaquePointer, string: String?) -> Int32 {
        var reply: OpaquePointer?
        var result = sd_bus_message_new_method_return(call, &reply)
        guard result >= 0, let reply else { return result }
        defer { sd_bus_message_unref(reply) }
        if let string {
            result = string.withCString { sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "s")), $0) }
            guard result >= 0 else { return result }
        }
        let sent = sd_bus_send(bus, reply, nil)
        return sent < 0 ? sent : 1  // 1: handled; 0 would make sd-bus answer "unknown method"
    }

    /// The message's first `maximumArguments` arguments, each bounded by `maximumValueBytes`.
    private static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var reader = BusMessageReader(message, maximumValueBytes: maximumValueBytes)
        var values: [DBusValue] = []
        while values.count < maximumArguments, let value = reader.next() { values.append(value) }
        return values
    }
}

/// A method call to the served object.
struct DBusCall: Equatable {
    var interface: String
    var member: String
    /// The caller's unique name (`:1.42`).
    var sender: String
    /// The caller's effective uid, as the bus daemon vouches for it; nil when it did not say.
    var senderUID: uid_t?
    var arguments: [DBusValue]
}

/// A signal a match let through. A match rule's `sender=` with a well-known name does
/// not check who sent it: any connection may send a signal to another (unicast) with
/// any member and arguments. Only ``sender``, which the bus daemon sets, says who.
struct DBusSignal: Equatable {
    var member: String
    /// The sending connection's unique name (`:1.42`), or `org.freedesktop.DBus` for
    /// the bus daemon itself.
    var sender: String
    var arguments: [DBusValue]
}

/// A D-Bus error: its name (`org.freedesktop.DBus.Error.AccessDenied`) and message.
struct DBusError: Error, Equatable, CustomStringConvertible {
    var name: String
    var message: String

    init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// From an sd-bus errno: `what` and the system's word for it.
    init(errno code: Int32, _ what: String) {
        self.init(name: "errno \(code)", message: "\(what): \(Errno(rawValue: code))")
    }

    var description: String { message }
}
