import PopGestureProtocol
@testable import popgesturectl
import Testing

/// The `popgesturectl session` line parser and the requests it sends.
@Suite struct PopGestureCtlSessionTests {
    static func page(_ id: String) -> ClientRequest.Page { ClientRequest.Page(id: id) }

    static func parse(_ line: String) throws -> SessionCommand? { try SessionCommand.parse(line) }

    static func error(_ line: String) -> String? {
        do {
            _ = try SessionCommand.parse(line)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("every command, with the command line's words")
    func commands() throws {
        #expect(try Self.parse("create main home detail") == .create(
            navigator: "main", pages: [Self.page("home"), Self.page("detail")], layout: nil))
        #expect(try Self.parse("create main home --layout rtl") == .create(
            navigator: "main", pages: [Self.page("home")], layout: .rightToLeft))
        #expect(try Self.parse("create main --layout=ltr home") == .create(
            navigator: "main", pages: [Self.page("home")], layout: .leftToRight))
        #expect(try Self.parse("push main detail") == .push(navigator: "main", page: Self.page("detail"), animated: false))
        #expect(try Self.parse("push --animated main detail") == .push(navigator: "main", page: Self.page("detail"), animated: true))
        #expect(try Self.parse("pop main --animated") == .pop(navigator: "main", animated: true))
        #expect(try Self.parse("replace main a b --animated") == .replace(
            navigator: "main", pages: [Self.page("a"), Self.page("b")], animated: true))
        #expect(try Self.parse("front main") == .front(navigator: "main"))
        #expect(try Self.parse("settle main") == .settle(navigator: "main"))
        #expect(try Self.parse("remove main") == .remove(navigator: "main"))
        #expect(try Self.parse("stack main") == .stack(navigator: "main"))
        #expect(try Self.parse("status") == .status)
        #expect(try Self.parse("subscribe") == .subscribe)
        #expect(try Self.parse("unsubscribe") == .unsubscribe)
        #expect(try Self.parse("focus") == .focus(true))
        #expect(try Self.parse("unfocus") == .focus(false))
        #expect(SessionCommand.focus(false).request == .focus(focused: false))
        #expect(try Self.parse("wait back") == .wait(event: "back", navigator: nil, timeout: nil))
        #expect(try Self.parse("wait back main --timeout 2.5") == .wait(
            event: "back", navigator: "main", timeout: .milliseconds(2500)))
        #expect(try Self.parse("sleep 0.25") == .sleep(.milliseconds(250)))
    }

    @Test("blank lines and comments are skipped; blanks around words do not matter")
    func blanks() throws {
        #expect(try Self.parse("") == nil)
        #expect(try Self.parse("   \t ") == nil)
        #expect(try Self.parse("# create main a b") == nil)
        #expect(try Self.parse("  pop   main  # the back button") == .pop(navigator: "main", animated: false))
    }

    @Test("quotes keep blanks and a leading -- inside one page id")
    func quoting() throws {
        #expect(try Self.parse("push main 'my page'") == .push(navigator: "main", page: Self.page("my page"), animated: false))
        #expect(try Self.parse(#"push main "say \"hi\"""#) == .push(navigator: "main", page: Self.page(#"say "hi""#), animated: false))
        #expect(try Self.parse("push main '--animated'") == .push(navigator: "main", page: Self.page("--animated"), animated: false))
        // '#' starts a comment only at a word's start.
        #expect(try Self.parse("push main a#1") == .push(navigator: "main", page: Self.page("a#1"), animated: false))
    }

    @Test("a JSON page object is read as a request's page, blanks and all")
    func jsonPage() throws {
        let command = try #require(try Self.parse(
            #"push main {"id": "editor", "popDisabled": true, "exclusionZones": [[0, 0, 0.1, 1]]} --animated"#))
        guard case .push(let navigator, let page, let animated) = command else {
            Issue.record("not a push: \(command)")
            return
        }
        #expect(navigator == "main" && animated)
        #expect(page == ClientRequest.Page(
            id: "editor", popDisabled: true, exclusionZones: [ClientRequest.Zone(x: 0, y: 0, width: 0.1, height: 1)]))
        #expect(RequestCodec.encodePage(page).text == #"{"id":"editor","popDisabled":true,"exclusionZones":[[0,0,0.1,1]]}"#)
        // Braces inside strings do not end the object.
        #expect(try Self.parse(#"push main {"id":"}{"}"#) == .push(navigator: "main", page: Self.page("}{"), animated: false))
    }

    @Test("the requests on the wire: type first, optional fields only when set")
    func requests() throws {
        #expect(try Self.parse("create main home detail --layout rtl")?.request.map { RequestCodec.encode(IdentifiedRequest($0)) }
            == #"{"type":"create","navigator":"main","pages":[{"id":"home"},{"id":"detail"}],"layout":"rtl"}"#)
        #expect(try Self.parse("push main detail")?.request.map { RequestCodec.encode(IdentifiedRequest($0)) }
            == #"{"type":"push","navigator":"main","page":{"id":"detail"}}"#)
        #expect(try Self.parse("pop main --animated")?.request.map { RequestCodec.encode(IdentifiedRequest($0)) }
            == #"{"type":"pop","navigator":"main","animated":true}"#)
        #expect(try Self.parse("stack main")?.request.map { RequestCodec.encode(IdentifiedRequest($0)) } == #"{"type":"stack","navigator":"main"}"#)
        #expect(try Self.parse("status")?.request.map { RequestCodec.encode(IdentifiedRequest($0)) } == #"{"type":"status"}"#)
        #expect(try Self.parse("push main 'a \"b\"'")?.request.map { RequestCodec.encode(IdentifiedRequest($0)) }
            == #"{"type":"push","navigator":"main","page":{"id":"a \"b\""}}"#)
        #expect(try Self.parse("wait back")?.request == nil)
        #expect(try Self.parse("sleep 1")?.request == nil)
    }

    @Test("mistakes are named, never guessed", arguments: [
        ("bogus main", "unknown command bogus"),
        ("create main", "usage: create NAV PAGE..."),
        ("create", "usage: create NAV PAGE..."),
        ("create main a --layout up", "--layout is ltr or rtl"),
        ("create main a --layout", "--layout needs a value"),
        ("push main", "usage: push NAV PAGE"),
        ("push main a b", "usage: push NAV PAGE"),
        ("push main a --fast", "unknown option --fast"),
        ("pop", "usage: pop NAV"),
        ("pop main extra", "usage: pop NAV"),
        ("status now", "usage: status"),
        ("wait", "usage: wait EVENT"),
        ("wait backs", "no event called backs"),
        ("wait rejected main", "rejected belongs to no navigator"),
        ("wait back-input main", "back-input belongs to no navigator"),
        ("wait back --timeout soon", "not a number of seconds"),
        ("sleep", "usage: sleep SECONDS"),
        ("sleep -1", "not a number of seconds"),
        ("sleep nan", "not a number of seconds"),
        ("push main 'detail", "unterminated '"),
        (#"push main "detail"#, "unterminated \""),
        (#"push main {"id":"x""#, "unterminated JSON object"),
        (#"push main {"idx":"x"}"#, #"missing-field: "page.id" is required"#),
        (#"push main {"id":"x","popDisabled":1}"#, #"invalid-field: "page.popDisabled" must be true or false"#),
        (#"push main {"id":}"#, "is not JSON"),
        (#"push {"id":"x"} detail"#, "usage: push NAV PAGE"),
    ])
    func mistakes(line: String, message: String) {
        let error = Self.error(line)
        #expect(error?.contains(message) == true, "\(line) → \(error ?? "no error")")
    }

    @Test("the socket: --socket, else $POPGESTURED_SOCKET when set, else the default")
    func socketPath() {
        #expect(SocketOptions.resolve(option: "/tmp/a.sock", environment: "/tmp/b.sock") == "/tmp/a.sock")
        #expect(SocketOptions.resolve(option: nil, environment: "/tmp/b.sock") == "/tmp/b.sock")
        #expect(SocketOptions.resolve(option: nil, environment: "") == "/run/popgestured/popgestured.sock")
        #expect(SocketOptions.resolve(option: nil, environment: nil) == "/run/popgestured/popgestured.sock")
    }
}
