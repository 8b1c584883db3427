import FuzzDriver
import PopGestureProtocol

/// One line into the protocol's decoders: as a client's request (what the daemon reads)
/// and as a daemon's message (what popgesturectl and client libraries read).
/// Invariants: no trap; any input gives a value or a `ProtocolError`; and whatever
/// decodes, once written again by the encoder (`JSONWriter`), decodes to a value that
/// writes the very same line (the first write may round: progress travels in thousandths).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let request = try? RequestCodec.decode(bytes) {
        let line = RequestCodec.encode(request)
        guard let again = try? RequestCodec.decode(Array(line.utf8)) else {
            fatalError("the encoder wrote a request its decoder refuses: \(line)")
        }
        precondition(RequestCodec.encode(again) == line, "a request written twice differs: \(line)")
    }
    if let message = try? MessageCodec.decode(bytes) {
        let line = MessageCodec.encode(message)
        guard let again = try? MessageCodec.decode(Array(line.utf8)) else {
            fatalError("the encoder wrote a message its decoder refuses: \(line)")
        }
        precondition(MessageCodec.encode(again) == line, "a message written twice differs: \(line)")
    }
    return 0
}

/// The entry point SwiftPM links as `main` (see FuzzDriver.c): libFuzzer's driver.
@_cdecl("FuzzRequestParser_main")
public func fuzzRequestParserMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    fuzz_driver_run(argc, argv, fuzzRequestParser)
}
