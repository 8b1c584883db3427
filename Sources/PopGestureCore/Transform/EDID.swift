/// A display's physical size from the bytes of its EDID (VESA E-EDID 1.3 and 1.4):
/// what the panel a touchscreen drives says of itself, for a touchscreen that gives no
/// size of its own (``ScreenTransform``'s `displaySize`).
///
/// Pure: it parses bytes and reads nothing. It lives in the core beside
/// ``ScreenTransform`` and ``OutputReport`` because it imports no C: the fuzz target
/// and the tests run it without libudev, and whoever holds an EDID (the daemon's
/// `/sys/class/drm` reader, a shell) can use it.
///
/// **What is read.** Only the 128-byte base block: its header, checksum and version,
/// the first descriptor (bytes 54–71) when it is a detailed timing, and the maximum
/// image size (bytes 21 and 22). Extension blocks are ignored, so a blob of any length
/// costs the same. The size is the first detailed timing's image size (bytes 66–68, in
/// millimetres), else the maximum image size (centimetres, times 10); each must pass
/// ``sizeRefusal(width:height:activePixels:)``'s checks, and the detailed one must agree
/// with the maximum one when both are there (see ``SizeRefusal/Reason``).
public struct EDID: Sendable, Hashable {
    /// A base block is 128 bytes. Shorter input is refused (`truncated`); longer input
    /// is read only this far.
    public static let baseBlockLength = 128
    /// Bytes 0–7 of every EDID.
    public static let header: [UInt8] = [0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]

    /// The largest side taken as a display's: 3000 mm. The largest touch displays sold
    /// are 98-inch, about 2170 × 1220 mm; EDID's fields reach 4095 mm (detailed) and
    /// 2550 mm (maximum image size), and a side past 3 m is a placeholder, not a panel.
    public static let maximumSideMillimetres = 3000
    /// The smallest side taken as a display's: 10 mm. The smallest touch panels (watches)
    /// are about 25 mm a side; a centimetre or less is a placeholder.
    public static let minimumSideMillimetres = 10
    /// The most one side may be longer than the other: 2.4 times, as the X server's
    /// EDID reader (`handle_detailed_physical_size`) takes anything stranger as bogus,
    /// "even cinemascope". The widest panels sold (32:9) are 3.6; none is a touchscreen.
    public static let maximumAspectRatio = 2.4
    /// Sizes that are an aspect ratio written where the size belongs, in millimetres
    /// (16 × 9 cm reads 160 × 90 mm): mutter's `meta_monitor_has_aspect_as_size` list.
    public static let aspectRatiosAsSizes: Set<[Int]> = [
        [16, 9], [16, 10], [160, 90], [160, 100], [1600, 900], [1600, 1000],
    ]

    /// Byte 18, 19: the EDID version and revision (1 and 3 or 4; 1.0–1.2 read alike).
    public let version: UInt8
    public let revision: UInt8
    /// Bytes 21 and 22, in centimetres: the maximum image size. 0 in either means none
    /// (before 1.4 unknown, from 1.4 one nonzero byte is an aspect ratio).
    public let maximumImageSizeCentimetres: Sides
    /// The first descriptor's image size in millimetres, when that descriptor is a
    /// detailed timing (a nonzero pixel clock); nil for a display descriptor.
    public let detailedImageSizeMillimetres: Sides?
    /// That detailed timing's active pixels, horizontal and vertical: a size equal to
    /// them is a pixel count, not millimetres.
    public let detailedActivePixels: Sides?

    /// The display's size in millimetres, in its native orientation; nil when neither
    /// field gives one that passes the checks (``sizeRefusals`` says why).
    public let physicalSize: PhysicalSize?
    /// Where ``physicalSize`` came from; nil with it.
    public let sizeField: Field?
    /// The fields that were there but refused, in reading order; empty when the first
    /// detailed timing's size was taken.
    public let sizeRefusals: [SizeRefusal]

    /// A width and a height as EDID writes them, whole numbers in the unit its field names.
    public struct Sides: Sendable, Hashable {
        public var width: Int
        public var height: Int
    }

    /// The two places a base block gives a size.
    public enum Field: String, Sendable, Hashable {
        /// Bytes 66–68: the first detailed timing descriptor's image size, millimetres.
        case detailedTiming = "detailed timing"
        /// Bytes 21–22: the maximum image size, centimetres.
        case maximumImageSize = "maximum image size"
    }

    /// A size field that was there and refused, and why.
    public struct SizeRefusal: Sendable, Hashable, CustomStringConvertible {
        public enum Reason: String, Sendable, Hashable {
            /// One side is 0: an aspect ratio (EDID 1.4's bytes 21/22) or nothing.
            case missingSide = "missing-side"
            /// Under ``EDID/minimumSideMillimetres``.
            case tooSmall = "too-small"
            /// Over ``EDID/maximumSideMillimetres``.
            case tooLarge = "too-large"
            /// One of ``EDID/aspectRatiosAsSizes``.
            case aspectRatio = "aspect-ratio"
            /// The detailed size equals the timing's active pixels (1920 × 1080 "mm").
            case pixelCount = "pixel-count"
            /// One side over ``EDID/maximumAspectRatio`` times the other.
            case strangeAspectRatio = "strange-aspect-ratio"
            /// The detailed size is under half or over twice the maximum image size on a
            /// side (longer with longer): one of the two is wrong, and it is the detailed
            /// one that panels get wrong (Linux's `EDID_QUIRK_DETAILED_IN_CM` and
            /// `_USE_MAXIMUM_SIZE` panels write centimetres or garbage there), so the
            /// maximum image size is taken.
            case disagreesWithMaximum = "disagrees-with-maximum"
        }

