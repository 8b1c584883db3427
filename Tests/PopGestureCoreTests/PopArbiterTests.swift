import Logging
@testable import PopGestureCore
import Testing

/// The arbiter driven directly with pan events, swift-nio style: each input, the action it returns.
@Suite struct PopArbiterTests {
    static let device = DeviceID(0)
    static let screen = PanSurface(widthMillimetres: 200, isOnScreen: true)

    static func navigation(pages: [String] = ["root", "detail"]) throws -> NavigationState {
        var state = NavigationState()
        _ = try state.create("main", owner: ClientID(1), pages: pages.map { Page(id: $0) })
        return state
    }

    /// A sample `x` mm from the left, `y` mm from the top, at `ms` milliseconds, moving at `vx` mm/s.
    static func at(_ x: Double, _ y: Double = 50, ms: Int64, vx: Double = 0) -> PanSample {
        PanSample(position: ScreenPoint(x: x / 200, y: y / 100, xMillimetres: x, yMillimetres: y),
                  velocityX: vx, time: Timestamp(microseconds: ms * 1000))
    }

    static let pop = PopTarget(navigator: "main", owner: ClientID(1), page: "detail")
    static let target = GestureTarget.navigator(pop)

    var arbiter = PopArbiter(settings: GestureSettings(), logger: Logger(label: "test"))

    mutating func feed(_ event: PanEvent, _ nav: NavigationState, from device: DeviceID = device) -> PopArbiter.Action {
        arbiter.handle(event, from: device, surface: Self.screen, navigation: nav)
    }

    @Test mutating func decidesOnlyAfterTheDecisionDistance() throws {
        let nav = try Self.navigation()
        #expect(feed(.began(Self.at(10, ms: 0)), nav) == .none)
        #expect(feed(.changed(Self.at(13, ms: 10)), nav) == .none, "3 mm: not yet")
        #expect(feed(.changed(Self.at(20, ms: 20)), nav) == .began(Self.target, progress: 0.05))
        #expect(feed(.changed(Self.at(40, ms: 30)), nav) == .progress(.navigator(Self.pop), 0.15))
        #expect(feed(.changed(Self.at(40.05, ms: 40)), nav) == .none, "under a thousandth of progress")
        #expect(feed(.changed(Self.at(0, ms: 50)), nav) == .progress(.navigator(Self.pop), 0), "clamped at 0")
    }

    @Test mutating func releaseCommitsOnProgressOrFling() throws {
        let nav = try Self.navigation()
        _ = feed(.began(Self.at(10, ms: 0)), nav)
        _ = feed(.changed(Self.at(20, ms: 100)), nav)
        _ = feed(.changed(Self.at(80, ms: 500)), nav)
        #expect(feed(.ended(Self.at(80, ms: 600, vx: 0)), nav) == .commit(Self.target, .progress))

        _ = feed(.began(Self.at(10, ms: 1000)), nav)
        _ = feed(.changed(Self.at(30, ms: 1050)), nav)
        #expect(feed(.ended(Self.at(30, ms: 1060, vx: 180)), nav) == .commit(Self.target, .fling))

        _ = feed(.began(Self.at(10, ms: 2000)), nav)
        _ = feed(.changed(Self.at(20, ms: 2100)), nav)
        _ = feed(.changed(Self.at(30, ms: 2500)), nav)
        #expect(feed(.ended(Self.at(30, ms: 2600, vx: 179)), nav) == .cancelled(Self.target, .released))

        _ = feed(.began(Self.at(10, ms: 3000)), nav)
        _ = feed(.changed(Self.at(20, ms: 3100)), nav)
        _ = feed(.changed(Self.at(150, ms: 3500)), nav)
        #expect(feed(.ended(Self.at(150, ms: 3600, vx: -200)), nav) == .cancelled(Self.target, .flungBack))
        #expect(arbiter.state == .idle)
    }

    @Test mutating func aCancelledPanBeforeTheDecisionIsARejection() throws {
        let nav = try Self.navigation()
        _ = feed(.began(Self.at(10, ms: 0)), nav)
        #expect(feed(.cancelled(.extraFinger, time: Timestamp(microseconds: 5000)), nav) == .rejected(.extraFinger))
        _ = feed(.began(Self.at(10, ms: 10)), nav)
        _ = feed(.changed(Self.at(30, ms: 20)), nav)
        #expect(feed(.cancelled(.palm, time: Timestamp(microseconds: 30_000)), nav) == .cancelled(Self.target, .palm))
    }

