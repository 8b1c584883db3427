/// The limits on what one request may contain, shared by the parser, the server and
/// docs/PROTOCOL.md ("Limits"). Each is far above what a real client sends and low
/// enough that no line can cost the daemon more than a small, fixed amount of work.
///
/// The line itself is limited to 64 KiB by the socket layer
/// (`SocketServer.defaultMaximumLineLength`), before any of these apply.
public enum ProtocolLimits {
    /// Arrays and objects nest at most 16 deep (the outer object is level 1); a line
    /// that opens level 17 gets `nesting-too-deep`.
    ///
    /// The deepest request needs 5 (`create` → `pages` → a page → `exclusionZones` → a
    /// zone). The parser recurses once per level, so this also bounds its stack, and
    /// it stops at the bracket that opens level 17 without reading further.
    public static let maximumNestingDepth = 16

    /// Navigator ids, page ids, `hello`'s `name` and a string request `id`: at most 256
    /// bytes of UTF-8 each, else `too-long`.
    ///
    /// Ids are repeated in every event, `stack` and `status` reply and log line, so their
    /// size multiplies; 256 bytes is ample for a reverse-DNS name plus a UUID.
    public static let maximumIdentifierBytes = 256

    /// A `pages` array (`create`, `replace`) holds at most 64 pages, else `too-many`.
    ///
    /// A navigation stack deeper than a few dozen pages is a client bug; 64 bounds the
    /// work and memory of one request and of the navigator it builds.
    public static let maximumPagesPerNavigator = 64

    /// A page has at most 16 exclusion zones, else `too-many`. Each touch is tested
    /// against every zone of the front page, so this bounds that work.
    public static let maximumExclusionZonesPerPage = 16

    /// `hello`'s `versions` offers at most 16 versions, else `too-many`: far more than
    /// a protocol will ever have, and the list is echoed nowhere.
    public static let maximumOfferedVersions = 16

    /// `outputs` lists at most 16 outputs, else `too-many`: more than any seat drives,
    /// and the daemon matches every touchscreen against each.
    public static let maximumOutputs = 16

    /// An output of `outputs` lists at most 16 `inputs`, else `too-many`.
    public static let maximumInputsPerOutput = 16

    /// Client text quoted in an error message (a duplicated key, an unknown type) is cut
    /// to 64 bytes of UTF-8, escapes included, so that an error reply stays small and
    /// one line whatever the line held: ``quoted(_:limit:)``, whose default this is.
    public static let maximumQuotedBytes = 64

    /// The text of `user-settings` has at most 16 KiB of UTF-8, else `too-long`: four
    /// times the shipped system file's table, and far below the line limit.
    public static let maximumUserSettingsBytes = 16 * 1024
}
