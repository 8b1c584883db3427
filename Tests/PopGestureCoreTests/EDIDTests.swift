@testable import PopGestureCore
import Testing

/// Makes EDID base blocks as displays write them: header, vendor and product, version,
/// basic parameters, chromaticity, established and standard timings, four 18-byte
/// descriptors (a detailed timing first, unless told otherwise, then a name, a range
/// and a dummy), and the checksum. Every field the parser does not read still holds
/// what a real block would, so that the parser is shown reading only its own.
struct EDIDBuilder {
    var bytes = [UInt8](repeating: 0, count: 128)

    /// - Parameters:
    ///   - maximumCentimetres: bytes 21 and 22.
    ///   - detailedMillimetres: the first detailed timing's image size (bytes 66–68); nil
    ///     puts a display name descriptor first instead of a timing.
    ///   - pixels: that timing's active pixels.
    init(
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
    mutating func writeTiming(at offset: Int, pixels: (Int, Int), millimetres: (Int, Int)) {
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
    mutating func writeText(at offset: Int, tag: UInt8, _ text: String) {
        var d: [UInt8] = [0, 0, 0, tag, 0] + Array(text.utf8.prefix(13))
        if d.count < 18 { d.append(0x0A) }
        while d.count < 18 { d.append(0x20) }
        bytes.replaceSubrange(offset..<offset + 18, with: d)
    }

    /// Sets byte 127 so that the block sums to 0 modulo 256.
    mutating func seal() {
        bytes[127] = 0
        bytes[127] = 0 &- bytes.reduce(UInt8(0), &+)
    }

    var edid: EDID { get throws { try EDID(bytes) } }
}

@Suite("EDID")
struct EDIDTests {
    static func size(_ width: Double, _ height: Double) -> PhysicalSize { PhysicalSize(width: width, height: height) }

    // MARK: - Sizes displays write

    struct Panel: Sendable, CustomStringConvertible {
        var description: String
        var maximum: (Int, Int)
        var detailed: (Int, Int)?
        var pixels: (Int, Int)
        var size: PhysicalSize?
        var field: EDID.Field?
    }

    static let panels: [Panel] = [
        Panel(description: "10.1-inch 16:10 tablet eDP panel", maximum: (22, 14), detailed: (217, 136), pixels: (1280, 800),
              size: size(217, 136), field: .detailedTiming),
        Panel(description: "4.3-inch DSI panel, centimetres rounded", maximum: (10, 5), detailed: (95, 54), pixels: (800, 480),
              size: size(95, 54), field: .detailedTiming),
        Panel(description: "portrait-native 6-inch phone panel", maximum: (7, 14), detailed: (68, 136), pixels: (720, 1440),
              size: size(68, 136), field: .detailedTiming),
        Panel(description: "an EDID 1.3 panel with only its maximum image size", maximum: (31, 17), detailed: (0, 0),
              pixels: (1920, 1080), size: size(310, 170), field: .maximumImageSize),
        Panel(description: "a name descriptor first, no detailed timing", maximum: (26, 16), detailed: nil, pixels: (0, 0),
              size: size(260, 160), field: .maximumImageSize),
        Panel(description: "a 15.6-inch laptop panel, sizes in full", maximum: (34, 19), detailed: (344, 194), pixels: (1920, 1080),
              size: size(344, 194), field: .detailedTiming),
    ]

    @Test("a panel's size: the detailed timing's millimetres, else the maximum image size", arguments: panels)
    func panelSize(_ panel: Panel) throws {
        let edid = try EDIDBuilder(maximumCentimetres: panel.maximum, detailedMillimetres: panel.detailed, pixels: panel.pixels).edid
        #expect(edid.physicalSize == panel.size)
        #expect(edid.sizeField == panel.field)
        #expect(edid.sizeRefusals.isEmpty)
    }

    @Test("the detailed size's 12 bits: the high nibbles of byte 68 count, 4095 × 4095 at most")
    func twelveBits() throws {
        // 1210 × 680 mm: a 55-inch touch display, both sides above 255.
        let large = try EDIDBuilder(maximumCentimetres: (121, 68), detailedMillimetres: (1210, 680), pixels: (1920, 1080)).edid
        #expect(large.detailedImageSizeMillimetres == EDID.Sides(width: 1210, height: 680))
        #expect(large.physicalSize == Self.size(1210, 680))
        let widest = try EDIDBuilder(maximumCentimetres: (0, 0), detailedMillimetres: (4095, 4095)).edid
        #expect(widest.detailedImageSizeMillimetres == EDID.Sides(width: 4095, height: 4095))
        #expect(widest.detailedActivePixels == EDID.Sides(width: 1280, height: 800))
    }

    // MARK: - Sizes that are no size

    struct Bogus: Sendable, CustomStringConvertible {
        var description: String
        var maximum: (Int, Int)
        var detailed: (Int, Int)?
        var pixels: (Int, Int) = (1920, 1080)
        var size: PhysicalSize?
        var refusals: [EDID.SizeRefusal]
    }

    static func refusal(_ field: EDID.Field, _ reason: EDID.SizeRefusal.Reason, _ width: Int, _ height: Int) -> EDID.SizeRefusal {
        EDID.SizeRefusal(field: field, reason: reason, width: width, height: height)
    }

    static let bogus: [Bogus] = [
        // HDMI bridges and Linux's test EDIDs: 160 × 90 cm and 1600 × 900 mm, an aspect ratio twice.
        Bogus(description: "an HDMI bridge's 16:9 written as 1600 × 900 mm and 160 × 90 cm", maximum: (160, 90), detailed: (1600, 900),
              refusals: [refusal(.detailedTiming, .aspectRatio, 1600, 900), refusal(.maximumImageSize, .aspectRatio, 1600, 900)]),
        Bogus(description: "16:10 as 16 × 10 cm, no detailed size", maximum: (16, 10), detailed: (0, 0),
              refusals: [refusal(.maximumImageSize, .aspectRatio, 160, 100)]),
        Bogus(description: "16:9 as 16 × 9 mm in the detailed timing, with a real maximum size", maximum: (48, 27), detailed: (16, 9),
              size: size(480, 270), refusals: [refusal(.detailedTiming, .aspectRatio, 16, 9)]),
        Bogus(description: "the pixel count as millimetres", maximum: (0, 0), detailed: (1024, 600), pixels: (1024, 600),
              refusals: [refusal(.detailedTiming, .pixelCount, 1024, 600)]),
        Bogus(description: "the pixel count as millimetres, with a maximum size", maximum: (22, 13), detailed: (1024, 600),
              pixels: (1024, 600), size: size(220, 130), refusals: [refusal(.detailedTiming, .pixelCount, 1024, 600)]),
        Bogus(description: "centimetres in the detailed timing (Linux's EDID_QUIRK_DETAILED_IN_CM)", maximum: (52, 29), detailed: (52, 29),
              size: size(520, 290), refusals: [refusal(.detailedTiming, .disagreesWithMaximum, 52, 29)]),
        Bogus(description: "a detailed size over twice the maximum", maximum: (22, 14), detailed: (520, 300),
              size: size(220, 140), refusals: [refusal(.detailedTiming, .disagreesWithMaximum, 520, 300)]),
        Bogus(description: "EDID 1.4's landscape aspect ratio in bytes 21/22, no detailed size", maximum: (0x4F, 0), detailed: (0, 0),
              refusals: [refusal(.maximumImageSize, .missingSide, 790, 0)]),
        Bogus(description: "one detailed side of 0", maximum: (0, 0), detailed: (217, 0),
              refusals: [refusal(.detailedTiming, .missingSide, 217, 0)]),
        Bogus(description: "a projector: no size anywhere", maximum: (0, 0), detailed: (0, 0), refusals: []),
        Bogus(description: "a side under 10 mm", maximum: (0, 0), detailed: (40, 8),
              refusals: [refusal(.detailedTiming, .tooSmall, 40, 8)]),
        Bogus(description: "a side over 3 m", maximum: (0, 0), detailed: (4000, 2250),
              refusals: [refusal(.detailedTiming, .tooLarge, 4000, 2250)]),
        Bogus(description: "stranger than 2.4:1", maximum: (0, 0), detailed: (600, 100),
              refusals: [refusal(.detailedTiming, .strangeAspectRatio, 600, 100)]),
        Bogus(description: "a strange maximum size is not compared with", maximum: (250, 10), detailed: (217, 136),
              size: size(217, 136), refusals: [refusal(.maximumImageSize, .strangeAspectRatio, 2500, 100)]),
    ]

    @Test("sizes that are no display's are refused, with the field and the reason", arguments: bogus)
    func bogusSizes(_ bogus: Bogus) throws {
        let edid = try EDIDBuilder(maximumCentimetres: bogus.maximum, detailedMillimetres: bogus.detailed, pixels: bogus.pixels).edid
        #expect(edid.physicalSize == bogus.size)
        #expect(edid.sizeRefusals == bogus.refusals)
        #expect((edid.sizeField == nil) == (bogus.size == nil))
    }

    @Test("the bounds are inclusive: 10 mm and 3000 mm sides, 2.4:1, are a display's")
    func boundsInclusive() {
        #expect(EDID.sizeRefusal(width: 24, height: 10, activePixels: nil) == nil)
        #expect(EDID.sizeRefusal(width: 3000, height: 1250, activePixels: nil) == nil)
        #expect(EDID.sizeRefusal(width: 3001, height: 1300, activePixels: nil) == .tooLarge)
        #expect(EDID.sizeRefusal(width: 25, height: 10, activePixels: nil) == .strangeAspectRatio)
        #expect(EDID.sizeRefusal(width: 20, height: 9, activePixels: nil) == .tooSmall)
        #expect(EDID.sizeRefusal(width: 1280, height: 800, activePixels: EDID.Sides(width: 1280, height: 801)) == nil)
    }

    @Test("a refusal reads as its field, size and reason")
    func refusalText() {
        #expect(Self.refusal(.detailedTiming, .pixelCount, 1024, 600).description
                == "detailed timing 1024 × 600 mm refused (pixel-count)")
    }

    // MARK: - Blocks that are no EDID

    @Test("fewer than 128 bytes are refused as truncated", arguments: [0, 8, 127])
    func truncated(count: Int) throws {
        let bytes = EDIDBuilder(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136)).bytes.prefix(count)
        #expect(throws: EDIDError.self) { try EDID(bytes) }
        do {
            _ = try EDID(bytes)
        } catch {
            #expect(error.code == .truncated)
        }
    }