    /// Fullscreen mode: past half the commit distance it looked like a back, refused once.
    @Test mutating func aRejectedPanIsIgnoredUntilItEndsButSaysOnceThatItWasRefused() throws {
        let nav = try Self.navigation(pages: ["root"])
        _ = feed(.began(Self.at(10, ms: 0)), nav)
        #expect(feed(.changed(Self.at(30, ms: 10)), nav) == .rejected(.stackTooShallow))
        #expect(feed(.changed(Self.at(90, ms: 20)), nav) == .refused(.stackTooShallow))
        #expect(feed(.changed(Self.at(120, ms: 25)), nav) == .none, "once a pan")
        #expect(feed(.ended(Self.at(120, ms: 30, vx: 500)), nav) == .none)
        #expect(arbiter.state == .idle)
    }

    @Test mutating func anotherDeviceIsBusyWhileAPanIsTracked() throws {
        let nav = try Self.navigation()
        let other = DeviceID(1)
        _ = feed(.began(Self.at(10, ms: 0)), nav)
        #expect(feed(.began(Self.at(100, ms: 5)), nav, from: other) == .rejected(.busy))
        #expect(feed(.changed(Self.at(150, ms: 10)), nav, from: other) == .none)
        #expect(feed(.changed(Self.at(30, ms: 10)), nav) == .began(Self.target, progress: 0.1))
    }

    @Test mutating func abandonOnlyWhenTheTopPageChanged() throws {
        let nav = try Self.navigation()
        _ = feed(.began(Self.at(10, ms: 0)), nav)
        _ = feed(.changed(Self.at(30, ms: 10)), nav)
        #expect(arbiter.abandon(navigator: "main", keepingTop: "detail") == .none)
        #expect(arbiter.abandon(navigator: "other", keepingTop: nil) == .none)
        #expect(arbiter.abandon(navigator: "main", keepingTop: "root") == .cancelled(Self.target, .stackChanged))
        #expect(arbiter.state.description == "rejected(device 0, stack-changed)", "the stack changed: no animation is running")
        #expect(feed(.ended(Self.at(90, ms: 30, vx: 500)), nav) == .none)
    }

    @Test mutating func aFlickTooShortOrTooBriefIsNoFling() throws {
        let nav = try Self.navigation()
        // 6 mm in 16 ms: fast, but one frame's worth of travel and time.
        _ = feed(.began(Self.at(10, ms: 0)), nav)
        _ = feed(.changed(Self.at(16, ms: 8)), nav)
        #expect(feed(.ended(Self.at(16, ms: 16, vx: 500)), nav) == .cancelled(Self.target, .released))
        // 8 mm in 200 ms, flicked at the end: long enough, but less travel than a fingertip.
        _ = feed(.began(Self.at(10, ms: 1000)), nav)
        _ = feed(.changed(Self.at(18, ms: 1200)), nav)
        #expect(feed(.ended(Self.at(18, ms: 1210, vx: 500)), nav) == .cancelled(Self.target, .released))
        // 20 mm in 60 ms: a fling.
        _ = feed(.began(Self.at(10, ms: 2000)), nav)
        _ = feed(.changed(Self.at(30, ms: 2050)), nav)
        #expect(feed(.ended(Self.at(30, ms: 2060, vx: 400)), nav) == .commit(Self.target, .fling))
    }

    @Test mutating func aShortSlowerFlickFromTheEdgeFlings() throws {
        let nav = try Self.navigation()
        // 8 mm in 30 ms at 100 mm/s from 2 mm in: a flick off the bezel.
        _ = feed(.began(Self.at(2, ms: 0)), nav)
        _ = feed(.changed(Self.at(7, ms: 20)), nav)
        #expect(feed(.ended(Self.at(10, ms: 30, vx: 100)), nav) == .commit(Self.target, .fling))
        // The same from 10 mm in: short, brief and slow for a fling there.
        _ = feed(.began(Self.at(10, ms: 1000)), nav)
        _ = feed(.changed(Self.at(15, ms: 1020)), nav)
        #expect(feed(.ended(Self.at(18, ms: 1030, vx: 100)), nav) == .cancelled(Self.target, .released))
        // From the edge, too slow even there, or flicked back.
        _ = feed(.began(Self.at(2, ms: 2000)), nav)
        _ = feed(.changed(Self.at(7, ms: 2020)), nav)
        #expect(feed(.ended(Self.at(10, ms: 2030, vx: 59)), nav) == .cancelled(Self.target, .released))
        _ = feed(.began(Self.at(2, ms: 3000)), nav)
        _ = feed(.changed(Self.at(20, ms: 3200)), nav)
        #expect(feed(.ended(Self.at(20, ms: 3300, vx: -60)), nav) == .cancelled(Self.target, .flungBack))
        // Before issue 22 the edge had no shorter rule.
        arbiter = PopArbiter(settings: .before22, logger: Logger(label: "test"))
        _ = feed(.began(Self.at(2, ms: 4000)), nav)
        _ = feed(.changed(Self.at(7, ms: 4020)), nav)
        #expect(feed(.ended(Self.at(10, ms: 4030, vx: 100)), nav) == .cancelled(Self.target, .released))
    }

