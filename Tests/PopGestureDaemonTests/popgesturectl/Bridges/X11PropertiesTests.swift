import Testing
@testable import popgesturectl

/// The X11 bridge's reading of window properties, without an X server: WM_CLASS split into
/// its class, the bounds, and the pid and active window items.
@Suite struct X11PropertiesTests {
    static let utf8String = XAtom(rawValue: 300)

    static func wmClass(_ bytes: [UInt8], type: XAtom = .string, truncated: Bool = false) -> XProperty {
        XProperty(type: type, format: 8, bytes: bytes, truncated: truncated)
    }

    static func appID(_ property: XProperty?) -> Result<String, X11Properties.Problem> {
        Result { () throws(X11Properties.Problem) in
            try X11Properties.appID(fromWMClass: property, utf8String: utf8String)
        }
    }

    static func cardinal(_ value: UInt32, type: XAtom) -> XProperty {
        XProperty(type: type, format: 32, bytes: withUnsafeBytes(of: value) { Array($0) }, truncated: false)
    }

    @Test("the app id is WM_CLASS's second string, the class, with or without its trailing NUL")
    func classIsTheAppID() {
        #expect(Self.appID(Self.wmClass(Array("xterm\0XTerm\0".utf8))) == .success("XTerm"))
        #expect(Self.appID(Self.wmClass(Array("navigator\0firefox-esr".utf8))) == .success("firefox-esr"))
        #expect(Self.appID(Self.wmClass(Array("org.gnome.Nautilus\0org.gnome.Nautilus\0".utf8), type: Self.utf8String))
                == .success("org.gnome.Nautilus"))
        // An empty instance is allowed; only the class matters.
        #expect(Self.appID(Self.wmClass(Array("\0One\0".utf8))) == .success("One"))
    }

    @Test("STRING is Latin-1, UTF8_STRING must be valid UTF-8")
    func encodings() {
        #expect(Self.appID(Self.wmClass([0x61, 0, 0x43, 0xE9, 0])) == .success("Cé"))
        #expect(Self.appID(Self.wmClass([0x61, 0, 0x43, 0xC3, 0xA9, 0], type: Self.utf8String)) == .success("Cé"))
        #expect(Self.appID(Self.wmClass([0x61, 0, 0x43, 0xE9, 0], type: Self.utf8String)) == .failure(.notUTF8))
        #expect(Self.appID(Self.wmClass(Array("a\0B\0".utf8), type: .cardinal)) == .failure(.notText))
        #expect(Self.appID(XProperty(type: .string, format: 32, bytes: [0, 0, 0, 0], truncated: false))
                == .failure(.wrongType(format: 32, bytes: 4)))
    }

    @Test("a missing or empty class makes the app unknown")
    func noClass() {
        #expect(Self.appID(nil) == .failure(.absent))
        #expect(Self.appID(Self.wmClass(Array("xterm".utf8))) == .failure(.noClass))
        #expect(Self.appID(Self.wmClass(Array("xterm\0".utf8))) == .failure(.noClass))
        #expect(Self.appID(Self.wmClass(Array("xterm\0\0".utf8))) == .failure(.noClass))
        #expect(Self.appID(Self.wmClass([])) == .failure(.noClass))
    }

    @Test("each part is at most 256 bytes; past that the app is unknown, not cut")
    func bounds() {
        let limit = X11Properties.maximumClassPartBytes
        #expect(limit == 256)
        let longest = String(repeating: "c", count: limit)
        #expect(Self.appID(Self.wmClass(Array("i\0\(longest)\0".utf8))) == .success(longest))
        #expect(Self.appID(Self.wmClass(Array("i\0\(longest)c\0".utf8))) == .failure(.tooLong(part: "class")))
        let longInstance = String(repeating: "i", count: limit + 1)
        #expect(Self.appID(Self.wmClass(Array("\(longInstance)\0C\0".utf8))) == .failure(.tooLong(part: "instance")))
        // The read stopped inside the class (the property goes on): too long, not a shorter id.
        let cut = Array("i\0\(String(repeating: "c", count: 100))".utf8)
        #expect(Self.appID(Self.wmClass(cut, truncated: true)) == .failure(.tooLong(part: "class")))
        // The read stopped after a complete class: what follows does not matter.
        #expect(Self.appID(Self.wmClass(Array("i\0C\0extra".utf8), truncated: true)) == .success("C"))
        #expect(Self.appID(Self.wmClass(Array(String(repeating: "i", count: 300).utf8), truncated: true))
                == .failure(.tooLong(part: "instance")))
        // What the bridge asks the server for covers both parts at their limit.
        #expect(X11Properties.wmClassReadBytes >= 2 * (limit + 1))
    }

    @Test("_NET_WM_PID is one CARDINAL from 1 to Int32.max")
    func pid() {
        func pid(_ property: XProperty?) -> Result<Int64, X11Properties.Problem> {
            Result { () throws(X11Properties.Problem) in try X11Properties.pid(fromNetWMPID: property) }
        }
        #expect(pid(Self.cardinal(4242, type: .cardinal)) == .success(4242))
        #expect(pid(Self.cardinal(UInt32(Int32.max), type: .cardinal)) == .success(Int64(Int32.max)))
        #expect(pid(Self.cardinal(0, type: .cardinal)) == .failure(.pidOutOfRange(0)))
        #expect(pid(Self.cardinal(UInt32(Int32.max) + 1, type: .cardinal)) == .failure(.pidOutOfRange(UInt32(Int32.max) + 1)))
        #expect(pid(Self.cardinal(4242, type: .string)) == .failure(.wrongType(format: 32, bytes: 4)))
        #expect(pid(XProperty(type: .cardinal, format: 32, bytes: [1, 0], truncated: false))
                == .failure(.wrongType(format: 32, bytes: 2)))
        #expect(pid(nil) == .failure(.absent))
    }

    @Test("_NET_ACTIVE_WINDOW: a window, or none for 0, a missing property or a malformed one")
    func activeWindow() {
        #expect(X11Properties.activeWindow(from: Self.cardinal(0x60000c, type: .window)) == XWindow(rawValue: 0x60000c))
        #expect(X11Properties.activeWindow(from: Self.cardinal(0, type: .window)) == .none)
        #expect(X11Properties.activeWindow(from: nil) == .none)
        #expect(X11Properties.activeWindow(from: Self.cardinal(0x60000c, type: .cardinal)) == .none)
        #expect(XWindow(rawValue: 0x60000c).description == "0x60000c")
    }
}
