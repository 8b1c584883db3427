#!/usr/bin/python3
"""A stand-in for KWin on the session bus at $DBUS_SESSION_BUS_ADDRESS, for
`popgesturectl bridge kde` without a compositor: it owns org.kde.KWin and serves the
org.kde.kwin.Scripting calls the bridge makes (isScriptLoaded, unloadScript,
loadScript, start), then prints "ready". Each line "focus APP PID" on stdin becomes
the script's call, FocusedWindow(APP, PID) to org.popgestured.Bridge, from KWin's own
connection; it prints "ok" or "error: ...". It ends at end of input.
"""
import sys
import threading

from gi.repository import Gio, GLib

SCRIPTING = """
<node><interface name="org.kde.kwin.Scripting">
  <method name="isScriptLoaded"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="unloadScript"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="loadScript"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="i" direction="out"/></method>
  <method name="start"/>
</interface></node>
"""
loaded = set()
loop = GLib.MainLoop()


def on_call(_conn, _sender, _path, _interface, method, parameters, invocation):
    args = parameters.unpack()
    if method == "isScriptLoaded":
        invocation.return_value(GLib.Variant("(b)", (args[0] in loaded,)))
    elif method == "unloadScript":
        invocation.return_value(GLib.Variant("(b)", (args[0] in loaded,)))
        loaded.discard(args[0])
    elif method == "loadScript":
        loaded.add(args[1])
        invocation.return_value(GLib.Variant("(i)", (len(loaded),)))
    else:
        invocation.return_value(None)


def follow_stdin(conn):
    for line in sys.stdin:
        words = line.split()
        if len(words) != 3 or words[0] != "focus":
            print(f"error: not a focus line: {line.strip()}", flush=True)
            continue
        try:
            conn.call_sync("org.popgestured.Bridge", "/org/popgestured/Bridge", "org.popgestured.Bridge1",
                           "FocusedWindow", GLib.Variant("(si)", (words[1], int(words[2]))), None,
                           Gio.DBusCallFlags.NONE, 5000, None)
            print("ok", flush=True)
        except GLib.Error as error:
            print(f"error: {error.message}", flush=True)
    GLib.idle_add(loop.quit)


def on_name(conn, _name):
    print("ready", flush=True)
    threading.Thread(target=follow_stdin, args=(conn,), daemon=True).start()


conn = Gio.bus_get_sync(Gio.BusType.SESSION, None)
conn.register_object("/Scripting", Gio.DBusNodeInfo.new_for_xml(SCRIPTING).interfaces[0], on_call, None, None)
Gio.bus_own_name_on_connection(conn, "org.kde.KWin", Gio.BusNameOwnerFlags.NONE, on_name, None)
loop.run()