    @Test mutating func theEdgeIsWhereTheFingerLanded() throws {
        let nav = try Self.navigation()
        var settings = GestureSettings()
        settings.mode = .edge
        arbiter = PopArbiter(settings: settings, logger: Logger(label: "test"))
        // Lands 3 mm in; decided at 9 mm in, outside the 4.8 mm zone: still an edge swipe.
        _ = feed(.began(Self.at(3, ms: 0)), nav)
        #expect(feed(.changed(Self.at(5, ms: 10)), nav) == .none)
        #expect(feed(.changed(Self.at(9, ms: 20)), nav) == .began(Self.target, progress: 0.03))
        #expect(feed(.ended(Self.at(14, ms: 40, vx: 250)), nav) == .commit(Self.target, .fling))
        // Lands 6 mm in: outside, wherever it goes.
        _ = feed(.began(Self.at(6, ms: 1000)), nav)
        #expect(feed(.changed(Self.at(16, ms: 1020)), nav) == .rejected(.outsideEdgeZone))
    }

    /// As ``at(_:_:ms:vx:)``, from a panel scanning every `scan` microseconds.
    static func at(_ x: Double, ms: Double, vx: Double = 0, scan: Int64) -> PanSample {
        var sample = at(x, ms: 0, vx: vx)
        sample.time = Timestamp(microseconds: Int64((ms * 1000).rounded()))
        sample.scanInterval = scan
        return sample
    }

    @Test mutating func aFlickFirstSeenOutsideTheEdgeZoneLandedInIt() throws {
        let nav = try Self.navigation()
        var settings = GestureSettings()
        settings.mode = .edge
        arbiter = PopArbiter(settings: settings, logger: Logger(label: "test"))
        // 20 mm in 30 ms from 3 mm in, on a 60 Hz panel whose first scan came 16 ms late:
        // seen at 13.5 mm and 24.5 mm, gone at the third scan. It landed 11 mm back.
        _ = feed(.began(Self.at(13.5, ms: 16, scan: 16_667)), nav)
        #expect(feed(.changed(Self.at(24.5, ms: 32.7, scan: 16_667)), nav) == .began(Self.target, progress: 0.055))
        #expect(feed(.ended(Self.at(24.5, ms: 49.3, vx: 667, scan: 16_667)), nav) == .commit(Self.target, .fling))
        // Not knowing the scan interval, the same reports start outside the zone.
        _ = feed(.began(Self.at(13.5, ms: 1016, scan: 0)), nav)
        #expect(feed(.changed(Self.at(24.5, ms: 1032.7, scan: 0)), nav) == .rejected(.outsideEdgeZone))
        _ = feed(.ended(Self.at(24.5, ms: 1049.3, scan: 0)), nav)
        // A finger that rested before it moved (its next report 200 ms on) landed where it was seen.
        _ = feed(.began(Self.at(13.5, ms: 2000, scan: 16_667)), nav)
        #expect(feed(.changed(Self.at(24.5, ms: 2200, scan: 16_667)), nav) == .rejected(.outsideEdgeZone))
    }

    @Test mutating func aTwoScanFlickAt72HertzIsAsLongAsItWas() throws {
        let nav = try Self.navigation()
        // 8 mm in 30 ms from 1 mm in at 72 Hz: seen at 3 and 6.75 mm (3.75 mm apart, under
        // the decision distance), gone at the third scan, 27.8 ms after the first.
        _ = feed(.began(Self.at(3, ms: 7, scan: 13_889)), nav)
        #expect(feed(.changed(Self.at(6.75, ms: 20.9, scan: 13_889)), nav) == .began(Self.target, progress: 0.01875))
        #expect(feed(.ended(Self.at(6.75, ms: 34.8, vx: 267, scan: 13_889)), nav) == .commit(Self.target, .fling))
        // Counted from the first report, as before issue 27, it was too brief and too short.
        _ = feed(.began(Self.at(3, ms: 1007, scan: 0)), nav)
        #expect(feed(.changed(Self.at(6.75, ms: 1020.9, scan: 0)), nav) == .none)
        #expect(feed(.ended(Self.at(6.75, ms: 1034.8, vx: 267, scan: 0)), nav) == .none)
    }

