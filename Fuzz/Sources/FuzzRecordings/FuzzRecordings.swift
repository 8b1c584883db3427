import FuzzDriver
import PopGestureCore
import PopGestureInput
import PopGestureRecording

/// The recording readers (evemu and `libinput record`, told apart as `replay` does)
/// on arbitrary bytes; what they read then runs through the engine as `replay` runs it.
/// Invariants: no trap; any input gives a recording or a `RecordingError`; a recording
/// keeps the engine's invariant (`EngineCheck`), or `fatalError` records the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordings(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let recording = try? Recording(parsing: bytes) else { return 0 }
    do {
        _ = try EngineCheck.run(device: recording.device, events: recording.events)
    } catch {
        fatalError("engine invariant failed on a recording: \(error)")
    }
    return 0
}

/// The entry point SwiftPM links as `main` (see FuzzDriver.c): libFuzzer's driver.
@_cdecl("FuzzRecordings_main")
public func fuzzRecordingsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    fuzz_driver_run(argc, argv, fuzzRecordings)
}
