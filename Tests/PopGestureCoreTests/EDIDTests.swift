@testable import PopGestureCore
import PopGestureSynthesis
import Testing


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
        Panel(description: "a portrait panel whose maximum image size is written turned", maximum: (14, 7), detailed: (68, 136),
              pixels: (720, 1440), size: size(68, 136), field: .detailedTiming),
        Panel(description: "a 15.6-inch laptop panel, sizes in full", maximum: (34, 19), detailed: (344, 194), pixels: (1920, 1080),
              size: size(344, 194), field: .detailedTiming),
    ]

    @Test("a panel's size: the detailed timing's millimetres, else the maximum image size", arguments: panels)
    func panelSize(_ panel: Panel) throws {
        let edid = try EDIDBlock(maximumCentimetres: panel.maximum, detailedMillimetres: panel.detailed, pixels: panel.pixels).edid
        #expect(edid.physicalSize == panel.size)
        #expect(edid.sizeField == panel.field)
        #expect(edid.sizeRefusals.isEmpty)
    }

    @Test("the detailed size's 12 bits: the high nibbles of byte 68 count, 4095 × 4095 at most")
    func twelveBits() throws {
        // 1210 × 680 mm: a 55-inch touch display, both sides above 255.
        let large = try EDIDBlock(maximumCentimetres: (121, 68), detailedMillimetres: (1210, 680), pixels: (1920, 1080)).edid
        #expect(large.detailedImageSizeMillimetres == EDID.Sides(width: 1210, height: 680))
        #expect(large.physicalSize == Self.size(1210, 680))
        let widest = try EDIDBlock(maximumCentimetres: (0, 0), detailedMillimetres: (4095, 4095)).edid
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
        let edid = try EDIDBlock(maximumCentimetres: bogus.maximum, detailedMillimetres: bogus.detailed, pixels: bogus.pixels).edid
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
        let bytes = EDIDBlock(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136)).bytes.prefix(count)
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
        let good = EDIDBlock(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136))
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
        var builder = EDIDBlock(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136))
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
        let edid = try EDIDBlock(maximumCentimetres: (22, 14), detailedMillimetres: (217, 136), revision: 3).edid
        #expect(edid.revision == 3)
        #expect(edid.physicalSize == Self.size(217, 136))
    }
}

