// The gesture engine alone, in steady state: evdev events in, engine events out.
// No I/O, no JSON (WireEncoding), no socket: recordings are parsed before anything
// is measured, and what the engine produces is only counted.
//
//   cd Benchmarks && swift package --disable-sandbox benchmark           # per event
//   cd Benchmarks && swift package --disable-sandbox benchmark --scale   # per iteration
//
// Each recording benchmark feeds exactly 1,000,000 events per iteration
// (`scalingFactor: .mega`), looping over the recording: every pass shifts the
// timestamps by the recording's length plus a second, so time only moves forward
// and the engine is idle again when a pass starts over. Throughput is then in
// events/s; with `--scale`, Malloc (total) is the count per 1,000,000 events.
// See ../BENCHMARKS.md.

import Benchmark
import Foundation
import Logging
import PopGestureCore
import PopGestureInput
import PopGestureRecording
import PopGestureSynthesis

// MARK: - Where the recordings are

/// `POPGESTURE_RECORDINGS`, else `shared/recordings` beside the repository:
/// this file is <repository>/Benchmarks/Benchmarks/EngineBenchmark/EngineBenchmark.swift.
let recordingsFolder: String = {
    if let folder = ProcessInfo.processInfo.environment["POPGESTURE_RECORDINGS"], !folder.isEmpty {
        return folder
    }
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<5 { url.deleteLastPathComponent() }  // → the repository's parent folder
    return url.appendingPathComponent("shared/recordings").path
}()

func loadRecording(_ file: String, desc: String?) -> Recording? {
    let path = recordingsFolder + "/" + file
    guard FileManager.default.fileExists(atPath: path) else {
        say("\(path) is absent: skipping the benchmark of \(file) "
            + "(set POPGESTURE_RECORDINGS to the folder of the real recordings)")
        return nil
    }
    do {
        return try Recording(contentsOf: path, descriptionPath: desc.map { recordingsFolder + "/" + $0 })
    } catch {
        say("cannot read \(file): \(error): skipping it")
        return nil
    }
}

func say(_ text: String) {
    FileHandle.standardError.write(Data(("EngineBenchmark: " + text + "\n").utf8))
}

// MARK: - The engine, as the replay tests set it up

let owner = ClientID(1)
let detail = Page(id: "detail")

/// Info level: the engine logs only at debug level, so no message is ever formatted.
func benchmarkLogger() -> Logger {
    var logger = Logger(label: "popgestured.benchmark")
    logger.logLevel = .info
    return logger
}

/// One client with navigator "main" in front, holding two pages: root and detail.
func makeEngine(at start: Timestamp) -> GestureEngine {
    var engine = GestureEngine(settings: GestureSettings(), logger: benchmarkLogger())
    do {
        try engine.perform(
            .create(navigator: "main", pages: [Page(id: "root"), detail], layout: nil, barFollowsTopPage: true),
            from: owner, at: start)
    } catch {
        fatalError("cannot create the navigator: \(error)")
    }
    engine.drainEvents { _ in }
    return engine
}

/// What the engine produced, by kind.
struct Produced: CustomStringConvertible {
    var began = 0, progress = 0, finished = 0, cancelled = 0, back = 0, bar = 0, rejected = 0
    /// The back input's events and focus changes: none here, the navigator is always in front.
    var other = 0

    mutating func count(_ event: EngineEvent) {
        switch event {
        case .popBegan: began &+= 1
        case .popProgress: progress &+= 1
        case .popFinished: finished &+= 1
        case .popCancelled: cancelled &+= 1
        case .back: back &+= 1
        case .bar: bar &+= 1
        case .rejected: rejected &+= 1
        case .inputBegan, .inputProgress, .inputCancelled, .backInput, .focusChanged, .screenChanged: other &+= 1
        }
    }

    var description: String {
        "pop-began \(began), pop-progress \(progress), pop-finished \(finished), pop-cancelled \(cancelled), "
            + "back \(back), bar \(bar), rejected \(rejected)"
    }
}

