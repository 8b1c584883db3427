"""popgestured-settings (clients/settings) under a headless sway, against the real daemon
binary reading the event pipe's touchscreen (issue 32).

The app is driven through its Gio.Application actions on a private session bus (the
paths its widgets take: `set-edge-width`, `set-app`, `show-page`); what it did is read
from the daemon (`status`, the events of a swipe) and from the person's file. Each page
is screenshotted (grim); with POPGESTURE_SCREENSHOTS set they are kept there
(docs/SETTINGS.md shows them).

    POPGESTURED_BINARY=.build/debug/popgestured /usr/bin/python3 Tests/GUI/test_settings.py -v
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "Tests", "lib"))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
sys.path.insert(0, HERE)

import screenshot  # noqa: E402
from session import PANEL_MM, Session  # noqa: E402
import gnome_shot  # noqa: E402
import test_indicator  # noqa: E402 - the module, not its test classes: unittest would run them here
from test_indicator import APP_PYTHON, SCREEN, IndicatorScenario  # noqa: E402
from tests import support  # noqa: E402

SETTINGS_APP = os.path.join(REPO, "clients", "settings", "popgestured-settings.py")
READER = "org.example.Reader"


def missing_requirements():
    missing = [f"{tool} (Debian: {package})" for tool, package in
               (("sway", "sway"), ("grim", "grim"), ("setpriv", "util-linux"), ("dbus-daemon", "dbus"),
                ("gdbus", "libglib2.0-bin")) if shutil.which(tool) is None]
    probe = subprocess.run([APP_PYTHON, "-c", "import gi; gi.require_version('Gtk', '4.0'); gi.require_version('Adw', '1'); "
                            "from gi.repository import Gtk, Adw"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        missing.append(f"GTK 4 and libadwaita for {APP_PYTHON} (Debian: python3-gi gir1.2-gtk-4.0 gir1.2-adw-1)")
    return missing


class Shell:
    """A raw client saying it is the shell and which app has focus."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.sock.sendall(b'{"type":"hello","version":1,"role":"shell","name":"test shell"}\n')

    def focus(self, app):
        self.sock.sendall(json.dumps({"type": "focused-window", "app": app, "pid": 4242}).encode() + b"\n")

    def close(self):
        self.sock.close()


