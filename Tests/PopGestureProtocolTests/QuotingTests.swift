import PopGestureProtocol
import Testing

/// `quoted(_:limit:)`: outside text in a message, short, escaped and on one line.
@Suite struct QuotingTests {
    @Test("a short ordinary text is quoted whole")
    func shortText() {
        #expect(quoted("lots") == #""lots""#)
        #expect(quoted("") == #""""#)
        #expect(quoted("org.gnome.Nautilus é😀") == #""org.gnome.Nautilus é😀""#)
        let exactly = String(repeating: "a", count: 64)
        #expect(quoted(exactly) == "\"\(exactly)\"", "64 bytes is not cut")
    }

    @Test("a 65,000-byte text gives a prefix, an ellipsis and its size: under 100 bytes")
    func longText() {
        let long = String(repeating: "k", count: 65_000)
        let shown = quoted(long)
        #expect(shown == "\"" + String(repeating: "k", count: 64) + "…\" (65000 bytes)")
        #expect(shown.utf8.count < 100)
        #expect(quoted(long, limit: 8) == #""kkkkkkkk…" (65000 bytes)"#)
    }

    @Test("cut on a character boundary, never inside one")
    func characterBoundary() {
        let long = String(repeating: "é", count: 100)  // 2 bytes each
        #expect(quoted(long) == "\"" + String(repeating: "é", count: 32) + "…\" (200 bytes)")
        #expect(quoted("aé", limit: 2) == #""a…" (3 bytes)"#)
    }

    @Test("control characters are escaped: NUL, newline, tab, escape; quotes and backslashes too")
    func controlCharacters() {
        #expect(quoted("a\u{0}b") == #""a\u{0}b""#)
        #expect(quoted("one\ntwo\r\tthree") == #""one\ntwo\r\tthree""#)
        #expect(quoted("\u{1B}[31mred") == #""\u{1b}[31mred""#)
        #expect(quoted("say \"hi\" \\ bye") == #""say \"hi\" \\ bye""#)
        #expect(quoted("\u{7F}") == #""\u{7f}""#)
    }

    @Test("format characters and line separators are escaped: nothing reorders or breaks the line")
    func formatCharacters() {
        #expect(quoted("abc\u{202E}fed") == #""abc\u{202e}fed""#)
        #expect(quoted("zero\u{200B}width") == #""zero\u{200b}width""#)
        #expect(quoted("a\u{2028}b\u{2029}c\u{85}") == #""a\u{2028}b\u{2029}c\u{85}""#)
    }

    @Test("escapes count toward the limit, and are never cut in half")
    func escapesCount() {
        let nuls = String(repeating: "\u{0}", count: 65_000)
        let shown = quoted(nuls)
        #expect(shown == "\"" + String(repeating: #"\u{0}"#, count: 12) + "…\" (65000 bytes)")
        #expect(shown.utf8.count < 100)
        #expect(quoted("ab\ncd", limit: 3) == #""ab…" (5 bytes)"#)
    }

    @Test("bytes that are not UTF-8 are escaped as \\xNN; the valid ones around them are kept")
    func invalidUTF8() {
        #expect(quoted(bytes: [0x61, 0xFF, 0x62]) == #""a\xFFb""#)
        #expect(quoted(bytes: [0xC3]) == #""\xC3""#, "a sequence cut short")
        #expect(quoted(bytes: [0xC3, 0xA9, 0x0A, 0x05]) == #""é\n\u{5}""#)
        #expect(quoted(bytes: [UInt8](repeating: 0xFE, count: 1000)).utf8.count < 100)
    }

    @Test("quotedIfNeeded: plain short text as it is, anything else quoted")
    func quotedIfNeededKeepsPlainText() {
        #expect(quotedIfNeeded("commit-progress") == "commit-progress")
        #expect(quotedIfNeeded("[back-input] firefox") == "[back-input] firefox")
        #expect(quotedIfNeeded("fire\u{7}fox") == #""fire\u{7}fox""#)
        #expect(quotedIfNeeded("a\"b") == #""a\"b""#)
        let long = String(repeating: "x", count: 65_000)
        #expect(quotedIfNeeded(long) == quoted(long))
    }
}
