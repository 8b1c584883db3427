import Dispatch
import Foundation
import Glibc
import PopGestureClient
import PopGestureProtocol
import Testing

// The examples of docs/CLIENTS.md, as written there: keep the two in step.

/// Keeps a client's socket and deadline registered with Dispatch: again whenever they change.
final class DispatchWatch {
    let client: PopGestureClient
    let queue: DispatchQueue
    private var sources: [any DispatchSourceProtocol] = []

    init(_ client: PopGestureClient, queue: DispatchQueue) {
        (self.client, self.queue) = (client, queue)
        client.onWatchChange = { [unowned self] in update() }
        update()
    }

    func update() {
        sources.forEach { $0.cancel() }
        sources = []
        if let fd = client.fileDescriptor?.rawValue {
            let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            read.setEventHandler { [unowned self] in client.handleReadable() }
            sources.append(read)
            if client.wantsWrite {
                let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
                write.setEventHandler { [unowned self] in client.handleWritable() }
                sources.append(write)
            }
        }
        if let milliseconds = client.millisecondsUntilDeadline() {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .milliseconds(milliseconds))
            timer.setEventHandler { [unowned self] in client.handleDeadline() }
            sources.append(timer)
        }
        sources.forEach { $0.resume() }
    }
}

@Suite(.serialized, .enabled(if: BuiltDaemon.built, "popgestured is not built beside the tests"))
struct ExampleTests {
    /// Until `condition`, read on the client's queue, holds.
    static func wait(on queue: DispatchQueue, seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if queue.sync(execute: condition) { return true }
            usleep(20_000)
        }
        return queue.sync(execute: condition)
    }

    @Test("on a Dispatch queue: connects, creates, and after the daemon's restart re-creates", .timeLimit(.minutes(1)))
    func dispatch() throws {
        let daemon = try TestDaemon()
        let queue = DispatchQueue(label: "popgesture-client")
        let received = PopGestureClientDaemonTests.Received()
        let (client, watch) = try queue.sync {
            let client = try PopGestureClient(socketPath: daemon.socket, app: "org.example.Photos", name: "dispatch") {
                received.events.append($0)
            }
            try client.create("main", pages: ["home", "detail"].map { ClientRequest.Page(id: $0) })
            return (client, DispatchWatch(client, queue: queue))
        }
        #expect(Self.wait(on: queue, seconds: 10) { client.navigators.count == 1 }, "\(received.events)")

        daemon.stop()
        #expect(Self.wait(on: queue, seconds: 10) { client.fileDescriptor == nil })
        try daemon.start()
        #expect(Self.wait(on: queue, seconds: 15) { received.connections.count == 2 }, "\(received.events)")
        var stack: Result<ServerReply, ClientError>?
        _ = try queue.sync { try client.request(.stack(navigator: "main")) { stack = $0 } }
        #expect(Self.wait(on: queue, seconds: 10) { stack != nil })
        guard case .success(.stack(let reply))? = queue.sync(execute: { stack }) else {
            Issue.record("no stack: \(String(describing: stack))")
            return
        }
        #expect(reply.pages == ["home", "detail"])
        queue.sync {
            client.close()
            watch.update()
        }
    }

    @Test("the poll loop: a navigator created, and its replies read, with the loop's own poll", .timeLimit(.minutes(1)))
    func pollLoop() throws {
        let daemon = try TestDaemon()
        var told: [String] = []
        let client = try PopGestureClient(socketPath: daemon.socket, app: "org.example.Photos", name: "Photos") { event in
            switch event {
            case .event(.popBegan(_, let page, let progress, _)), .event(.popProgress(_, let page, let progress, _)):
                told.append("slide \(page) to \(progress)")  // the page follows the finger
            case .event(.popCancelled(_, let page, _, _)): told.append("put \(page) back")
            case .event(.back(_, let popped, let top, _)): told.append("popped \(popped), now \(top)")
            case .disconnected(let reason, _): told.append("popgestured: \(reason); connecting again")
            default: break
            }
        }
        try client.create("main", pages: [.init(id: "home"), .init(id: "detail")])
        let deadline = Date().addingTimeInterval(10)
        while client.navigators.isEmpty, Date() < deadline {  // the doc's `while true`
            var fds = client.fileDescriptor.map {
                [pollfd(fd: $0.rawValue, events: Int16(POLLIN) | (client.wantsWrite ? Int16(POLLOUT) : 0), revents: 0)]
            } ?? []
            _ = poll(&fds, nfds_t(fds.count), Int32(client.millisecondsUntilDeadline() ?? -1))
            if let ready = fds.first?.revents, ready & Int16(POLLOUT) != 0 { client.handleWritable() }
            if let ready = fds.first?.revents, ready & ~Int16(POLLOUT) != 0 { client.handleReadable() }
            if let deadline = client.nextDeadline, deadline <= .now { client.handleDeadline() }
        }
        #expect(client.navigators.map(\.id) == ["main"])
        #expect(told.isEmpty, "\(told)")
    }
}
