"""popgestured-settings: tune the back swipe without a terminal (issue 32).

A GTK 4 + libadwaita app, run as the person at the seat (no root): it talks to the
daemon through its socket, and keeps the person's own settings for their seat in
$XDG_CONFIG_HOME/popgestured/popgestured.conf, the system file's format with the keys
a user may set (docs/CONFIGURATION.md, "Settings per user"). Every change is written
there and sent at once (`user-settings`); the session's bridge sends the same file at
the next login.

Pages: Gesture (where a swipe starts, the edge width, the sensitivity, the direction
and the rotation in force), Apps (the apps seen in front and what each gets), Try it
(a pad that draws the finger's path and says what the swipe became) and Status
(`popgesturectl doctor`).

    /usr/bin/python3 popgestured-settings.py [--socket PATH]

For tests, its Gio.Application actions are the same paths the widgets take:
`set-edge-width` (d, millimetres), `set-mode` (s), `set-app` (ss: app id, choice),
`show-page` (s); a unique app exports them on the session bus (org.gtk.Actions).
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Adw", "1")
from gi.repository import Adw, Gio, GLib, Gtk  # noqa: E402

APP_ID = "org.popgestured.Settings"
DEFAULT_SOCKET = "/run/popgestured/popgestured.sock"
SYSTEM_FILE = "/etc/popgestured/popgestured.conf"
# The protocol's limits: a line, and the text of user-settings.
MAXIMUM_LINE = 65536
MAXIMUM_SETTINGS = 16 * 1024
RETRY_SECONDS = 2
# The keys this app writes (the user's keys the daemon takes), in the file's order.
GESTURE_KEYS = ("mode", "back-input-mode", "edge-width-mm", "commit-progress")
# What an app may get, as the file spells it, and how the page says it.
CHOICES = [
    ("", "As the system says"),
    ("alt+left", "The back key combination (Alt+Left)"),
    ("KEY_BACK", "The Back key"),
    ("own-swipe", "Its own swipe"),
    ("touchpad", "The touchpad replay (the page follows the finger)"),
    ("none", "Nothing"),
]
# Why a swipe was refused, in words (docs/PROTOCOL.md's reasons).
REASONS = {
    "no-navigator": "nothing in front takes a back (the app gets none)",
    "own-swipe": "the app goes back by its own swipe",
    "stack-too-shallow": "the app shows its first page: there is nothing to go back to",
    "pop-disabled": "the page turned the gesture off",
    "too-far-from-edge": "it started too far from the edge for this page",
    "transitioning": "the app was still animating",
    "wrong-direction": "it went toward the leading edge",
    "outside-edge-zone": "it did not start at the edge",
    "too-steep": "it was a scroll: too steep for a back",
    "long-press": "the finger rested first: a long press",
    "excluded": "it started on a slider or carousel of the page",
    "extra-finger": "more than one finger",
    "palm": "a palm, not a finger",
    "events-dropped": "touches were lost",
    "device-removed": "the touchscreen went away",
    "busy": "another swipe was under way",
    "rotated": "the screen turned",
}
CANCELS = {
    "released": "released before the commit point",
    "flung-back": "flung back toward the edge",
}


def user_file():
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "popgestured", "popgestured.conf")


def read_sections(path, limit=MAXIMUM_SETTINGS):
    """`key = value` lines and the `[back-input]` section's `app = value` lines, as the
    daemon's parser reads them (whole-line comments); what is past `limit` is not read."""
    keys, apps, section = {}, {}, None
    try:
        with open(path, "rb") as file:
            text = file.read(limit).decode("utf-8", "replace")
    except OSError:
        return keys, apps
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        name, equals, value = line.partition("=")
        if not equals:
            continue
        if section is None:
            keys[name.strip()] = value.strip()
        elif section == "back-input":
            apps[name.strip()] = value.strip()
    return keys, apps


def render(keys, apps):
    """The user's file: their keys, then their app entries."""
    lines = ["# popgestured: your settings for your seat (popgestured-settings writes this file)."]
    lines += [f"{key} = {keys[key]}" for key in GESTURE_KEYS if key in keys]
    if apps:
        lines += ["", "[back-input]"] + [f"{app} = {value}" for app, value in sorted(apps.items())]
    return "\n".join(lines) + "\n"


