"""popgesture-indicator: Android's back arrow for apps that see no progress.

An observer of popgestured (docs/PROTOCOL.md, "To observers only"): while a swipe goes
to the daemon's back input (the focused app has no navigator, so it sees nothing until
the key at the end), it draws a small arrow at the leading edge of the screen that
grows with the finger until the commit point, and goes away on `back-input` (the back
went out) or `input-cancelled`. It never takes a touch: its input region is empty.

Where it draws (docs/INDICATOR.md):
- Wayland with layer-shell (sway and the other wlroots compositors, KWin): an overlay
  layer surface anchored to the leading edge (gtk-layer-shell);
- X11: an override-redirect window (GTK's popup window) at the leading edge;
- GNOME Shell has no layer-shell: the package's Shell extension draws the arrow there,
  and this exits 3 and says so (also on GNOME under X11, when that extension runs).

A person turns the arrow off, or puts it at the right edge, in one place for every
desktop: $XDG_CONFIG_HOME/popgestured/indicator.conf (`arrow = off`, `edge = right`),
read again when it changes. With `refused = on` there (off by default), a swipe that
went on like a back but was refused (`refused`: nothing to go back to, the page said
no) shows a grey "no" for REFUSAL_MILLISECONDS, so a refused back differs from a swipe
not seen.

    /usr/bin/python3 popgesture-indicator.py [--socket PATH] [--edge left|right] [--size PX] [--colour #RRGGBB]

Needs PyGObject with GTK 3 (Debian: python3-gi gir1.2-gtk-3.0) and, on Wayland,
gir1.2-gtklayershell-0.1. The socket is --socket, else $POPGESTURED_SOCKET, else the
system daemon's. When the daemon is away it connects again every 2 s.
"""
import argparse
import json
import math
import os
import socket
import sys

EXIT_NO_SURFACE = 3

try:
    import cairo
    import gi

    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, Gio, GLib, Gtk  # noqa: E402
except (ImportError, ValueError) as missing:
    # The package recommends them; without them there is nothing to draw with.
    print(f"popgesture-indicator: {missing}: the arrow needs python3-gi, python3-gi-cairo and gir1.2-gtk-3.0",
          file=sys.stderr)
    sys.exit(EXIT_NO_SURFACE)

DEFAULT_SOCKET = "/run/popgestured/popgestured.sock"
# The protocol's own line limit is 64 KiB; an event line is far shorter, so a longer
# line (or unread bytes beyond it) is a broken peer: drop the connection.
MAXIMUM_LINE = 65536
RETRY_SECONDS = 2
# The arrow's bubble: from MINIMUM_WIDTH at the start to the full size at the commit
# point, as a fraction of --size (Android's back arrow grows the same way).
MINIMUM_WIDTH = 0.15
# How long the grey "no" of a refused swipe stays: long enough to see, gone before the next try.
REFUSAL_MILLISECONDS = 700
# The "no" bubble's grey.
REFUSAL_GREY = (0x75 / 255, 0x75 / 255, 0x75 / 255)
# The package's GNOME Shell extension, which draws the same arrow in the Shell.
SHELL_EXTENSION = "popgestured-bridge@popgestured"


def settings_path():
    """The person's one place for the arrow, on every desktop (the GNOME Shell extension
    reads it too): $XDG_CONFIG_HOME/popgestured/indicator.conf."""
    return os.path.join(GLib.get_user_config_dir(), "popgestured", "indicator.conf")


def read_settings(path):
    """`key = value` lines, # comments: `arrow` on (the default) or off, `edge` left or
    right (default: --edge), `refused` on or off (the default). At most 4 KiB are read;
    what is not understood is ignored."""
    settings = {}
    try:
        with open(path, "rb") as file:
            text = file.read(4096).decode("utf-8", "replace")
    except OSError:
        return settings
    for line in text.splitlines():
        key, equals, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or key.startswith("#"):
            continue
        if key == "arrow" and value in ("on", "off"):
            settings["arrow"] = value == "on"
        elif key == "edge" and value in ("left", "right"):
            settings["edge"] = value
        elif key == "refused" and value in ("on", "off"):
            settings["refused"] = value == "on"
    return settings


