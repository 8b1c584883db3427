import Logging
import PopGestureCore
import PopGestureInput
import PopGestureProtocol
import PopGestureSystem

extension Configuration {
    /// One setting: its name in the file, its flag, what its values look like, and
    /// where it lives in ``Configuration``.
    ///
    /// ``allCases`` is the only list of settings. The file parser, the command-line
    /// flags (the daemon's and `replay`'s), ``Configuration/value(of:)``,
    /// ``Configuration/changedKeys(since:)`` and the error messages all read it, so a
    /// new key is one entry here plus the code that uses its value.
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        /// The name in the file: `edge-width-mm`.
        public let rawValue: String
        /// The command-line flag, without its dashes: `edge-width`. The key's name
        /// without its unit.
        public let flag: String
        /// What a value must look like, as error messages say it.
        public let expected: String
        /// What the setting does, for `--help`; the default is appended there.
        public let summary: String
        /// Parses and checks `text`, and stores it; false when it is refused.
        private let assign: @Sendable (inout Configuration, String) -> Bool
        /// Why a refused text was refused, when the parser can say more than ``expected``.
        private let explain: (@Sendable (String) -> String?)?
        /// The value as the file spells it.
        private let formatValue: @Sendable (Configuration) -> String

        /// A key whose text parses (and is checked) by `parse`, nil meaning refused.
        init<Value>(
            _ name: String, flag: String? = nil, _ path: WritableKeyPath<Configuration, Value> & Sendable,
            expected: String, summary: String,
            parse: @escaping @Sendable (String) -> Value?, format: @escaping @Sendable (Value) -> String,
            explain: (@Sendable (String) -> String?)? = nil
        ) {
            rawValue = name
            self.flag = flag ?? name
            self.expected = expected
            self.summary = summary
            self.explain = explain
            assign = { configuration, text in
                guard let value = parse(text) else { return false }
                configuration[keyPath: path] = value
                return true
            }
            formatValue = { format($0[keyPath: path]) }
        }

        /// A key whose values are the raw values of an enum: `mode = edge`.
        init<Value: RawRepresentable>(
            _ name: String, _ path: WritableKeyPath<Configuration, Value> & Sendable, summary: String
        ) where Value: CaseIterable & Sendable, Value.RawValue == String {
            let names = Value.allCases.map(\.rawValue)
            let expected = names.dropLast().joined(separator: ", ") + " or " + names.last!
            self.init(name, path, expected: expected, summary: summary, parse: { Value(rawValue: $0) }, format: { $0.rawValue })
        }

        /// A finite number that `accepts`: `commit-progress = 0.3`.
        init(
            _ name: String, flag: String, _ path: WritableKeyPath<Configuration, Double> & Sendable,
            expected: String, summary: String, accepts: @escaping @Sendable (Double) -> Bool
        ) {
            self.init(
                name, flag: flag, path, expected: expected, summary: summary,
                parse: { text in Double(text).flatMap { $0.isFinite && accepts($0) ? $0 : nil } },
                format: { "\($0)" })
        }

        /// A whole number of milliseconds in `range`: `edge-fling-min-duration-ms = 30`.
        init(
            _ name: String, flag: String, _ path: WritableKeyPath<Configuration, Duration> & Sendable,
            milliseconds range: ClosedRange<Int>, summary: String
        ) {
            self.init(
                name, flag: flag, path,
                expected: "a whole number of milliseconds between \(range.lowerBound) and \(range.upperBound)",
                summary: summary, parse: { Int($0).flatMap { range.contains($0) ? .milliseconds($0) : nil } },
                format: { "\($0.wholeMilliseconds)" })
        }

        /// The key named `rawValue` in the file.
        public init?(rawValue: String) {
            guard let key = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = key
        }

        /// Sets the key in `configuration` from its text, with the checks of its type and range.
        func set(_ text: String, in configuration: inout Configuration) throws(Configuration.ValueError) {
            guard assign(&configuration, text) else {
                // A trailing comment is the likeliest reason for a puzzling value.
                var hint = text.contains("#") ? " (comments must be on a line of their own)" : ""
                if let reason = explain?(text) { hint = ": " + reason + hint }
                throw Configuration.ValueError(message: "expected \(expected), got \(quoted(text))\(hint)")
            }
        }

        /// The key's value in `configuration`, as the file would spell it.
        func value(in configuration: Configuration) -> String { formatValue(configuration) }

        public var description: String { rawValue }

        public static func == (lhs: Key, rhs: Key) -> Bool { lhs.rawValue == rhs.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    }
}

// MARK: - The table

