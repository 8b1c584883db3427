import ArgumentParser
import PopGestureCore
import PopGestureCommandLine
import PopGestureDaemon

/// The options that shape a replayed or demonstrated session: the client's stack,
/// the device's orientation, and the thresholds.
struct GestureOptions: ParsableArguments {
    @Option(help: "Pages on the navigator's stack (1 means only the root: no back).")
    var depth = 2

    @Option(help: "Calibration matrix, six numbers as in LIBINPUT_CALIBRATION_MATRIX.")
    var calibration: String?

    @Option(help: "Physical size of the device as WIDTHxHEIGHT in mm, when it reports no resolution.")
    var size: String?

    @Option(help: "How a touchpad's touches make a pan: one-finger or two-finger. Default: by device kind.")
    var pan: PanSource?

    @Flag(help: "The top page disables the back gesture (fd_interactivePopDisabled).")
    var popDisabled = false

    @Flag(help: "The top page prefers its navigation bar hidden.")
    var barHidden = false

    @Option(help: "The top page's largest start distance from the leading edge, in mm (0: no limit).")
    var maxStartDistance = 0.0

    @Option(help: "An exclusion zone on the top page: x,y,width,height in screen fractions. Repeatable.")
    var exclude: [String] = []

    @Flag(help: "The navigator is still animating a push when the recording starts.")
    var transitioning = false

    /// The daemon's gesture settings, with its flags and its checks.
    @OptionGroup(title: "Gesture settings") var gesture: GestureSettingFlags

    func validate() throws {
        guard depth >= 1 else { throw ValidationError("--depth must be at least 1") }
        if transitioning && depth < 2 {
            throw ValidationError("--transitioning pushes the top page, so it needs --depth 2 or more")
        }
        _ = try configuration()
        if let calibration, CalibrationMatrix(udevProperty: calibration) == nil {
            throw ValidationError("--calibration needs six numbers, e.g. \"1 0 0 0 1 0\"")
        }
        if let size, parseSize(size) == nil { throw ValidationError("--size must look like 217x136") }
        for zone in exclude where parseZone(zone) == nil {
            throw ValidationError("--exclude must be x,y,width,height in fractions, e.g. 0,0.8,1,0.2")
        }
    }

    /// The defaults with the settings' flags on top, checked as the daemon checks them:
    /// `--edge-width -3` is refused with the daemon's words.
    func configuration() throws -> Configuration {
        do {
            return try Configuration(overrides: gesture.overrides)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func deviceConfiguration(for device: DeviceDescription, rotation: Rotation?) -> DeviceConfiguration {
        var configuration = DeviceConfiguration(recorded: device)
        configuration.rotation = rotation
        if let calibration, let matrix = CalibrationMatrix(udevProperty: calibration) {
            configuration.calibration = matrix
        }
        if let pan {
            configuration.pan = PanSettings(source: pan)
        }
        return configuration
    }

    func sized(_ device: DeviceDescription) -> DeviceDescription {
        var device = device
        if let size, let parsed = parseSize(size) { device.reportedSize = parsed }
        return device
    }

    /// The stack: `page1` (root) … `pageN` (top), with the top page's properties.
    var pages: [Page] {
        (1...depth).map { n in
            n == depth
                ? Page(id: "page\(n)", popDisabled: popDisabled, prefersBarHidden: barHidden,
                       maxStartDistanceMillimetres: maxStartDistance, exclusionZones: exclude.compactMap(parseZone))
                : Page(id: "page\(n)")
        }
    }

    private func parseSize(_ text: String) -> PhysicalSize? {
        let parts = text.split(separator: "x").compactMap { Double($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        return PhysicalSize(width: parts[0], height: parts[1])
    }

    private func parseZone(_ text: String) -> NormalizedRect? {
        let parts = text.split(separator: ",").compactMap { Double($0) }
        guard parts.count == 4 else { return nil }
        return NormalizedRect(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
    }
}

extension PanSource: ExpressibleByArgument {}