    @Test("a wrong header, checksum or version is refused with its code")
    func malformed() throws {
        func code(_ bytes: [UInt8]) -> EDIDError.Code? {
            do {
                _ = try EDID(bytes)
                return nil
            } catch {
                return error.code
            }
        }
        let good = EDIDBuilder(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136))
        #expect(code(good.bytes) == nil)

        var header = good
        header.bytes[7] = 0xFF
        header.seal()
        #expect(code(header.bytes) == .badHeader)

        var checksum = good
        checksum.bytes[66] &+= 1  // the size changed, the checksum not
        #expect(code(checksum.bytes) == .badChecksum)

        var version = good
        version.bytes[18] = 2
        version.seal()
        #expect(code(version.bytes) == .unsupportedVersion)
    }

    @Test("extension blocks are ignored: only the first 128 bytes are read")
    func extensionsIgnored() throws {
        var builder = EDIDBuilder(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136))
        builder.bytes[126] = 1
        builder.seal()
        let base = try EDID(builder.bytes)
        // A CTA-861 extension with garbage, and its checksum wrong: still the base's size.
        let withExtension = try EDID(builder.bytes + [0x02, 0x03] + [UInt8](repeating: 0xAB, count: 126))
        #expect(withExtension == base)
        #expect(withExtension.physicalSize == Self.size(217, 136))
    }

    @Test("EDID 1.3 reads as 1.4 does")
    func revisionThree() throws {
        let edid = try EDIDBuilder(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136), revision: 3).edid
        #expect(edid.revision == 3)
        #expect(edid.physicalSize == Self.size(217, 136))
    }
}

