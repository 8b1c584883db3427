// The engine side as the daemon's input thread runs it: each read's events into
// `EngineSide` (`EngineHost` behind it), its output into the `EngineChannel`, and the
// socket side taking that output after every frame, as an event loop that keeps up
// does. No socket, no JSON: what crosses is only counted. See ../BENCHMARKS.md.

import Benchmark
import NIOCore
import PopGestureCore
import PopGestureProtocol
import PopGestureRecording
import PopGestureServer

/// Frames into the engine side, the output taken after each; a back can be answered
/// by the client pushing the detail page again, through the request queue.
struct EngineSideSink: PushingSink {
    static let key = 1
    let side: EngineSide
    var frame: [InputEvent] = []
    var taken = CircularBuffer<EngineOutput>(initialCapacity: EngineChannel.maximumQueuedOutput)
    var produced = Produced()
    /// A back happened and no page has been pushed again yet.
    var needsPush = false

    init(device description: DeviceDescription) throws {
        // The socket side is this thread: it takes the output after every frame.
        side = EngineSide(channel: try EngineChannel {}, clock: { .zero }, logger: benchmarkLogger())
        try side.deviceAdded(
            key: Self.key, path: "(benchmark)", name: description.name, description: description,
            configuration: DeviceConfiguration(recorded: description))
        frame.reserveCapacity(256)
        request(.create(
            navigator: "main", pages: [ClientRequest.Page(id: "root"), ClientRequest.Page(id: "detail")], layout: nil,
            barFollowsTopPage: true), at: .zero)
        produced = Produced()
    }

    @inline(__always)
    mutating func feed(_ event: InputEvent) {
        frame.append(event)
        guard event.isFrameEnd else { return }
        side.received(frame, fromDevice: Self.key)
        frame.removeAll(keepingCapacity: true)
        takeOutput()
    }

    mutating func takeOutput() {
        side.channel.takeOutput(into: &taken)
        while let output = taken.popFirst() {
            guard case .event(let event) = output else { continue }
            produced.count(event)
            if case .back = event { needsPush = true }
        }
    }

    /// The client pushes the detail page again, unanimated, after the gesture popped it.
    mutating func push(at time: Timestamp) {
        request(.push(navigator: "main", page: ClientRequest.Page(id: "detail"), animated: false), at: time)
        needsPush = false
    }

    private mutating func request(_ request: ClientRequest, at time: Timestamp) {
        guard side.channel.submit(EngineRequest(client: owner, kind: .request(request, id: nil), time: time)) else {
            fatalError("the request queue is full")
        }
        side.serveRequests()
        takeOutput()
    }
}

/// Registered by `benchmarks` in EngineBenchmark.swift.
func engineSideBenchmarks(dell: Recording?) {
    do {
        if let dell {
            let shared = Shared(EventLoop(events: dell.events, sink: try EngineSideSink(device: dell.device)))
            Benchmark("Engine side: dell-canvas-touch, \(dell.events.count) events") { benchmark in
                shared.value.run(benchmark.scaledIterations.count)
            } setup: {
                shared.value.finishPass()
                shared.value.sink.produced = Produced()
                shared.value.finishPass()
                say("engine side, dell-canvas-touch: one pass produces \(shared.value.sink.produced)")
            }
        }
        swipePushUntimed(
            "Engine side: synthetic back swipe, \(backSwipe.count) events, push untimed",
            Shared(EventLoop(events: backSwipe, sink: try EngineSideSink(device: syntheticTouchscreen))))
    } catch {
        say("cannot set up the engine side: \(error)")
    }
}
