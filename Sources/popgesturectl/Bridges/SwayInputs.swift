import PopGestureProtocol

/// How sway scrolls the daemon's virtual touchpad ("popgestured touchpad"): its
/// libinput `natural_scroll`, from the `GET_INPUTS` reply and from `input` events
/// (`added` and `libinput_config`, which carry the device as `GET_INPUTS` lists it).
/// sway applies `input type:touchpad natural_scroll enabled` and the device's own
/// block to it as to a real touchpad. Pure: the source feeds it parsed payloads.
struct SwayTouchpadScrolling {
    /// What was last said; nil before, and while sway lists no such touchpad (the daemon
    /// makes it only when some app's entry is `touchpad`).
    private(set) var natural: Bool?

    /// The `GET_INPUTS` reply: the first virtual touchpad's setting, when new.
    mutating func inputs(_ payload: JSONValue) -> [FocusSourceEvent] {
        guard let first = (payload.array ?? []).lazy.compactMap(Self.natural(of:)).first else { return [] }
        return report(first)
    }

    /// An `input` event: the device's setting when it is the virtual touchpad and new.
    mutating func inputEvent(_ payload: JSONValue) -> [FocusSourceEvent] {
        guard ["added", "libinput_config"].contains(payload["change"]?.string ?? ""),
              let input = payload["input"], let natural = Self.natural(of: input)
        else { return [] }
        return report(natural)
    }

    /// Whether `input` (one of sway's input objects) is the virtual touchpad with natural
    /// scrolling on; nil for another device, or one without the setting.
    static func natural(of input: JSONValue) -> Bool? {
        guard input["name"]?.string == ClientRequest.virtualTouchpadName, input["type"]?.string == "touchpad" else {
            return nil
        }
        return switch input["libinput"]?["natural_scroll"]?.string {
        case "enabled": true
        case "disabled": false
        default: nil
        }
    }

    private mutating func report(_ natural: Bool) -> [FocusSourceEvent] {
        guard natural != self.natural else { return [] }
        self.natural = natural
        return [.touchpadScrolling(natural: natural)]
    }
}
