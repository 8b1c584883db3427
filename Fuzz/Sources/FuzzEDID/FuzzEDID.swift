import FuzzDriver
import PopGestureCore
import PopGestureInput

/// The EDID parser on arbitrary bytes, twice: as they are (nearly always refused by the
/// header or the checksum), and sealed (the header, version 1 and the checksum written
/// in), so that every descriptor and size field the fuzzer makes reaches the size checks.
/// Also the DRM connector folder names (`card0-eDP-1`) on the same bytes as text.
/// Invariants: no trap; only the first 128 bytes count (the same result for the input
/// cut there); a sealed block of 128 bytes always parses; a size given is finite, each
/// side within EDID's bounds and the shape within its ratio, with its field; and it
/// reaches `ScreenTransform` as a display size. Any failure calls `fatalError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEDID(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = Result { () throws(EDIDError) in try EDID(bytes) }
    let cut = Result { () throws(EDIDError) in try EDID(bytes.prefix(EDID.baseBlockLength)) }
    guard whole == cut else { fatalError("bytes past the base block changed the result: \(whole) vs \(cut)") }
    if case .success(let edid) = whole { check(edid) }

    if bytes.count >= EDID.baseBlockLength {
        var block = Array(bytes.prefix(EDID.baseBlockLength))
        block.replaceSubrange(0..<8, with: EDID.header)
        block[18] = 1
        block[127] = 0
        block[127] = 0 &- block.reduce(UInt8(0), &+)
        do {
            check(try EDID(block))
        } catch {
            fatalError("a sealed base block was refused: \(error)")
        }
    }

    if let name = DisplayConnectors.connectorName(folder: String(decoding: bytes.prefix(256), as: UTF8.self)) {
        guard !name.isEmpty else { fatalError("an empty connector name") }
    }
    return 0
}

/// A parsed block's size keeps EDID's documented bounds, and the transform takes it.
private func check(_ edid: EDID) {
    guard let size = edid.physicalSize else {
        guard edid.sizeField == nil else { fatalError("a field without a size") }
        return
    }
    guard edid.sizeField != nil else { fatalError("a size without its field") }
    let long = max(size.width, size.height), short = min(size.width, size.height)
    guard size.width.isFinite, size.height.isFinite,
          short >= Double(EDID.minimumSideMillimetres), long <= Double(EDID.maximumSideMillimetres),
          long <= EDID.maximumAspectRatio * short
    else { fatalError("a size past EDID's bounds: \(size)") }
    let transform = ScreenTransform(device: device, displaySize: size)
    guard transform.sizeSource == .display, transform.deviceSize == size else {
        fatalError("the transform did not take the display's size \(size): \(transform.sizeSource)")
    }
}

/// A touchscreen with no resolution on a square range: it takes a display's size as given.
private let device = DeviceDescription(
    name: "FuzzEDID", axes: [ABS.x: AbsoluteAxis(minimum: 0, maximum: 4095), ABS.y: AbsoluteAxis(minimum: 0, maximum: 4095)])

/// The entry point SwiftPM links as `main` (see FuzzDriver.c): libFuzzer's driver.
@_cdecl("FuzzEDID_main")
public func fuzzEDIDMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    fuzz_driver_run(argc, argv, fuzzEDID)
}
