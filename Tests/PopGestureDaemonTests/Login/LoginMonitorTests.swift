import Glibc
@testable import PopGestureDaemon
import Testing

/// sd-login's monitor on this machine, as the daemon makes it: a descriptor for `poll`
/// where logind keeps seats, a reason where it does not (a container, a VM without
/// logind). The seat switch itself is Tests/SystemVM's scenario 18, on a real logind.
@Suite struct LoginMonitorTests {
    @Test func aMonitorWhereLogindKeepsSeatsAndAReasonWhereItDoesNot() {
        let logindKeepsSeats = access("/run/systemd/seats/", F_OK) == 0
        switch LoginMonitor.make() {
        case .success(let monitor):
            #expect(logindKeepsSeats, "a monitor without /run/systemd/seats")
            #expect(monitor.fileDescriptor >= 0)
            #expect(monitor.events & Int16(POLLIN) != 0)
            // Nothing changed: nothing to read, and acknowledging it is harmless.
            var set = pollfd(fd: monitor.fileDescriptor, events: monitor.events, revents: 0)
            #expect(poll(&set, 1, 0) == 0)
            monitor.acknowledge()
        case .failure(let error):
            #expect(!logindKeepsSeats, "no monitor although logind keeps seats: \(error)")
            #expect(error.description.hasPrefix("sd_login_monitor_new: "))
        }
    }
}
