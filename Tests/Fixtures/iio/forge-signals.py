#!/usr/bin/python3
"""Forges iio-sensor-proxy's signals, as any local user could, to the connection of
process PID on the bus at ADDRESS (unicast, from this connection's own name):

    forge-signals.py ADDRESS PID ORIENTATION [TIMES]

1. PropertiesChanged on /net/hadess/SensorProxy: AccelerometerOrientation ORIENTATION;
2. NameOwnerChanged("net.hadess.SensorProxy", old owner, ""): "the proxy is gone".

Sends both TIMES times (default once). Prints the target's unique name, then "sent".
The daemon must ignore both: neither comes from the name's owner, nor the second from
the bus itself.
"""
import sys

from gi.repository import Gio, GLib

address, pid, orientation = sys.argv[1], int(sys.argv[2]), sys.argv[3]
times = int(sys.argv[4]) if len(sys.argv) > 4 else 1
conn = Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def bus(method, *args, signature=None):
    params = GLib.Variant(signature, args) if signature else None
    return conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method,
                          params, None, Gio.DBusCallFlags.NONE, -1, None).unpack()


target = None
for name in bus("ListNames")[0]:
    if name.startswith(":") and name != conn.get_unique_name():
        try:
            if bus("GetConnectionUnixProcessID", name, signature="(s)")[0] == pid:
                target = name
        except GLib.Error:
            pass
if target is None:
    sys.exit("no connection of pid %d on the bus" % pid)
print(target, flush=True)
owner = bus("GetNameOwner", "net.hadess.SensorProxy", signature="(s)")[0]
for _ in range(times):
    conn.emit_signal(target, "/net/hadess/SensorProxy", "org.freedesktop.DBus.Properties", "PropertiesChanged",
                     GLib.Variant("(sa{sv}as)", ("net.hadess.SensorProxy",
                                                 {"AccelerometerOrientation": GLib.Variant("s", orientation)}, [])))
    conn.emit_signal(target, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                     GLib.Variant("(sss)", ("net.hadess.SensorProxy", owner, "")))
conn.flush_sync(None)
print("sent", flush=True)
