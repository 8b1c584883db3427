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