def shell_extension_draws():
    """Whether GNOME Shell runs the package's extension, which draws the arrow itself
    (state 1: enabled): then a second arrow would be drawn over it (GNOME on X11)."""
    try:
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        reply = bus.call_sync("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions",
                              "GetExtensionInfo", GLib.Variant("(s)", (SHELL_EXTENSION,)), None,
                              Gio.DBusCallFlags.NO_AUTO_START, 2000, None)
    except GLib.Error:
        return False  # no GNOME Shell, or no session bus
    return reply.unpack()[0].get("state") == 1


def log(message):
    print(f"popgesture-indicator: {message}", file=sys.stderr, flush=True)


def parse_colour(text):
    rgba = Gdk.RGBA()
    if not rgba.parse(text):
        raise argparse.ArgumentTypeError(f"not a colour: {text!r} (such as #3367d6)")
    return rgba


class Arrow:
    """What to draw: nothing until a swipe goes to the back input; then `fraction`, the
    progress over the commit progress, 0…1 (1: a release now goes back). `refused`: a
    swipe that looked like a back was refused, until ``clear_refusal()``."""

    def __init__(self):
        self.visible = False
        self.fraction = 0.0
        self.refused = False

    def handle(self, event):
        """Applies one event; True when the drawing changed."""
        kind = event.get("type")
        if kind == "input-began":
            self.visible, self.fraction, self.refused = True, 0.0, False
            return True
        if kind == "refused" and not self.visible and not self.refused:
            self.refused = True
            return True
        if kind == "input-progress" and self.visible:
            progress, commit = event.get("progress"), event.get("commit")
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (progress, commit)):
                return False
            fraction = 1.0 if commit <= 0 else max(0.0, min(1.0, progress / commit))
            changed = fraction != self.fraction
            self.fraction = fraction
            return changed
        if kind in ("back-input", "input-cancelled") and self.visible:
            self.visible = False
            return True
        return False

    def clear_refusal(self):
        """The "no" has been up long enough; True when the drawing changed."""
        changed, self.refused = self.refused, False
        return changed


