import Logging
import PopGestureCore
import SystemPackage

/// The listener's `accept` failures (out of descriptors or memory): each pauses
/// accepting for ``SocketServer/acceptBackoff``, and one log line is written per
/// episode (failures no more than ``episodeGap`` apart), with the count of the previous
/// episode when a new one starts.
final class AcceptFailureLog {
    /// Failures closer together than this belong to one episode: the backoff plus slack.
    static let episodeGap = SocketServer.acceptBackoff + .seconds(5)

    private let logger: Logger
    private var lastFailure: Timestamp?
    /// Failures in the current episode, the first (logged) included.
    private(set) var failuresInEpisode = 0

    init(logger: Logger) {
        self.logger = logger
    }

    /// Called for each failed `accept`, at `now`.
    func failed(_ error: Errno, at now: Timestamp) {
        defer { lastFailure = now }
        if let last = lastFailure, now <= last + Self.episodeGap {
            failuresInEpisode += 1
            return
        }
        let previous = failuresInEpisode > 1 ? " (the previous episode had \(failuresInEpisode) failures)" : ""
        failuresInEpisode = 1
        logger.error(
            "accept failed: \(error) (out of file descriptors or memory); accepting again every \(SocketServer.acceptBackoff) while it fails\(previous)")
    }
}
