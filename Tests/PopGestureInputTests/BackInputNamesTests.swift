import CEvdev
import PopGestureCore
@testable import PopGestureInput
import PopGestureProtocol
import Testing

/// Real libevdev name tables; no device needed.
@Suite struct BackInputNamesTests {
    static func codes(_ text: String) throws -> [UInt16]? {
        try BackInputNames.parse(text)?.codes
    }

    @Test func theDefaultIsAltThenLeft() throws {
        let input = try #require(try BackInputNames.parse("alt+left"))
        #expect(input.codes == [UInt16(KEY_LEFTALT), UInt16(KEY_LEFT)])
        #expect(input.spelling == "alt+left")
    }

    @Test(arguments: [
        ("back", [KEY_BACK]), ("KEY_BACK", [KEY_BACK]), ("key_back", [KEY_BACK]),
        ("side", [BTN_SIDE]), ("BTN_SIDE", [BTN_SIDE]), ("extra", [BTN_EXTRA]),
        ("btn_left", [BTN_LEFT]), ("left", [KEY_LEFT]),
        ("ctrl+shift+tab", [KEY_LEFTCTRL, KEY_LEFTSHIFT, KEY_TAB]),
        ("super+leftbracket", nil), ("Alt + Left", [KEY_LEFTALT, KEY_LEFT]),
        ("KEY_LEFTALT+KEY_LEFT", [KEY_LEFTALT, KEY_LEFT]), ("rightalt+left", [KEY_RIGHTALT, KEY_LEFT]),
        ("meta+leftbrace", [KEY_LEFTMETA, KEY_LEFTBRACE]),
    ] as [(String, [Int32]?)])
    func namesResolveThroughLibevdev(text: String, expected: [Int32]?) throws {
        guard let expected else {
            #expect(throws: BackInputNameError.self) { try BackInputNames.parse(text) }
            return
        }
        #expect(try Self.codes(text) == expected.map { UInt16($0) })
    }

    @Test func noneIsNoInput() throws {
        #expect(try BackInputNames.parse("none") == nil)
        #expect(try BackInputNames.parse(" NONE ") == nil)
    }

    @Test(arguments: [
        ("alt+left", "alt+left"), ("KEY_LEFTALT+KEY_LEFT", "alt+left"),
        ("KEY_BACK", "back"), ("BTN_SIDE", "side"), ("btn_left", "btn_left"), ("Shift+Ctrl+F5", "shift+ctrl+f5"),
        ("meta+x", "super+x"),
    ])
    func theSpellingIsCanonicalAndReadsBack(text: String, expected: String) throws {
        let input = try #require(try BackInputNames.parse(text))
        #expect(input.spelling == expected)
        #expect(try BackInputNames.parse(input.spelling) == input)
    }

    @Test func everyKeyAndButtonSpellingReadsBack() throws {
        var checked = 0
        for code in 1...UInt16(KEY_MAX) where libevdev_event_code_get_name(UInt32(EV_KEY), UInt32(code)) != nil {
            let spelling = BackInputNames.spelling(of: [code])
            #expect(try Self.codes(spelling) == [code], "\(spelling)")
            checked += 1
        }
        #expect(checked > 500)
    }

    @Test(arguments: [
        ("alt+leftt", BackInputNameError.Code.unknownName, "leftt"),
        ("alt++left", .emptyToken, ""), ("+left", .emptyToken, ""), ("left+", .emptyToken, ""), ("", .emptyToken, ""),
        ("alt+alt", .repeatedName, "alt"), ("alt+KEY_LEFTALT", .repeatedName, "KEY_LEFTALT"),
        ("key_reserved", .unknownName, "key_reserved"), ("EV_KEY", .unknownName, "EV_KEY"),
        ("ABS_X", .unknownName, "ABS_X"), ("left\u{0}", .unknownName, "left\u{0}"), ("ält", .unknownName, "ält"),
        ("a left", .unknownName, "a left"),
    ] as [(String, BackInputNameError.Code, String)])
    func badTokensAreRefusedByName(text: String, code: BackInputNameError.Code, token: String) {
        let error = #expect(throws: BackInputNameError.self) { try BackInputNames.parse(text) }
        #expect(error?.code == code)
        #expect(error?.token == token)
        if !token.isEmpty { #expect(error?.message.contains(quoted(token)) == true, "\(error?.message ?? "")") }
    }

    @Test func atMostFourKeys() throws {
        #expect(try Self.codes("ctrl+alt+shift+left")?.count == 4)
        let error = #expect(throws: BackInputNameError.self) { try BackInputNames.parse("ctrl+alt+shift+super+left") }
        #expect(error?.code == .tooManyNames)
    }

    @Test func theTextIsBounded() throws {
        let padded = String(repeating: " ", count: BackInputNames.maximumBytes - 4) + "back"
        #expect(try Self.codes(padded) == [UInt16(KEY_BACK)])
        let error = #expect(throws: BackInputNameError.self) { try BackInputNames.parse(padded + " ") }
        #expect(error?.code == .tooLong)
        #expect(error?.message == "a back input may have at most 128 bytes; this one has 129")
    }
}
