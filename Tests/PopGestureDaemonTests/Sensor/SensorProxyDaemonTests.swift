import Foundation
import Testing

/// The real daemon follows iio-sensor-proxy over D-Bus (issue 20): a private
/// `dbus-daemon` stands for the system bus (`DBUS_SYSTEM_BUS_ADDRESS`), and
/// Tests/Fixtures/iio/fake-sensor-proxy.py speaks the proxy's interface on it.
@Suite(.serialized, .enabled(if: PopGestureCtlDaemon.built, "popgestured is not built beside the tests"))
struct SensorProxyDaemonTests {
    static let fake = Repository.path("Tests/Fixtures/iio/fake-sensor-proxy.py")

    /// A `dbus-daemon` of the test's own, on a socket in `directory`: the session bus's
    /// configuration, or, with `refusingEveryone`, one whose policy lets no user connect
    /// (as the system bus treats a uid it cannot resolve).
    final class Bus {
        let process = Process()
        let address: String

        init(in directory: URL, refusingEveryone: Bool = false) throws {
            let daemon = try PopGestureCtlDaemonTests.tool("dbus-daemon", package: "dbus-daemon")
            let socket = directory.appendingPathComponent("bus").path
            address = "unix:path=\(socket)"
            process.executableURL = URL(fileURLWithPath: daemon)
            if refusingEveryone {
                let configuration = directory.appendingPathComponent("refusing.conf")
                try Data("""
                    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                    <busconfig>
                      <listen>\(address)</listen>
                      <auth>EXTERNAL</auth>
                      <policy context="default"><deny user="*"/></policy>
                    </busconfig>
                    """.utf8).write(to: configuration)
                process.arguments = ["--config-file=\(configuration.path)", "--nofork", "--nopidfile"]
            } else {
                process.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)"]
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            guard PopGestureCtlDaemonTests.within(seconds: 10, { FileManager.default.fileExists(atPath: socket) }) else {
                throw PopGestureCtlDaemonTests.MissingTool(description: "dbus-daemon did not listen on \(socket)")
            }
        }

        deinit {
            // Nothing of it needs saving; SIGTERM may be blocked in the mask it inherited.
            kill(process.processIdentifier, SIGKILL)
            PopGestureCtlDaemonTests.waitForExit(process, seconds: 10)
        }
    }

    /// The fake proxy, owning `net.hadess.SensorProxy` once `ready`.
    final class Proxy {
        let process = Process()
        let output: URL

        init(_ orientation: String, bus: Bus, in directory: URL) throws {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
                throw PopGestureCtlDaemonTests.MissingTool(description: "/usr/bin/python3 with python3-gi is needed")
            }
            output = directory.appendingPathComponent("proxy-\(orientation).log")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [SensorProxyDaemonTests.fake, orientation]
            process.environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = process.standardOutput
            try process.run()
            let log = { (try? String(contentsOf: self.output, encoding: .utf8)) ?? "" }
            guard PopGestureCtlDaemonTests.within(seconds: 15, { log().contains("ready") }) else {
                throw PopGestureCtlDaemonTests.MissingTool(description: "the fake sensor proxy did not start: \(log())")
            }
        }

