import SystemPackage

/// The text of a configuration file: one `key = value` per line.
///
/// Blank lines and lines whose first non-blank character is `#` are ignored.
/// Comments only take whole lines, as in systemd's and sysctl's files, so a value
/// may hold a `#`. Spaces around the key and the value are trimmed. There are no
/// sections and no quoting. Unknown keys, a key set twice, and any other line are
/// errors naming the file and line.
public struct ConfigurationFile: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var key: Configuration.Key
        /// The text after `=`, trimmed.
        public var value: String
        /// 1-based.
        public var line: Int
    }

    public let path: String
    /// In file order, each key at most once.
    public private(set) var entries: [Entry] = []

    public init(parsing text: String, path: String) throws(ConfigurationError) {
        self.path = path
        var firstLine: [Configuration.Key: Int] = [:]
        // By Character: "\r\n" is one Character, so splitting on "\n" would miss it.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.trimmed
            if line.isEmpty || line.first == "#" { continue }
            func error(_ code: ConfigurationError.Code, key: String?, _ message: String) -> ConfigurationError {
                ConfigurationError(code, origin: .file(path: path, line: number), key: key, message)
            }
            guard let equals = line.firstIndex(of: "=") else {
                let word = line.prefix { !$0.isWhitespace }
                throw error(.notKeyValue, key: String(word), "expected \"key = value\", got \"\(line)\"")
            }
            let name = String(line[..<equals].trimmed)
            guard !name.isEmpty else {
                throw error(.notKeyValue, key: nil, "expected \"key = value\", got \"\(line)\"")
            }
            guard let key = Configuration.Key(rawValue: name) else {
                throw error(.unknownKey, key: name, "unknown key\(Self.suggestion(for: name))")
            }
            if let first = firstLine[key] {
                throw error(.duplicateKey, key: name, "set again; first set on line \(first)")
            }
            firstLine[key] = number
            entries.append(Entry(key: key, value: String(line[line.index(after: equals)...].trimmed), line: number))
        }
    }

    /// Reads and parses a file. Returns nil when it does not exist and is not
    /// `required` (the default file is optional; one named on the command line is not).
    public static func read(_ path: String, required: Bool) throws(ConfigurationError) -> ConfigurationFile? {
        let bytes: [UInt8]
        do {
            bytes = try readAll(path)
        } catch let errno as Errno where errno == .noSuchFileOrDirectory {
            guard required else { return nil }
            throw ConfigurationError(.missingFile, origin: .file(path: path, line: nil), "no such file")
        } catch {
            throw ConfigurationError(.unreadableFile, origin: .file(path: path, line: nil), "cannot read: \(error)")
        }
        return try ConfigurationFile(parsing: String(decoding: bytes, as: UTF8.self), path: path)
    }

    private static func readAll(_ path: String) throws -> [UInt8] {
        let fd = try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec)
        defer { try? fd.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// " (did you mean edge-width-mm?)" for a near miss: snake_case, or a unit left off.
    private static func suggestion(for name: String) -> String {
        let kebab = String(name.lowercased().map { $0 == "_" ? "-" : $0 })
        let match = Configuration.Key.allCases.first { key in
            key.rawValue == kebab || (kebab.count >= 4 && (key.rawValue.hasPrefix(kebab) || kebab.hasPrefix(key.rawValue)))
        }
        return match.map { " (did you mean \($0.rawValue)?)" } ?? ""
    }
}

extension StringProtocol {
    /// Without leading and trailing whitespace (including a Windows `\r`).
    fileprivate var trimmed: SubSequence {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