class SettingsAppTest(Session, unittest.TestCase):
    watched = "app"
    failed_prefix = "settings-failed-"
    start_sway = IndicatorScenario.start_sway

    backend = "sway"

    def missing(self):
        return missing_requirements()

    def start_display(self):
        """sway, and a session bus of the app's own."""
        self.start_sway()
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"})
        self.addCleanup(self.stop, bus)
        self.env = dict(self.env, DBUS_SESSION_BUS_ADDRESS=bus.stdout.readline().decode().strip())

    def setUp(self):
        self.require(self.missing(), "the settings app's test")
        self.start_daemon()
        self.config = os.path.join(self.directory, "config")
        os.makedirs(self.config)
        self.start_display()
        self.env = dict(self.env, XDG_CONFIG_HOME=self.config, GDK_BACKEND="wayland", NO_AT_BRIDGE="1",
                        PYTHONUNBUFFERED="1", PATH=os.path.dirname(support.BINARY) + ":/usr/bin:/bin")
        self.shell = Shell(self.daemon.socket)
        self.addCleanup(self.shell.close)
        self.shell.focus(READER)
        self.app = self.spawn([APP_PYTHON, SETTINGS_APP, "--socket", self.daemon.socket], "app", self.env)
        self.wait_for(lambda: "popgestured-settings" in self.ctl("status"), 30, "the app connected to the daemon")

    def logs(self):
        return f"\n--- app:\n{self.read('app')}\n--- sway:\n{self.read('sway')[-2000:]}\n--- daemon:\n{self.daemon.log}"

    def ctl(self, command):
        ctl = os.path.join(os.path.dirname(support.BINARY), "popgesturectl")
        return subprocess.run([ctl, command, "--socket", self.daemon.socket],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode()

    def status(self):
        return support.raw_query(self.daemon.socket, {"type": "status"})

    def action(self, name, *parameter):
        run = subprocess.run(["gdbus", "call", "--session", "--dest", "org.popgestured.Settings", "--object-path",
                              "/org/popgestured/Settings", "--method", "org.gtk.Actions.Activate", name,
                              "[" + ", ".join(parameter) + "]", "{}"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.env)
        self.assertEqual(run.returncode, 0, run.stdout.decode() + self.logs())

    @staticmethod
    def drawn(image):
        """The app's window fills the output (sway tiles it): its light header, not sway's grey."""
        pixel = image.pixel(image.width // 2, 60)
        return None if min(pixel) > 0xC0 else f"pixel {pixel} at the header: the window is not drawn yet"

    def page(self, name, shot=None):
        self.action("show-page", f"<'{name}'>")
        time.sleep(0.5)  # the page's transition
        self.shot(f"settings-{self.backend}-{shot or name}", self.drawn, timeout=10)

    def swipe(self):
        """A finger down at 2 % of the width, 60 mm to the right, then up."""
        self.finger.down(0.02 * PANEL_MM, 60.0)
        self.finger.move_to(0.02 * PANEL_MM + 60)
        self.finger.up()

    def grab(self):
        return screenshot.grab_wayland(self.env)

    def test_edge_width_and_an_app_s_nothing_go_to_the_daemon_for_this_seat(self):
        self.page("gesture")
        self.action("set-edge-width", "<8.0>")
        self.wait_for(lambda: self.status()["settings"]["edgeWidthMm"] == 8, 10, "status to say an 8 mm edge")
        settings = self.status()["settings"]
        self.assertEqual((settings["seat"], settings["user"]), ("seat0", ["edge-width-mm"]))
        with open(os.path.join(self.config, "popgestured", "popgestured.conf")) as file:
            self.assertIn("edge-width-mm = 8", file.read())

        # The reader, in front: nothing for it.
        self.action("set-app", f"<('{READER}', 'none')>")
        self.wait_for(lambda: f"[back-input] {READER}" in self.status()["settings"]["user"], 10, "the reader's entry")
        with open(os.path.join(self.config, "popgestured", "popgestured.conf")) as file:
            self.assertIn(f"[back-input]\n{READER} = none", file.read())
        self.page("apps")
        self.page("try")
        self.swipe()
        self.wait_for(lambda: any(r["reason"] == "no-navigator" for r in self.status()["rejected"]), 10,
                      "the reader's swipe refused as no-navigator")
        self.page("try", "try-refused")
        self.page("status")
        self.assertIsNone(self.app.poll(), f"the app exited{self.logs()}")


class SettingsOnGnomeShellTest(SettingsAppTest):
    """The same under `gnome-shell --headless` (GNOME Shell 43 here), with the package's
    extension enabled (as Tests/GUI/test_indicator.py starts it); screenshots from the
    Shell itself."""
    backend = "gnome-shell"
    watched = "app"
    bus = test_indicator.IndicatorOnGnomeShellTest.bus
    gdbus = test_indicator.IndicatorOnGnomeShellTest.gdbus

    def missing(self):
        return missing_requirements() + test_indicator.IndicatorOnGnomeShellTest.missing_requirements()

    def start_display(self):
        """The Shell on a session bus of its own, which the app shares; the app is its Wayland client."""
        test_indicator.IndicatorOnGnomeShellTest.start_display(self)
        self.env = dict(self.env, WAYLAND_DISPLAY="wayland-arrow")

    def logs(self):
        return f"\n--- app:\n{self.read('app')}\n--- gnome-shell:\n{self.read('shell')[-3000:]}\n--- daemon:\n{self.daemon.log}"

    def grab(self):
        path = os.path.join(self.directory, "shot.png")
        self.gdbus(gnome_shot.NAME, gnome_shot.PATH, gnome_shot.METHOD, path, str(SCREEN[0]))
        with open(path, "rb") as file:
            return screenshot.read_png(file.read())

    @staticmethod
    def drawn(image):
        """The window, placed by mutter: some of libadwaita's light background near the middle."""
        light = sum(1 for x in range(0, image.width, 16) if min(image.pixel(x, image.height // 2)) > 0xE0)
        return None if light > 8 else "no light pixels across the middle: the window is not drawn yet"


if __name__ == "__main__":
    unittest.main()
