@testable import PopGestureCore
import Testing

@Suite("NavigationState")
struct NavigationStateTests {
    static let alice = ClientID(1)
    static let bob = ClientID(2)
    static let t0 = Timestamp(seconds: 100, microseconds: 0)

    static func bar(_ navigator: String, _ page: String, hidden: Bool, owner: ClientID = alice) -> NavigationEffect {
        .barVisibility(navigator: navigator, owner: owner, page: page, hidden: hidden)
    }

    /// A state with Alice's navigator "main" holding root and detail (detail hides the bar).
    static func twoPages() throws -> NavigationState {
        var state = NavigationState()
        _ = try state.create("main", owner: alice, pages: [Page(id: "root"), Page(id: "detail", prefersBarHidden: true)])
        return state
    }

    /// Runs a request that must fail with `code`, and checks that it changed nothing.
    static func expectRefused(
        _ code: NavigationError.Code, _ state: inout NavigationState,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ request: (inout NavigationState) throws(NavigationError) -> Void
    ) {
        let navigators = state.navigators, front = state.frontOrder
        do {
            try request(&state)
            Issue.record("expected \(code.rawValue), but the request succeeded", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
        #expect(state.navigators == navigators, "a failed request changed the stacks", sourceLocation: sourceLocation)
        #expect(state.frontOrder == front, "a failed request changed the front order", sourceLocation: sourceLocation)
    }

    // MARK: - create

    @Test("create makes a navigator with its pages, in front, and reports the root's bar")
    func create() throws {
        var state = NavigationState()
        #expect(state.front(on: .seat0) == nil)
        let effects = try state.create("main", owner: Self.alice, pages: [Page(id: "root", prefersBarHidden: true)])
        #expect(effects == [Self.bar("main", "root", hidden: true)])
        let nav = try #require(state.navigators["main"])
        #expect(nav.owner == Self.alice)
        #expect(nav.pages.map(\.id) == ["root"])
        #expect(nav.depth == 1)
        #expect(nav.top.id == "root")
        #expect(nav.barFollowsTopPage)
        #expect(nav.layout == nil)
        #expect(state.layout(of: nav) == .leftToRight)
        #expect(state.front(on: .seat0)?.id == "main")
        #expect(!nav.isTransitioning(at: Self.t0))
    }

    @Test("create reports the bar of the top page of a deeper stack, and keeps its layout")
    func createDeep() throws {
        var state = NavigationState()
        state.defaultLayout = .rightToLeft
        let effects = try state.create(
            "main", owner: Self.alice, pages: [Page(id: "a", prefersBarHidden: true), Page(id: "b")], layout: nil)
        #expect(effects == [Self.bar("main", "b", hidden: false)])
        let nav = try #require(state.navigators["main"])
        #expect(state.layout(of: nav) == .rightToLeft)

        _ = try state.create("other", owner: Self.alice, pages: [Page(id: "a")], layout: .leftToRight)
        #expect(state.layout(of: try #require(state.navigators["other"])) == .leftToRight)
    }

    @Test("create refuses an existing id, an empty stack, duplicate pages and bad values")
    func createErrors() throws {
        var state = try Self.twoPages()
        Self.expectRefused(.navigatorExists, &state) { s throws(NavigationError) in
            _ = try s.create("main", owner: Self.bob, pages: [Page(id: "x")])
        }
        Self.expectRefused(.emptyStack, &state) { s throws(NavigationError) in
            _ = try s.create("new", owner: Self.alice, pages: [])
        }
        Self.expectRefused(.duplicatePage, &state) { s throws(NavigationError) in
            _ = try s.create("new", owner: Self.alice, pages: [Page(id: "a"), Page(id: "b"), Page(id: "a")])
        }
        Self.expectRefused(.invalidValue, &state) { s throws(NavigationError) in
            _ = try s.create("new", owner: Self.alice, pages: [Page(id: "a", maxStartDistanceMillimetres: -1)])
        }
        Self.expectRefused(.invalidValue, &state) { s throws(NavigationError) in
            _ = try s.create("new", owner: Self.alice, pages: [Page(id: "a", maxStartDistanceMillimetres: .nan)])
        }
        Self.expectRefused(.invalidValue, &state) { s throws(NavigationError) in
            _ = try s.create("new", owner: Self.alice, pages: [Page(id: "a", maxStartDistanceMillimetres: .infinity)])
        }
    }

    // MARK: - push

    @Test("push puts the page on top and reports its bar preference")
    func push() throws {
        var state = try Self.twoPages()
        let effects = try state.push(Page(id: "third"), onto: "main", by: Self.alice, at: Self.t0)
        #expect(effects == [Self.bar("main", "third", hidden: false)])
        let nav = try #require(state.navigators["main"])
        #expect(nav.pages.map(\.id) == ["root", "detail", "third"])
        #expect(nav.top.id == "third")

        let hidden = try state.push(
            Page(id: "fourth", prefersBarHidden: true, maxStartDistanceMillimetres: 20), onto: "main",
            by: Self.alice, at: Self.t0)
        #expect(hidden == [Self.bar("main", "fourth", hidden: true)])
        #expect(state.navigators["main"]?.top.maxStartDistanceMillimetres == 20)
    }

    @Test("push refuses a duplicate page, another client, an unknown navigator and a negative distance")
    func pushErrors() throws {
        var state = try Self.twoPages()
        _ = try state.create("bobs", owner: Self.bob, pages: [Page(id: "home")])
        Self.expectRefused(.duplicatePage, &state) { s throws(NavigationError) in
            _ = try s.push(Page(id: "root"), onto: "main", by: Self.alice, at: Self.t0)
        }
        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in
            _ = try s.push(Page(id: "x"), onto: "main", by: Self.bob, at: Self.t0)
        }
        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in
            _ = try s.push(Page(id: "x"), onto: "bobs", by: Self.alice, animated: true, at: Self.t0)
        }
        Self.expectRefused(.unknownNavigator, &state) { s throws(NavigationError) in
            _ = try s.push(Page(id: "x"), onto: "nowhere", by: Self.alice, at: Self.t0)
        }
        Self.expectRefused(.invalidValue, &state) { s throws(NavigationError) in
            _ = try s.push(Page(id: "x", maxStartDistanceMillimetres: -0.5), onto: "main", by: Self.alice, at: Self.t0)
        }
    }

