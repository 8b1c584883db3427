import PopGestureProtocol

/// The engine's events as the protocol carries them (PopGestureProtocol's `ServerEvent`),
/// and their newline-delimited JSON (see docs/PROTOCOL.md).
public enum WireEncoding {
    /// Encodes one event as a JSON object, without the trailing newline.
    public static func encode(_ event: EngineEvent) -> String {
        MessageCodec.encode(ServerEvent(event))
    }
}

// The one place where the engine's vocabulary meets the protocol's: a reason added to
// the engine gets its wire name here, and in `ServerEvent`'s reason constants.

extension ServerEvent {
    /// The event a client receives for `event`. The owner is not sent: it is the client.
    public init(_ event: EngineEvent) {
        switch event {
        case .popBegan(let target, let progress, let time):
            self = .popBegan(
                navigator: target.navigator, page: target.page, progress: progress, timeMicroseconds: time.microseconds)
        case .popProgress(let target, let progress, let time):
            self = .popProgress(
                navigator: target.navigator, page: target.page, progress: progress, timeMicroseconds: time.microseconds)
        case .popFinished(let target, let reason, let time):
            self = .popFinished(
                navigator: target.navigator, page: target.page, reason: FinishReason(reason),
                timeMicroseconds: time.microseconds)
        case .popCancelled(let target, let reason, let time):
            self = .popCancelled(
                navigator: target.navigator, page: target.page, reason: CancelReason(reason),
                timeMicroseconds: time.microseconds)
        case .back(let navigator, _, let popped, let top, let time):
            self = .back(navigator: navigator, popped: popped, top: top, timeMicroseconds: time.microseconds)
        case .bar(let navigator, _, let page, let hidden):
            self = .bar(navigator: navigator, page: page, hidden: hidden)
        case .rejected(let reason, let device, let time):
            self = .rejected(
                reason: RejectionReason(reason), device: Int64(device.rawValue), timeMicroseconds: time.microseconds)
        case .refused(let reason, let device, let time):
            self = .refused(
                reason: RejectionReason(reason), device: Int64(device.rawValue), timeMicroseconds: time.microseconds)
        case .inputBegan(let app, _, _, let time):
            self = .inputBegan(app: app, timeMicroseconds: time.microseconds)
        case .inputProgress(_, let app, _, let progress, let commit, let time):
            self = .inputProgress(app: app, progress: progress, commit: commit, timeMicroseconds: time.microseconds)
        case .inputCancelled(let app, _, let reason, let time):
            self = .inputCancelled(app: app, reason: CancelReason(reason), timeMicroseconds: time.microseconds)
        case .focusChanged(let focus):
            self = .focusChanged(
                source: focus.source.rawValue, app: focus.app, pid: focus.pid.map(Int64.init), navigator: focus.navigator)
        case .screenChanged(let screen):
            self = .screenChanged(ServerReply.Status.Screen(
                rotation: screen.rotation.map { Int64($0.rawValue) }, rotationSource: screen.rotationSource.rawValue,
                output: screen.output, direction: screen.direction.rawValue, directionSource: screen.directionSource.rawValue))
        case .backInput(let input, let app, _, let reason, let time):
            self = .backInput(
                app: app, input: input.spelling, reason: FinishReason(reason), timeMicroseconds: time.microseconds)
        }
    }
}

extension ServerEvent.FinishReason {
    public init(_ reason: CommitReason) {
        switch reason {
        case .progress: self = .progress
        case .fling: self = .fling
        }
    }
}

extension ServerEvent.CancelReason {
    public init(_ reason: PopCancelReason) {
        switch reason {
        case .released: self = .released
        case .flungBack: self = .flungBack
        case .extraFinger: self = .extraFinger
        case .palm: self = .palm
        case .eventsDropped: self = .eventsDropped
        case .deviceRemoved: self = .deviceRemoved
        case .stackChanged: self = .stackChanged
        case .rotated: self = .rotated
        }
    }
}

extension ServerEvent.RejectionReason {
    public init(_ reason: PopGestureCore.RejectionReason) {
        switch reason {
        case .noNavigator: self = .noNavigator
        case .stackTooShallow: self = .stackTooShallow
        case .popDisabled: self = .popDisabled
        case .tooFarFromEdge: self = .tooFarFromEdge
        case .transitioning: self = .transitioning
        case .wrongDirection: self = .wrongDirection
        case .outsideEdgeZone: self = .outsideEdgeZone
        case .tooSteep: self = .tooSteep
        case .longPress: self = .longPress
        case .excluded: self = .excluded
        case .extraFinger: self = .extraFinger
        case .palm: self = .palm
        case .eventsDropped: self = .eventsDropped
        case .deviceRemoved: self = .deviceRemoved
        case .busy: self = .busy
        case .stackChanged: self = .stackChanged
        case .rotated: self = .rotated
        case .ownSwipe: self = .ownSwipe
        }
    }
}