        func stop() { PopGestureCtlDaemonTests.stop(process) }
        deinit { stop() }
    }

    /// `gdbus call` on the fake's control interface.
    static func control(_ bus: Bus, _ method: String, _ argument: String) throws {
        let gdbus = try PopGestureCtlDaemonTests.tool("gdbus", package: "libglib2.0-bin")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gdbus)
        process.arguments = ["call", "--address", bus.address, "--dest", "net.hadess.SensorProxy",
                             "--object-path", "/net/hadess/SensorProxy",
                             "--method", "net.hadess.SensorProxy.FakeControl.\(method)", argument]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        PopGestureCtlDaemonTests.waitForExit(process, seconds: 10)
        #expect(process.terminationStatus == 0, "gdbus \(method) \(argument)")
    }

    /// `status`'s `screen`, from `popgesturectl status --json`.
    static func screen(_ daemon: PopGestureCtlDaemonTests.Daemon) throws -> [String: Any] {
        let run = try PopGestureCtlCommandTests.run(["status", "--json"], environment: ["POPGESTURED_SOCKET": daemon.socket])
        let status = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]
        return status?["screen"] as? [String: Any] ?? [:]
    }

    /// The daemon on `bus` as its system bus, with an event pipe: a touchscreen, which
    /// needs the sensor (the daemon claims it only then).
    static func daemon(on bus: Bus, in directory: URL, _ more: [String] = []) throws -> PopGestureCtlDaemonTests.Daemon {
        let fifo = directory.appendingPathComponent("events").path
        #expect(mkfifo(fifo, 0o600) == 0)
        return try PopGestureCtlDaemonTests.Daemon(
            ["run", "--event-pipe", fifo] + more, in: directory, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
    }

    static func until(
        _ daemon: PopGestureCtlDaemonTests.Daemon, rotation: Int, from source: String, sensor: String
    ) -> Bool {
        PopGestureCtlDaemonTests.within(seconds: 15) {
            guard let screen = try? screen(daemon) else { return false }
            return screen["rotation"] as? Int == rotation && screen["rotationSource"] as? String == source
                && screen["sensor"] as? String == sensor
        }
    }

    @Test("the sensor says left-up, then right-up, goes away and comes back bottom-up: the rotation follows, the file's when it is gone",
          .timeLimit(.minutes(2)))
    func followsTheSensor() throws {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        let bus = try Bus(in: directory)
        var proxy: Proxy? = try Proxy("left-up", bus: bus, in: directory)
        let daemon = try Self.daemon(on: bus, in: directory)

        #expect(Self.until(daemon, rotation: 90, from: "sensor", sensor: "left-up"), "\(daemon.log)")
        #expect(daemon.logContains("rotation 90° from the sensor, was 0° from the configuration"), "\(daemon.log)")

        try Self.control(bus, "SetOrientation", "right-up")
        #expect(Self.until(daemon, rotation: 270, from: "sensor", sensor: "right-up"), "\(daemon.log)")

        try Self.control(bus, "SetHasAccelerometer", "false")
        #expect(Self.until(daemon, rotation: 0, from: "configuration", sensor: "no-accelerometer"), "\(daemon.log)")
        try Self.control(bus, "SetHasAccelerometer", "true")
        #expect(Self.until(daemon, rotation: 270, from: "sensor", sensor: "right-up"), "claimed again: \(daemon.log)")

        proxy?.stop()
        proxy = nil
        #expect(Self.until(daemon, rotation: 0, from: "configuration", sensor: "absent"), "\(daemon.log)")

        proxy = try Proxy("bottom-up", bus: bus, in: directory)
        #expect(Self.until(daemon, rotation: 180, from: "sensor", sensor: "bottom-up"), "claimed again: \(daemon.log)")
        daemon.stop()
    }

    @Test("forged PropertiesChanged and NameOwnerChanged, unicast from another connection, change nothing",
          .timeLimit(.minutes(2)))
    func forgedSignalsChangeNothing() throws {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        let bus = try Bus(in: directory)
        let proxy = try Proxy("left-up", bus: bus, in: directory)
        let daemon = try Self.daemon(on: bus, in: directory, ["--log-level", "debug"])
        #expect(Self.until(daemon, rotation: 90, from: "sensor", sensor: "left-up"), "\(daemon.log)")

        let forge = Process()
        let output = Pipe()
        forge.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        forge.arguments = [Self.forger, bus.address, String(daemon.process.processIdentifier), "bottom-up"]
        forge.standardOutput = output
        try forge.run()
        PopGestureCtlDaemonTests.waitForExit(forge, seconds: 15)
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(forge.terminationStatus == 0 && said.contains("sent"), "\(said)")
        // The daemon has read both once it logged the forged NameOwnerChanged.
        #expect(PopGestureCtlDaemonTests.within(seconds: 15) { daemon.logContains("not the bus: ignored") }, "\(daemon.log)")
        let screen = try Self.screen(daemon)
        #expect(screen["rotation"] as? Int == 90 && screen["sensor"] as? String == "left-up", "\(screen)")
        #expect(!daemon.logContains("iio-sensor-proxy: absent"), "\(daemon.log)")

        // The real proxy's own change still counts.
        try Self.control(bus, "SetOrientation", "right-up")
        #expect(Self.until(daemon, rotation: 270, from: "sensor", sensor: "right-up"), "\(daemon.log)")
        proxy.stop()
        daemon.stop()
    }

    @Test("two claims refused: the daemon claims again, 1 s then 2 s later, and follows the sensor", .timeLimit(.minutes(1)))
    func claimsAgainAfterARefusal() throws {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        let bus = try Bus(in: directory)
        let proxy = try Proxy("left-up", bus: bus, in: directory)
        try Self.control(bus, "RefuseClaims", "2")
        let daemon = try Self.daemon(on: bus, in: directory)
        #expect(Self.until(daemon, rotation: 90, from: "sensor", sensor: "left-up"), "\(daemon.log)")
        #expect(daemon.logContains("claiming again in 1.0 seconds"), "\(daemon.log)")
        #expect(daemon.logContains("claiming again in 2.0 seconds"), "\(daemon.log)")
        proxy.stop()
        daemon.stop()
    }

    static let forger = Repository.path("Tests/Fixtures/iio/forge-signals.py")

    @Test("a system bus that refuses the daemon's user: unavailable, and the log says the bus refused it",
          .timeLimit(.minutes(1)))
    func busRefusesTheUser() throws {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        let bus = try Bus(in: directory, refusingEveryone: true)
        let daemon = try PopGestureCtlDaemonTests.Daemon(
            ["run"], in: directory, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        #expect(PopGestureCtlDaemonTests.within(seconds: 15) { (try? Self.screen(daemon))?["sensor"] as? String == "unavailable" })
        #expect(daemon.logContains("before the bus answered anything: it refused this process"), "\(daemon.log)")
        #expect((try Self.screen(daemon))["rotationSource"] as? String == "configuration")
    }

    @Test("no system bus at all: the daemon runs, and status says the sensor is unavailable", .timeLimit(.minutes(1)))
    func noBus() throws {
        let directory = try PopGestureCtlCommandTests.temporaryDirectory()
        let daemon = try PopGestureCtlDaemonTests.Daemon(
            ["run"], in: directory,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.path)/no-bus-here"])
        let screen = try Self.screen(daemon)
        #expect(screen["sensor"] as? String == "unavailable")
        #expect(screen["rotationSource"] as? String == "configuration")
        #expect(daemon.logContains("iio-sensor-proxy is not followed"), "\(daemon.log)")
    }
}

extension PopGestureCtlDaemonTests {
    /// SIGTERM, then what ``waitForExit(_:seconds:)`` does.
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        waitForExit(process, seconds: 10)
    }
}
