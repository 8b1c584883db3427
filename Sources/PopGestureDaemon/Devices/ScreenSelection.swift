/// Which touchscreens show the apps whose navigators the daemon pops: the `screen` key.
///
/// Nothing in evdev says which output a touchscreen sits on. The convention libinput's
/// compositors follow is a udev property naming the output, `WL_OUTPUT` (set by a rule
/// or hwdb); without one, every touchscreen is taken to show the app in front.
public enum ScreenSelection: Sendable, Hashable {
    /// Every touchscreen shows the app in front: each one's edge, distance and
    /// exclusion rules are in its own millimetres and fractions. The default.
    case all
    /// Only the touchscreens whose udev `WL_OUTPUT` or kernel name is exactly this.
    /// The others show something else, so they are left alone, as touchpads are
    /// with `touchpads = off`.
    case named(String)

    /// `all`, or a name: not empty, no control characters, at most 255 bytes.
    public init?(_ text: String) {
        if text == "all" {
            self = .all
        } else if !text.isEmpty, text.utf8.count <= 255,
                  !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            self = .named(text)
        } else {
            return nil
        }
    }

    /// As the file spells it.
    public var text: String {
        switch self {
        case .all: "all"
        case .named(let name): name
        }
    }

    /// Whether a touchscreen with this kernel name and udev `WL_OUTPUT` shows the apps.
    public func includes(name: String, output: String?) -> Bool {
        switch self {
        case .all: true
        case .named(let screen): name == screen || output == screen
        }
    }
}
