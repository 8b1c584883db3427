// The engine side as the daemon's input thread runs it: each read's events into
// `EngineHost` right after the read, its output taken after every frame, as
// `SocketServer` does before it routes the events to the clients. No socket, no JSON:
// what comes out is only counted. See ../BENCHMARKS.md.

import Benchmark
import PopGestureCore
import PopGestureProtocol
import PopGestureRecording
import PopGestureServer

/// Frames into the engine's host, the output taken after each; a back can be answered
/// by the client pushing the detail page again, as a request.
struct EngineSideSink: PushingSink {
    static let key = 1
    var host: EngineHost
    var frame: [InputEvent] = []
    var output: [EngineOutput] = []
    var produced = Produced()
    /// A back happened and no page has been pushed again yet.
    var needsPush = false

    init(device description: DeviceDescription) throws {
        host = EngineHost(logger: benchmarkLogger())
        output.reserveCapacity(64)
        try host.deviceAdded(
            key: Self.key, path: "(benchmark)", name: description.name, description: description,
            configuration: DeviceConfiguration(recorded: description), at: .zero, output: &output)
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
        host.handle(events: frame, fromDevice: Self.key, output: &output)
        frame.removeAll(keepingCapacity: true)
        takeOutput()
    }

    mutating func takeOutput() {
        for case .event(let event, _) in output {
            produced.count(event)
            if case .back = event { needsPush = true }
        }
        output.removeAll(keepingCapacity: true)
    }

    /// The client pushes the detail page again, unanimated, after the gesture popped it.
    mutating func push(at time: Timestamp) {
        request(.push(navigator: "main", page: ClientRequest.Page(id: "detail"), animated: false), at: time)
        needsPush = false
    }

    private mutating func request(_ request: ClientRequest, at time: Timestamp) {
        host.perform(EngineRequest(client: owner, kind: .request(request, id: nil), time: time), output: &output)
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