    @Test mutating func aTapThatSlides2MillimetresWithinAScanNeverDecides() throws {
        let nav = try Self.navigation()
        // Lands 2 mm in on a 60 Hz panel, slides 2 mm inward by the next scan, lifts: the
        // earliest landing is the glass's edge, but distances count from half-way, 3 mm short.
        _ = feed(.began(Self.at(2, ms: 0, scan: 16_667)), nav)
        #expect(feed(.changed(Self.at(4, ms: 16.7, scan: 16_667)), nav) == .none)
        #expect(feed(.ended(Self.at(4, ms: 33.3, vx: 120, scan: 16_667)), nav) == .none)
        #expect(arbiter.state == .idle)
    }

    @Test mutating func theLandingNeverLeavesTheScreen() {
        // Seen 1 mm in, then 9 mm in, one 16.7 ms scan apart: taken back 8 mm it would be off the glass.
        let first = Self.at(1, ms: 10, scan: 16_667), next = Self.at(9, ms: 26.7, scan: 16_667)
        let landing = PopArbiter.landing(first: first, next: next)
        #expect(abs(landing.position.xMillimetres) < 1e-9 && abs(landing.position.x) < 1e-12)
        #expect(landing.time == Timestamp(microseconds: 10_000 - 16_667))
    }

    @Test mutating func aScanSplitInTwoFramesIsNotExtrapolated() throws {
        // A tap 10 mm in; a second frame 0.5 ms later shows 0.4 mm of jitter. Taken back one
        // 10 ms interval at that "velocity", the landing would be 2 mm in, in the edge zone.
        let first = Self.at(10, ms: 0, scan: 10_000), next = Self.at(10.4, ms: 0.5, scan: 10_000)
        let landing = PopArbiter.landing(first: first, next: next)
        #expect(landing.position.xMillimetres >= 9.6 - 1e-9, "taken back at most the move itself")
        let nav = try Self.navigation()
        _ = feed(.began(first), nav)
        #expect(feed(.changed(next), nav) == .none, "jitter is no pan")
        #expect(feed(.ended(Self.at(10.4, ms: 60, scan: 10_000)), nav) == .none)
        #expect(arbiter.state == .idle)
    }

    @Test mutating func aPressThenADragIsTheAppsButACrawlIsNot() throws {
        let nav = try Self.navigation()
        // Rests 600 ms within a millimetre, then drags: a long press (text selection).
        _ = feed(.began(Self.at(100, ms: 0)), nav)
        #expect(feed(.changed(Self.at(101, ms: 300)), nav) == .none)
        #expect(feed(.changed(Self.at(101.5, ms: 590)), nav) == .none)
        #expect(feed(.changed(Self.at(102.5, ms: 600)), nav) == .none, "left the 2 mm slop only at 600 ms")
        #expect(feed(.changed(Self.at(110, ms: 650)), nav) == .rejected(.longPress))
        _ = feed(.ended(Self.at(120, ms: 700)), nav)
        // Crawls out of the slop at once and reaches the decision distance late: a slow drag.
        _ = feed(.began(Self.at(100, ms: 1000)), nav)
        #expect(feed(.changed(Self.at(102.5, ms: 1100)), nav) == .none)
        #expect(feed(.changed(Self.at(104.5, ms: 1800)), nav) == .began(Self.target, progress: 0.0225))
    }

    @Test mutating func fingersThatNeverPannedAreRejectedWithTheirReason() throws {
        let nav = try Self.navigation()
        let time = Timestamp(microseconds: 5000)
        #expect(feed(.failed(.extraFinger, time: time), nav) == .rejected(.extraFinger))
        #expect(arbiter.state == .idle)
        // Another device's failure while a pan is decided leaves that pan alone.
        _ = feed(.began(Self.at(10, ms: 10)), nav)
        #expect(feed(.failed(.eventsDropped, time: time), nav, from: DeviceID(1)) == .rejected(.eventsDropped))
        #expect(feed(.changed(Self.at(30, ms: 20)), nav) == .began(Self.target, progress: 0.1))
    }
}