// MARK: - Looping over a list of events

/// Feeds a list of events over and over, one event per `step()`, shifting each pass
/// by `period` so that timestamps keep increasing. The events go through `Sink`:
/// the whole engine behind `EngineFeed` (as the daemon feeds it), or a part of it.
struct EventLoop<Sink: EventSink> {
    var sink: Sink
    let events: ContiguousArray<InputEvent>
    let period: Int64
    private var index = 0
    private var offset: Int64 = 0
    private(set) var passes = 0

    init(events: [InputEvent], sink: Sink) {
        precondition(!events.isEmpty)
        // One second more than the recording: the next pass starts long after every finger
        // lifted, and after the navigator's transition timeout (1 s) following a committed back.
        period = (events.last!.time - events.first!.time) + 1_000_000
        self.events = ContiguousArray(events)
        self.sink = sink
    }

    /// The time of the event that `step()` feeds next.
    var nextTime: Timestamp { Timestamp(microseconds: events[index].time.microseconds &+ offset) }

    @inline(__always)
    mutating func step() {
        var event = events[index]
        event.time.microseconds &+= offset
        sink.feed(event)
        index &+= 1
        if index == events.count {
            index = 0
            offset &+= period
            passes &+= 1
        }
    }

    mutating func run(_ count: Int) {
        for _ in 0..<count { step() }
    }

    /// Feeds the rest of the current pass.
    mutating func finishPass() {
        let pass = passes
        while passes == pass { step() }
    }
}

protocol EventSink {
    mutating func feed(_ event: InputEvent)
}

/// The whole engine, fed through `EngineFeed` and drained after every event, as the
/// daemon does. A back can be answered by the client pushing the detail page again.
struct EngineSink: EventSink {
    var feed: EngineFeed
    let device: DeviceID
    let pushAfterBack: Bool
    var produced = Produced()
    /// A back happened and no page has been pushed again yet.
    var needsPush = false

    init(device description: DeviceDescription, at start: Timestamp, pushAfterBack: Bool = false) throws {
        feed = EngineFeed(engine: makeEngine(at: start))
        device = try feed.addDevice(description, configuration: DeviceConfiguration(recorded: description))
        self.pushAfterBack = pushAfterBack
    }

    @inline(__always)
    mutating func feed(_ event: InputEvent) {
        feed.handle(event, from: device)
        guard feed.engine.hasEvents else { return }
        var produced = self.produced
        feed.engine.drainEvents { produced.count($0) }
        if produced.back != self.produced.back { needsPush = true }
        self.produced = produced
        if needsPush && pushAfterBack { push(at: event.time) }
    }

    /// The client pushes the detail page again, unanimated, after the gesture popped it.
    mutating func push(at time: Timestamp) {
        do {
            try feed.engine.perform(.push(navigator: "main", page: detail, animated: false), from: owner, at: time)
        } catch {
            fatalError("push failed: \(error)")
        }
        var produced = self.produced
        feed.engine.drainEvents { produced.count($0) }
        self.produced = produced
        needsPush = false
    }
}

/// The first stages of the pipeline alone, to see where the time goes: `TouchState`,
/// then `PanRecognizer` on each completed frame (protocol B or single-touch devices only).
struct TouchSink: EventSink {
    var touches: TouchState
    var pans: PanRecognizer?
    var frames = 0
    var panEvents = 0

    init(device: DeviceDescription, recognizePans: Bool) {
        touches = TouchState(device: device)
        if recognizePans {
            pans = PanRecognizer(
                device: device, settings: .defaults(for: DeviceConfiguration(recorded: device).kind), transform: ScreenTransform(device: device),
                logger: benchmarkLogger())
        }
    }

    @inline(__always)
    mutating func feed(_ event: InputEvent) {
        guard case .frame(let resynced) = touches.handle(event) else { return }
        frames &+= 1
        if pans?.process(touches, resynced: resynced, at: event.time) != nil { panEvents &+= 1 }
        touches.endFrame()
    }
}