class Daemon:
    """The socket: hello, subscribe; requests with ids, their replies to callbacks,
    events to `on_event`. Connects again every RETRY_SECONDS when the daemon is away."""

    def __init__(self, path, on_event, on_connected, on_refused):
        self.path, self.on_event, self.on_connected, self.on_refused = path, on_event, on_connected, on_refused
        self.sock, self.watch, self.buffer, self.next_id, self.waiting = None, None, b"", 0, {}
        self.connect()

    def connect(self):
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
            sock.connect(self.path)
        except OSError:
            GLib.timeout_add_seconds(RETRY_SECONDS, self.retry)
            return
        sock.setblocking(False)
        self.sock, self.buffer = sock, b""
        self.watch = GLib.io_add_watch(sock.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR,
                                       self.readable)
        self.request({"type": "hello", "version": 1, "name": "popgestured-settings"}, self.greeted)
        self.request({"type": "subscribe"})
        GLib.idle_add(lambda: self.on_connected() and False)

    def retry(self):
        self.connect()
        return False

    def request(self, body, reply=None):
        if self.sock is None:
            return False
        self.next_id += 1
        if reply:
            self.waiting[self.next_id] = reply
        try:
            self.sock.sendall((json.dumps(dict(body, id=self.next_id)) + "\n").encode())
        except OSError:
            self.lost()
            return False
        return True

    def greeted(self, reply):
        if reply.get("type") == "error":
            self.on_refused(reply.get("message", reply.get("code", "")))

    def lost(self):
        # The watch goes with the socket: a closed descriptor must not be polled again.
        if self.watch is not None:
            GLib.source_remove(self.watch)
        if self.sock is not None:
            self.sock.close()
        self.sock, self.watch, self.waiting = None, None, {}
        GLib.timeout_add_seconds(RETRY_SECONDS, self.retry)

    def readable(self, fd, condition):
        if self.sock is None:
            return False
        try:
            chunk = self.sock.recv(65536)
        except BlockingIOError:
            return True
        except OSError:
            self.watch = None
            self.lost()
            return False
        if not chunk:
            self.watch = None  # returning False removes it
            self.lost()
            return False
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > MAXIMUM_LINE:
            self.watch = None
            self.lost()
            return False
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            callback = self.waiting.pop(message.get("id"), None)
            if callback:
                callback(message)
            elif "id" not in message:
                self.on_event(message)
        return True


class TryPad(Gtk.DrawingArea):
    """Draws each finger's path, from GTK's own touches (or the pointer's drag)."""

    def __init__(self):
        super().__init__(hexpand=True, vexpand=True)
        self.paths = []
        self.set_draw_func(self.draw)
        drag = Gtk.GestureDrag(touch_only=False)
        drag.connect("drag-begin", self.began)
        drag.connect("drag-update", self.moved)
        drag.connect("drag-end", self.ended)
        self.add_controller(drag)
        self.start = (0, 0)

    def began(self, gesture, x, y):
        self.start = (x, y)
        self.paths = [[(x, y)]]
        self.queue_draw()

    def ended(self, gesture, dx, dy):
        # For the log (and the tests that read it): how long the path drawn was.
        if self.paths:
            print(f"path: {len(self.paths[-1])} points, {abs(dx):.0f} px across, {abs(dy):.0f} px down", flush=True)

    def moved(self, gesture, dx, dy):
        if self.paths:
            self.paths[-1].append((self.start[0] + dx, self.start[1] + dy))
            self.queue_draw()

    def draw(self, area, cr, width, height):
        cr.set_source_rgb(0.96, 0.96, 0.96)
        cr.paint()
        cr.set_source_rgb(0.21, 0.52, 0.89)
        cr.set_line_width(4)
        for path in self.paths:
            for index, (x, y) in enumerate(path):
                (cr.move_to if index == 0 else cr.line_to)(x, y)
            cr.stroke()


