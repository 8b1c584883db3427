/// Which protocol a connection speaks, agreed in `hello` (docs/PROTOCOL.md, "Hello").
///
/// The client offers the versions it speaks: `"version":N` offers N alone (every client
/// of version 1 sends it), `"versions":[…]` offers a list and wins over `version`. A
/// client that speaks several sends both, `version` being what a daemon that predates
/// `versions` will read. The daemon answers with the highest version both speak, or
/// `unsupported-version` listing its own in `supported`.
public enum ProtocolVersion {
    /// The versions this module encodes and decodes, lowest first.
    public static let supported: [Int64] = [1]

    /// The highest version in both lists; nil when they share none.
    public static func negotiate(offered: [Int64], supported: [Int64] = supported) -> Int64? {
        offered.filter(supported.contains).max()
    }
}
