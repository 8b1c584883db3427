import ArgumentParser
import PopGestureDaemon

/// The flags of the gesture's settings (``Configuration/Key/gestureKeys``) for
/// `popgestured-replay`, spelled as the daemon's own (``DaemonCommand``). Each flag
/// keeps its text as typed; ``Configuration/Key``'s own parser reads it, the one that
/// reads the file, so a flag is parsed once and refused with the file's words.
public struct GestureSettingFlags: ParsableArguments {
    @Option(name: .setting(.mode), help: .setting(.mode)) public var mode: String?
    @Option(name: .setting(.edgeWidth), parsing: .unconditional, help: .setting(.edgeWidth)) var edgeWidth: String?
    @Option(name: .setting(.decisionDistance), parsing: .unconditional, help: .setting(.decisionDistance))
    var decisionDistance: String?
    @Option(name: .setting(.maxAngle), parsing: .unconditional, help: .setting(.maxAngle)) var maxAngle: String?
    @Option(name: .setting(.commitProgress), parsing: .unconditional, help: .setting(.commitProgress))
    var commitProgress: String?
    @Option(name: .setting(.flingVelocity), parsing: .unconditional, help: .setting(.flingVelocity))
    var flingVelocity: String?
    @Option(name: .setting(.edgeMaxAngle), parsing: .unconditional, help: .setting(.edgeMaxAngle))
    var edgeMaxAngle: String?
    @Option(name: .setting(.flingMinimumDistance), parsing: .unconditional, help: .setting(.flingMinimumDistance))
    var flingMinimumDistance: String?
    @Option(name: .setting(.flingMinimumDuration), parsing: .unconditional, help: .setting(.flingMinimumDuration))
    var flingMinimumDuration: String?
    @Option(name: .setting(.edgeFlingVelocity), parsing: .unconditional, help: .setting(.edgeFlingVelocity))
    var edgeFlingVelocity: String?
    @Option(name: .setting(.edgeFlingMinimumDistance), parsing: .unconditional,
            help: .setting(.edgeFlingMinimumDistance))
    var edgeFlingMinimumDistance: String?
    @Option(name: .setting(.edgeFlingMinimumDuration), parsing: .unconditional,
            help: .setting(.edgeFlingMinimumDuration))
    var edgeFlingMinimumDuration: String?
    @Option(name: .setting(.longPress), parsing: .unconditional, help: .setting(.longPress)) var longPress: String?
    @Option(name: .setting(.longPressSlop), parsing: .unconditional, help: .setting(.longPressSlop))
    var longPressSlop: String?
    @Option(name: .setting(.layout), help: .setting(.layout)) var layout: String?
    @Option(name: .setting(.transitionTimeout), parsing: .unconditional, help: .setting(.transitionTimeout))
    var transitionTimeout: String?
    @Option(name: .setting(.rotation), parsing: .unconditional, help: .setting(.rotation)) var rotation: String?

    public init() {}

    /// The flags given, by key.
    public var overrides: ConfigurationOverrides {
        var overrides = ConfigurationOverrides()
        for (key, text) in [
            (Configuration.Key.mode, mode), (.edgeWidth, edgeWidth), (.decisionDistance, decisionDistance),
            (.maxAngle, maxAngle), (.commitProgress, commitProgress), (.flingVelocity, flingVelocity),
            (.edgeMaxAngle, edgeMaxAngle), (.flingMinimumDistance, flingMinimumDistance),
            (.flingMinimumDuration, flingMinimumDuration), (.edgeFlingVelocity, edgeFlingVelocity),
            (.edgeFlingMinimumDistance, edgeFlingMinimumDistance), (.edgeFlingMinimumDuration, edgeFlingMinimumDuration),
            (.longPress, longPress), (.longPressSlop, longPressSlop),
            (.layout, layout), (.transitionTimeout, transitionTimeout), (.rotation, rotation),
        ] {
            overrides[key] = text
        }
        return overrides
    }
}

extension NameSpecification {
    /// `--edge-width` for `edge-width-mm`: the key's flag.
    public static func setting(_ key: Configuration.Key) -> NameSpecification { .customLong(key.flag) }
}

extension ArgumentHelp {
    /// The key's summary and its default, the one ``Configuration/init()`` gives.
    public static func setting(_ key: Configuration.Key) -> ArgumentHelp {
        ArgumentHelp("\(key.summary) Default: \(Configuration().value(of: key)).", valueName: key.flag)
    }
}