class Window(Adw.ApplicationWindow):
    def __init__(self, app):
        super().__init__(application=app, title="Back Swipe", default_width=720, default_height=640)
        self.app = app
        self.stack = Adw.ViewStack()
        header = Adw.HeaderBar()
        switcher = Adw.ViewSwitcherTitle(stack=self.stack, title="Back Swipe")
        header.set_title_widget(switcher)
        self.toasts = Adw.ToastOverlay(child=self.stack)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        box.append(header)
        box.append(self.toasts)
        self.set_content(box)
        self.stack.add_titled_with_icon(self.gesture_page(), "gesture", "Gesture", "input-touchscreen-symbolic")
        self.stack.add_titled_with_icon(self.apps_page(), "apps", "Apps", "view-app-grid-symbolic")
        self.stack.add_titled_with_icon(self.try_page(), "try", "Try it", "input-tablet-symbolic")
        self.stack.add_titled_with_icon(self.status_page(), "status", "Status", "dialog-information-symbolic")

    # ------------------------------------------------------------ pages

    def gesture_page(self):
        page = Adw.PreferencesPage()
        starts = Adw.PreferencesGroup(title="Where a back swipe starts",
                                      description="From the leading edge only, or anywhere on the screen")
        self.mode_rows = {}
        for key, title, subtitle in [
            ("mode", "Apps that follow the finger", "Apps that move their page with the swipe"),
            ("back-input-mode", "Other apps", "Apps that get a back key when the swipe ends"),
        ]:
            row = Adw.ComboRow(title=title, subtitle=subtitle, model=Gtk.StringList.new(["From the edge", "Anywhere"]))
            row.connect("notify::selected", self.mode_chosen, key)
            starts.add(row)
            self.mode_rows[key] = row
        page.add(starts)
        edge = Adw.PreferencesGroup(title="Sensitivity")
        self.edge_spin = Gtk.SpinButton.new_with_range(1, 30, 0.5)
        self.edge_spin.set_valign(Gtk.Align.CENTER)
        self.edge_spin.connect("value-changed", self.edge_changed)
        self.edge_row = Adw.ActionRow(title="Edge width", subtitle="How far from the edge, in millimetres, a swipe may start")
        self.edge_row.add_suffix(self.edge_spin)
        edge.add(self.edge_row)
        self.commit_spin = Gtk.SpinButton.new_with_range(10, 90, 5)
        self.commit_spin.set_valign(Gtk.Align.CENTER)
        self.commit_spin.connect("value-changed", self.commit_changed)
        self.commit_row = Adw.ActionRow(title="Distance to go back",
                                        subtitle="How far across the screen, in percent, a release goes back")
        self.commit_row.add_suffix(self.commit_spin)
        edge.add(self.commit_row)
        page.add(edge)
        screen = Adw.PreferencesGroup(title="The screen")
        self.direction_row = Adw.ActionRow(title="Direction", subtitle="…")
        self.rotation_row = Adw.ActionRow(title="Rotation", subtitle="…")
        screen.add(self.direction_row)
        screen.add(self.rotation_row)
        page.add(screen)
        return page

    def apps_page(self):
        page = Adw.PreferencesPage()
        self.apps_group = Adw.PreferencesGroup(
            title="Apps seen in front", description="What each gets at the end of a back swipe")
        page.add(self.apps_group)
        self.app_rows = {}
        return page

    def try_page(self):
        # The pad runs edge to edge: a back swipe starts within millimetres of the screen's edge.
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12)
        box.append(Gtk.Label(label="Swipe here, from the edge or anywhere: the path, and what the swipe became.",
                             xalign=0, margin_top=12, margin_start=12, margin_end=12))
        self.pad = TryPad()
        box.append(self.pad)
        self.verdict = Gtk.Label(label="No swipe yet.", xalign=0, wrap=True, margin_bottom=12, margin_start=12,
                                 margin_end=12)
        self.verdict.add_css_class("title-3")
        box.append(self.verdict)
        return box

    def status_page(self):
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, margin_top=12, margin_bottom=12,
                      margin_start=12, margin_end=12)
        refresh = Gtk.Button(label="Check again", halign=Gtk.Align.START)
        refresh.connect("clicked", lambda *_: self.app.run_doctor())
        box.append(refresh)
        self.doctor = Gtk.Label(label="…", xalign=0, yalign=0, wrap=True, selectable=True)
        self.doctor.add_css_class("monospace")
        box.append(Gtk.ScrolledWindow(child=self.doctor, vexpand=True))
        return box

    # ------------------------------------------------------------ changes

    def mode_chosen(self, row, _, key):
        if self.app.updating:
            return
        self.app.set_key(key, "edge" if row.get_selected() == 0 else "fullscreen")

    def edge_changed(self, spin):
        if not self.app.updating:
            self.app.set_key("edge-width-mm", f"{spin.get_value():g}")

    def commit_changed(self, spin):
        if not self.app.updating:
            self.app.set_key("commit-progress", f"{spin.get_value() / 100:g}")

    def app_row(self, app_id):
        if app_id in self.app_rows:
            return self.app_rows[app_id]
        row = Adw.ComboRow(title=app_id, model=Gtk.StringList.new([title for _, title in CHOICES]))
        row.connect("notify::selected", self.app_chosen, app_id)
        self.apps_group.add(row)
        self.app_rows[app_id] = row
        return row

    def app_chosen(self, row, _, app_id):
        if not self.app.updating:
            self.app.set_app(app_id, CHOICES[row.get_selected()][0])


