"""What the page apps (leaflet-pages.py, navigation-pages.py) share: Ctrl+L opens an
entry above the pages, as a browser's location bar; Enter hands go() the name of the
page typed (the last path component without its extension: popB, /x/popB.html)."""
import os

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gtk  # noqa: E402


def present_with_entry(window, pages, go):
    """Shows pages (a widget) in window under a hidden entry that Ctrl+L opens."""
    entry = Gtk.Entry(visible=False)

    def activated(entry):
        go(os.path.splitext(os.path.basename(entry.get_text().strip()))[0])
        entry.set_text("")
        entry.set_visible(False)
    entry.connect("activate", activated)

    def open_entry(*_):
        entry.set_visible(True)
        entry.grab_focus()
        return True
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    box.append(entry)
    box.append(pages)
    pages.set_vexpand(True)
    window.set_content(box)
    controller = Gtk.ShortcutController()
    controller.add_shortcut(Gtk.Shortcut.new(Gtk.ShortcutTrigger.parse_string("<Control>l"),
                                             Gtk.CallbackAction.new(open_entry)))
    window.add_controller(controller)
    window.present()
