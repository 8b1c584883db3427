import SystemPackage

/// An error from the input layer, with a stable code and a message for the log.
public struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let outOfMemory = Code(rawValue: "out-of-memory")
        public static let converterSetup = Code(rawValue: "converter-setup")
        /// `open(2)` failed: missing node, no permission (the daemon needs the `input` group).
        public static let openFailed = Code(rawValue: "open-failed")
        /// The path opened, but it is not an evdev node (libevdev's ioctls failed).
        public static let notEvdev = Code(rawValue: "not-evdev")
        /// The device was unplugged (`ENODEV`): close it; udev reports the removal too.
        public static let deviceGone = Code(rawValue: "device-gone")
        /// Reading failed for another reason; the device cannot be trusted any more.
        public static let readFailed = Code(rawValue: "read-failed")
        /// The device's description makes no sense (an empty or inverted axis range): the
        /// device is refused. The message says which axis.
        public static let invalidDescription = Code(rawValue: "invalid-description")
        /// libudev could not be set up.
        public static let udev = Code(rawValue: "udev")
        /// A loop's own descriptors (signalfd, timerfd, wake pipe) could not be set up.
        public static let loopSetup = Code(rawValue: "loop-setup")
        /// The back input device could not be created (no `/dev/uinput`, no permission)
        /// or written to. The message says the cause and the fix.
        public static let uinput = Code(rawValue: "uinput")
        /// A back input names a key the back input device was not created with.
        public static let undeclaredCode = Code(rawValue: "undeclared-code")
        /// Events given to a touch clone are no frame: too many, or not ending with
        /// `SYN_REPORT`. Nothing was written.
        public static let invalidFrame = Code(rawValue: "invalid-frame")
        /// `EVIOCGRAB` failed: another process holds the device (`EBUSY`), or the
        /// kernel refused.
        public static let grabFailed = Code(rawValue: "grab-failed")
    }

    public var code: Code
    public var message: String
    /// The system error behind it, when there is one.
    public var errno: Errno?

    public init(_ code: Code, _ message: String, errno: Errno? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String { message }
}
