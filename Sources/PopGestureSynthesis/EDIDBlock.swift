import PopGestureCore

/// EDID base blocks as displays write them, for tests: header, vendor and product,
/// version, basic parameters, chromaticity, established and standard timings, four 18-byte
/// descriptors (a detailed timing first, unless told otherwise, then a name, a range
/// and a dummy), and the checksum. Every field the parser does not read still holds
/// what a real block would, so that the parser is shown reading only its own.
public struct EDIDBlock: Sendable {
    public var bytes = [UInt8](repeating: 0, count: 128)

    /// - Parameters:
    ///   - maximumCentimetres: bytes 21 and 22.
    ///   - detailedMillimetres: the first detailed timing's image size (bytes 66–68); nil
    ///     puts a display name descriptor first instead of a timing.
    ///   - pixels: that timing's active pixels.
    public init(
        maximumCentimetres: (Int, Int), detailedMillimetres: (Int, Int)?, pixels: (Int, Int) = (1280, 800),
        revision: UInt8 = 4, name: String = "Panel"
    ) {
        bytes.replaceSubrange(0..<8, with: EDID.header)
        // "BOE" (EISA id, big-endian 5-bit letters), product 0x0a4b, serial 0, week 12 of 2021.
        let letters = "BOE".utf8.map { UInt16($0 - 64) }
        let vendor = letters[0] << 10 | letters[1] << 5 | letters[2]
        bytes[8] = UInt8(vendor >> 8)
        bytes[9] = UInt8(vendor & 0xFF)
        (bytes[10], bytes[11]) = (0x4B, 0x0A)
        (bytes[16], bytes[17]) = (12, 31)  // 2021 is 1990 + 31
        (bytes[18], bytes[19]) = (1, revision)
        bytes[20] = 0xA5  // digital, 8 bits per colour, DisplayPort
        bytes[21] = UInt8(maximumCentimetres.0)
        bytes[22] = UInt8(maximumCentimetres.1)
        bytes[23] = 120  // gamma 2.2
        bytes[24] = 0x02  // preferred timing mode, RGB 4:4:4
        // Chromaticity (sRGB-ish), established timings none, standard timings unused (01 01).
        bytes.replaceSubrange(25..<35, with: [0xEE, 0x95, 0xA3, 0x54, 0x4C, 0x99, 0x26, 0x0F, 0x50, 0x54])
        for offset in stride(from: 38, to: 54, by: 2) { (bytes[offset], bytes[offset + 1]) = (0x01, 0x01) }
        if let detailedMillimetres {
            writeTiming(at: 54, pixels: pixels, millimetres: detailedMillimetres)
        } else {
            writeText(at: 54, tag: 0xFC, name)
        }
        writeText(at: 72, tag: 0xFC, name)
        // Range limits: 48–60 Hz vertical, 30–90 kHz horizontal, 170 MHz.
        bytes.replaceSubrange(90..<108, with: [0, 0, 0, 0xFD, 0, 48, 60, 30, 90, 17, 0, 0x0A, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20])
        bytes.replaceSubrange(108..<126, with: [0, 0, 0, 0x10] + [UInt8](repeating: 0, count: 14))
        bytes[126] = 0  // no extension blocks
        seal()
    }

    /// A detailed timing descriptor: a 71.1 MHz clock, the active and blanking pixels,
    /// sync, and the image size in millimetres.
    public mutating func writeTiming(at offset: Int, pixels: (Int, Int), millimetres: (Int, Int)) {
        let clock = 7110  // in 10 kHz
        let blankH = 160, blankV = 23
        var d = [UInt8](repeating: 0, count: 18)
        (d[0], d[1]) = (UInt8(clock & 0xFF), UInt8(clock >> 8))
        d[2] = UInt8(pixels.0 & 0xFF)
        d[3] = UInt8(blankH & 0xFF)
        d[4] = UInt8((pixels.0 >> 8) << 4 | blankH >> 8)
        d[5] = UInt8(pixels.1 & 0xFF)
        d[6] = UInt8(blankV & 0xFF)
        d[7] = UInt8((pixels.1 >> 8) << 4 | blankV >> 8)
        (d[8], d[9], d[10], d[11]) = (48, 32, 0x36, 0)  // front porch, sync width
        d[12] = UInt8(millimetres.0 & 0xFF)
        d[13] = UInt8(millimetres.1 & 0xFF)
        d[14] = UInt8((millimetres.0 >> 8) << 4 | (millimetres.1 >> 8) & 0x0F)
        d[17] = 0x18  // digital separate sync
        bytes.replaceSubrange(offset..<offset + 18, with: d)
    }

    /// A display descriptor with text (`FC`: the name), padded as the standard says.
    public mutating func writeText(at offset: Int, tag: UInt8, _ text: String) {
        var d: [UInt8] = [0, 0, 0, tag, 0] + Array(text.utf8.prefix(13))
        if d.count < 18 { d.append(0x0A) }
        while d.count < 18 { d.append(0x20) }
        bytes.replaceSubrange(offset..<offset + 18, with: d)
    }

    /// Sets byte 127 so that the block sums to 0 modulo 256.
    public mutating func seal() {
        bytes[127] = 0
        bytes[127] = 0 &- bytes.reduce(UInt8(0), &+)
    }

    /// The block parsed.
    public var edid: EDID { get throws(EDIDError) { try EDID(bytes) } }
}
