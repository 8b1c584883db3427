import PopGestureCore
import Testing

/// The per-app table of the back input: exact ids first, then the longest prefix.
@Suite struct BackInputMapTests {
    static let altLeft = BackInput(codes: [56, 105], spelling: "alt+left")!
    static let back = BackInput(codes: [158], spelling: "KEY_BACK")!
    static let side = BackInput(codes: [0x113], spelling: "side")!

    @Test func anExactIdWinsOverAPrefixAndTheLongestPrefixOverAShorterOne() {
        let map = BackInputMap(standard: Self.altLeft, apps: [
            "waydroid.*": Self.back,
            "waydroid.org.mozilla.*": Self.side,
            "waydroid.org.mozilla.fenix": BackInput?.none,
        ])
        #expect(map.input(forApp: "waydroid.org.fdroid.fdroid") == Self.back)
        #expect(map.input(forApp: "waydroid.org.mozilla.focus") == Self.side)
        #expect(map.input(forApp: "waydroid.org.mozilla.fenix") == nil)
        #expect(map.input(forApp: "Waydroid") == Self.altLeft, "ids match case and all: not a prefix of waydroid.")
        #expect(map.input(forApp: "waydroid") == Self.altLeft, "the prefix is `waydroid.`, dot included")
        #expect(map.input(forApp: nil) == Self.altLeft)
    }

    @Test func aPrefixAddedLaterCountsAndTwoEqualTablesAreEqual() {
        var map = BackInputMap(standard: Self.altLeft)
        #expect(map.input(forApp: "waydroid.com.example") == Self.altLeft)
        map.apps["waydroid.*"] = Self.back
        #expect(map.input(forApp: "waydroid.com.example") == Self.back)
        #expect(map == BackInputMap(standard: Self.altLeft, apps: ["waydroid.*": Self.back]))
        #expect(map.allCodes == [56, 105, 158])
    }

    @Test func anOwnSwipeEntryWinsOnItsIdAndTheMoreSpecificEntryOfTheTwoTablesWinsOnPrefixes() {
        let map = BackInputMap(
            standard: Self.altLeft, apps: ["org.kde.konsole": Self.back, "org.kde.dolphin.*": Self.side],
            ownSwipe: ["org.kde.*", "org.gnome.Settings"])
        #expect(map.ownsSwipe("org.gnome.Settings"))
        #expect(map.ownsSwipe("org.kde.kclock"), "the prefix org.kde.")
        #expect(!map.ownsSwipe("org.kde.konsole"), "an exact key entry is more specific than a prefix")
        #expect(!map.ownsSwipe("org.kde.dolphin.x"), "a longer key prefix is more specific")
        #expect(!map.ownsSwipe("org.gnome.Settings2"))
        #expect(!map.ownsSwipe("firefox"))
        #expect(map.withoutInputs == BackInputMap(standard: nil, ownSwipe: ["org.kde.*", "org.gnome.Settings"]))
        #expect(map != BackInputMap(standard: Self.altLeft, apps: map.apps), "own swipes count in equality")
    }

    @Test func aTouchpadEntryFollowingTheSessionPlaysItsWayAndWaitsForItBehindTheStandardKey() throws {
        let session = BackInput(touchpad: .standard)
        let natural = BackInput(touchpad: TouchpadScroll(millimetresPerWidth: 40, scrolling: .natural))
        let map = BackInputMap(standard: Self.altLeft, apps: ["firefox": session, "org.gnome.Nautilus": natural])

        #expect(map.input(forApp: "firefox", touchpadScrolling: nil) == Self.altLeft, "not said yet: the key")
        let played = try #require(map.input(forApp: "firefox", touchpadScrolling: true))
        #expect(played.touchpad?.scrolling == .natural)
        #expect(played.spelling == "touchpad", "spelled as configured")
        #expect(map.input(forApp: "firefox", touchpadScrolling: false)?.touchpad?.scrolling == .traditional)
        #expect(map.input(forApp: "org.gnome.Nautilus", touchpadScrolling: nil) == natural, "fixed: no word needed")
        #expect(map.input(forApp: "org.gnome.Nautilus", touchpadScrolling: false) == natural)
        #expect(map.input(forApp: "xterm", touchpadScrolling: nil) == Self.altLeft)

        let everywhere = BackInputMap(standard: session)
        #expect(everywhere.input(forApp: "xterm", touchpadScrolling: nil) == nil, "no key to fall back to")
        #expect(everywhere.input(forApp: nil, touchpadScrolling: false)?.touchpad?.scrolling == .traditional)
    }
}
