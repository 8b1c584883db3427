import PopGestureCore
import PopGestureInput
import PopGestureProtocol
import PopGestureServer

/// A user's settings for their seat (`user-settings`, issue 32): the text of their
/// `~/.config/popgestured/popgestured.conf`, in the system file's format, read by the same
/// parser (``ConfigurationFile``), with the keys a user may set (``userKeys``) and the
/// `[back-input]` section, whose entries go over the system's table app by app.
///
/// Bounded as the system file is (its parser's limits, and the protocol's 16 KiB for the
/// text). Refused, with the line and the key: a key no user may set, a key the
/// administrator locked (`user-locked`), an app entry that sends a key the back input
/// device does not declare (it is made from the system file), and `touchpad` where the
/// system's table makes no virtual touchpad. The daemon's only instance lives on the
/// input thread, beside the configuration it reads.
public final class UserSettingsFile: UserSettingsMaker {
    /// The keys a user may set for their seat: where a swipe may start, the edge zone, and
    /// the thresholds that commit. What reaches other users, or the system (devices,
    /// grab, the socket, the back input's keys), stays the administrator's.
    public static let userKeys: [Configuration.Key] = [
        .mode, .backInputMode, .edgeWidth, .commitProgress, .flingVelocity, .edgeFlingVelocity,
    ]
    /// How `user-locked` names the `[back-input]` section.
    static let backInputSection = "back-input"
    /// Where the text comes from, for error messages.
    static let shownPath = "~/.config/popgestured/popgestured.conf"

    /// The keys the administrator locked (`user-locked`), set at start and on reload.
    public var locked: [String]

    public init(locked: [String] = []) { self.locked = locked }

    public var lockedKeys: [String] { locked }

    public func settings(
        from text: String, over system: GestureSettings
    ) -> Result<(settings: GestureSettings, keys: [String]), ProtocolError> {
        let file: ConfigurationFile
        do {
            file = try ConfigurationFile(parsing: text, path: Self.shownPath)
        } catch {
            return .failure(ProtocolError(.invalidValue, error.description))
        }
        var configuration = Configuration()
        configuration.gesture = system
        configuration.backInputMode = system.backInputMode
        var keys: [String] = []
        for entry in file.entries {
            let name = entry.key.rawValue
            guard Self.userKeys.contains(entry.key) else {
                return .failure(ProtocolError(
                    .notPermitted, "\(Self.shownPath):\(entry.line): \(name) is not a user's to set; a user may set "
                        + Self.userKeys.map(\.rawValue).joined(separator: ", ") + " and [back-input]"))
            }
            guard !locked.contains(name) else {
                return .failure(ProtocolError(.notPermitted, "\(Self.shownPath):\(entry.line): \(name) is locked by the administrator"))
            }
            do {
                try configuration.set(entry.key, to: entry.value)
            } catch {
                return .failure(ProtocolError(.invalidValue, "\(Self.shownPath):\(entry.line): \(name): \(error.message)"))
            }
            keys.append(name)
        }
        var settings = configuration.gesture
        settings.backInputMode = configuration.backInputMode
        settings.backInput = system.backInput
        if let section = file.backInputApps {
            guard !locked.contains(Self.backInputSection) else {
                return .failure(ProtocolError(.notPermitted, "[back-input] is locked by the administrator"))
            }
            switch Self.apps(section, over: system.backInput) {
            case .success(let map): settings.backInput = map
            case .failure(let error): return .failure(error)
            }
            keys += section.map { ConfigurationFile.Section.backInput.key($0.app) }
        }
        return .success((settings, keys))
    }

    /// The user's app entries over the system's table: each replaces the system's entry
    /// for its app (an `own-swipe` too); the rest stays.
    static func apps(_ section: [ConfigurationFile.AppEntry], over system: BackInputMap) -> Result<BackInputMap, ProtocolError> {
        var map = system
        var apps = system.apps
        let declared = system.allCodes
        for entry in section {
            let key = ConfigurationFile.Section.backInput.key(entry.app)
            if entry.value.lowercased() == BackInputNames.ownSwipe {
                apps[entry.app] = nil
                map.ownSwipe.insert(entry.app)
                continue
            }
            let input: BackInput?
            do {
                input = try BackInputNames.parse(entry.value)
            } catch {
                return .failure(ProtocolError(.invalidValue, "\(Self.shownPath):\(entry.line): \(key): \(error.message)"))
            }
            if let input, input.touchpad != nil, !system.usesTouchpad {
                return .failure(ProtocolError(
                    .notPermitted, "\(Self.shownPath):\(entry.line): \(key): the system's table makes no virtual touchpad; ask the administrator"))
            }
            if let input, !Set(input.codes).isSubset(of: declared) {
                return .failure(ProtocolError(
                    .notPermitted, "\(Self.shownPath):\(entry.line): \(key): the back input device sends only what the system file names; ask the administrator"))
            }
            map.ownSwipe.remove(entry.app)
            apps[entry.app] = .some(input)
        }
        guard apps.count <= BackInputMap.maximumApps else {
            return .failure(ProtocolError(.tooMany, "[back-input]: at most \(BackInputMap.maximumApps) apps with the system's"))
        }
        map.apps = apps
        return .success(map)
    }
}
