import PopGestureProtocol

/// One line of a `popgesturectl session` script, parsed.
///
/// The words are the command line's: `push main detail --animated`. A page is an id,
/// or a JSON page object written in place (`{"id":"settings","popDisabled":true}`),
/// read by the protocol's own decoder, so a mistake in it is named before it is sent.
enum SessionCommand: Equatable {
    typealias Page = ClientRequest.Page

    case create(navigator: String, pages: [Page], layout: ClientRequest.Layout?)
    case push(navigator: String, page: Page, animated: Bool)
    case pop(navigator: String, animated: Bool)
    case replace(navigator: String, pages: [Page], animated: Bool)
    case update(navigator: String, page: Page)
    case settle(navigator: String)
    case front(navigator: String)
    case remove(navigator: String)
    case stack(navigator: String)
    case status
    case subscribe
    case unsubscribe
    /// The app's window gained (`focus`) or lost (`unfocus`) focus.
    case focus(Bool)
    /// Until an event of this type (for this navigator, when given) that no earlier
    /// `wait` returned has arrived.
    case wait(event: String, navigator: String?, timeout: Duration?)
    case sleep(Duration)

    /// The usage of every command, for errors and `--help`.
    static let usage = """
        create NAV PAGE... [--layout ltr|rtl]  own a new navigator, in front
        push NAV PAGE [--animated]
        pop NAV [--animated]
        replace NAV PAGE... [--animated]
        update NAV PAGE                        PAGE: a JSON object, new properties
        settle NAV                             the push or pop animation is done
        front NAV
        remove NAV
        stack NAV                              the pages, bottom first
        status
        subscribe | unsubscribe                every event, incl. rejected pans
        focus | unfocus                        this app's window gained or lost focus
        wait EVENT [NAV] [--timeout SECONDS]   e.g. wait back (see below)
        sleep SECONDS                          events are printed meanwhile
        # a comment
        """

    /// The event types `wait` accepts; a typo must not wait forever.
    static let eventTypes = ServerEvent.Kind.allCases.map(\.rawValue)
    /// The events about no navigator, which observers alone receive.
    static let observerOnlyEvents: Set<String> = Set(
        [ServerEvent.Kind.rejected, .refused, .inputBegan, .inputProgress, .inputCancelled, .backInput, .focusChanged,
         .screenChanged].map(\.rawValue))

    /// Parses one line; nil for a blank line or a comment.
    static func parse(_ line: String) throws(SessionSyntaxError) -> SessionCommand? {
        var words = try SessionWords.split(line)
        guard !words.isEmpty else { return nil }
        let name = words.removeFirst().text
        var arguments = Arguments(command: name, words: words)

        switch name {
        case "create":
            let layout = try arguments.value("--layout").map { text throws(SessionSyntaxError) in
                guard let layout = ClientRequest.Layout(rawValue: text) else {
                    throw SessionSyntaxError("create: --layout is ltr or rtl, not \(text)")
                }
                return layout
            }
            let (navigator, pages) = try arguments.navigatorAndPages(atLeast: 1, usage: "create NAV PAGE...")
            return .create(navigator: navigator, pages: pages, layout: layout)
        case "push":
            let animated = arguments.flag("--animated")
            let (navigator, pages) = try arguments.navigatorAndPages(exactly: 1, usage: "push NAV PAGE [--animated]")
            return .push(navigator: navigator, page: pages[0], animated: animated)
        case "pop":
            let animated = arguments.flag("--animated")
            return .pop(navigator: try arguments.navigatorOnly(usage: "pop NAV [--animated]"), animated: animated)
        case "replace":
            let animated = arguments.flag("--animated")
            let (navigator, pages) = try arguments.navigatorAndPages(atLeast: 1, usage: "replace NAV PAGE... [--animated]")
            return .replace(navigator: navigator, pages: pages, animated: animated)
        case "update":
            let (navigator, pages) = try arguments.navigatorAndPages(exactly: 1, usage: "update NAV PAGE")
            return .update(navigator: navigator, page: pages[0])
        case "settle": return .settle(navigator: try arguments.navigatorOnly(usage: "settle NAV"))
        case "front": return .front(navigator: try arguments.navigatorOnly(usage: "front NAV"))
        case "remove": return .remove(navigator: try arguments.navigatorOnly(usage: "remove NAV"))
        case "stack": return .stack(navigator: try arguments.navigatorOnly(usage: "stack NAV"))
        case "focus", "unfocus":
            try arguments.finish(usage: name)
            return .focus(name == "focus")
        case "status", "subscribe", "unsubscribe":
            try arguments.finish(usage: name)
            return name == "status" ? .status : name == "subscribe" ? .subscribe : .unsubscribe
        case "wait":
            let usage = "wait EVENT [NAV] [--timeout SECONDS]"
            let timeout = try arguments.value("--timeout").map { text throws(SessionSyntaxError) in
                try Self.duration(text, for: "wait --timeout")
            }
            let positionals = try arguments.positionals(usage: usage)
            guard (1...2).contains(positionals.count) else { throw SessionSyntaxError("usage: \(usage)") }
            let event = positionals[0].text
            guard eventTypes.contains(event) else {
                throw SessionSyntaxError("wait: no event called \(event); one of \(eventTypes.joined(separator: ", "))")
            }
            let navigator = positionals.count == 2 ? positionals[1].text : nil
            if navigator != nil, Self.observerOnlyEvents.contains(event) {
                throw SessionSyntaxError("wait: \(event) belongs to no navigator")
            }
            return .wait(event: event, navigator: navigator, timeout: timeout)
        case "sleep":
            let positionals = try arguments.positionals(usage: "sleep SECONDS")
            guard positionals.count == 1 else { throw SessionSyntaxError("usage: sleep SECONDS") }
            return .sleep(try Self.duration(positionals[0].text, for: "sleep"))
        default:
            throw SessionSyntaxError("unknown command \(name) (popgesturectl session --help lists them)")
        }
    }