/// Holds a loop for the benchmark closures, which the tool calls one after the other.
final class Shared<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

// MARK: - The benchmarks

let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

struct RecordingScenario {
    var name: String
    var file: String
    var desc: String?
}

let recordingScenarios = [
    RecordingScenario(name: "dell-canvas-touch (B, MSC_TIMESTAMP)", file: "dell-canvas-touch.evemu"),
    RecordingScenario(
        name: "synaptics-hp8470p edge scroll (touchpad)", file: "synaptics-hp8470p.edge-scroll-horizontal.events",
        desc: "synaptics-hp8470p.desc"),
    RecordingScenario(name: "quanta-optical mixed", file: "quanta-optical.mixed.events", desc: "quanta-optical.desc"),
    RecordingScenario(
        name: "ntrig-multitouch (A, mtdev)", file: "ntrig-multitouch.2-fingers-touch-release.events",
        desc: "ntrig-multitouch.desc"),
]

/// A protocol B touchscreen, 10 slots, 256 × 144 mm (16 units per mm): the synthetic
/// gesture needs no recording.
let syntheticTouchscreen: DeviceDescription = {
    let x = AbsoluteAxis(minimum: 0, maximum: 4095, resolution: 16)
    let y = AbsoluteAxis(minimum: 0, maximum: 2303, resolution: 16)
    return DeviceDescription(
        name: "synthetic protocol B touchscreen",
        properties: [InputProperty.direct], keys: [BTN.touch], eventTypes: [EV.syn, EV.key, EV.abs],
        axes: [
            ABS.x: x, ABS.y: y, ABS.mtPositionX: x, ABS.mtPositionY: y,
            ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
            ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
        ])
}()

/// One back swipe: down at 2 % of the width, 60 mm to the right over 150 ms, up.
let backSwipe: [InputEvent] = {
    var script = TouchScript(device: syntheticTouchscreen)
    script.down(at: 0.02, 0.5)
    script.move(byMillimetres: 60, 0, over: .milliseconds(150))
    script.up()
    return script.events
}()

enum BenchmarkError: Error {
    case notIdle(String)
    case unexpectedOutput(String)
}

func checkOneBack(_ produced: Produced) throws {
    guard produced.began == 1, produced.finished == 1, produced.back == 1, produced.bar >= 1, produced.progress > 0,
          produced.cancelled == 0, produced.rejected == 0
    else { throw BenchmarkError.unexpectedOutput("a back swipe produced \(produced)") }
}

/// A sink whose client pushes the detail page again after each back.
protocol PushingSink: EventSink {
    var produced: Produced { get }
    var needsPush: Bool { get }
    mutating func push(at time: Timestamp)
}

extension EngineSink: PushingSink {}

/// Every swipe fed went back: none was rejected (a missing push would leave only the root).
func checkEveryPassWentBack<Sink: PushingSink>(_ loop: EventLoop<Sink>) throws {
    let produced = loop.sink.produced
    guard produced.back == loop.passes, produced.rejected == 0, produced.cancelled == 0 else {
        throw BenchmarkError.unexpectedOutput("\(loop.passes) swipes produced \(produced)")
    }
    say("\(loop.passes) swipes, every one went back: \(produced)")
}

