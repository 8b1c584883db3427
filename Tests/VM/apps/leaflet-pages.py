#!/usr/bin/env python3
"""A libadwaita app with a navigation stack, for Tests/VM/scenarios/99-real-apps.sh.

Debian 12's libadwaita is 1.2: its navigation stack is AdwLeaflet (AdwNavigationView
came in 1.4). With can-navigate-back, the leaflet goes back on Alt+Left, the Back
key and mouse button, and on its own swipe (AdwSwipeTracker: touch drags, pointer
drags and touchpad scrolls), as GNOME apps of that release do. Three pages, popA,
popB and popC; the window's title is the visible page's name. Ctrl+L opens an entry:
Enter goes to the page named by the last path component typed (popB, /x/popB.html),
so the scenario drives it as it drives a browser. App id org.popgestured.LeafletPages.
The scenarios start it in a session bus of its own (dbus-run-session: GTK 4 sets the
app id from the registered application) with GIO_USE_VFS=local (GIO's gvfs module
blocked its start for 300 s in the VM on a gvfsd that could not reach the bus).
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Adw", "1")
from gi.repository import Adw, Gio, Gtk  # noqa: E402
from location_entry import present_with_entry  # noqa: E402

PAGES = ("popA", "popB", "popC")


def on_activate(app):
    window = Adw.ApplicationWindow(application=app, title=PAGES[0])
    window.set_default_size(1280, 800)
    leaflet = Adw.Leaflet(can_navigate_back=True, can_unfold=False)
    for name in PAGES:
        label = Gtk.Label(label=name)
        label.add_css_class("title-1")
        leaflet.append(label).set_name(name)
    leaflet.connect("notify::visible-child-name",
                    lambda leaflet, _: window.set_title(leaflet.get_visible_child_name()))

    def go(name):
        if name in PAGES:
            leaflet.set_visible_child_name(name)
    present_with_entry(window, leaflet, go)


app = Adw.Application(application_id="org.popgestured.LeafletPages", flags=Gio.ApplicationFlags.NON_UNIQUE)
app.connect("activate", on_activate)
sys.exit(app.run([sys.argv[0]]))