        public var field: Field
        public var reason: Reason
        /// The field's size in millimetres (the maximum image size times 10).
        public var width: Int
        public var height: Int

        public var description: String { "\(field.rawValue) \(width) × \(height) mm refused (\(reason.rawValue))" }
    }

    /// Parses a base block: the first ``baseBlockLength`` bytes of `bytes`, the rest
    /// ignored. Throws `truncated`, `bad-header`, `bad-checksum` (the 128 bytes do not
    /// sum to 0 modulo 256) or `unsupported-version` (EDID 2.0's layout, or no version).
    public init(_ bytes: some Collection<UInt8>) throws(EDIDError) {
        let block = Array(bytes.prefix(Self.baseBlockLength))
        guard block.count == Self.baseBlockLength else {
            throw EDIDError(.truncated, "\(block.count) bytes, a base block has \(Self.baseBlockLength)")
        }
        guard Array(block[0..<8]) == Self.header else {
            throw EDIDError(.badHeader, "the first 8 bytes are not 00 FF FF FF FF FF FF 00")
        }
        let sum = block.reduce(UInt8(0), &+)
        guard sum == 0 else { throw EDIDError(.badChecksum, "the base block sums to \(sum) modulo 256, not 0") }
        guard block[18] == 1 else {
            throw EDIDError(.unsupportedVersion, "version \(block[18]).\(block[19]), only 1.x is read")
        }
        version = block[18]
        revision = block[19]
        maximumImageSizeCentimetres = Sides(width: Int(block[21]), height: Int(block[22]))
        // A detailed timing has a nonzero pixel clock (bytes 54–55); a display descriptor has 0.
        if block[54] != 0 || block[55] != 0 {
            detailedImageSizeMillimetres = Sides(
                width: Int(block[66]) | Int(block[68] >> 4) << 8, height: Int(block[67]) | Int(block[68] & 0x0F) << 8)
            detailedActivePixels = Sides(
                width: Int(block[56]) | Int(block[58] >> 4) << 8, height: Int(block[59]) | Int(block[61] >> 4) << 8)
        } else {
            detailedImageSizeMillimetres = nil
            detailedActivePixels = nil
        }

        var refusals: [SizeRefusal] = []
        var maximum: PhysicalSize?
        let (maximumWidth, maximumHeight) = (maximumImageSizeCentimetres.width * 10, maximumImageSizeCentimetres.height * 10)
        if maximumWidth != 0 || maximumHeight != 0 {
            if let reason = Self.sizeRefusal(width: maximumWidth, height: maximumHeight, activePixels: nil) {
                refusals.append(SizeRefusal(field: .maximumImageSize, reason: reason, width: maximumWidth, height: maximumHeight))
            } else {
                maximum = PhysicalSize(width: Double(maximumWidth), height: Double(maximumHeight))
            }
        }
        var detailed: PhysicalSize?
        if let size = detailedImageSizeMillimetres, size.width != 0 || size.height != 0 {
            let (width, height) = (size.width, size.height)
            var reason = Self.sizeRefusal(width: width, height: height, activePixels: detailedActivePixels)
            if reason == nil, let maximum, !Self.agree(Double(width), Double(height), maximum) {
                reason = .disagreesWithMaximum
            }
            if let reason {
                refusals.insert(SizeRefusal(field: .detailedTiming, reason: reason, width: width, height: height), at: 0)
            } else {
                detailed = PhysicalSize(width: Double(width), height: Double(height))
            }
        }
        sizeRefusals = refusals
        if let detailed {
            (physicalSize, sizeField) = (detailed, .detailedTiming)
        } else if let maximum {
            (physicalSize, sizeField) = (maximum, .maximumImageSize)
        } else {
            (physicalSize, sizeField) = (nil, nil)
        }
    }

    /// Why a size in millimetres is no display's, or nil when it may be one. The order
    /// of the checks is the order of the reasons' specificity: a side of 0, a known
    /// placeholder, the pixel count, then the bounds and the shape.
    public static func sizeRefusal(width: Int, height: Int, activePixels: Sides?) -> SizeRefusal.Reason? {
        if width <= 0 || height <= 0 { return .missingSide }
        if aspectRatiosAsSizes.contains([width, height]) { return .aspectRatio }
        if activePixels == Sides(width: width, height: height) { return .pixelCount }
        if max(width, height) > maximumSideMillimetres { return .tooLarge }
        if min(width, height) < minimumSideMillimetres { return .tooSmall }
        if Double(max(width, height)) > maximumAspectRatio * Double(min(width, height)) { return .strangeAspectRatio }
        return nil
    }

    /// Whether a detailed size agrees with the maximum image size: each side within half
    /// to twice the other's, longer side with longer side (a portrait panel may write
    /// either turned). Centimetres round a 54 mm side to 50 or 60 mm; a panel that
    /// writes centimetres in the detailed timing is a tenth of it.
    static func agree(_ width: Double, _ height: Double, _ maximum: PhysicalSize) -> Bool {
        func within(_ side: Double, _ other: Double) -> Bool { side >= other / 2 && side <= other * 2 }
        return within(max(width, height), max(maximum.width, maximum.height))
            && within(min(width, height), min(maximum.width, maximum.height))
    }
}

/// Why bytes are no EDID base block: the display then gives no size.
public struct EDIDError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Fewer than 128 bytes (an empty `edid` file: nothing is connected).
        case truncated
        /// The first 8 bytes are not `00 FF FF FF FF FF FF 00`.
        case badHeader = "bad-header"
        /// The base block's 128 bytes do not sum to 0 modulo 256.
        case badChecksum = "bad-checksum"
        /// Byte 18 is not 1.
        case unsupportedVersion = "unsupported-version"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
