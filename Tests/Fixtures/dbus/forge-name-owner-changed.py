#!/usr/bin/python3
"""Forges the bus daemon's NameOwnerChanged for NAME, as any program of the session could,
to the connection TARGET (a unique name) on the bus at ADDRESS: unicast, from this
connection's own name.

    forge-name-owner-changed.py ADDRESS TARGET NAME [ROUNDS [APP]]

Each round (1 by default) sends two: NAME taken by this connection ("the compositor is
now me"), then NAME left with no owner ("the compositor is gone"). With APP, between the
two it also calls TARGET's FocusedWindow(APP, 1) on org.popgestured.Bridge1, posing as
the compositor. Prints "sent N" (signals) and, with APP, "answered M" (calls the bridge
answered with success: it must be 0). The bridge must ignore every signal: only the bus
daemon (sender org.freedesktop.DBus) reports owners.
"""
import sys

from gi.repository import Gio, GLib

address, target, name = sys.argv[1:4]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 1
app = sys.argv[5] if len(sys.argv) > 5 else None
conn = Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
owner = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                       GLib.Variant("(s)", (name,)), None, Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
me = conn.get_unique_name()
sent = answered = 0


def owner_changed(old, new):
    conn.emit_signal(target, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                     GLib.Variant("(sss)", (name, old, new)))


for _ in range(rounds):
    owner_changed(owner, me)
    if app is not None:
        try:
            conn.call_sync(target, "/org/popgestured/Bridge", "org.popgestured.Bridge1", "FocusedWindow",
                           GLib.Variant("(si)", (app, 1)), None, Gio.DBusCallFlags.NONE, 5000, None)
            answered += 1
        except GLib.Error:
            pass
    owner_changed(me, "")
    sent += 2
conn.flush_sync(None)
print(f"sent {sent}", flush=True)
if app is not None:
    print(f"answered {answered}", flush=True)