    /// Seconds, fractions allowed, up to a day.
    static func duration(_ text: String, for command: String) throws(SessionSyntaxError) -> Duration {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw SessionSyntaxError("\(command): \(text) is not a number of seconds (0 to 86400)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The request to send, or nil for the commands the session carries out itself.
    var request: ClientRequest? {
        switch self {
        case .create(let navigator, let pages, let layout):
            .create(navigator: navigator, pages: pages, layout: layout, barFollowsTopPage: true)
        case .push(let navigator, let page, let animated): .push(navigator: navigator, page: page, animated: animated)
        case .pop(let navigator, let animated): .pop(navigator: navigator, animated: animated)
        case .replace(let navigator, let pages, let animated):
            .replace(navigator: navigator, pages: pages, animated: animated)
        case .update(let navigator, let page): .update(navigator: navigator, page: page)
        case .settle(let navigator): .settle(navigator: navigator)
        case .front(let navigator): .front(navigator: navigator)
        case .remove(let navigator): .remove(navigator: navigator)
        case .stack(let navigator): .stack(navigator: navigator)
        case .status: .status
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .focus(let focused): .focus(focused: focused)
        case .wait, .sleep: nil
        }
    }

    /// A page word: an id, or a JSON page object, which must be one the daemon takes.
    static func page(_ word: SessionWords.Word) throws(SessionSyntaxError) -> Page {
        guard word.isJSON else { return Page(id: word.text) }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: word.text)
        } catch {
            throw SessionSyntaxError("page \(word.text) is not JSON: \(error)")
        }
        do {
            return try RequestCodec.decodePage(value)
        } catch {
            throw SessionSyntaxError("page \(word.text): \(error)")
        }
    }
}

/// What is wrong with a session line; the message is printed as is.
struct SessionSyntaxError: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The words after a command's name, consumed option by option.
private struct Arguments {
    let command: String
    var words: [SessionWords.Word]

    /// Removes `--name` and says whether it was there.
    mutating func flag(_ name: String) -> Bool {
        let before = words.count
        words.removeAll { $0.isOption && $0.text == name }
        return words.count < before
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) and returns the value.
    mutating func value(_ name: String) throws(SessionSyntaxError) -> String? {
        for (index, word) in words.enumerated() where word.isOption {
            if word.text.hasPrefix(name + "=") {
                words.remove(at: index)
                return String(word.text.dropFirst(name.count + 1))
            }
            if word.text == name {
                guard index + 1 < words.count else { throw SessionSyntaxError("\(command): \(name) needs a value") }
                let value = words[index + 1].text
                words.removeSubrange(index...index + 1)
                return value
            }
        }
        return nil
    }

