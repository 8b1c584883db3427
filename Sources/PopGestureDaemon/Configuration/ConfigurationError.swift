import PopGestureProtocol

/// Why a configuration was refused. The description names where: the file and
/// line, or the command line, and the key, e.g.
/// `/etc/popgestured/popgestured.conf:7: commit-progress: expected a number between 0 and 1, got "lots"`.
/// What the file or the command line said is quoted with ``quoted(_:limit:)``: at most
/// 64 bytes, escaped, so that a 65,000-byte key or a NUL makes a short line of the log.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable codes, so that new ones do not break callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A file named with `--config` does not exist.
        public static let missingFile = Code(rawValue: "missing-file")
        /// The file exists but cannot be read (permissions, an I/O error).
        public static let unreadableFile = Code(rawValue: "unreadable-file")
        /// The path names a directory, a FIFO, a device or a socket: only a regular
        /// file is read, so `/dev/zero` cannot fill memory nor a FIFO block the start.
        public static let notRegularFile = Code(rawValue: "not-regular-file")
        /// The file has more than `ConfigurationFile.maximumSize` (64 KiB) bytes.
        public static let fileTooLarge = Code(rawValue: "file-too-large")
        /// A line is not UTF-8; the error names the first such line.
        public static let invalidUTF8 = Code(rawValue: "invalid-utf8")
        /// A line that is not blank, not a comment, and not `key = value`.
        public static let notKeyValue = Code(rawValue: "not-key-value")
        public static let unknownKey = Code(rawValue: "unknown-key")
        public static let duplicateKey = Code(rawValue: "duplicate-key")
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// A `[section]` line naming a section other than `[back-input]`.
        public static let unknownSection = Code(rawValue: "unknown-section")
        /// `[back-input]` a second time.
        public static let duplicateSection = Code(rawValue: "duplicate-section")
        /// An app named twice in `[back-input]`.
        public static let duplicateApp = Code(rawValue: "duplicate-app")
        /// An app id that is too long or holds a space or a control character.
        public static let invalidAppID = Code(rawValue: "invalid-app-id")
        /// More than `BackInputMap.maximumApps` (256) apps in `[back-input]`.
        public static let tooManyApps = Code(rawValue: "too-many-apps")
    }

    /// Where the problem is.
    public enum Origin: Hashable, Sendable {
        /// A file; the line is nil when the whole file is the problem.
        case file(path: String, line: Int?)
        /// A command-line override.
        case commandLine
    }

    public var code: Code
    public var origin: Origin
    /// The key concerned, when there is one, as written: an unknown key or an app id
    /// may be anything the file held. ``description`` shows it with ``quotedIfNeeded(_:limit:)``.
    public var key: String?
    public var message: String

    public init(_ code: Code, origin: Origin, key: String? = nil, _ message: String) {
        self.code = code
        self.origin = origin
        self.key = key
        self.message = message
    }

    /// The file's path, nil for a command-line override.
    public var path: String? {
        if case .file(let path, _) = origin { path } else { nil }
    }

    /// The 1-based line number, when one line is at fault.
    public var line: Int? {
        if case .file(_, let line) = origin { line } else { nil }
    }

    public var description: String {
        var text: String
        switch origin {
        case .file(let path, let line?): text = "\(path):\(line): "
        case .file(let path, nil): text = "\(path): "
        case .commandLine: text = "command line: "
        }
        if let key {
            // On the command line, the flag as typed: `--edge-width`, not the file's `edge-width-mm`.
            let shown = quotedIfNeeded(key)
            text += origin == .commandLine ? "--\(Configuration.Key(rawValue: key)?.flag ?? shown): " : "\(shown): "
        }
        return text + message
    }
}
