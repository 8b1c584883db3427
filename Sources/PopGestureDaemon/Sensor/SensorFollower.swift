import PopGestureCore

/// Following iio-sensor-proxy (`net.hadess.SensorProxy` on the system bus) as a plain
/// state machine: what the bus said in, what to ask or report out. ``SensorProxy`` does
/// the D-Bus I/O.
///
/// ```
///  start / the name gets an owner ──▶ read the properties (GetAll)
///      HasAccelerometer false ──▶ report none (no-accelerometer); wait for PropertiesChanged
///      HasAccelerometer true  ──▶ ClaimAccelerometer ──ok──▶ read the properties again
///                                                            └──▶ report AccelerometerOrientation
///  PropertiesChanged: the orientation ──▶ report it; HasAccelerometer true ──▶ claim again
///  the name loses its owner ──▶ report none (absent); claim again when it returns
///  not needed (a shell reports the screen, `rotation` is fixed, no touchscreen)
///      ──▶ ReleaseAccelerometer, report none (unused); needed again ──▶ read, claim
/// ```
///
/// The accelerometer is claimed only while the engine needs it
/// (``GestureEngine/needsSensor``): a claimed sensor keeps iio-sensor-proxy polling the
/// hardware, which costs power for a rotation nobody would use.
///
/// The claim comes after `HasAccelerometer`, as iio-sensor-proxy's own `monitor-sensor`
/// does, and the orientation is read again after the claim: before it, the proxy may not
/// have read the accelerometer at all. Each call carries the owner ``generation`` it was
/// made for; a reply from before the owner changed is dropped.
struct SensorFollower: Sendable, Equatable {
    /// What the bus said.
    enum Input: Sendable, Equatable {
        /// Connected and subscribed: find out whether the proxy is there.
        case started
        /// `NameOwnerChanged` for `net.hadess.SensorProxy`, from the bus itself (the proxy
        /// checks the sender is `org.freedesktop.DBus`): the new owner's unique name, or
        /// nil when the name lost its owner.
        case ownerChanged(owner: String?)
        /// The reply to a `GetAll`: the two properties (nil when missing or of another
        /// type), or the D-Bus error's name; `sender`, the unique name that answered (the
        /// bus routes a reply only from the connection that got the call).
        case propertiesRead(Properties, error: String?, generation: Int, sender: String? = nil)
        /// The reply to `ClaimAccelerometer`: nil, or the D-Bus error's name.
        case claimed(error: String?, generation: Int)
        /// `PropertiesChanged` on the proxy's interface, from `sender` (a unique name):
        /// taken only from the name's owner, since anyone on the bus can send a signal
        /// that a match rule with `sender='net.hadess.SensorProxy'` lets through.
        case propertiesChanged(Properties, sender: String?)
        /// The connection to the bus is gone.
        case busLost
        /// Whether the engine needs the accelerometer now.
        case needed(Bool)
        /// The time asked for by ``Action/retry(after:)`` has come.
        case retryDue
    }

    /// The properties the follower reads; either may be absent from a message.
    struct Properties: Sendable, Equatable {
        var hasAccelerometer: Bool?
        /// The raw `AccelerometerOrientation`, at most ``SensorProxy/maximumStringBytes``.
        var orientation: String?
    }

    /// What to do.
    enum Action: Sendable, Equatable {
        case readProperties(generation: Int)
        case claim(generation: Int)
        /// `ReleaseAccelerometer`: the claim is no longer needed.
        case release
        /// Give ``Input/retryDue`` after this long: a claim failed.
        case retry(after: Duration)
        /// Tell the engine: `orientation` nil when there is none, `state` what `status` shows.
        case report(SensorOrientation?, state: String)
    }

    /// What `status` shows while there is no orientation.
    enum Absence: String {
        /// Nobody owns `net.hadess.SensorProxy`.
        case absent
        /// The proxy runs, but has no accelerometer.
        case noAccelerometer = "no-accelerometer"
        /// The bus, or the proxy, refused (the claim failed, the connection was lost).
        case unavailable
        /// The proxy has an accelerometer, but nothing needs it: not claimed.
        case unused
    }

