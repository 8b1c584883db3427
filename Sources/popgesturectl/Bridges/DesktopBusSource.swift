import Glibc
import SystemPackage

/// The bridge's object on the session bus as a `FocusSource`, for the desktops whose
/// compositor reports through a script of its own (KWin, GNOME Shell): owns
/// `DesktopReport.busName`, turns the compositor's calls into events, and ends when the
/// compositor leaves the bus.
final class DesktopBusSource: FocusSource {
    let bus: SessionBus
    /// The compositor's well-known name (`org.kde.KWin`) and the name messages give it.
    let compositorName: String
    let shownName: String
    private let log: (String) -> Void
    /// The unique name that owns `compositorName`, followed through NameOwnerChanged.
    private var compositor: String?
    private var events: [FocusSourceEvent] = []
    /// Refusals already logged, by caller, method and error: each is one line, not one per call.
    private var refusalsLogged: Set<String> = []
    /// How many distinct refusals are logged before the rest go unlogged.
    static let maximumRefusalsLogged = 32

    /// Connects, owns the bridge's name and serves its object. Throws `CtlFailure` (exit 2)
    /// when there is no session bus, the compositor is not on it, or another bridge owns the name.
    /// - Parameter busAddress: the session bus's address; by default the session's (tests
    ///   give a private bus's).
    init(compositorName: String, shownName: String, busAddress: String? = nil, log: @escaping (String) -> Void) throws {
        self.compositorName = compositorName
        self.shownName = shownName
        self.log = log
        do {
            bus = try SessionBus(address: busAddress)
            try bus.watch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(compositorName)'"
            ) { [unowned self] signal in ownerChanged(signal) }
            compositor = bus.owner(of: compositorName)
            guard compositor != nil else {
                throw DBusError(name: "", message: "\(shownName) is not on the session bus (no owner of \(compositorName)): is this its session?")
            }
            try bus.serve(path: DesktopReport.path, introspection: DesktopReport.introspection) { [unowned self] call in
                handle(call)
            }
            try bus.requestName(DesktopReport.busName)
        } catch let error as DBusError {
            throw CtlFailure("\(error)", exitCode: .cannotConnect)
        }
    }

    var descriptor: FileDescriptor { bus.descriptor }

    /// The compositor's first calls may come while the bridge waits for KWin's or GNOME
    /// Shell's answer at start (the script runs as it loads); sd-bus then holds them.
    var hasBufferedEvents: Bool { bus.mayHoldMessages }

    /// What the calls that came together said. Of their focus changes only the last
    /// counts: KWin reports no window between two windows when focus moves.
    func readAvailable() throws -> [FocusSourceEvent] {
        do {
            try bus.process()
        } catch {
            events.append(.ended("\(error); done"))
        }
        defer { events = [] }
        let lastFocus = events.lastIndex { if case .focused = $0 { true } else { false } }
        return events.enumerated().filter { index, event in
            if case .focused = event { index == lastFocus } else { true }
        }.map(\.element)
    }

    private func handle(_ call: DBusCall) -> DBusError? {
        switch DesktopReport.read(call, compositor: compositor, uid: getuid()) {
        case .success(let event):
            events.append(event)
            return nil
        case .failure(let error):
            let key = "\(call.sender) \(call.member) \(error.name)"
            if refusalsLogged.count < Self.maximumRefusalsLogged, refusalsLogged.insert(key).inserted {
                log("refused \(call.member) from \(call.sender): \(error.message)")
            }
            return error
        }
    }

    private func ownerChanged(_ signal: DBusSignal) {
        guard let owner = Self.newOwner(of: compositorName, in: signal) else {
            if signal.member == "NameOwnerChanged", signal.sender != Self.busDaemon,
               refusalsLogged.count < Self.maximumRefusalsLogged,
               refusalsLogged.insert("\(signal.sender) NameOwnerChanged").inserted {
                log("ignored a NameOwnerChanged from \(signal.sender): only the bus's own counts")
            }
            return
        }
        compositor = owner
        if owner == nil { events.append(.ended("\(shownName) left the session bus; done")) }
    }

    /// The bus daemon's own name, the sender of its signals.
    static let busDaemon = "org.freedesktop.DBus"

    /// The new owner of `name` (nil: none) that `signal` reports, when it is the bus
    /// daemon's NameOwnerChanged for that name; nil when the signal says nothing. Any
    /// program of the session can send NameOwnerChanged to the bridge (unicast, from its
    /// own connection): taken, one would repoint "the compositor" to itself, or end the
    /// bridge with exit 0. Only the bus daemon's word counts.
    static func newOwner(of name: String, in signal: DBusSignal) -> String?? {
        guard signal.sender == busDaemon, signal.member == "NameOwnerChanged", signal.arguments.count == 3,
              case .string(let changed) = signal.arguments[0], changed == name,
              case .string(let owner) = signal.arguments[2]
        else { return nil }
        return .some(owner.isEmpty ? nil : owner)
    }
}
