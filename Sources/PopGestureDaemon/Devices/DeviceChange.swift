import PopGestureCore
import PopGestureInput

extension InputDeviceInfo {
    /// Whether a udev `change` from these properties to `new` needs the device opened
    /// afresh. Reopening cancels a swipe in progress, so only the properties the
    /// daemon uses count: the kind, the calibration matrix, the size and the output
    /// (`WL_OUTPUT`, which the `screen` key may name). udev sends
    /// `change` for much else (a rule re-run, a tag, the name), and those keep the
    /// device open. Calibration texts compare by the numbers they hold, so
    /// `"1 0 0 0 1 0"`, `"1.0 0 0 0 1.0 0"` and no property at all are the same matrix.
    func needsReopen(becoming new: InputDeviceInfo) -> Bool {
        kind != new.kind || size != new.size || effectiveCalibration != new.effectiveCalibration
            || output != new.output
    }

    /// The matrix the daemon applies: the property's, or the identity when it is unset
    /// or not six numbers (the device is then opened with the identity, and says so).
    var effectiveCalibration: CalibrationMatrix {
        calibration.flatMap(CalibrationMatrix.init(udevProperty:)) ?? .identity
    }
}

/// What the main loop does about one udev change, given the devices it has open.
enum DeviceChangeStep: Sendable, Equatable {
    /// Nothing: the device is open already, or the removal is of one not open.
    case ignore
    case open(InputDeviceInfo)
    /// Keep the open device at `index`, with these properties (see ``InputDeviceInfo/needsReopen(becoming:)``).
    case update(index: Int, InputDeviceInfo)
    /// Close the open device at `index`, then open it afresh with these properties.
    case reopen(index: Int, InputDeviceInfo)
    case close(index: Int)
}

extension UdevChange {
    /// The step for this change, `open` being the open devices in order.
    ///
    /// Devices are matched by udev's syspath, which names one device instance, never by
    /// devnode: the kernel gives `/dev/input/eventN` to the next device as soon as the
    /// old one is gone, so a removal read late (or a device seen both by the first
    /// enumeration and by the monitor) could otherwise close the newer device on that
    /// node. A device whose removal was never seen, still open under the reused node,
    /// fails its next read and is dropped then.
    func step(open: [InputDeviceInfo]) -> DeviceChangeStep {
        switch self {
        case .added(let info):
            return open.contains { $0.syspath == info.syspath } ? .ignore : .open(info)
        case .changed(let info):
            guard let index = open.firstIndex(where: { $0.syspath == info.syspath }) else { return .open(info) }
            return open[index].needsReopen(becoming: info) ? .reopen(index: index, info) : .update(index: index, info)
        case .removed(_, let syspath):
            guard let index = open.firstIndex(where: { $0.syspath == syspath }) else { return .ignore }
            return .close(index: index)
        }
    }
}
