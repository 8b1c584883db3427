#!/usr/bin/env python3
"""A libadwaita 1.4+ app with a navigation stack, for Tests/VM/scenarios/99-real-apps.sh.

libadwaita 1.4 replaced AdwLeaflet with AdwNavigationView, which most GNOME 48 apps
(Debian 13) use: it goes back on Alt+Left, the Back key and mouse button, and on its
own one-finger swipe to the right on a touchscreen (anywhere in the view), and
pointer and touchpad swipes. Three pages, popA, popB and popC, pushed in turn; the
window's title is the visible page's tag. Ctrl+L opens an entry: Enter goes to the
page named by the last path component typed (popB, /x/popB.html), pushing it, or
popping back to it when it is on the stack, so the scenario drives it as it drives a
browser. App id org.popgestured.NavigationPages. Started as leaflet-pages.py is
(dbus-run-session, GIO_USE_VFS=local). Exits 2 when libadwaita has no
AdwNavigationView (Debian 12's 1.2).
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Adw", "1")
from gi.repository import Adw, Gio, Gtk  # noqa: E402
from location_entry import present_with_entry  # noqa: E402

PAGES = ("popA", "popB", "popC")
if not hasattr(Adw, "NavigationView"):
    print(f"libadwaita {Adw.get_major_version()}.{Adw.get_minor_version()} has no AdwNavigationView (1.4 and later)",
          file=sys.stderr)
    sys.exit(2)


def page(name):
    label = Gtk.Label(label=name, vexpand=True)
    label.add_css_class("title-1")
    return Adw.NavigationPage(child=label, title=name, tag=name)


def on_activate(app):
    window = Adw.ApplicationWindow(application=app, title=PAGES[0])
    window.set_default_size(1280, 800)
    view = Adw.NavigationView()
    view.add(page(PAGES[0]))
    view.connect("notify::visible-page", lambda view, _: window.set_title(view.get_visible_page().get_tag()))

    def go(name):
        stack = view.get_navigation_stack()
        if name in [stack.get_item(i).get_tag() for i in range(stack.get_n_items())]:
            view.pop_to_tag(name)
        elif name in PAGES:
            view.push(page(name))
    present_with_entry(window, view, go)


app = Adw.Application(application_id="org.popgestured.NavigationPages", flags=Gio.ApplicationFlags.NON_UNIQUE)
app.connect("activate", on_activate)
sys.exit(app.run([sys.argv[0]]))