class Indicator:
    def __init__(self, options):
        self.options = options
        self.arrow = Arrow()
        self.connection = None
        self.watch = None
        self.buffer = b""
        self.refusal_timer = 0
        self.path = settings_path()
        self.settings = read_settings(self.path)
        self.window = self.make_window()
        # Turned off or moved in the file: at once, without a restart.
        self.monitor = Gio.File.new_for_path(self.path).monitor_file(Gio.FileMonitorFlags.NONE, None)
        self.monitor.connect("changed", self.settings_changed)

    @property
    def edge(self):
        return self.settings.get("edge", self.options.edge)

    def settings_changed(self, *_):
        edge = self.edge
        self.settings = read_settings(self.path)
        log(f"{self.path}: arrow {'on' if self.settings.get('arrow', True) else 'off'}, edge {self.edge}")
        if self.edge != edge:
            self.window.destroy()
            self.window = self.make_window()
        self.update()

    # ------------------------------------------------------------ the surface

    def make_window(self):
        size = self.options.size
        display = Gdk.Display.get_default()
        wayland = display.__gtype__.name.startswith("GdkWayland")  # the GType: no GdkWayland typelib needed
        if wayland:
            try:
                gi.require_version("GtkLayerShell", "0.1")
                from gi.repository import GtkLayerShell
            except (ValueError, ImportError):
                log("Wayland without gtk-layer-shell (Debian: gir1.2-gtklayershell-0.1): nowhere to draw")
                sys.exit(EXIT_NO_SURFACE)
            if not GtkLayerShell.is_supported():
                log("this Wayland compositor has no layer-shell (GNOME Shell has none: docs/INDICATOR.md)")
                sys.exit(EXIT_NO_SURFACE)
            window = Gtk.Window(type=Gtk.WindowType.TOPLEVEL)
            GtkLayerShell.init_for_window(window)
            GtkLayerShell.set_namespace(window, "popgesture-indicator")
            GtkLayerShell.set_layer(window, GtkLayerShell.Layer.OVERLAY)
            edge = GtkLayerShell.Edge.LEFT if self.edge == "left" else GtkLayerShell.Edge.RIGHT
            GtkLayerShell.set_anchor(window, edge, True)
            GtkLayerShell.set_keyboard_interactivity(window, False)
            # Over every panel, and moving none of them.
            GtkLayerShell.set_exclusive_zone(window, -1)
        else:
            # GTK's popup window is X11's override-redirect: no frame, no focus, on top.
            window = Gtk.Window(type=Gtk.WindowType.POPUP)
            monitor = display.get_primary_monitor() or display.get_monitor(0)
            area = monitor.get_geometry()
            x = area.x if self.edge == "left" else area.x + area.width - size
            window.move(x, area.y + (area.height - 2 * size) // 2)
        window.set_default_size(size, 2 * size)
        window.set_size_request(size, 2 * size)
        window.set_app_paintable(True)
        visual = window.get_screen().get_rgba_visual()
        if visual is not None:
            window.set_visual(visual)
        window.set_accept_focus(False)
        window.connect("draw", self.draw)
        # Never in the way of a finger: an empty input region.
        window.connect("realize", lambda w: w.input_shape_combine_region(cairo.Region()))
        log(f"drawing on {'a layer-shell surface' if wayland else 'an override-redirect window'}"
            f" at the {self.edge} edge")
        return window

    def draw(self, widget, cr):
        self.paint(cr)
        return False

    def paint(self, cr):
        cr.set_operator(cairo.OPERATOR_CLEAR)  # the rest of the surface is see-through
        cr.paint()
        cr.set_operator(cairo.OPERATOR_OVER)
        if not self.arrow.visible:
            if self.arrow.refused:
                self.paint_refusal(cr)
            return
        size = self.options.size
        height = 2 * size
        fraction = self.arrow.fraction
        width = size * (MINIMUM_WIDTH + (1 - MINIMUM_WIDTH) * fraction)
        left = self.edge == "left"
        # The bubble, its width growing with the finger.
        colour = self.options.colour
        self.bubble(cr, width, size * (0.5 + 0.5 * fraction), (colour.red, colour.green, colour.blue))
        # The chevron, once there is room for it: white, full at the commit point.
        if width >= size * 0.35:
            centre = width * 0.5 if left else size - width * 0.5
            arm = size * 0.18
            point = -1 if left else 1
            cr.set_source_rgba(1, 1, 1, 0.5 + 0.5 * fraction)
            cr.set_line_width(max(2.0, size * 0.07))
            cr.set_line_cap(cairo.LINE_CAP_ROUND)
            cr.move_to(centre - point * arm * 0.5, height / 2 - arm)
            cr.line_to(centre + point * arm * 0.5, height / 2)
            cr.line_to(centre - point * arm * 0.5, height / 2 + arm)
            cr.stroke()

    def bubble(self, cr, width, half_height, rgb):
        """A half-disc bulging from the edge, `width` across and `half_height` up and down."""
        size = self.options.size
        left = self.edge == "left"
        cr.save()
        cr.translate(0 if left else size, size)
        cr.scale(width if left else -width, half_height)
        cr.move_to(0, -1)
        cr.arc(0, 0, 1, -math.pi / 2, math.pi / 2)
        cr.close_path()
        cr.restore()
        cr.set_source_rgba(*rgb, 1.0)
        cr.fill()

    def paint_refusal(self, cr):
        """The "no": the bubble at its full size in grey, with a white cross."""
        size = self.options.size
        height = 2 * size
        self.bubble(cr, size, size, REFUSAL_GREY)
        centre, arm = size * 0.5, size * 0.14
        cr.set_source_rgba(1, 1, 1, 1)
        cr.set_line_width(max(2.0, size * 0.07))
        cr.set_line_cap(cairo.LINE_CAP_ROUND)
        for dy in (-arm, arm):
            cr.move_to(centre - arm, height / 2 - dy)
            cr.line_to(centre + arm, height / 2 + dy)
        cr.stroke()

    def refusal_over(self):
        self.refusal_timer = 0
        if self.arrow.clear_refusal():
            self.update()
        return False

    def showing(self):
        """Whether the surface has something to show, as the person's file allows."""
        if not self.settings.get("arrow", True):
            return False
        return self.arrow.visible or (self.arrow.refused and self.settings.get("refused", False))

    def update(self):
        if self.arrow.refused and not self.arrow.visible and not self.refusal_timer:
            self.refusal_timer = GLib.timeout_add(REFUSAL_MILLISECONDS, self.refusal_over)
        if self.showing():
            if not self.window.get_visible():
                self.window.show_all()
            self.window.queue_draw()
        elif self.window.get_visible():
            self.window.hide()

    # ------------------------------------------------------------ the daemon

    def connect(self):
        path = self.options.socket
        try:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
            connection.connect(path)
            hello = {"type": "hello", "version": 1, "name": "popgesture-indicator"}
            connection.sendall((json.dumps(hello) + "\n" + json.dumps({"type": "subscribe"}) + "\n").encode())
        except OSError as error:
            log(f"cannot reach popgestured at {path}: {error.strerror or error}; again in {RETRY_SECONDS} s")
            GLib.timeout_add_seconds(RETRY_SECONDS, self.retry)
            return
        connection.setblocking(False)
        self.connection, self.buffer = connection, b""
        self.watch = GLib.io_add_watch(connection.fileno(), GLib.PRIORITY_DEFAULT,
                                       GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, self.readable)
        log(f"observing popgestured at {path}")

    def retry(self):
        self.connect()
        return False

    def disconnect(self, why):
        log(f"connection ended ({why}); again in {RETRY_SECONDS} s")
        if self.connection is not None:
            self.connection.close()
        self.connection, self.watch = None, None
        # A swipe under way can no longer end here: never leave the arrow up.
        if self.arrow.visible:
            self.arrow.visible = False
            self.update()
        GLib.timeout_add_seconds(RETRY_SECONDS, self.retry)

    def readable(self, fd, condition):
        try:
            chunk = self.connection.recv(65536)
        except BlockingIOError:
            return True
        except OSError as error:
            self.disconnect(error.strerror or str(error))
            return False
        if not chunk:
            self.disconnect("the daemon closed it")
            return False
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > MAXIMUM_LINE:
            self.disconnect(f"a line longer than {MAXIMUM_LINE} bytes")
            return False
        changed = False
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                if event.get("type") == "error":
                    log(f"the daemon says: {event.get('code')}: {event.get('message')}")
                changed |= self.arrow.handle(event)
        if changed:
            self.update()
        return True


def main():
    parser = argparse.ArgumentParser(description="Android's back arrow for popgestured's back input.")
    parser.add_argument("--socket", default=os.environ.get("POPGESTURED_SOCKET") or DEFAULT_SOCKET,
                        help="the daemon's socket (default $POPGESTURED_SOCKET, else %(default)s)")
    parser.add_argument("--edge", choices=("left", "right"), default="left",
                        help="the leading edge: left (the default, left-to-right layouts) or right")
    parser.add_argument("--size", type=int, default=48,
                        help="the arrow's full width in pixels, at the commit point (default 48; 16 to 256)")
    parser.add_argument("--colour", type=parse_colour, default=parse_colour("#3367d6"),
                        help="the arrow's colour (default #3367d6)")
    options = parser.parse_args()
    if not 16 <= options.size <= 256:
        parser.error("--size must be 16 to 256 pixels")
    if not Gtk.init_check(sys.argv)[0]:
        log("no display to draw on (neither WAYLAND_DISPLAY nor DISPLAY works)")
        sys.exit(EXIT_NO_SURFACE)
    if shell_extension_draws():
        log(f"GNOME Shell's extension {SHELL_EXTENSION} draws the arrow here: nothing to do")
        sys.exit(EXIT_NO_SURFACE)
    indicator = Indicator(options)
    indicator.connect()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, Gtk.main_quit)  # SIGTERM
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 2, Gtk.main_quit)   # SIGINT
    Gtk.main()


if __name__ == "__main__":
    main()