class SettingsApp(Adw.Application):
    def __init__(self, options):
        super().__init__(application_id=APP_ID, flags=Gio.ApplicationFlags.FLAGS_NONE)
        self.options = options
        self.path = user_file()
        self.keys, self.apps = read_sections(self.path)
        self.system_keys, self.system_apps = read_sections(SYSTEM_FILE, limit=1 << 20)
        self.status = {}
        self.updating = False
        self.window = None
        self.daemon = None
        for name, kind, handler in [
            ("set-edge-width", "d", lambda v: self.window.edge_spin.set_value(v.get_double())),
            ("set-mode", "s", lambda v: self.window.mode_rows["mode"].set_selected(0 if v.get_string() == "edge" else 1)),
            ("set-app", "(ss)", self.action_set_app),
            ("show-page", "s", lambda v: self.window.stack.set_visible_child_name(v.get_string())),
        ]:
            action = Gio.SimpleAction.new(name, GLib.VariantType.new(kind))
            action.connect("activate", lambda _action, value, handler=handler: handler(value))
            self.add_action(action)

    def do_activate(self):
        if self.window is None:
            self.window = Window(self)
            for app_id in sorted(self.apps):
                self.window.app_row(app_id)
            self.daemon = Daemon(self.options.socket, self.event, self.connected, self.refused)
            self.run_doctor()
        self.window.present()

    def action_set_app(self, value):
        app_id, choice = value.unpack()
        row = self.window.app_row(app_id)
        row.set_selected(next(i for i, (value, _) in enumerate(CHOICES) if value == choice))

    # ------------------------------------------------------------ the daemon

    def refused(self, message):
        """The daemon does not serve this user (not the seat's active one, say)."""
        print(f"refused: {message}", flush=True)
        self.window.toasts.add_toast(Adw.Toast(title=f"popgestured: {message}", timeout=10))

    def connected(self):
        self.send()
        self.refresh()

    def refresh(self):
        self.daemon.request({"type": "status"}, self.status_came)

    def status_came(self, reply):
        if reply.get("type") != "status":
            return
        self.status = reply
        settings, screen, focus = reply.get("settings") or {}, reply.get("screen") or {}, reply.get("focus") or {}
        locked = set(settings.get("locked", []))
        window = self.window
        self.updating = True
        try:
            for key, row in window.mode_rows.items():
                value = settings.get("mode" if key == "mode" else "backInputMode")
                row.set_selected(0 if value == "edge" else 1)
                row.set_sensitive(key not in locked)
            if "edgeWidthMm" in settings:
                window.edge_spin.set_value(settings["edgeWidthMm"])
            if "commitProgress" in settings:
                window.commit_spin.set_value(round(settings["commitProgress"] * 100))
            window.edge_row.set_sensitive("edge-width-mm" not in locked)
            window.commit_row.set_sensitive("commit-progress" not in locked)
            direction = "left to right" if screen.get("direction") == "ltr" else "right to left"
            window.direction_row.set_subtitle(f"{direction}, from {self.source(screen.get('directionSource'))}: "
                                              "a back swipe starts at the " + ("left" if screen.get("direction") == "ltr" else "right"))
            rotation = screen.get("rotation")
            window.rotation_row.set_subtitle(
                (f"{rotation}°" if rotation is not None else "none known") + f", from {self.source(screen.get('rotationSource'))}")
            if focus.get("app"):
                self.seen(focus["app"])
            for app_id, row in window.app_rows.items():
                row.set_selected(next(i for i, (value, _) in enumerate(CHOICES) if value == self.apps.get(app_id, "")))
                row.set_subtitle(self.system_choice(app_id))
                row.set_sensitive("back-input" not in locked)
        finally:
            self.updating = False

    @staticmethod
    def source(name):
        return {"shell": "the session", "sensor": "the accelerometer", "configuration": "the system file"}.get(name, name or "nobody")

    def system_choice(self, app_id):
        value = self.system_apps.get(app_id)
        if value is None:
            return "The system gives it " + self.system_keys.get("back-input", "alt+left") + " (the default)"
        return f"Shipped: {value}"

    def seen(self, app_id):
        if app_id not in self.window.app_rows:
            row = self.window.app_row(app_id)
            self.updating = True
            try:
                row.set_selected(0)
                row.set_subtitle(self.system_choice(app_id))
            finally:
                self.updating = False

    def event(self, event):
        kind = event.get("type")
        window = self.window
        if kind == "error":
            # Without an id: the daemon's word on the connection itself (not-permitted, then it closes).
            self.refused(event.get("message", event.get("code", "")))
        elif kind == "focus-changed" and event.get("app"):
            self.seen(event["app"])
        elif kind == "input-began":
            self.verdict("A back swipe is under way…")
        elif kind == "back-input":
            self.verdict(f"Back: {event.get('input')} went to {event.get('app') or 'the app in front'}.")
        elif kind == "back":
            self.verdict(f"Back: {event.get('navigator')} went back to {event.get('top')}.")
        elif kind == "input-cancelled":
            reason = event.get("reason", "")
            self.verdict(f"No back: {CANCELS.get(reason, reason)}.")
        elif kind == "rejected":
            reason = event.get("reason", "")
            self.verdict(f"Refused: {REASONS.get(reason, reason)}.")

    def verdict(self, text):
        """What the swipe became, on the Try it page and in the log."""
        self.window.verdict.set_label(text)
        print(f"verdict: {text}", flush=True)

    # ------------------------------------------------------------ the file

    def set_key(self, key, value):
        self.keys[key] = value
        self.save()

    def set_app(self, app_id, value):
        if value:
            self.apps[app_id] = value
        else:
            self.apps.pop(app_id, None)
        self.save()

    def save(self):
        text = render(self.keys, self.apps)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        temporary = self.path + ".new"
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, self.path)
        self.send()

    def send(self):
        if not os.path.exists(self.path):
            return
        with open(self.path, encoding="utf-8", errors="replace") as file:
            text = file.read(MAXIMUM_SETTINGS + 1)
        self.daemon.request({"type": "user-settings", "text": text}, self.sent)

    def sent(self, reply):
        if reply.get("type") == "error":
            self.window.toasts.add_toast(Adw.Toast(title=f"Not taken: {reply.get('message')}", timeout=6))
        self.refresh()

    def run_doctor(self):
        ctl = shutil.which("popgesturectl") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "popgesturectl")
        try:
            run = subprocess.run([ctl, "doctor", "--socket", self.options.socket], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=10)
            text = run.stdout.decode("utf-8", "replace")
        except (OSError, subprocess.TimeoutExpired) as error:
            text = f"popgesturectl doctor could not run: {error}"
        self.window.doctor.set_label(text.strip())


def main():
    parser = argparse.ArgumentParser(description="Tune popgestured's back swipe for your seat.")
    parser.add_argument("--socket", default=os.environ.get("POPGESTURED_SOCKET") or DEFAULT_SOCKET,
                        help="the daemon's socket (default $POPGESTURED_SOCKET, else %(default)s)")
    options, rest = parser.parse_known_args()
    return SettingsApp(options).run([sys.argv[0], *rest])


if __name__ == "__main__":
    sys.exit(main())