/// One back swipe per iteration, the push that answers each back done after the
/// measurement stopped.
func swipePushUntimed<Sink: PushingSink>(_ name: String, _ alone: Shared<EventLoop<Sink>>) {
    Benchmark(
        name,
        configuration: .init(
            metrics: metrics, warmupIterations: 10, scalingFactor: .one, maxDuration: .seconds(5),
            maxIterations: 100_000)
    ) { benchmark in
        benchmark.startMeasurement()
        alone.value.finishPass()
        benchmark.stopMeasurement()
        if alone.value.sink.needsPush { alone.value.sink.push(at: alone.value.nextTime) }
    } setup: {
        alone.value.finishPass()
        try checkOneBack(alone.value.sink.produced)
        alone.value.sink.push(at: alone.value.nextTime)
    } teardown: {
        try checkEveryPassWentBack(alone.value)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: metrics,
        warmupIterations: 2,
        scalingFactor: .mega,
        maxDuration: .seconds(5),
        maxIterations: 40)

    // What the tool itself costs per iteration: the reference for the one-swipe benchmark.
    Benchmark(
        "Floor: empty iteration with start/stop",
        configuration: .init(metrics: metrics, scalingFactor: .one, maxDuration: .seconds(2), maxIterations: 100_000)
    ) { benchmark in
        benchmark.startMeasurement()
        blackHole(0)
        benchmark.stopMeasurement()
    }

    var dell: Recording?
    for scenario in recordingScenarios {
        guard let recording = loadRecording(scenario.file, desc: scenario.desc) else { continue }
        if scenario.file == "dell-canvas-touch.evemu" { dell = recording }
        let shared: Shared<EventLoop<EngineSink>>
        do {
            let sink = try EngineSink(device: recording.device, at: recording.events.first?.time ?? .zero)
            shared = Shared(EventLoop(events: recording.events, sink: sink))
        } catch {
            say("cannot add the device of \(scenario.file): \(error): skipping it")
            continue
        }
        Benchmark("Recording: \(scenario.name), \(recording.events.count) events") { benchmark in
            shared.value.run(benchmark.scaledIterations.count)
        } setup: {
            // A warm-up pass, then one more whose output is shown, which must leave the engine idle.
            shared.value.finishPass()
            shared.value.sink.produced = Produced()
            shared.value.finishPass()
            let state = shared.value.sink.feed.engine.arbiterState
            guard state == .idle else { throw BenchmarkError.notIdle("\(scenario.file): arbiter \(state) after a pass") }
            say("\(scenario.file): one pass produces \(shared.value.sink.produced)")
        }
    }

    // The pipeline's first stages alone on the largest recording.
    if let dell {
        for recognizePans in [false, true] {
            let shared = Shared(EventLoop(
                events: dell.events, sink: TouchSink(device: dell.device, recognizePans: recognizePans)))
            let stage = recognizePans ? "TouchState + PanRecognizer" : "TouchState alone"
            Benchmark("Stage: \(stage), dell-canvas-touch") { benchmark in
                shared.value.run(benchmark.scaledIterations.count)
            } setup: {
                shared.value.finishPass()
            }
        }
    }

    do {
        // Back swipes, with the client pushing the page again after each back inside the
        // timed loop: the push's own cost (validation, copy of the stack, bar effect) is included.
        let timed = Shared(EventLoop(
            events: backSwipe,
            sink: try EngineSink(device: syntheticTouchscreen, at: backSwipe[0].time, pushAfterBack: true)))
        Benchmark("Synthetic back swipes, \(backSwipe.count) events each, push timed") { benchmark in
            timed.value.run(benchmark.scaledIterations.count)
        } setup: {
            timed.value.finishPass()
            try checkOneBack(timed.value.sink.produced)
            say("one back swipe with its push produces \(timed.value.sink.produced)")
        } teardown: {
            try checkEveryPassWentBack(timed.value)
        }

        // The same swipe, one per iteration, with the push done after the measurement
        // stopped: the engine's own cost of a whole back gesture.
        swipePushUntimed(
            "Synthetic back swipe, \(backSwipe.count) events, push untimed",
            Shared(EventLoop(
                events: backSwipe, sink: try EngineSink(device: syntheticTouchscreen, at: backSwipe[0].time))))
    } catch {
        say("cannot set up the synthetic swipe: \(error)")
    }

    // The same through the engine side and its queue, as the daemon's input thread runs it.
    engineSideBenchmarks(dell: dell)
}