    /// What is left, once options are taken; a leftover option is unknown.
    func positionals(usage: String) throws(SessionSyntaxError) -> [SessionWords.Word] {
        if let option = words.first(where: \.isOption) {
            throw SessionSyntaxError("\(command): unknown option \(option.text); usage: \(usage)")
        }
        return words
    }

    func finish(usage: String) throws(SessionSyntaxError) {
        guard try positionals(usage: usage).isEmpty else { throw SessionSyntaxError("usage: \(usage)") }
    }

    func navigatorOnly(usage: String) throws(SessionSyntaxError) -> String {
        let positionals = try positionals(usage: usage)
        guard positionals.count == 1, !positionals[0].isJSON else { throw SessionSyntaxError("usage: \(usage)") }
        return positionals[0].text
    }

    func navigatorAndPages(atLeast minimum: Int = 0, exactly: Int? = nil, usage: String)
        throws(SessionSyntaxError) -> (String, [SessionCommand.Page])
    {
        let positionals = try positionals(usage: usage)
        guard let navigator = positionals.first, !navigator.isJSON else { throw SessionSyntaxError("usage: \(usage)") }
        let pageWords = positionals.dropFirst()
        guard pageWords.count >= minimum, exactly.map({ pageWords.count == $0 }) ?? true else {
            throw SessionSyntaxError("usage: \(usage)")
        }
        var pages: [SessionCommand.Page] = []
        for word in pageWords { pages.append(try SessionCommand.page(word)) }
        return (navigator.text, pages)
    }
}

/// Splits a session line into words, shell-like but small: blanks separate words,
/// `'…'` is literal, `"…"` knows `\"` and `\\`, `#` at a word's start ends the line,
/// and a word starting with `{` runs to its matching `}` so JSON needs no quoting.
enum SessionWords {
    struct Word: Equatable {
        var text: String
        /// Unquoted and starting with `--`.
        var isOption = false
        /// An unquoted `{…}` object.
        var isJSON = false
    }

    static func split(_ line: String) throws(SessionSyntaxError) -> [Word] {
        var words: [Word] = []
        var characters = Array(line)[...]
        while true {
            while let first = characters.first, first.isWhitespace { characters.removeFirst() }
            guard let first = characters.first, first != "#" else { return words }
            if first == "{" {
                words.append(Word(text: try jsonObject(&characters), isJSON: true))
                continue
            }
            var text = ""
            var quoted = false
            while let character = characters.first, !character.isWhitespace {
                characters.removeFirst()
                switch character {
                case "'":
                    quoted = true
                    guard let end = characters.firstIndex(of: "'") else { throw SessionSyntaxError("unterminated '") }
                    text += characters[..<end]
                    characters = characters[(end + 1)...]
                case "\"":
                    quoted = true
                    text += try doubleQuoted(&characters)
                default:
                    text.append(character)
                }
            }
            words.append(Word(text: text, isOption: !quoted && text.hasPrefix("--")))
        }
    }

    /// After an opening `"`: up to the closing one.
    private static func doubleQuoted(_ characters: inout ArraySlice<Character>) throws(SessionSyntaxError) -> String {
        var text = ""
        while let character = characters.popFirst() {
            switch character {
            case "\"": return text
            case "\\":
                guard let next = characters.popFirst() else { break }
                if next != "\"" && next != "\\" { text.append("\\") }
                text.append(next)
            default: text.append(character)
            }
        }
        throw SessionSyntaxError("unterminated \"")
    }

    /// From `{` to the matching `}`, skipping braces inside JSON strings.
    private static func jsonObject(_ characters: inout ArraySlice<Character>) throws(SessionSyntaxError) -> String {
        var text = ""
        var depth = 0
        var inString = false
        var escaped = false
        while let character = characters.popFirst() {
            text.append(character)
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true
            case "{", "[": depth += 1
            case "}", "]":
                depth -= 1
                if depth == 0 { return text }
            default: break
            }
        }
        throw SessionSyntaxError("unterminated JSON object \(text)")
    }
}
