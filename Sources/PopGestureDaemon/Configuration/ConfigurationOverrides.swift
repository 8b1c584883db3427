/// Values from the command line, which beat the file's: each key's text as the flag
/// gave it. The text goes through the key's own parser and checks, the file's, so a
/// flag is parsed once and refused with the file's words
/// (`command line: --commit-progress: …`).
public struct ConfigurationOverrides: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    private var texts: [Configuration.Key: String] = [:]

    public init() {}

    public init(dictionaryLiteral elements: (Configuration.Key, String)...) {
        for (key, text) in elements { texts[key] = text }
    }

    /// A key's text, nil when the command line leaves the file's value (or the default).
    public subscript(key: Configuration.Key) -> String? {
        get { texts[key] }
        set { texts[key] = newValue }
    }

    /// The overrides that are set, in the table's order, so the first error is always the same one.
    var assignments: [(Configuration.Key, String)] {
        Configuration.Key.allCases.compactMap { key in texts[key].map { (key, $0) } }
    }
}
