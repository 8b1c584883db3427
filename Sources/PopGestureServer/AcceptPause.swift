#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// Stops the listener from polling while `accept` cannot succeed, then resumes.
///
/// NIO's `AcceptBackoffHandler` delays the next `read`, but when the first `accept` of
/// a wakeup fails, NIO leaves the listener registered for readability, and a connection
/// waiting in the backlog wakes the loop again at once: measured, 45 % of a core under
/// `EMFILE`. This handler, after it in the pipeline, turns `autoRead` off for
/// ``SocketServer/acceptBackoff`` (which unregisters the listener) and back on after,
/// so the loop sleeps until then. Lives on the listener's loop.
final class AcceptPause: ChannelInboundHandler {
    typealias InboundIn = any Channel

    private var paused = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, Self.isTransient(error), !paused else {
            context.fireErrorCaught(error)
            return
        }
        paused = true
        let channel = context.channel
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        context.eventLoop.assumeIsolated().scheduleTask(in: SocketServer.acceptBackoff) { [self] in
            paused = false
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }
    }

    /// The errors after which accepting can succeed later: out of descriptors or memory.
    static func isTransient(_ error: IOError) -> Bool {
        [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode)
    }
}
