#!/usr/bin/python3
"""A stand-in for iio-sensor-proxy: net.hadess.SensorProxy on the bus that
DBUS_SYSTEM_BUS_ADDRESS names (the tests' own dbus-daemon), with its accelerometer
interface as iio-sensor-proxy's docs describe it (HasAccelerometer,
AccelerometerOrientation, ClaimAccelerometer, ReleaseAccelerometer, PropertiesChanged).
As the real proxy, it says "undefined" until a client claims the accelerometer.

The tests turn it through a control interface of its own, on the same object:
    net.hadess.SensorProxy.FakeControl.SetOrientation(s)   "left-up", "normal", ...
    net.hadess.SensorProxy.FakeControl.SetHasAccelerometer(b)
    net.hadess.SensorProxy.FakeControl.Claims() -> u       how many clients claimed
    net.hadess.SensorProxy.FakeControl.RefuseClaims(u)     refuse the next N claims

Usage: fake-sensor-proxy.py ORIENTATION   (prints "ready" once it owns the name)
"""
import os
import signal
import sys

from gi.repository import Gio, GLib

NAME = "net.hadess.SensorProxy"
PATH = "/net/hadess/SensorProxy"
XML = """
<node>
  <interface name="net.hadess.SensorProxy">
    <method name="ClaimAccelerometer"/>
    <method name="ReleaseAccelerometer"/>
    <property name="HasAccelerometer" type="b" access="read"/>
    <property name="AccelerometerOrientation" type="s" access="read"/>
  </interface>
  <interface name="net.hadess.SensorProxy.FakeControl">
    <method name="SetOrientation"><arg name="orientation" type="s" direction="in"/></method>
    <method name="SetHasAccelerometer"><arg name="has" type="b" direction="in"/></method>
    <method name="Claims"><arg name="count" type="u" direction="out"/></method>
    <method name="RefuseClaims"><arg name="count" type="u" direction="in"/></method>
  </interface>
</node>
"""

state = {"orientation": sys.argv[1] if len(sys.argv) > 1 else "normal", "has": True, "claims": set(), "refuse": 0}
connection = None


def orientation():
    return state["orientation"] if state["claims"] else "undefined"


def changed(properties):
    connection.emit_signal(
        None, PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged",
        GLib.Variant("(sa{sv}as)", (NAME, properties, [])))


def method_call(conn, sender, path, interface, method, parameters, invocation):
    if method == "ClaimAccelerometer":
        if not state["has"]:
            invocation.return_dbus_error("net.hadess.SensorProxy.Error", "No accelerometer")
            return
        if state["refuse"] > 0:
            state["refuse"] -= 1
            invocation.return_dbus_error("net.hadess.SensorProxy.Error", "Refused for the test")
            return
        first = not state["claims"]
        state["claims"].add(sender)
        invocation.return_value(None)
        if first:
            changed({"AccelerometerOrientation": GLib.Variant("s", orientation())})
    elif method == "ReleaseAccelerometer":
        state["claims"].discard(sender)
        invocation.return_value(None)
    elif method == "SetOrientation":
        state["orientation"] = parameters.unpack()[0]
        invocation.return_value(None)
        if state["claims"]:
            changed({"AccelerometerOrientation": GLib.Variant("s", orientation())})
    elif method == "SetHasAccelerometer":
        state["has"] = parameters.unpack()[0]
        invocation.return_value(None)
        changed({"HasAccelerometer": GLib.Variant("b", state["has"])})
    elif method == "RefuseClaims":
        state["refuse"] = parameters.unpack()[0]
        invocation.return_value(None)
    elif method == "Claims":
        invocation.return_value(GLib.Variant("(u)", (len(state["claims"]),)))


def get_property(conn, sender, path, interface, name):
    if name == "HasAccelerometer":
        return GLib.Variant("b", state["has"])
    if name == "AccelerometerOrientation":
        return GLib.Variant("s", orientation())
    return None


def main():
    global connection
    address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    connection = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
    info = Gio.DBusNodeInfo.new_for_xml(XML)
    for interface in info.interfaces:
        connection.register_object(PATH, interface, method_call, get_property, None)
    loop = GLib.MainLoop()

    def acquired(*_):
        print("ready", flush=True)

    Gio.bus_own_name_on_connection(connection, NAME, Gio.BusNameOwnerFlags.NONE, acquired, lambda *_: loop.quit())
    # The test runner may start it with SIGTERM blocked (a mask is inherited).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    loop.run()


if __name__ == "__main__":
    main()
