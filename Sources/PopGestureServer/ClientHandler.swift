import Logging
import NIOCore
import PopGestureCore

/// One client connection's end of the pipeline: hands its lines and its coming and
/// going to the server, which owns all state. Lives on the server's event loop.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = LineFrame

    private let server: ServerLoop
    private let credentials: PeerCredentials?
    private var client: ClientID?

    init(server: ServerLoop, credentials: PeerCredentials?) {
        self.server = server
        self.credentials = credentials
    }

    func channelActive(context: ChannelHandlerContext) {
        client = server.clientConnected(channel: context.channel, credentials: credentials)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let client else { return }
        switch unwrapInboundIn(data) {
        case .line(let line):
            server.received(line: line, from: client)
        case .tooLong:
            server.receivedOverlongLine(from: client)
        case .unfinished:
            server.lineUnfinished(from: client)
        case .discardedLineEnded:
            server.lineEnded(from: client)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if let client { server.writabilityChanged(of: client) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client { server.clientDisconnected(client) }
        client = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a failed write: nothing to recover, the client is gone.
        server.logger.debug("\(client.map(\.description) ?? "a client"): \(error); closing")
        context.close(promise: nil)
    }
}