    // MARK: - pop

    @Test("pop removes the top page and reports the bar of the page that appears")
    func pop() throws {
        var state = try Self.twoPages()
        let (popped, effects) = try state.pop("main", by: Self.alice, at: Self.t0)
        #expect(popped.id == "detail")
        #expect(effects == [Self.bar("main", "root", hidden: false)])
        #expect(state.navigators["main"]?.pages.map(\.id) == ["root"])
    }

    @Test("pop refuses the root page, another client and an unknown navigator")
    func popErrors() throws {
        var state = try Self.twoPages()
        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in
            try s.pop("main", by: Self.bob, at: Self.t0)
        }
        Self.expectRefused(.unknownNavigator, &state) { s throws(NavigationError) in
            try s.pop("nowhere", by: Self.alice, at: Self.t0)
        }
        try state.pop("main", by: Self.alice, at: Self.t0)
        Self.expectRefused(.cannotPopRoot, &state) { s throws(NavigationError) in
            try s.pop("main", by: Self.alice, at: Self.t0)
        }
        #expect(state.navigators["main"]?.depth == 1)
    }

    // MARK: - replace

    @Test("replace swaps the whole stack and reports the new top's bar")
    func replace() throws {
        var state = try Self.twoPages()
        let effects = try state.replace(
            "main", with: [Page(id: "a"), Page(id: "b"), Page(id: "c", prefersBarHidden: true)],
            by: Self.alice, at: Self.t0)
        #expect(effects == [Self.bar("main", "c", hidden: true)])
        #expect(state.navigators["main"]?.pages.map(\.id) == ["a", "b", "c"])
    }

    @Test("replace refuses duplicates in the new stack, an empty stack and another client")
    func replaceErrors() throws {
        var state = try Self.twoPages()
        Self.expectRefused(.duplicatePage, &state) { s throws(NavigationError) in
            _ = try s.replace("main", with: [Page(id: "a"), Page(id: "a")], by: Self.alice, at: Self.t0)
        }
        Self.expectRefused(.emptyStack, &state) { s throws(NavigationError) in
            _ = try s.replace("main", with: [], by: Self.alice, at: Self.t0)
        }
        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in
            _ = try s.replace("main", with: [Page(id: "a")], by: Self.bob, at: Self.t0)
        }
        Self.expectRefused(.invalidValue, &state) { s throws(NavigationError) in
            _ = try s.replace("main", with: [Page(id: "a", maxStartDistanceMillimetres: -3)], by: Self.alice, at: Self.t0)
        }
    }

    // MARK: - update

    @Test("updating the top page's bar preference reports it; a lower page's does not")
    func updateBar() throws {
        var state = try Self.twoPages()
        // Top page "detail": hidden → shown.
        let top = try state.update(Page(id: "detail", prefersBarHidden: false), on: "main", by: Self.alice)
        #expect(top == [Self.bar("main", "detail", hidden: false)])
        #expect(state.navigators["main"]?.top.prefersBarHidden == false)

        // Lower page "root": stored, but nothing to tell.
        let lower = try state.update(Page(id: "root", prefersBarHidden: true), on: "main", by: Self.alice)
        #expect(lower.isEmpty)
        #expect(state.navigators["main"]?.pages.first?.prefersBarHidden == true)
        // It shows up once the page is back on top.
        let (_, effects) = try state.pop("main", by: Self.alice, at: Self.t0)
        #expect(effects == [Self.bar("main", "root", hidden: true)])
    }

    @Test("updating other properties of the top page changes them without a bar effect")
    func updateOtherProperties() throws {
        var state = try Self.twoPages()
        let zone = NormalizedRect(x: 0, y: 0.8, width: 1, height: 0.2)
        let effects = try state.update(
            Page(id: "detail", popDisabled: true, prefersBarHidden: true, maxStartDistanceMillimetres: 12,
                 exclusionZones: [zone]),
            on: "main", by: Self.alice)
        #expect(effects.isEmpty)
        let top = try #require(state.navigators["main"]?.top)
        #expect(top.popDisabled)
        #expect(top.maxStartDistanceMillimetres == 12)
        #expect(top.exclusionZones == [zone])
    }

    @Test("update refuses an unknown page, another client and a negative distance")
    func updateErrors() throws {
        var state = try Self.twoPages()
        Self.expectRefused(.unknownPage, &state) { s throws(NavigationError) in
            _ = try s.update(Page(id: "ghost"), on: "main", by: Self.alice)
        }
        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in
            _ = try s.update(Page(id: "detail"), on: "main", by: Self.bob)
        }
        Self.expectRefused(.invalidValue, &state) { s throws(NavigationError) in
            _ = try s.update(Page(id: "detail", maxStartDistanceMillimetres: -1), on: "main", by: Self.alice)
        }
        Self.expectRefused(.unknownNavigator, &state) { s throws(NavigationError) in
            _ = try s.update(Page(id: "detail"), on: "nowhere", by: Self.alice)
        }
    }

    // MARK: - barFollowsTopPage

    @Test("no bar effects when the navigator does not follow its top page's bar")
    func noBarEffects() throws {
        var state = NavigationState()
        #expect(try state.create(
            "main", owner: Self.alice, pages: [Page(id: "root", prefersBarHidden: true)], barFollowsTopPage: false
        ).isEmpty)
        #expect(try state.push(Page(id: "a", prefersBarHidden: true), onto: "main", by: Self.alice, at: Self.t0).isEmpty)
        #expect(try state.update(Page(id: "a"), on: "main", by: Self.alice).isEmpty)
        #expect(try state.pop("main", by: Self.alice, at: Self.t0).effects.isEmpty)
        #expect(try state.replace("main", with: [Page(id: "x"), Page(id: "y")], by: Self.alice, at: Self.t0).isEmpty)
        #expect(state.barVisibility("main") == nil)

        // Switching it on brings the effects back.
        try state.configure("main", by: Self.alice, layout: .rightToLeft, barFollowsTopPage: true)
        #expect(state.navigators["main"]?.layout == .rightToLeft)
        #expect(try state.push(Page(id: "z", prefersBarHidden: true), onto: "main", by: Self.alice, at: Self.t0)
                == [Self.bar("main", "z", hidden: true)])
        #expect(state.barVisibility("main") == Self.bar("main", "z", hidden: true))
    }

    @Test("configure is refused for another client")
    func configureErrors() throws {
        var state = try Self.twoPages()
        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in
            try s.configure("main", by: Self.bob, layout: .rightToLeft, barFollowsTopPage: false)
        }
    }

    // MARK: - Transitions

    @Test("an animated push is transitioning until the client settles")
    func transitionUntilSettle() throws {
        var state = try Self.twoPages()
        _ = try state.push(Page(id: "third"), onto: "main", by: Self.alice, animated: true, at: Self.t0)
        let nav = try #require(state.navigators["main"])
        #expect(nav.isTransitioning(at: Self.t0))
        #expect(nav.isTransitioning(at: Self.t0 + .milliseconds(350)))

        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in try s.settle("main", by: Self.bob) }
        #expect(state.navigators["main"]?.isTransitioning(at: Self.t0 + .milliseconds(350)) == true)

        try state.settle("main", by: Self.alice)
        #expect(state.navigators["main"]?.isTransitioning(at: Self.t0 + .milliseconds(350)) == false)
        #expect(state.navigators["main"]?.transitioningUntil == nil)
    }

    @Test("without settle, the transition ends after transitionTimeout (1 s by default)")
    func transitionTimeout() throws {
        var state = try Self.twoPages()
        #expect(state.transitionTimeout == .seconds(1))
        _ = try state.push(Page(id: "third"), onto: "main", by: Self.alice, animated: true, at: Self.t0)
        let nav = try #require(state.navigators["main"])
        #expect(nav.transitioningUntil == Self.t0 + .seconds(1))
        #expect(nav.isTransitioning(at: Timestamp(microseconds: Self.t0.microseconds + 999_999)))
        #expect(!nav.isTransitioning(at: Self.t0 + .seconds(1)))
        #expect(!nav.isTransitioning(at: Self.t0 + .seconds(5)))
    }

    @Test("a custom timeout, and animated pop and replace, transition too; unanimated changes do not")
    func otherTransitions() throws {
        var state = try Self.twoPages()
        state.transitionTimeout = .milliseconds(400)

        _ = try state.push(Page(id: "plain"), onto: "main", by: Self.alice, at: Self.t0)
        #expect(state.navigators["main"]?.isTransitioning(at: Self.t0) == false)

        try state.pop("main", by: Self.alice, animated: true, at: Self.t0)
        #expect(state.navigators["main"]?.isTransitioning(at: Self.t0 + .milliseconds(399)) == true)
        #expect(state.navigators["main"]?.isTransitioning(at: Self.t0 + .milliseconds(400)) == false)

        let t1 = Self.t0 + .seconds(2)
        _ = try state.replace("main", with: [Page(id: "a"), Page(id: "b")], by: Self.alice, animated: true, at: t1)
        #expect(state.navigators["main"]?.isTransitioning(at: t1 + .milliseconds(100)) == true)
        #expect(state.navigators["main"]?.isTransitioning(at: t1 + .milliseconds(400)) == false)
    }

    @Test("a committed back gesture pops the expected top and stays transitioning")
    func commitBack() throws {
        var state = try Self.twoPages()
        let wrongTop = state.commitBack("main", expectedTop: "root", at: Self.t0)
        #expect(wrongTop == nil)
        #expect(state.navigators["main"]?.depth == 2)

        let committed = state.commitBack("main", expectedTop: "detail", at: Self.t0)
        let result = try #require(committed)
        #expect(result.popped.id == "detail")
        #expect(result.top.id == "root")
        #expect(state.barVisibility("main") == Self.bar("main", "root", hidden: false))
        #expect(state.navigators["main"]?.isTransitioning(at: Self.t0 + .milliseconds(500)) == true)
        let atRoot = state.commitBack("main", expectedTop: "root", at: Self.t0)
        #expect(atRoot == nil)
    }

    // MARK: - Front order and removal

    @Test("the newest navigator is in front; bringToFront and removal change that")
    func frontOrder() throws {
        var state = NavigationState()
        _ = try state.create("a", owner: Self.alice, pages: [Page(id: "p")])
        _ = try state.create("b", owner: Self.bob, pages: [Page(id: "p")])
        _ = try state.create("c", owner: Self.alice, pages: [Page(id: "p")])
        #expect(state.front(on: .seat0)?.id == "c")
        #expect(state.frontOrder == ["a", "b", "c"])

        try state.bringToFront("a", by: Self.alice)
        #expect(state.front(on: .seat0)?.id == "a")
        #expect(state.frontOrder == ["b", "c", "a"])

        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in try s.bringToFront("b", by: Self.alice) }
        Self.expectRefused(.unknownNavigator, &state) { s throws(NavigationError) in
            try s.bringToFront("zzz", by: Self.alice)
        }

        try state.remove("c", by: Self.alice)
        #expect(state.navigators["c"] == nil)
        #expect(state.front(on: .seat0)?.id == "a")
        #expect(state.frontOrder == ["b", "a"])
    }

    @Test("removeAll(ownedBy:) removes a client's navigators and the previous front takes over")
    func removeAllOwned() throws {
        var state = NavigationState()
        _ = try state.create("bobs", owner: Self.bob, pages: [Page(id: "p")])
        _ = try state.create("z", owner: Self.alice, pages: [Page(id: "p")])
        _ = try state.create("y", owner: Self.alice, pages: [Page(id: "p")])
        #expect(state.front(on: .seat0)?.id == "y")

        let gone = state.removeAll(ownedBy: Self.alice)
        #expect(gone == ["y", "z"])
        #expect(state.front(on: .seat0)?.id == "bobs")
        #expect(state.frontOrder == ["bobs"])
        #expect(Set(state.navigators.keys) == ["bobs"])
        #expect(state.removeAll(ownedBy: Self.alice).isEmpty)

        #expect(state.removeAll(ownedBy: Self.bob) == ["bobs"])
        #expect(state.front(on: .seat0) == nil)
    }

    @Test("remove refuses another client and an unknown navigator")
    func removeErrors() throws {
        var state = try Self.twoPages()
        Self.expectRefused(.notOwner, &state) { s throws(NavigationError) in try s.remove("main", by: Self.bob) }
        Self.expectRefused(.unknownNavigator, &state) { s throws(NavigationError) in
            try s.remove("nowhere", by: Self.alice)
        }
        // The id is free again once removed.
        try state.remove("main", by: Self.alice)
        #expect(state.front(on: .seat0) == nil)
        _ = try state.create("main", owner: Self.bob, pages: [Page(id: "p")])
        #expect(state.front(on: .seat0)?.owner == Self.bob)
    }

    // MARK: - Limits

    @Test("a client owns at most 16 navigators; others may still create theirs, and removing one frees a place")
    func navigatorsPerClient() throws {
        var state = NavigationState()
        let limit = NavigationState.maximumNavigatorsPerClient
        #expect(limit == 16)
        for n in 0..<limit { _ = try state.create("a\(n)", owner: Self.alice, pages: [Page(id: "root")]) }
        Self.expectRefused(.tooManyNavigators, &state) { state throws(NavigationError) in
            _ = try state.create("one-more", owner: Self.alice, pages: [Page(id: "root")])
        }
        _ = try state.create("b0", owner: Self.bob, pages: [Page(id: "root")])
        try state.remove("a0", by: Self.alice)
        _ = try state.create("one-more", owner: Self.alice, pages: [Page(id: "root")])
        #expect(state.navigators.count == limit + 1)
    }

    @Test("a stack holds at most 64 pages: create, push and replace past it are too-many-pages")
    func pagesPerNavigator() throws {
        let limit = NavigationState.maximumPagesPerNavigator
        #expect(limit == 64)
        let full = (0..<limit).map { Page(id: "p\($0)") }
        var state = NavigationState()
        Self.expectRefused(.tooManyPages, &state) { state throws(NavigationError) in
            _ = try state.create("main", owner: Self.alice, pages: full + [Page(id: "extra")])
        }
        _ = try state.create("main", owner: Self.alice, pages: Array(full.dropLast()))
        _ = try state.push(Page(id: "last"), onto: "main", by: Self.alice, at: Self.t0)
        #expect(state.navigators["main"]?.depth == limit)
        Self.expectRefused(.tooManyPages, &state) { state throws(NavigationError) in
            _ = try state.push(Page(id: "extra"), onto: "main", by: Self.alice, at: Self.t0)
        }
        Self.expectRefused(.tooManyPages, &state) { state throws(NavigationError) in
            _ = try state.replace("main", with: full + [Page(id: "extra")], by: Self.alice, at: Self.t0)
        }
        _ = try state.replace("main", with: full, by: Self.alice, at: Self.t0)
        #expect(state.navigators["main"]?.depth == limit)
    }

    @Test("errors describe themselves with their code")
    func errorDescription() {
        let error = NavigationError(.cannotPopRoot, "navigator \"main\" has only its root page")
        #expect(error.description == "cannot-pop-root: navigator \"main\" has only its root page")
        #expect(NavigationError.Code.duplicatePage.rawValue == "duplicate-page")
        #expect(NavigationError.Code.notOwner.rawValue == "not-owner")
        #expect(NavigationError.Code.invalidValue.rawValue == "invalid-value")
        #expect(NavigationError.Code.emptyStack.rawValue == "empty-stack")
        #expect(NavigationError.Code.unknownNavigator.rawValue == "unknown-navigator")
    }

    // MARK: - Page.swift

    @Test("NormalizedRect.contains includes its top-left edges and excludes the far ones")
    func normalizedRectContains() {
        let r = NormalizedRect(x: 0.1, y: 0.5, width: 0.4, height: 0.25)
        #expect(r.contains(x: 0.1, y: 0.5))
        #expect(r.contains(x: 0.3, y: 0.6))
        #expect(r.contains(x: 0.499, y: 0.749))
        #expect(!r.contains(x: 0.5, y: 0.6))
        #expect(!r.contains(x: 0.3, y: 0.75))
        #expect(!r.contains(x: 0.09, y: 0.6))
        #expect(!r.contains(x: 0.3, y: 0.49))
        #expect(!NormalizedRect(x: 0, y: 0, width: 0, height: 1).contains(x: 0, y: 0.5))
    }

    @Test("LayoutDirection: back is toward larger x in LTR, smaller in RTL")
    func layoutDirection() {
        #expect(LayoutDirection.leftToRight.backDirection == 1)
        #expect(LayoutDirection.rightToLeft.backDirection == -1)
        #expect(LayoutDirection(rawValue: "rtl") == .rightToLeft)
    }
}
