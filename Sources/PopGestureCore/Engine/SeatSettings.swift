/// The settings a seat's active user set for that seat (`user-settings`, issue 32): in
/// force there instead of the system file's, while that user is active.
///
/// The daemon makes them from the user's text over the system's settings, so they are
/// whole settings, not a difference; ``keys`` says which ones the user set, for `status`.
/// ``text`` is kept so that a reload of the system file can make them again over the
/// new values.
public struct SeatSettings: Sendable, Hashable {
    /// The settings in force on the seat.
    public var settings: GestureSettings
    /// The user's own keys, as the file names them (`edge-width-mm`, `[back-input] foot`),
    /// in the order the text has them.
    public var keys: [String]
    /// The user's text, as sent.
    public var text: String
    /// Whose they are: the uid of the client that sent them (nil: a transport without
    /// credentials, tests). Gone when that user is no longer active on the seat.
    public var uid: UInt32?

    public init(settings: GestureSettings, keys: [String], text: String, uid: UInt32?) {
        self.settings = settings
        self.keys = keys
        self.text = text
        self.uid = uid
    }
}
