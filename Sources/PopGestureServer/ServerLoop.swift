import Logging
import NIOCore
import PopGestureCore
import PopGestureInput

/// The server's mutable half, confined to its one event loop: the state machine and
/// the channel of each client. It feeds inputs to `ServerState` and carries out the
/// actions that come back; it decides nothing itself.
///
/// Not `Sendable`. `SocketServer` reaches it from other threads only through a
/// `NIOLoopBoundBox`, which checks that the caller is on the loop; the client handlers
/// live on the same loop.
final class ServerLoop {
    private(set) var state: ServerState
    private var channels: [ClientID: any Channel] = [:]
    let clock: @Sendable () -> Timestamp
    let logger: Logger
    let maximumLineLength: Int

    init(state: ServerState, clock: @escaping @Sendable () -> Timestamp, maximumLineLength: Int, logger: Logger) {
        self.state = state
        self.clock = clock
        self.maximumLineLength = maximumLineLength
        self.logger = logger
    }

    // MARK: - From the client handlers

    func clientConnected(channel: any Channel, credentials: PeerCredentials?) -> ClientID {
        let id = state.clientConnected(credentials: credentials)
        channels[id] = channel
        return id
    }

    func received(line: ByteBuffer, from client: ClientID) {
        run(state.received(line: line.readableBytesView, from: client, at: clock()))
    }

    func receivedOverlongLine(from client: ClientID) {
        run(state.receivedOverlongLine(from: client, maximumLength: maximumLineLength))
    }

    func clientDisconnected(_ client: ClientID) {
        channels[client] = nil
        run(state.clientDisconnected(client, at: clock()))
    }

    // MARK: - From the daemon, hopped onto the loop by SocketServer

    func addDevice(
        key: Int, path: String, name: String, kind: DeviceKind, description: DeviceDescription,
        configuration: DeviceConfiguration
    ) throws(InputError) -> DeviceID {
        do {
            let (id, actions) = try state.deviceAdded(
                key: key, path: path, name: name, kind: kind, description: description,
                configuration: configuration, at: clock())
            run(actions)
            return id
        } catch {
            logger.error("device key \(key) (\(path)) not added: \(error)")
            throw error
        }
    }

    func removeDevice(key: Int) {
        run(state.deviceRemoved(key: key, at: clock()))
    }

    func feed(key: Int, events: [InputEvent]) {
        run(state.handle(events: events, fromDevice: key))
    }

    func apply(settings: GestureSettings, transitionTimeout: Duration, defaultLayout: LayoutDirection) {
        state.updateSettings(settings, transitionTimeout: transitionTimeout, defaultLayout: defaultLayout)
    }

    /// Closes every client; the future completes when all are closed.
    func shutdown(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let closing = channels.values.map(\.closeFuture)
        run(state.shutdown())
        return EventLoopFuture.andAllComplete(closing, on: eventLoop)
    }

    // MARK: - Carrying out actions

    /// Writes every line, then flushes each client written to once, and checks that
    /// it keeps up.
    private func run(_ actions: [ServerAction]) {
        guard !actions.isEmpty else { return }
        var written: [ClientID] = []
        for action in actions {
            switch action {
            case .send(let client, let line):
                guard let channel = channels[client] else { continue }
                var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
                buffer.writeString(line)
                buffer.writeInteger(UInt8(ascii: "\n"))
                channel.write(buffer, promise: nil)
                if !written.contains(client) { written.append(client) }
            case .close(let client, _):
                // The reason is logged; channelInactive then tells the state it is gone.
                channels.removeValue(forKey: client)?.close(promise: nil)
            }
        }
        for client in written {
            guard let channel = channels[client] else { continue }
            channel.flush()
            // Below NIO's high water mark (64 KiB) the backlog cannot be near the limit:
            // read the exact count only for a client that is falling behind.
            guard !channel.isWritable,
                  let unsent = try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)
            else { continue }
            run(state.outputBacklog(of: client, unsentBytes: unsent))
        }
    }
}
