import PopGestureCore
import PopGestureInput

extension InputDeviceInfo {
    /// Whether a udev `change` from these properties to `new` needs the device opened
    /// afresh. Reopening cancels a swipe in progress, so only the properties the
    /// daemon uses count: the kind, the calibration matrix and the size. udev sends
    /// `change` for much else (a rule re-run, a tag, the name), and those keep the
    /// device open. Calibration texts compare by the numbers they hold, so
    /// `"1 0 0 0 1 0"`, `"1.0 0 0 0 1.0 0"` and no property at all are the same matrix.
    func needsReopen(becoming new: InputDeviceInfo) -> Bool {
        kind != new.kind || size != new.size || effectiveCalibration != new.effectiveCalibration
    }

    /// The matrix the daemon applies: the property's, or the identity when it is unset
    /// or not six numbers (the device is then opened with the identity, and says so).
    var effectiveCalibration: CalibrationMatrix {
        calibration.flatMap(CalibrationMatrix.init(udevProperty:)) ?? .identity
    }
}
