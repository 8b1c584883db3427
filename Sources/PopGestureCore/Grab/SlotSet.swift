/// A set of multitouch slots, 0…63 (``DeviceDescription/maximumTrackedSlots``), as one
/// word: grab mode passes them per frame, so a set must never allocate.
public struct SlotSet: Sendable, Hashable, Sequence, CustomStringConvertible, ExpressibleByArrayLiteral {
    public private(set) var bits: UInt64

    public init() { bits = 0 }
    public init(arrayLiteral slots: Int...) {
        bits = 0
        for slot in slots { insert(slot) }
    }

    public static let empty = SlotSet()

    public var isEmpty: Bool { bits == 0 }
    public var count: Int { bits.nonzeroBitCount }

    /// False for slots outside 0…63.
    public func contains(_ slot: Int) -> Bool {
        slot >= 0 && slot < 64 && bits & (1 << UInt64(slot)) != 0
    }

    /// Slots outside 0…63 are ignored: the core tracks no more.
    public mutating func insert(_ slot: Int) {
        guard slot >= 0 && slot < 64 else { return }
        bits |= 1 << UInt64(slot)
    }

    public mutating func remove(_ slot: Int) {
        guard slot >= 0 && slot < 64 else { return }
        bits &= ~(1 << UInt64(slot))
    }

    /// Ascending.
    public func makeIterator() -> Iterator { Iterator(bits: bits) }

    public struct Iterator: IteratorProtocol {
        var bits: UInt64
        public mutating func next() -> Int? {
            guard bits != 0 else { return nil }
            let slot = bits.trailingZeroBitCount
            bits &= bits - 1
            return slot
        }
    }

    public var description: String { "[" + map(String.init).joined(separator: ", ") + "]" }
}