    /// The errors that say nobody owns the name (the call does not start the proxy).
    static let namesNoOwner: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
    ]

    /// Counts owner changes: replies from an older owner are stale.
    private(set) var generation = 0
    private(set) var claimed = false
    /// Claims refused in a row, for the retry's backoff.
    private(set) var failedClaims = 0
    /// The first retry after a refused claim waits 1 s, each next twice as long, up to
    /// 60 s: a proxy that refuses for good costs a call a minute.
    static func retryDelay(afterFailures failures: Int) -> Duration {
        .seconds(min(60, 1 << min(failures - 1, 6)))
    }

    /// The unique name that owns `net.hadess.SensorProxy`, as the bus said (a reply's
    /// sender, or its own `NameOwnerChanged`); nil while not known.
    private(set) var owner: String?
    /// Whether the engine needs the accelerometer; the claim waits for it.
    private(set) var needed: Bool

    /// A follower that claims the accelerometer once `needed` (``Input/needed(_:)``).
    init(needed: Bool = false) {
        self.needed = needed
    }
    /// The last thing reported, so that nothing is reported twice.
    private(set) var reported: String?

    mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .started:
            return [.readProperties(generation: generation)]
        case .ownerChanged(let owner):
            generation += 1
            claimed = false
            self.owner = owner
            if owner != nil { return [.readProperties(generation: generation)] }
            return report(nil, .absent)
        case .propertiesRead(let properties, let error, let generation, let sender):
            guard generation == self.generation else { return [] }
            if let error {
                return report(nil, Self.namesNoOwner.contains(error) ? .absent : .unavailable)
            }
            if let sender { owner = sender }
            return apply(properties, fromRead: true)
        case .claimed(let error, let generation):
            guard generation == self.generation else { return [] }
            guard error == nil else {
                // Refused (the proxy was busy, or the policy said no for now): try again later.
                failedClaims += 1
                return report(nil, .unavailable) + [.retry(after: Self.retryDelay(afterFailures: failedClaims))]
            }
            failedClaims = 0
            // No longer needed while the claim was on its way: give it back at once.
            guard needed else { return [.release] + report(.undefined, state: Absence.unused.rawValue) }
            claimed = true
            return [.readProperties(generation: generation)]
        case .retryDue:
            guard needed, !claimed, owner != nil else { return [] }
            return [.readProperties(generation: generation)]
        case .propertiesChanged(let properties, let sender):
            // A forged signal (any local user can send one, unicast) changes nothing.
            guard let owner, sender == owner else { return [] }
            return apply(properties, fromRead: false)
        case .busLost:
            generation += 1
            claimed = false
            owner = nil
            return report(nil, .unavailable)
        case .needed(let needed):
            guard needed != self.needed else { return [] }
            self.needed = needed
            if needed { return [.readProperties(generation: generation)] }
            guard claimed else { return [] }
            claimed = false
            // `undefined` keeps the engine's last orientation (as a tablet laid flat does),
            // so that nothing turns in the moment between a shell leaving and the new claim.
            return [.release] + report(.undefined, state: Absence.unused.rawValue)
        }
    }

    private mutating func apply(_ properties: Properties, fromRead: Bool) -> [Action] {
        switch properties.hasAccelerometer {
        case false?:
            claimed = false
            return report(nil, .noAccelerometer)
        case true? where !needed:
            return report(nil, .unused)
        case true? where !claimed:
            return [.claim(generation: generation)]
        case nil where fromRead:
            return report(nil, .noAccelerometer)
        default:
            break
        }
        guard claimed, let raw = properties.orientation else { return [] }
        // An orientation this daemon does not know (a newer proxy's) counts as undefined.
        let orientation = SensorOrientation(rawValue: raw) ?? .undefined
        return report(orientation, state: orientation.rawValue)
    }

    private mutating func report(_ orientation: SensorOrientation?, _ absence: Absence) -> [Action] {
        report(orientation, state: absence.rawValue)
    }

    private mutating func report(_ orientation: SensorOrientation?, state: String) -> [Action] {
        guard state != reported else { return [] }
        reported = state
        return [.report(orientation, state: state)]
    }
}
