import FuzzDriver
import PopGestureServer

/// One request line, as a client sends it, into the socket protocol's parser.
/// Invariant: no trap; any input gives a request or a `ProtocolError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    _ = try? RequestParser.parse(bytes)
    return 0
}

/// The entry point SwiftPM links as `main` (see FuzzDriver.c): libFuzzer's driver.
@_cdecl("FuzzRequestParser_main")
public func fuzzRequestParserMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    fuzz_driver_run(argc, argv, fuzzRequestParser)
}
