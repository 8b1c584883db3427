import Glibc
import PopGestureBus
import Testing
@testable import popgesturectl

/// What the KWin script and the GNOME Shell extension call on the bridge's object, read
/// without a bus: the calls as sd-bus hands them over.
@Suite struct DesktopReportTests {
    static let compositor = ":1.7"

    static func call(_ member: String, _ arguments: [DBusValue], sender: String = compositor,
                     uid: uid_t? = getuid()) -> DBusCall {
        DBusCall(interface: DesktopReport.interface, member: member, sender: sender, senderUID: uid, arguments: arguments)
    }

    static func read(_ call: DBusCall) -> Result<FocusSourceEvent, DBusError> {
        DesktopReport.read(call, compositor: compositor, uid: getuid())
    }

    static func errorName(_ result: Result<FocusSourceEvent, DBusError>) -> String? {
        if case .failure(let error) = result { error.name } else { nil }
    }

    @Test("the compositor's FocusedWindow is the window; \"\" and 0 are unknown, both no window")
    func focusedWindow() throws {
        #expect(try Self.read(Self.call("FocusedWindow", [.string("org.kde.dolphin"), .integer(4321)])).get()
                    == .focused(FocusedWindow(app: "org.kde.dolphin", pid: 4321)))
        #expect(try Self.read(Self.call("FocusedWindow", [.string(""), .integer(0)])).get() == .focused(.none))
        #expect(try Self.read(Self.call("FocusedWindow", [.string("xterm"), .integer(-1)])).get()
                    == .focused(FocusedWindow(app: "xterm", pid: nil)))
    }

    @Test("KWin 5's resourceClass comes as bytes and a script's number may come as a double")
    func kwin5Values() throws {
        #expect(try Self.read(Self.call("FocusedWindow", [.bytes(Array("XTerm".utf8)), .double(77)])).get()
                    == .focused(FocusedWindow(app: "XTerm", pid: 77)))
        #expect(try Self.read(Self.call("FocusedWindow", [.bytes([0xFF, 0xFE]), .integer(5)])).get()
                    == .focused(FocusedWindow(app: nil, pid: 5)), "bytes that are not UTF-8: app unknown")
        #expect(Self.errorName(Self.read(Self.call("FocusedWindow", [.string("a"), .double(1.5)]))) == DesktopReport.invalidArgs)
    }

    @Test("an app id past 256 bytes, or one sd-bus did not read (past 4 KiB), is unknown; a pid past 2³¹−1 too")
    func bounds() throws {
        let long = String(repeating: "a", count: 257)
        #expect(try Self.read(Self.call("FocusedWindow", [.string(long), .integer(9)])).get()
                    == .focused(FocusedWindow(app: nil, pid: 9)))
        #expect(try Self.read(Self.call("FocusedWindow", [.tooLong, .integer(9)])).get()
                    == .focused(FocusedWindow(app: nil, pid: 9)))
        #expect(try Self.read(Self.call("FocusedWindow", [.string("a"), .integer(Int64(Int32.max) + 1)])).get()
                    == .focused(FocusedWindow(app: "a", pid: nil)))
    }

    @Test("only the compositor's connection, as this user, may call: any other caller is refused")
    func onlyTheCompositor() {
        let stranger = Self.call("FocusedWindow", [.string("evil"), .integer(1)], sender: ":1.99")
        #expect(Self.errorName(Self.read(stranger)) == DesktopReport.accessDenied)
        let otherUser = Self.call("FocusedWindow", [.string("evil"), .integer(1)], uid: getuid() &+ 1)
        #expect(Self.errorName(Self.read(otherUser)) == DesktopReport.accessDenied)
        let unvouched = Self.call("FocusedWindow", [.string("evil"), .integer(1)], uid: nil)
        #expect(Self.errorName(Self.read(unvouched)) == DesktopReport.accessDenied)
        let noCompositor = DesktopReport.read(Self.call("FocusedWindow", [.string("a"), .integer(1)]), compositor: nil, uid: getuid())
        #expect(Self.errorName(noCompositor) == DesktopReport.accessDenied)
    }

    @Test("wl_output transforms 0 to 3 are 0°, 90°, 180° and 270° clockwise; flipped ones are refused",
          arguments: [(0, 0), (1, 90), (2, 180), (3, 270)] as [(Int64, Int64)])
    func transforms(transform: Int64, degrees: Int64) throws {
        let event = try Self.read(Self.call("OutputTransform", [.integer(transform), .string("eDP-1")])).get()
        #expect(event == .rotated(try #require(OutputRotation(degrees: degrees, output: "eDP-1"))))
    }

    @Test("a flipped or unknown transform turns nothing: refused", arguments: [4, 5, 6, 7, 8, -1] as [Int64])
    func flipped(transform: Int64) {
        #expect(Self.errorName(Self.read(Self.call("OutputTransform", [.integer(transform), .string("eDP-1")])))
                    == DesktopReport.invalidArgs)
    }

    @Test("TextDirection takes ltr or rtl, TouchpadScrolling a boolean; a wrong call gets InvalidArgs or UnknownMethod")
    func textDirectionAndMistakes() throws {
        #expect(try Self.read(Self.call("TextDirection", [.string("rtl")])).get() == .textDirection(.rightToLeft))
        #expect(Self.errorName(Self.read(Self.call("TextDirection", [.string("up")]))) == DesktopReport.invalidArgs)
        #expect(try Self.read(Self.call("TouchpadScrolling", [.bool(false)])).get() == .touchpadScrolling(natural: false))
        #expect(Self.errorName(Self.read(Self.call("TouchpadScrolling", [.string("true")]))) == DesktopReport.invalidArgs)
        #expect(Self.errorName(Self.read(Self.call("FocusedWindow", [.string("a")]))) == DesktopReport.invalidArgs)
        #expect(Self.errorName(Self.read(Self.call("Quit", []))) == DesktopReport.unknownMethod)
        var other = Self.call("FocusedWindow", [.string("a"), .integer(1)])
        other.interface = "org.example.Other"
        #expect(Self.errorName(Self.read(other)) == DesktopReport.unknownMethod)
    }
}
