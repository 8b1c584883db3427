import FuzzDriver
import PopGestureCore
import PopGestureInput
import PopGestureSynthesis

/// The whole engine, on the daemon's path (`EngineFeed`: protocol A through mtdev,
/// protocol B, single touch), fed an arbitrary device description and event stream
/// decoded from the input (`ArbitraryInput`).
/// Invariants: no trap; once every finger is up as the engine sees it, the arbiter is
/// idle (`EngineCheck`). A failed invariant calls `fatalError`, so libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEngine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = ArbitraryInput(UnsafeBufferPointer(start: data, count: size))
    do {
        _ = try EngineCheck.run(device: input.device, events: input.events)
    } catch {
        fatalError("engine invariant failed: \(error)")
    }
    return 0
}

/// The entry point SwiftPM links as `main` (see FuzzDriver.c): libFuzzer's driver.
@_cdecl("FuzzEngine_main")
public func fuzzEngineMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    fuzz_driver_run(argc, argv, fuzzEngine)
}