extension Configuration.Key {
    /// Every key, in the order the documentation lists them.
    public static let allCases: [Self] = [
        .mode, .edgeWidth, .decisionDistance, .maxAngle, .edgeMaxAngle, .commitProgress, .flingVelocity,
        .flingMinimumDistance, .flingMinimumDuration, .edgeFlingVelocity, .edgeFlingMinimumDistance,
        .edgeFlingMinimumDuration, .longPress, .longPressSlop, .layout, .transitionTimeout, .rotation, .touchpads, .screen, .grab, .socket, .clients, .maximumClients, .logLevel, .backInput,
        .backInputMode, .userLocked,
    ]

    /// The keys that shape the gesture itself, which `replay` takes as flags too;
    /// the rest (touchpads, socket, clients, log level) only mean something to the daemon.
    public static let gestureKeys: [Self] = [
        .mode, .edgeWidth, .decisionDistance, .maxAngle, .edgeMaxAngle, .commitProgress, .flingVelocity,
        .flingMinimumDistance, .flingMinimumDuration, .edgeFlingVelocity, .edgeFlingMinimumDistance,
        .edgeFlingMinimumDuration, .longPress, .longPressSlop, .layout, .transitionTimeout, .rotation,
    ]

    public static let mode = Self(
        "mode", \.gesture.mode, summary: "fullscreen (start anywhere) or edge (start at the leading edge).")
    public static let edgeWidth = Self(
        "edge-width-mm", flag: "edge-width", \.gesture.edgeWidthMillimetres,
        expected: "a number of millimetres above 0", summary: "Edge zone width in edge mode, in mm.",
        accepts: { $0 > 0 })
    public static let decisionDistance = Self(
        "decision-distance-mm", flag: "decision-distance", \.gesture.decisionDistanceMillimetres,
        expected: "a number of millimetres above 0", summary: "Distance before the gesture is decided, in mm.",
        accepts: { $0 > 0 })
    public static let maxAngle = Self(
        "max-angle-degrees", flag: "max-angle", \.gesture.maxAngleDegrees,
        expected: "a number of degrees above 0 and at most 90",
        summary: "Steepest start still taken as a back, in degrees.", accepts: { $0 > 0 && $0 <= 90 })
    public static let commitProgress = Self(
        "commit-progress", flag: "commit-progress", \.gesture.commitProgress,
        expected: "a number between 0 and 1", summary: "Progress (0…1 of the width) past which a release commits.",
        accepts: { (0...1).contains($0) })
    public static let flingVelocity = Self(
        "fling-velocity-mm-per-s", flag: "fling-velocity", \.gesture.flingVelocityMillimetresPerSecond,
        expected: "a number of millimetres per second above 0", summary: "Release velocity that commits, in mm/s.",
        accepts: { $0 > 0 })
    public static let edgeMaxAngle = Self(
        "edge-max-angle-degrees", flag: "edge-max-angle", \.gesture.edgeMaxAngleDegrees,
        expected: "a number of degrees above 0 and at most 90",
        summary: "Steepest start from the edge zone still taken as a back, in degrees.",
        accepts: { $0 > 0 && $0 <= 90 })
    public static let flingMinimumDistance = Self(
        "fling-min-distance-mm", flag: "fling-min-distance", \.gesture.flingMinimumDistanceMillimetres,
        expected: "a number of millimetres, 0 or more",
        summary: "Travel toward the back before a release can be a fling, in mm.", accepts: { $0 >= 0 })
    public static let flingMinimumDuration = Self(
        "fling-min-duration-ms", flag: "fling-min-duration", \.gesture.flingMinimumDuration,
        milliseconds: Configuration.flingDurationRange,
        summary: "How long the finger is down before a release can be a fling, in ms.")
    public static let edgeFlingVelocity = Self(
        "edge-fling-velocity-mm-per-s", flag: "edge-fling-velocity", \.gesture.edgeFlingVelocityMillimetresPerSecond,
        expected: "a number of millimetres per second above 0",
        summary: "Release velocity that commits a swipe from the edge zone, in mm/s.", accepts: { $0 > 0 })
    public static let edgeFlingMinimumDistance = Self(
        "edge-fling-min-distance-mm", flag: "edge-fling-min-distance",
        \.gesture.edgeFlingMinimumDistanceMillimetres, expected: "a number of millimetres, 0 or more",
        summary: "As fling-min-distance-mm, for a swipe from the edge zone, in mm.", accepts: { $0 >= 0 })
    public static let edgeFlingMinimumDuration = Self(
        "edge-fling-min-duration-ms", flag: "edge-fling-min-duration", \.gesture.edgeFlingMinimumDuration,
        milliseconds: Configuration.flingDurationRange,
        summary: "As fling-min-duration-ms, for a swipe from the edge zone, in ms.")
    public static let longPress = Self(
        "long-press-ms", flag: "long-press", \.gesture.longPressDuration,
        expected: "off, or a whole number of milliseconds between 1 and \(Configuration.longPressRange.upperBound)",
        summary: "On a touchscreen, a finger resting this long before it moves is a press, never a back; or off.",
        parse: { text -> Duration?? in
            // Two optionals: .some(nil) is off, nil is refused.
            if text == "off" { return .some(nil) }
            guard let ms = Int(text), Configuration.longPressRange.contains(ms) else { return nil }
            return .some(.milliseconds(ms))
        },
        format: { $0.map { "\($0.wholeMilliseconds)" } ?? "off" })
    public static let longPressSlop = Self(
        "long-press-slop-mm", flag: "long-press-slop", \.gesture.longPressSlopMillimetres,
        expected: "a number of millimetres above 0", summary: "How far a pressing finger may wander, in mm.",
        accepts: { $0 > 0 })
    public static let layout = Self("layout", \.defaultLayout, summary: "Default layout of navigators: ltr or rtl.")
    public static let transitionTimeout = Self(
        "transition-timeout-ms", flag: "transition-timeout", \.transitionTimeout,
        milliseconds: Configuration.transitionTimeoutRange,
        summary: "How long an animated push or pop blocks the gesture at most, in ms.")
    public static let rotation = Self(
        // Exactly one of the four, not Rotation(degrees:) which would take -90 or 450.
        "rotation", \.rotation, expected: "auto, 0, 90, 180 or 270",
        summary: "Touchscreen rotation: auto (the shell's outputs, else the accelerometer), or fixed degrees clockwise.",
        parse: { text -> Rotation?? in
            text == "auto" ? .some(nil) : Int(text).flatMap(Rotation.init(rawValue:)).map { .some($0) }
        },
        format: { $0.map { "\($0.rawValue)" } ?? "auto" })
    public static let touchpads = Self("touchpads", \.touchpads, summary: "Touchpads: off, two-finger or one-finger.")
    public static let screen = Self(
        "screen", \.screen, expected: "all, or the WL_OUTPUT or name of a touchscreen (no control characters)",
        summary: "Which touchscreens show the apps: all, or one touchscreen's udev WL_OUTPUT or name.",
        parse: ScreenSelection.init, format: \.text)
    public static let grab = Self(
        "grab", \.grab,
        summary: "on: grab each touchscreen and pass the compositor a clone without the touches of a back; or off.")
    public static let socket = Self(
        "socket", \.socketPath, expected: "an absolute path of at most \(UnixSocketAddress.maximumPathBytes) bytes",
        summary: "Socket path when not socket-activated.",
        parse: { text in
            text.hasPrefix("/") && (try? UnixSocketAddress(path: text)) != nil ? text : nil
        },
        format: { $0 })
    public static let clients = Self(
        "clients", \.clients, summary: "Who may connect: seat (root, the daemon's user, each seat's active user) or any.")
    public static let maximumClients = Self(
        "max-clients", \.maximumClients,
        expected: "a whole number from \(Configuration.maximumClientsRange.lowerBound) to \(Configuration.maximumClientsRange.upperBound)",
        summary: "Connections served at once; the next gets too-many-clients.",
        parse: { Int($0).flatMap { Configuration.maximumClientsRange.contains($0) ? $0 : nil } },
        format: { "\($0)" })
    public static let logLevel = Self(
        "log-level", \.logLevel, summary: "trace, debug, info, notice, warning, error or critical.")
    public static let backInput = Self(
        "back-input", \.backInput.standard,
        expected: "key or button names joined by + (such as alt+left, back or side), or none",
        summary: "What a back sends to apps without a navigator: keys or buttons joined by + (alt+left), or none.",
        parse: { text in
            do throws(BackInputNameError) {
                return .some(try BackInputNames.parse(text))
            } catch {
                return nil
            }
        },
        format: { $0?.spelling ?? BackInputNames.none },
        explain: { text in
            do throws(BackInputNameError) {
                _ = try BackInputNames.parse(text)
                return nil
            } catch {
                return error.message
            }
        })
    public static let backInputMode = Self(
        "back-input-mode", \.backInputMode,
        summary: "Where a back for apps without a navigator may start: edge (the leading edge zone) or fullscreen.")
    public static let userLocked = Self(
        "user-locked", \.userLocked,
        expected: "none, or some of " + Configuration.userSettableNames.joined(separator: ", ") + ", separated by commas",
        summary: "The keys a seat's user may not set for their seat (user-settings); back-input locks the per-app table.",
        parse: Configuration.parseUserLocked, format: { $0.isEmpty ? "none" : $0.joined(separator: ", ") })
}

extension Duration {
    fileprivate var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension Configuration {
    /// The values `fling-min-duration-ms` and `edge-fling-min-duration-ms` take: 0…1000 ms.
    /// Past a second no flick is a fling, and progress alone decides.
    public static let flingDurationRange = 0...1000
    /// The values `long-press-ms` takes besides `off`: 1…10000 ms.
    public static let longPressRange = 1...10_000
}
