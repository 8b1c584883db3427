import PopGestureCore
import PopGestureProtocol

// The protocol's requests in the engine's terms. The protocol module knows no engine,
// so this is where a page object becomes a `Page`.

extension ClientRequest {
    /// The engine's request for the navigation requests, nil for the others. `configure`
    /// is the server's to resolve: keys left out keep the navigator's values.
    var navigation: NavigationRequest? {
        switch self {
        case .create(let navigator, let pages, let layout, let bar):
            .create(navigator: navigator, pages: pages.map(PopGestureCore.Page.init), layout: layout.map(LayoutDirection.init),
                    barFollowsTopPage: bar)
        case .push(let navigator, let page, let animated):
            .push(navigator: navigator, page: PopGestureCore.Page(page), animated: animated)
        case .pop(let navigator, let animated):
            .pop(navigator: navigator, animated: animated)
        case .replace(let navigator, let pages, let animated):
            .replace(navigator: navigator, pages: pages.map(PopGestureCore.Page.init), animated: animated)
        case .update(let navigator, let page):
            .update(navigator: navigator, page: PopGestureCore.Page(page))
        case .settle(let navigator): .settle(navigator: navigator)
        case .front(let navigator): .front(navigator: navigator)
        case .remove(let navigator): .remove(navigator: navigator)
        case .hello, .subscribe, .unsubscribe, .configure, .stack, .status, .focus, .focusedWindow, .rotation, .outputs,
             .textDirection, .touchpadScrolling, .userSettings:
            nil
        }
    }
}

extension OutputReport {
    /// The shell's output in the engine's terms; nil for a rotation other than 0, 90, 180
    /// or 270 (which the codec refuses). A size the panel cannot have (not positive, past
    /// `maximumSideMillimetres`, not finite) is a compositor that does not know: no size.
    init?(_ output: ClientRequest.Output) {
        guard let rotation = Rotation(rawValue: Int(clamping: output.rotation)) else { return nil }
        // NaN and infinity fall outside it too.
        let side = Double.leastNonzeroMagnitude...OutputReport.maximumSideMillimetres
        let size: PhysicalSize? =
            if let width = output.widthMillimetres, let height = output.heightMillimetres,
               side.contains(width), side.contains(height) {
                PhysicalSize(width: width, height: height)
            } else {
                nil
            }
        self.init(name: output.name, rotation: rotation, size: size, isBuiltIn: output.isBuiltIn, inputs: output.inputs)
    }
}

extension Page {
    init(_ page: ClientRequest.Page) {
        self.init(
            id: page.id, popDisabled: page.popDisabled, prefersBarHidden: page.prefersBarHidden,
            maxStartDistanceMillimetres: page.maxStartDistance,
            exclusionZones: page.exclusionZones.map { NormalizedRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) })
    }
}

extension LayoutDirection {
    init(_ layout: ClientRequest.Layout) {
        switch layout {
        case .leftToRight: self = .leftToRight
        case .rightToLeft: self = .rightToLeft
        }
    }
}
