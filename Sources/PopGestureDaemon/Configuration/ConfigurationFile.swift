import PopGestureCore
import PopGestureProtocol
import SystemPackage

/// The text of a configuration file: one `key = value` per line, then optionally
/// the one section, `[back-input]`, whose lines are `app-id = input`.
///
/// Blank lines and lines whose first non-blank character is `#` are ignored.
/// Comments only take whole lines, as in systemd's and sysctl's files, so a value
/// may hold a `#`. Spaces around the key and the value are trimmed. There is no
/// quoting. Unknown keys and sections, a key, section or app set twice, and any
/// other line are errors naming the file and line. Every line after a section's
/// header belongs to the section.
public struct ConfigurationFile: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var key: Configuration.Key
        /// The text after `=`, trimmed.
        public var value: String
        /// 1-based.
        public var line: Int
    }

    /// A line of the `[back-input]` section: which input an app gets.
    public struct AppEntry: Sendable, Hashable {
        /// The app id (Wayland's `app_id`, X11's `WM_CLASS` class), as written.
        public var app: String
        /// The text after `=`, trimmed: an input's names, or `none`.
        public var value: String
        /// 1-based.
        public var line: Int
    }

    /// The sections a file may have.
    public enum Section: String, Sendable, Hashable, CaseIterable {
        /// `app-id = input`: the per-app overrides of `back-input`.
        case backInput = "back-input"

        /// How errors name a line of the section: `[back-input] firefox`.
        public func key(_ name: String) -> String { "[\(rawValue)] \(name)" }
    }

    /// An app id has at most 256 bytes, as the protocol's `hello` allows for `app`
    /// (`ProtocolLimits.maximumIdentifierBytes`).
    public static let maximumAppIDBytes = 256

    public let path: String
    /// In file order, each key at most once.
    public private(set) var entries: [Entry] = []
    /// The `[back-input]` section in file order, each app at most once and at most
    /// `BackInputMap.maximumApps` of them; nil when the file has no such section.
    public private(set) var backInputApps: [AppEntry]?

    public init(parsing text: String, path: String) throws(ConfigurationError) {
        self.path = path
        var firstLine: [Configuration.Key: Int] = [:]
        var sectionLine: [Section: Int] = [:]
        var appLine: [String: Int] = [:]
        var section: Section?
        // By Character: "\r\n" is one Character, so splitting on "\n" would miss it.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.trimmed
            if line.isEmpty || line.first == "#" { continue }
            func error(_ code: ConfigurationError.Code, key: String?, _ message: String) -> ConfigurationError {
                ConfigurationError(code, origin: .file(path: path, line: number), key: key, message)
            }
            if line.first == "[" {
                let name = String(line.dropFirst().prefix { $0 != "]" }.trimmed)
                guard line.last == "]", let found = Section(rawValue: name) else {
                    let known = Section.allCases.map { "[\($0.rawValue)]" }.joined(separator: ", ")
                    throw error(.unknownSection, key: nil, "unknown section \(quoted(line)); the only one is \(known)")
                }
                if let first = sectionLine[found] {
                    throw error(.duplicateSection, key: nil, "section [\(name)] again; first on line \(first)")
                }
                sectionLine[found] = number
                section = found
                backInputApps = []
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                let word = line.prefix { !$0.isWhitespace }
                throw error(.notKeyValue, key: String(word), "expected \"key = value\", got \(quoted(line))")
            }
            let name = String(line[..<equals].trimmed)
            guard !name.isEmpty else {
                throw error(.notKeyValue, key: nil, "expected \"key = value\", got \(quoted(line))")
            }
            let value = String(line[line.index(after: equals)...].trimmed)
            if let section {
                let app = section.key(name)
                if let problem = Self.appIDProblem(name) { throw error(.invalidAppID, key: app, problem) }
                if let first = appLine[name] {
                    throw error(.duplicateApp, key: app, "set again; first set on line \(first)")
                }
                guard appLine.count < BackInputMap.maximumApps else {
                    throw error(
                        .tooManyApps, key: app, "[\(section.rawValue)] may name at most \(BackInputMap.maximumApps) apps")
                }
                appLine[name] = number
                backInputApps?.append(AppEntry(app: name, value: value, line: number))
                continue
            }
            guard let key = Configuration.Key(rawValue: name) else {
                throw error(.unknownKey, key: name, "unknown key\(Self.suggestion(for: name))")
            }
            if let first = firstLine[key] {
                throw error(.duplicateKey, key: name, "set again; first set on line \(first)")
            }
            firstLine[key] = number
            entries.append(Entry(key: key, value: value, line: number))
        }
    }

    /// Why `name` is no app id, or nil when it is one: at most ``maximumAppIDBytes``
    /// bytes, no control characters and no spaces (app ids are reverse-DNS names or
    /// WM_CLASS words; a space is a typo such as a missing `=`).
    static func appIDProblem(_ name: String) -> String? {
        if name.utf8.count > maximumAppIDBytes {
            return "an app id has at most \(maximumAppIDBytes) bytes; this one has \(name.utf8.count)"
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.isWhitespace }) {
            return "an app id has no spaces or control characters, got \(quoted(name))"
        }
        return nil
    }

    /// A configuration file may hold this many bytes: 64 KiB. Every key set with a
    /// comment each fits in under 2 KiB; a larger file is a mistake (`--config` naming
    /// a log or an image), and reading it whole would cost memory for nothing.
    public static let maximumSize = 64 * 1024

    /// Reads and parses a file. Returns nil when it does not exist and is not
    /// `required` (the default file is optional; one named on the command line is not).
    ///
    /// Only a regular file of at most ``maximumSize`` bytes is read: `/dev/zero`,
    /// a FIFO or a directory is refused before a byte is read, and at most
    /// ``maximumSize`` + 1 bytes are ever read, so a file that grows meanwhile is
    /// refused too. Its text must be UTF-8.
    public static func read(_ path: String, required: Bool) throws(ConfigurationError) -> ConfigurationFile? {
        let bytes: [UInt8]
        do {
            bytes = try readBounded(path)
        } catch .system(let errno) where errno == .noSuchFileOrDirectory && !required {
            return nil
        } catch {
            throw error.configurationError(path: path)
        }
        return try ConfigurationFile(bytes: bytes, path: path)
    }

    /// Parses a file's bytes, which must be UTF-8: the first line that is not
    /// is an `invalid-utf8` error naming that line.
    public init(bytes: [UInt8], path: String) throws(ConfigurationError) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(
                .invalidUTF8, origin: .file(path: path, line: Self.firstInvalidLine(bytes)), "not valid UTF-8")
        }
        try self.init(parsing: text, path: path)
    }

    /// The 1-based number of the first line that is not UTF-8, counted as
    /// ``init(parsing:path:)`` counts lines. A `\n` byte is never inside a
    /// multi-byte sequence, so the lines before it decode on their own.
    static func firstInvalidLine(_ bytes: [UInt8]) -> Int? {
        var lineStart = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if String(validating: line, as: UTF8.self) == nil {
                let before = String(decoding: bytes[..<lineStart], as: UTF8.self)
                return before.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count
            }
            lineStart += line.count + 1
        }
        return nil
    }

    enum ReadError: Error {
        case system(Errno)
        /// What it is instead: "a directory", "a FIFO", …
        case notRegular(String)
        /// The size `fstat` gave, or nil when the file grew past the limit while read.
        case tooLarge(Int?)

        func configurationError(path: String) -> ConfigurationError {
            let origin = ConfigurationError.Origin.file(path: path, line: nil)
            switch self {
            case .system(.noSuchFileOrDirectory):
                return ConfigurationError(.missingFile, origin: origin, "no such file")
            case .system(let errno):
                return ConfigurationError(.unreadableFile, origin: origin, "cannot read: \(errno)")
            case .notRegular(let kind):
                return ConfigurationError(.notRegularFile, origin: origin, "not a regular file but \(kind)")
            case .tooLarge(let size):
                let measured = size.map { "\($0) bytes" } ?? "more than that"
                return ConfigurationError(
                    .fileTooLarge, origin: origin,
                    "a configuration file may have at most \(ConfigurationFile.maximumSize) bytes; this one has \(measured)")
            }
        }
    }

    /// The file's bytes, read with the checks ``read(_:required:)`` promises.
    private static func readBounded(_ path: String) throws(ReadError) -> [UInt8] {
        // stat first, so that a device node is never even opened (opening some has effects).
        try checkRegular(status { () throws(Errno) in try FilePath(path).stat() })
        let fd: FileDescriptor
        do {
            // O_NONBLOCK: a FIFO put there since the stat must not block the open.
            fd = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec, .nonBlocking])
        } catch {
            throw .system(error as? Errno ?? .ioError)
        }
        defer { try? fd.close() }
        // fstat, on what was opened, is the check that counts.
        try checkRegular(status { () throws(Errno) in try fd.stat() })
        // One byte more than allowed tells a file that grew past the limit from one at it.
        var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
        var count = 0
        do {
            while count < bytes.count {
                let read = try bytes[count...].withUnsafeMutableBytes { try fd.read(into: $0) }
                if read == 0 { break }
                count += read
            }
        } catch {
            throw .system(error as? Errno ?? .ioError)
        }
        guard count <= maximumSize else { throw .tooLarge(nil) }
        return Array(bytes[..<count])
    }

    private static func status(_ stat: () throws(Errno) -> Stat) throws(ReadError) -> Stat {
        do {
            return try stat()
        } catch {
            throw .system(error)
        }
    }

    private static func checkRegular(_ status: Stat) throws(ReadError) {
        let type = status.type
        guard type == .regular else {
            let kind = switch type {
            case .directory: "a directory"
            case .fifo: "a FIFO"
            case .characterSpecial: "a character device"
            case .blockSpecial: "a block device"
            case .socket: "a socket"
            default: "of file type \(String(type.rawValue, radix: 8))"
            }
            throw .notRegular(kind)
        }
        guard status.size <= maximumSize else { throw .tooLarge(Int(status.size)) }
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
