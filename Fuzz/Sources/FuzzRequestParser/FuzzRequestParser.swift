import FuzzDriver
import PopGestureProtocol

/// One line into the protocol's decoders: as a client's request (what the daemon reads)
/// and as a daemon's message (what popgesturectl and client libraries read).
/// Invariant: no trap; any input gives a value or a `ProtocolError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    _ = try? RequestCodec.decode(bytes)
    _ = try? MessageCodec.decode(bytes)
    return 0
}

/// The entry point SwiftPM links as `main` (see FuzzDriver.c): libFuzzer's driver.
@_cdecl("FuzzRequestParser_main")
public func fuzzRequestParserMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    fuzz_driver_run(argc, argv, fuzzRequestParser)
}
