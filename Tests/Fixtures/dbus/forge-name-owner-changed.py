#!/usr/bin/python3
"""Forges the bus daemon's NameOwnerChanged for NAME, as any program of the session could,
to the connection TARGET (a unique name) on the bus at ADDRESS: unicast, from this
connection's own name.

    forge-name-owner-changed.py ADDRESS TARGET NAME

Sends two: NAME taken by this connection ("the compositor is now me"), then NAME left
with no owner ("the compositor is gone"). Prints "sent". The bridge must ignore both:
only the bus daemon (sender org.freedesktop.DBus) reports owners.
"""
import sys

from gi.repository import Gio, GLib

address, target, name = sys.argv[1:4]
conn = Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
owner = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                       GLib.Variant("(s)", (name,)), None, Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
me = conn.get_unique_name()
for old, new in ((owner, me), (me, "")):
    conn.emit_signal(target, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                     GLib.Variant("(sss)", (name, old, new)))
conn.flush_sync(None)
print("sent", flush=True)
