import Glibc
import PopGestureBus
import PopGestureProtocol

/// What the KWin script and the GNOME Shell extension tell the bridge, as method calls
/// on its object on the session bus, and what the bridge makes of each: pure, no bus.
///
/// The bridge owns `busName` and serves `path`, interface `interface`:
///
///     FocusedWindow(s app, i pid)         the active window; "" and 0 mean unknown,
///                                         both: no window
///     OutputTransform(u transform, s output)  the output's wl_output transform (0 to 7)
///     TextDirection(s direction)          "ltr" or "rtl"
///     TouchpadScrolling(b natural)        whether touchpads scroll naturally (GNOME:
///                                         org.gnome.desktop.peripherals.touchpad natural-scroll)
///
/// Only the compositor may call: the caller must be the connection that owns the
/// compositor's name (`org.kde.KWin`, `org.gnome.Shell`) and run as this user.
enum DesktopReport {
    static let busName = "org.popgestured.Bridge"
    static let path = "/org/popgestured/Bridge"
    static let interface = "org.popgestured.Bridge1"

    /// For `gdbus introspect` and `busctl introspect`.
    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="\(interface)">
            <method name="FocusedWindow"><arg name="app" type="s" direction="in"/><arg name="pid" type="i" direction="in"/></method>
            <method name="OutputTransform"><arg name="transform" type="u" direction="in"/><arg name="output" type="s" direction="in"/></method>
            <method name="TextDirection"><arg name="direction" type="s" direction="in"/></method>
            <method name="TouchpadScrolling"><arg name="natural" type="b" direction="in"/></method>
          </interface>
        </node>

        """

    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"

    /// Reads `call`: the event it reports, or the error to answer it with.
    /// `compositor`: the unique name that owns the compositor's name now (nil: none does);
    /// `uid`: this process's user.
    static func read(_ call: DBusCall, compositor: String?, uid: uid_t) -> Result<FocusSourceEvent, DBusError> {
        // Another program of the session could pose as the compositor and steer the backs.
        guard let compositor, call.sender == compositor, call.senderUID == uid else {
            return .failure(DBusError(
                name: accessDenied,
                message: "only the compositor (\(compositor ?? "not on the bus")) may report to popgesturectl's bridge, not \(call.sender)"))
        }
        guard call.interface == interface else {
            return .failure(DBusError(name: unknownMethod, message: "no interface \(call.interface) here"))
        }
        switch call.member {
        case "FocusedWindow":
            guard call.arguments.count == 2, let app = appID(call.arguments[0]), let pid = integer(call.arguments[1]) else {
                return .failure(invalid("FocusedWindow takes an app id (string) and a pid (integer)", call))
            }
            return .success(.focused(FocusedWindow(app: app.isEmpty ? nil : app, pid: pid > 0 ? pid : nil)))
        case "OutputTransform":
            guard call.arguments.count == 2, let transform = integer(call.arguments[0]),
                  case .string(let output) = call.arguments[1]
            else {
                return .failure(invalid("OutputTransform takes a transform (integer) and an output name (string)", call))
            }
            guard let degrees = clockwiseDegrees(wlOutputTransform: transform),
                  let rotation = OutputRotation(degrees: degrees, output: output.isEmpty ? nil : output)
            else {
                return .failure(DBusError(
                    name: invalidArgs, message: "transform \(transform) is flipped or unknown: only 0 to 3 turn the screen"))
            }
            return .success(.rotated(rotation))
        case "TextDirection":
            guard call.arguments.count == 1, case .string(let text) = call.arguments[0],
                  let direction = ClientRequest.Layout(rawValue: text)
            else {
                return .failure(invalid("TextDirection takes \"ltr\" or \"rtl\"", call))
            }
            return .success(.textDirection(direction))
        case "TouchpadScrolling":
            guard call.arguments.count == 1, case .bool(let natural) = call.arguments[0] else {
                return .failure(invalid("TouchpadScrolling takes a boolean", call))
            }
            return .success(.touchpadScrolling(natural: natural))
        default:
            return .failure(DBusError(name: unknownMethod, message: "no method \(call.member) in \(interface)"))
        }
    }

    /// wl_output's transform (`WL_OUTPUT_TRANSFORM_*`), which KWin's `OutputTransform` and
    /// mutter's `MetaMonitorTransform` (and so org.gnome.Mutter.DisplayConfig) number the
    /// same way, as the daemon's degrees clockwise; nil for a flipped (4 to 7) or unknown one.
    ///
    /// wl_output's 90 turns the picture 90° counter-clockwise on the panel, which is what a
    /// panel turned 90° clockwise needs: mutter applies it when iio-sensor-proxy says
    /// `left-up` (`meta_monitor_transform_from_orientation`), the left edge up, and that is
    /// the daemon's `rotation = 90` (the panel's top-left corner at the screen's top-right).
    static func clockwiseDegrees(wlOutputTransform transform: Int64) -> Int64? {
        (0...3).contains(transform) ? transform * 90 : nil
    }

    /// A string, or UTF-8 bytes (KWin 5 hands `resourceClass` over as a byte array);
    /// past 256 bytes or not UTF-8: "" (unknown), as `FocusedWindow` keeps it.
    private static func appID(_ value: DBusValue) -> String? {
        switch value {
        case .string(let text): return text
        case .bytes(let bytes):
            let trimmed = bytes.last == 0 ? Array(bytes.dropLast()) : bytes
            return String(validating: trimmed, as: UTF8.self) ?? ""
        case .tooLong: return ""
        default: return nil
        }
    }

    /// An integer, or a double that is one (a script's numbers may arrive as either).
    private static func integer(_ value: DBusValue) -> Int64? {
        switch value {
        case .integer(let number): return number
        case .double(let number) where number.rounded() == number && abs(number) < 1e15: return Int64(number)
        default: return nil
        }
    }

    private static func invalid(_ what: String, _ call: DBusCall) -> DBusError {
        DBusError(name: invalidArgs, message: "\(what); got \(call.arguments.count) argument(s)")
    }
}
