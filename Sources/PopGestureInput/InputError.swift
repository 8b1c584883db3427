/// An error from the input layer, with a stable code and a message for the log.
public struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let outOfMemory = Code(rawValue: "out-of-memory")
        public static let converterSetup = Code(rawValue: "converter-setup")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
