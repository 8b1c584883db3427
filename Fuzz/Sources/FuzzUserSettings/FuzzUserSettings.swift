import FuzzDriver
import PopGestureCore
import PopGestureDaemon
import PopGestureProtocol

/// One `user-settings` text (a user's ~/.config/popgestured/popgestured.conf, from the
/// socket) over the shipped file's table, with one key locked. Invariants: no trap; any
/// text gives settings or a `ProtocolError`; taken settings differ from the system's
/// only in what a user may set, keep the back input device's declared keys, hold at
/// most 256 apps, and name one user key per entry the text set.
private let system: GestureSettings = {
    let text = """
        back-input = alt+left
        [back-input]
        Waydroid = KEY_BACK
        chromium = own-swipe
        firefox = touchpad
        foot = none
        """
    guard let configuration = try? Configuration.parse(text, path: "/etc/popgestured/popgestured.conf") else {
        fatalError("the fuzz target's system file does not parse")
    }
    var settings = configuration.gesture
    settings.backInput = configuration.backInput
    settings.backInputMode = configuration.backInputMode
    return settings
}()
nonisolated(unsafe) private let maker = UserSettingsFile(locked: ["fling-velocity-mm-per-s"])  // libFuzzer calls from one thread

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUserSettings(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size <= ProtocolLimits.maximumUserSettingsBytes else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard case .success(let made) = maker.settings(from: text, over: system) else { return 0 }
    var unchanged = made.settings
    unchanged.mode = system.mode
    unchanged.backInputMode = system.backInputMode
    unchanged.edgeWidthMillimetres = system.edgeWidthMillimetres
    unchanged.commitProgress = system.commitProgress
    unchanged.flingVelocityMillimetresPerSecond = system.flingVelocityMillimetresPerSecond
    unchanged.edgeFlingVelocityMillimetresPerSecond = system.edgeFlingVelocityMillimetresPerSecond
    unchanged.backInput = system.backInput
    precondition(unchanged == system, "a user's text changed a key no user may set: \(text)")
    precondition(made.settings.flingVelocityMillimetresPerSecond == system.flingVelocityMillimetresPerSecond,
                 "a locked key changed: \(text)")
    precondition(made.settings.backInput.allCodes.isSubset(of: system.backInput.allCodes),
                 "a user's entry needs a key the device does not declare: \(text)")
    precondition(made.settings.backInput.apps.count <= BackInputMap.maximumApps, "more than 256 apps: \(text)")
    precondition(Set(made.keys).count == made.keys.count, "a key named twice: \(text)")
    return 0
}

/// The entry point SwiftPM links as `main` (see FuzzDriver.c): libFuzzer's driver.
@_cdecl("FuzzUserSettings_main")
public func fuzzUserSettingsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    fuzz_driver_run(argc, argv, fuzzUserSettings)
}
