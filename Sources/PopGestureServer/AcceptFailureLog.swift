import Logging
import NIOCore

/// The listener's `accept` failures, for `AcceptBackoffHandler`: each one backs off for
/// ``SocketServer/acceptBackoff``, and one log line is written per episode (failures no
/// more than ``episodeGap`` apart), with the count of the previous episode when a new
/// one starts. Lives on the listener's loop.
final class AcceptFailureLog {
    /// Failures closer together than this belong to one episode: the backoff plus slack.
    static let episodeGap = SocketServer.acceptBackoff + .seconds(5)

    private let logger: Logger
    private var lastFailure: NIODeadline?
    /// Failures in the current episode, the first (logged) included.
    private(set) var failuresInEpisode = 0

    init(logger: Logger) {
        self.logger = logger
    }

    /// Called by the handler for each failed `accept`; returns the backoff.
    func backoff(after error: IOError, at now: NIODeadline = .now()) -> TimeAmount? {
        defer { lastFailure = now }
        if let last = lastFailure, now - last <= Self.episodeGap {
            failuresInEpisode += 1
            return SocketServer.acceptBackoff
        }
        let previous = failuresInEpisode > 1 ? " (the previous episode had \(failuresInEpisode) failures)" : ""
        failuresInEpisode = 1
        logger.error(
            "accept failed: \(error); accepting again every \(SocketServer.acceptBackoff) while it fails\(previous)")
        return SocketServer.acceptBackoff
    }
}
