import Foundation
import PopGestureClient
import PopGestureProtocol
import Testing

/// `PopGestureClient` on its non-blocking socket against the real daemon binary.
@Suite(.serialized, .enabled(if: BuiltDaemon.built, "popgestured is not built beside the tests"))
struct PopGestureClientDaemonTests {
    /// What the client's handler got, in order.
    final class Received {
        var events: [ClientEvent] = []

        var connections: [(version: Int64, client: Int64)] {
            events.compactMap { if case .connected(let version, let client) = $0 { (version, client) } else { nil } }
        }

        var serverEvents: [ServerEvent] {
            events.compactMap { if case .event(let event) = $0 { event } else { nil } }
        }

        var disconnections: [String] {
            events.compactMap { if case .disconnected(let reason, _) = $0 { reason } else { nil } }
        }
    }

    /// Runs the client's own `poll` until `condition` holds or `seconds` pass.
    @discardableResult
    static func run(_ client: PopGestureClient, seconds: Double, until condition: () -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(), Date() < deadline {
            try client.poll(timeout: .milliseconds(50))
        }
        return condition()
    }

    /// Sends `request` and runs the client until its reply arrives.
    static func reply(
        _ client: PopGestureClient, _ request: ClientRequest, seconds: Double = 10
    ) throws -> Result<ServerReply, ClientError>? {
        var result: Result<ServerReply, ClientError>?
        try client.request(request) { result = $0 }
        try run(client, seconds: seconds) { result != nil }
        return result
    }

    static let pages = ["home", "detail"].map { ClientRequest.Page(id: $0) }

