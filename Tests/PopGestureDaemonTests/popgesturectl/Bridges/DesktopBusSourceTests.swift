import Foundation
import Glibc
import Testing
@testable import popgesturectl

/// The session bridges (`bridge kde`, `bridge gnome`) follow their compositor's name on
/// the session bus; only the bus daemon's word about it counts (issue 28).
@Suite struct DesktopBusSourceTests {
    static func ownerChanged(_ name: String, _ old: String, _ new: String, from sender: String) -> DBusSignal {
        DBusSignal(member: "NameOwnerChanged", sender: sender, arguments: [.string(name), .string(old), .string(new)])
    }

    @Test("NameOwnerChanged counts from the bus daemon only, for the compositor's name only")
    func onlyTheBusNamesOwners() {
        let bus = DesktopBusSource.busDaemon
        #expect(DesktopBusSource.newOwner(of: "org.kde.KWin", in: Self.ownerChanged("org.kde.KWin", ":1.7", ":1.9", from: bus))
            == .some(":1.9"))
        #expect(DesktopBusSource.newOwner(of: "org.kde.KWin", in: Self.ownerChanged("org.kde.KWin", ":1.7", "", from: bus))
            == .some(nil), "the compositor left")
        #expect(DesktopBusSource.newOwner(of: "org.kde.KWin", in: Self.ownerChanged("org.kde.KWin", ":1.7", ":1.66", from: ":1.66"))
            == nil, "a program of the session poses as the bus")
        #expect(DesktopBusSource.newOwner(of: "org.kde.KWin", in: Self.ownerChanged("org.kde.KWin", ":1.7", "", from: ":1.66"))
            == nil, "a forged leave ends nothing")
        #expect(DesktopBusSource.newOwner(of: "org.kde.KWin", in: Self.ownerChanged("org.gnome.Shell", ":1.7", "", from: bus))
            == nil, "another name")
        #expect(DesktopBusSource.newOwner(of: "org.kde.KWin", in: DBusSignal(member: "NameOwnerChanged", sender: bus, arguments: []))
            == nil)
    }

    /// Reads the source until `done` says so, or 5 s pass; every event it gave.
    static func read(_ source: DesktopBusSource, until done: ([FocusSourceEvent]) -> Bool) throws -> [FocusSourceEvent] {
        var events: [FocusSourceEvent] = []
        let deadline = Date().addingTimeInterval(5)
        while !done(events), Date() < deadline {
            var poller = pollfd(fd: source.descriptor.rawValue, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 100)
            events += try source.readAvailable()
        }
        return events
    }

    static func isEnd(_ event: FocusSourceEvent) -> Bool { if case .ended = event { true } else { false } }

    static let forger = Repository.path("Tests/Fixtures/dbus/forge-name-owner-changed.py")

    @Test("on a real bus, a forged NameOwnerChanged from another connection changes nothing; the compositor's leave ends the source",
          .timeLimit(.minutes(1)))
    func forgedOwnerChangesAreIgnored() throws {
        let bus = try DesktopSession.Bus()
        let name = "org.popgestured.TestCompositor"
        let compositor = try bus.start("/usr/bin/python3", ["-c", """
            from gi.repository import Gio, GLib
            Gio.bus_own_name(Gio.BusType.SESSION, "\(name)", Gio.BusNameOwnerFlags.NONE, None, None, None)
            GLib.MainLoop().run()
            """], name: "compositor")
        #expect(PopGestureCtlDaemonTests.within(seconds: 10) { bus.hasOwner(name) })
        var logged: [String] = []
        let source = try DesktopBusSource(compositorName: name, shownName: "the test compositor", busAddress: bus.address) {
            logged.append($0)
        }
        let target = try #require(source.bus.uniqueName)

        let forge = Process()
        DesktopSession.Bus.unblockingSignals(forge, Self.forger, [bus.address, target, name])
        forge.environment = bus.environment
        let out = Pipe()
        forge.standardOutput = out
        forge.standardError = out
        try forge.run()
        forge.waitUntilExit()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try #require(forge.terminationStatus == 0, "the forger: \(said)")
        #expect(said.contains("sent"))

        let afterForgery = try Self.read(source) { _ in logged.contains { $0.contains("ignored a NameOwnerChanged") } }
        #expect(!afterForgery.contains(where: Self.isEnd), "a forged leave ended the bridge: \(afterForgery)")
        #expect(logged.contains { $0.contains("ignored a NameOwnerChanged from :") }, "\(logged)")

        kill(compositor.processIdentifier, SIGKILL)
        let afterLeave = try Self.read(source) { $0.contains(where: Self.isEnd) }
        #expect(afterLeave.contains(where: Self.isEnd), "the compositor left, and the source went on: \(afterLeave)")
    }
}
