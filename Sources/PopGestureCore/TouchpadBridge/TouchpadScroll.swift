/// How the touchpad bridge turns a swipe's progress into two fingers' travel on the
/// daemon's virtual touchpad, for an app marked `touchpad` in the `[back-input]` table
/// (`touchpad`, `touchpad:80`, `touchpad:natural`, `touchpad:80:traditional`).
///
/// Pure data; ``TouchpadBridge`` plays it.
public struct TouchpadScroll: Sendable, Hashable, CustomStringConvertible {
    /// Which way the compositor scrolls the virtual touchpad. The bridge wants a scroll
    /// toward the left (negative horizontal values, what the apps take as "back"): with
    /// natural scrolling off the fingers move left, with it on they move right. Played
    /// the wrong way round, the app would go *forward*.
    public enum Scrolling: String, Sendable, Hashable, CaseIterable {
        /// As the session's shell reports it (`touchpad-scrolling`, from the desktop's
        /// own setting for the device); while it has not, the app gets the standard
        /// back input instead (``BackInputMap/input(forApp:touchpadScrolling:)``).
        case session
        /// Natural scrolling on (the content follows the fingers): GNOME's default.
        case natural
        /// Natural scrolling off: libinput's default for touchpads.
        case traditional
    }

    /// The fingers' travel, in millimetres of the virtual touchpad, for progress 1 (a
    /// swipe across the whole screen width); the travel is progress × this, and stops
    /// at ``TouchpadBridge/maximumTravelMillimetres`` (70 mm). Default 60: at the
    /// daemon's commit point (progress 0.3) the fingers have moved 18 mm, about half a
    /// page of libadwaita's swipe tracker (it counts 400 scroll units per page, and
    /// libinput 1.22 gave this touchpad's two-finger scroll 10.5 units per millimetre in
    /// the VM: 21.03 per 2 mm frame). Each app's scale differs: set it per app.
    public var millimetresPerWidth: Double
    /// Which way the compositor scrolls the touchpad. Default ``Scrolling/session``: the
    /// desktop's setting, as its bridge reports it.
    public var scrolling: Scrolling

    /// Whether the fingers move right: natural scrolling, as said or as the session
    /// reported it (``resolved(natural:)``). False while still ``Scrolling/session``.
    public var natural: Bool { scrolling == .natural }

    /// 5…400 mm per screen width: below 5 the page would jump ahead of the finger by
    /// 20 times; above 400 the fingers would barely move.
    public static let millimetresRange = 5.0...400.0

    /// 60 mm per width, scrolling as the session says.
    public static let standard = TouchpadScroll(millimetresPerWidth: 60, scrolling: .session)

    /// The word that starts a touchpad entry.
    public static let word = "touchpad"

    /// At most 32 bytes: `touchpad:400:traditional` is 24.
    public static let maximumBytes = 32

    public init(millimetresPerWidth: Double, scrolling: Scrolling) {
        self.millimetresPerWidth = millimetresPerWidth
        self.scrolling = scrolling
    }

    /// This scroll with ``Scrolling/session`` replaced by what the session reported;
    /// a fixed `natural` or `traditional` stays.
    public func resolved(natural: Bool) -> TouchpadScroll {
        guard scrolling == .session else { return self }
        return TouchpadScroll(millimetresPerWidth: millimetresPerWidth, scrolling: natural ? .natural : .traditional)
    }

    /// Parses `touchpad[:<millimetres>][:natural|:traditional]`, case-insensitively: nil when the text
    /// does not start with `touchpad`. Throws, with a message naming the fault, for a
    /// wrong distance (not a number, or outside ``millimetresRange``), an unknown word, or
    /// a text longer than ``maximumBytes``.
    public static func parse(_ text: String) throws(TouchpadScrollError) -> TouchpadScroll? {
        let words = text.lowercased().split(separator: ":", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: " \t") }
        guard words.first == word else { return nil }
        guard text.utf8.count <= maximumBytes else {
            throw TouchpadScrollError("a touchpad entry has at most \(maximumBytes) bytes")
        }
        var scroll = standard
        var rest = words.dropFirst()
        // The words an entry may end with: `session` is what no word means, not a word.
        let fixed = { (word: String) in Scrolling(rawValue: word).flatMap { $0 == .session ? nil : $0 } }
        if let first = rest.first, fixed(first) == nil {
            guard let millimetres = Double(first), millimetres.isFinite, millimetresRange.contains(millimetres) else {
                throw TouchpadScrollError(
                    "\"\(first)\" is no touchpad distance: millimetres per screen width, \(Int(millimetresRange.lowerBound))…\(Int(millimetresRange.upperBound)) (touchpad:60)")
            }
            scroll.millimetresPerWidth = millimetres
            rest = rest.dropFirst()
        }
        if let word = rest.first, let scrolling = fixed(word) {
            scroll.scrolling = scrolling
            rest = rest.dropFirst()
        }
        if let extra = rest.first {
            throw TouchpadScrollError(
                "\"\(extra)\" is not understood in a touchpad entry: touchpad[:<millimetres>][:natural|:traditional]")
        }
        return scroll
    }

    /// `touchpad`, with the distance when it is not the default and the scrolling when fixed.
    public var description: String {
        var text = Self.word
        if millimetresPerWidth != Self.standard.millimetresPerWidth {
            let whole = millimetresPerWidth.rounded()
            text += ":" + (whole == millimetresPerWidth ? String(Int(whole)) : String(millimetresPerWidth))
        }
        if scrolling != .session { text += ":" + scrolling.rawValue }
        return text
    }
}

/// A touchpad entry that cannot be read; the message says why.
public struct TouchpadScrollError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let blank: (Character) -> Bool = { set.contains($0) }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