    @Test("hello, requests with their replies (by completion and by id), and an error reply", .timeLimit(.minutes(1)))
    func requests() throws {
        let daemon = try TestDaemon()
        let received = Received()
        let client = try PopGestureClient(socketPath: daemon.socket, app: "org.example.Photos", name: "client test") {
            received.events.append($0)
        }
        // Made before the hello is answered: it waits, then goes out.
        let createID = try client.create("main", pages: Self.pages)
        #expect(try Self.run(client, seconds: 10) { received.events.contains { if case .reply = $0 { true } else { false } } },
                "\(received.events)\n\(daemon.log)")
        #expect(received.connections.count == 1)
        #expect(received.connections.first?.version == 1)
        let client3 = try #require(received.connections.first?.client)
        #expect(received.events.contains(.reply(
            id: createID, request: .create(navigator: "main", pages: Self.pages, layout: nil, barFollowsTopPage: true),
            result: .success(.ok(request: "create")))))
        #expect(try Self.run(client, seconds: 5) { received.serverEvents.contains(.bar(navigator: "main", page: "detail", hidden: false)) })

        let duplicate = try Self.reply(client, .push(navigator: "main", page: ClientRequest.Page(id: "detail"), animated: false))
        guard case .failure(let error)? = duplicate else {
            Issue.record("push of a page already there: \(String(describing: duplicate))")
            return
        }
        #expect(error.code == .refused)
        #expect(error.reply?.code == .duplicatePage)
        #expect(client.navigators.first?.pages.map(\.id) == ["home", "detail"], "a refusal changes nothing")

        #expect(try Self.reply(client, .push(navigator: "main", page: ClientRequest.Page(id: "photo"), animated: false))
            == .success(.ok(request: "push")))
        #expect(try Self.reply(client, .stack(navigator: "main")) == .success(.stack(ServerReply.Stack(
            navigator: "main", owner: client3, pages: ["home", "detail", "photo"], front: true, transitioning: false))))
        guard case .success(.status(let status))? = try Self.reply(client, .status) else {
            Issue.record("no status")
            return
        }
        #expect(status.clients.contains { $0.client == client3 && $0.name == "client test" })
        #expect(client.nextDeadline == nil, "a connected client has no timer")
        #expect(!client.wantsWrite)

        client.close()
        #expect(client.fileDescriptor == nil)
        #expect(throws: ClientError.self) { try client.pop("main") }
    }

    @Test("the daemon stopped with SIGTERM and started again: the client reconnects and its navigator is back",
          .timeLimit(.minutes(1)))
    func reconnect() throws {
        let daemon = try TestDaemon()
        let received = Received()
        let client = try PopGestureClient(socketPath: daemon.socket, app: "org.example.Photos", name: "reconnecting") {
            received.events.append($0)
        }
        var watchChanges = 0
        client.onWatchChange = { watchChanges += 1 }
        try client.create("main", pages: Self.pages)
        try client.push("main", page: ClientRequest.Page(id: "photo", prefersBarHidden: true))
        try client.create("other", pages: [ClientRequest.Page(id: "root")])
        try client.front("main")
        #expect(try Self.run(client, seconds: 10) { client.navigators.map(\.id) == ["other", "main"] && client.navigators.last?.pages.count == 3 },
                "\(received.events)")
        #expect(received.connections.count == 1)

        daemon.stop()
        #expect(try Self.run(client, seconds: 10) { client.fileDescriptor == nil })
        #expect(received.disconnections.first == "popgestured closed the connection")
        #expect(client.nextDeadline != nil)
        // Made while the daemon is away: waits for the next connection.
        var settled: Result<ServerReply, ClientError>?
        try client.settle("main") { settled = $0 }
        // A few failed connects, backing off.
        #expect(try Self.run(client, seconds: 10) { received.disconnections.count >= 3 })
        #expect(received.disconnections.dropFirst().allSatisfy { $0.hasPrefix("cannot connect to \(daemon.socket): ") })

        try daemon.start()
        #expect(try Self.run(client, seconds: 15) { received.connections.count == 2 && settled != nil }, "\(received.events)\n\(daemon.log)")
        #expect(settled == .success(.ok(request: "settle")))
        let second = try #require(received.connections.last?.client)
        #expect(try Self.reply(client, .stack(navigator: "main")) == .success(.stack(ServerReply.Stack(
            navigator: "main", owner: second, pages: ["home", "detail", "photo"], front: true, transitioning: false))))
        #expect(try Self.reply(client, .stack(navigator: "other")) == .success(.stack(ServerReply.Stack(
            navigator: "other", owner: second, pages: ["root"], front: false, transitioning: false))))
        #expect(!received.events.contains { if case .recreationFailed = $0 { true } else { false } })
        #expect(watchChanges >= 4, "the descriptor went and came, and the deadline with it")
    }

    @Test("popgestured-demo's swipe arrives in order: pop-began, pop-progress…, pop-finished, back", .timeLimit(.minutes(1)))
    func swipe() throws {
        let daemon = try TestDaemon(["demo", "--rounds", "0"])
        let received = Received()
        let client = try PopGestureClient(socketPath: daemon.socket, app: nil, name: "swipe test") { received.events.append($0) }

        // The demo creates its own navigator first; ours, created after it, is in front.
        var status: ServerReply.Status?
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if case .success(.status(let reply))? = try Self.reply(client, .status),
               reply.navigators.contains(where: { $0.navigator == "demo" }), !reply.devices.isEmpty
            {
                status = reply
                break
            }
            usleep(20_000)
        }
        let devices = try #require(status?.devices, "the demo's navigator and touchscreen never showed")
        if devices.contains(where: { $0.kind == "touchscreen" && $0.path != "(virtual)" }) {
            try Test.cancel("a real touchscreen is present, so popgestured-demo waits for a finger")
        }
        #expect(try Self.reply(client, .create(navigator: "mine", pages: Self.pages, layout: nil, barFollowsTopPage: true))
            == .success(.ok(request: "create")))

        let backed = try Self.run(client, seconds: 40) {
            received.serverEvents.contains { if case .back = $0 { true } else { false } }
        }
        #expect(backed, "no back within 40 s: \(received.serverEvents)\n\(daemon.log)")
        let events = received.serverEvents.filter { $0.kind != .bar }
        #expect(events.allSatisfy { $0.navigator == "mine" }, "only our navigator's events: \(events)")
        // The committed swipe: the last pop-began up to the back.
        let back = try #require(events.lastIndex { $0.kind == .back })
        let began = try #require(events[..<back].lastIndex { $0.kind == .popBegan })
        let swipe = events[began...back].map(\.kind)
        #expect(swipe.first == .popBegan)
        #expect(swipe.dropFirst().dropLast(2).allSatisfy { $0 == .popProgress })
        #expect(swipe.count >= 4, "at least one pop-progress: \(swipe)")
        #expect(Array(swipe.suffix(2)) == [.popFinished, .back])
        if case .back(_, let popped, let top, _) = events[back] {
            #expect(popped == "detail" && top == "home")
        }
        let progress = events[began...back].compactMap { event -> Double? in
            if case .popProgress(_, _, let progress, _) = event { progress } else { nil }
        }
        #expect(progress == progress.sorted(), "a swipe to the right only moves forward")
        let times = events[began...back].compactMap(\.timeMicroseconds)
        #expect(times == times.sorted())
        #expect(client.navigators.first?.pages.map(\.id) == ["home"], "the record follows the back")
    }
}
