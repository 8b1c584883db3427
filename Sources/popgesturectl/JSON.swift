import PopGestureProtocol

/// One JSON value, as the daemon's lines and a session's page objects carry them: the
/// protocol's own codec (PopGestureProtocol), which links no engine and no Foundation.
///
/// Objects keep their key order (the daemon writes `"type"` first, and a page object is
/// passed on as the user wrote it), numbers that are not Int64 integers keep their text,
/// and a bad line is a thrown `JSONError`, never a crash.
typealias JSON = JSONValue
