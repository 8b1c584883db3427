#!/usr/bin/python3
"""gtk-pages: a GTK 4 app whose pages follow the finger during popgestured's swipe back.

Three pages in one navigator, Inbox -> Message -> Details. During a swipe the top page
slides toward the trailing side by progress x width, and the page below shows through,
shifted 30 % toward the leading side and dimmed, both easing to rest as progress goes
to 1 (docs/INTEGRATING.md, "Animate with progress"). pop-finished slides the page out,
pop-cancelled springs it back, `bar` shows or hides the header bar (Details prefers it
hidden), and the header bar's back button sends `pop`. Each event is printed on stdout.

    /usr/bin/python3 examples/gtk-pages.py [--socket PATH] [--pages inbox,message] [--maximized]

Needs PyGObject with GTK 4 (Debian: python3-gi gir1.2-gtk-4.0) and the Python client
library (clients/python), taken from this source tree when it is not installed. The
socket is --socket, else $POPGESTURED_SOCKET, else the system daemon's.
"""
import argparse
import os
import sys

import gi

gi.require_version("Gdk", "4.0")
gi.require_version("Gtk", "4.0")
gi.require_version("Gsk", "4.0")
gi.require_version("Graphene", "1.0")
from gi.repository import Gdk, Gio, GLib, Graphene, Gsk, Gtk  # noqa: E402

try:
    import popgesture
except ImportError:  # not installed: the library from this source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
    import popgesture
from popgesture.glib import GLibClient, follow_window_focus  # noqa: E402

APP_ID = "org.popgestured.Pages"
NAVIGATOR = "pages"
# id: title, subtitle, background, the page its button opens
PAGES = {
    "inbox": ("Inbox", "3 unread messages", "#2f6fd6", "message"),
    "message": ("Message", "From Ada: this page follows your finger", "#e8742a", "details"),
    "details": ("Details", "No bar here: swipe right to go back", "#23905a", None),
}
BAR_HIDDEN = {"details"}  # prefersBarHidden
SHIFT = 0.3               # the page below starts 30 % of the width toward the leading side
DIM = 0.3                 # under a black veil this opaque, both easing to 0 as progress -> 1
CSS = "".join(f".page-{key} {{ background-color: {value[2]}; }}\n" for key, value in PAGES.items()) + """
.page-title { color: white; font-size: 44pt; font-weight: bold; }
.page-subtitle { color: rgba(255,255,255,0.85); font-size: 15pt; }
"""


def rgba(red, green, blue, alpha):
    color = Gdk.RGBA()
    color.red, color.green, color.blue, color.alpha = red, green, blue, alpha
    return color


def rect(x, y, width, height):
    return Graphene.Rect().init(x, y, width, height)


class PageStack(Gtk.Widget):
    """The pages, bottom to top. At rest it draws the top page; while `progress` is set
    (0..1: how far the top page has slid out), the page below under it too."""

    def __init__(self):
        super().__init__()
        self.set_overflow(Gtk.Overflow.HIDDEN)
        self.pages = []
        self.progress = None
        self.sign = -1 if self.get_direction() == Gtk.TextDirection.RTL else 1
        self._animation = None  # (tick callback id, target, when done)

    @property
    def ids(self):
        return [page.page_id for page in self.pages]

    def add(self, page):
        page.set_parent(self)
        self.pages.append(page)
        self._changed()

    def _remove_top(self):
        self.pages.pop().unparent()
        self.progress = None
        self._changed()

    def _changed(self):
        for index, page in enumerate(self.pages):
            top = index == len(self.pages) - 1
            page.set_child_visible(top or (index == len(self.pages) - 2 and self.progress is not None))
            page.set_can_target(top and self.progress is None)
        self.queue_allocate()
        self.queue_draw()

    def set_progress(self, progress):
        self.progress = max(0.0, min(1.0, progress))
        self._changed()

    # Transitions: an interactive pop, its end either way, and a push or pop of our own.
    def begin_pop(self):
        self.settle_now()
        if len(self.pages) < 2:
            return False
        if self.progress is None:
            self.set_progress(0)
        return True

    def follow(self, progress):
        """The finger moved: the top page goes exactly there (no animation toward it)."""
        if self.progress is not None and self._animation is None:
            self.set_progress(progress)

    def finish_pop(self, done=None):
        if self.progress is None and not self.begin_pop():
            return done and done()
        self._animate(1.0, 0.15, lambda: (self._remove_top(), done and done()))

    def cancel_pop(self):
        if self.progress is not None:
            self._animate(0.0, 0.15, lambda: (setattr(self, "progress", None), self._changed()))

    def push(self, page, done=None):
        self.settle_now()
        self.add(page)
        self.set_progress(1.0)
        self._animate(0.0, 0.3, lambda: (setattr(self, "progress", None), self._changed(), done and done()))

    def pop(self, done=None):
        if self.begin_pop():
            self._animate(1.0, 0.3, lambda: (self._remove_top(), done and done()))

    def settle_now(self):
        """Ends a running animation at once, where it was going."""
        if self._animation is not None:
            tick, target, done = self._animation
            self._animation = None
            self.remove_tick_callback(tick)
            self.set_progress(target)
            done()

    def _animate(self, target, duration, done):
        self.settle_now()
        start, began = self.progress, []

        def tick(widget, clock):
            now = clock.get_frame_time() / 1e6
            began or began.append(now)
            t = min(1.0, (now - began[0]) / duration)
            self.set_progress(start + (target - start) * (1 - (1 - t) ** 3))  # ease out
            if t < 1.0:
                return GLib.SOURCE_CONTINUE
            self._animation = None
            done()
            return GLib.SOURCE_REMOVE
        self._animation = (self.add_tick_callback(tick), target, done)

    # Layout and drawing.
    def do_measure(self, orientation, for_size):
        sizes = [page.measure(orientation, for_size)[:2] for page in self.pages] or [(0, 0)]
        return max(s[0] for s in sizes), max(s[1] for s in sizes), -1, -1

    def do_size_allocate(self, width, height, baseline):
        progress = self.progress or 0.0
        for index, page in enumerate(self.pages):
            if not page.get_child_visible():
                continue
            top = index == len(self.pages) - 1
            x = progress * width if top else -SHIFT * width * (1 - progress)
            point = Graphene.Point()
            point.x, point.y = round(self.sign * x), 0
            page.allocate(width, height, -1, Gsk.Transform().translate(point))

    def do_snapshot(self, snapshot):
        if not self.pages:
            return
        width, height = self.get_width(), self.get_height()
        if self.progress is not None and len(self.pages) > 1:
            self.snapshot_child(self.pages[-2], snapshot)
            snapshot.append_color(rgba(0, 0, 0, DIM * (1 - self.progress)), rect(0, 0, width, height))
            edge = round(self.progress * width)  # the top page's leading edge casts a shadow
            for i in range(12):
                x = edge - 1 - i if self.sign > 0 else width - edge + i
                snapshot.append_color(rgba(0, 0, 0, 0.2 * (1 - i / 12) ** 2), rect(x, 0, 1, height))
        self.snapshot_child(self.pages[-1], snapshot)

    def do_dispose(self):
        self.settle_now()
        while self.pages:
            self.pages.pop().unparent()
        Gtk.Widget.do_dispose(self)


class PagesApp(Gtk.Application):
    def __init__(self, socket_path, start_pages, maximized):
        super().__init__(application_id=APP_ID, flags=Gio.ApplicationFlags.NON_UNIQUE)
        self.socket_path = socket_path
        self.start_pages = start_pages
        self.maximized = maximized
        self.client = None
        self.finishing = False  # a committed swipe's slide is running; its `back` needs no animation of its own

    def do_activate(self):
        provider = Gtk.CssProvider()
        provider.load_from_data(CSS.encode())
        Gtk.StyleContext.add_provider_for_display(Gdk.Display.get_default(), provider,
                                                  Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
        window = Gtk.ApplicationWindow(application=self, title="Pages", default_width=800, default_height=500)
        header = Gtk.HeaderBar()
        self.back_button = Gtk.Button()
        self.back_button.connect("clicked", self.on_back_clicked)
        header.pack_start(self.back_button)
        self.title = Gtk.Label()
        self.title.add_css_class("title")
        header.set_title_widget(self.title)
        self.bar = header
        window.set_titlebar(header)
        self.view = PageStack()
        window.set_child(self.view)
        for page_id in self.start_pages:
            self.view.add(self.make_page(page_id))
        self.update_header()
        if self.maximized:
            window.maximize()
        window.present()

        self.client = GLibClient(self.socket_path, app=APP_ID, name="gtk-pages", on_event=self.on_event)
        follow_window_focus(self.client, window)  # focus in and out, reported as the window's is-active changes
        window.connect("notify::is-active", lambda *_: print("window active:", window.is_active(), flush=True))

    def make_page(self, page_id):
        title, subtitle, _, opens = PAGES[page_id]
        page = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, valign=Gtk.Align.FILL)
        page.page_id = page_id
        page.add_css_class(f"page-{page_id}")
        center = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, vexpand=True, valign=Gtk.Align.CENTER)
        for text, style in ((title, "page-title"), (subtitle, "page-subtitle")):
            label = Gtk.Label(label=text)
            label.add_css_class(style)
            center.append(label)
        if opens:
            button = Gtk.Button(label=f"Open {PAGES[opens][0].lower()}", halign=Gtk.Align.CENTER, margin_top=12)
            button.connect("clicked", lambda _button: self.open(opens))
            center.append(button)
        page.append(center)
        return page

    @staticmethod
    def wire_page(page_id):
        return popgesture.Page(page_id, prefers_bar_hidden=page_id in BAR_HIDDEN)

    def update_header(self):
        ids = self.view.ids
        self.title.set_label(PAGES[ids[-1]][0] if ids else "")
        self.back_button.set_visible(len(ids) > 1)
        if len(ids) > 1:
            self.back_button.set_label("\u2039 " + PAGES[ids[-2]][0])

    # What the app does by itself: push a page, and its back button.
    def open(self, page_id):
        if page_id in self.view.ids:
            return
        self.client.push(NAVIGATOR, self.wire_page(page_id), animated=True)
        self.view.push(self.make_page(page_id), done=lambda: self.client.settle(NAVIGATOR))
        self.update_header()

    def on_back_clicked(self, _button):
        if len(self.view.ids) > 1:
            self.client.pop(NAVIGATOR, animated=True)
            self.view.pop(done=self.after_pop)

    def after_pop(self):
        self.update_header()
        if not self.finishing:
            self.client.settle(NAVIGATOR)
        self.finishing = False

    def sync_navigator(self):
        """On (re)connecting: the daemon's stack is ours, as created or as the library re-created it."""
        ids = self.view.ids
        known = self.client.navigators().get(NAVIGATOR)
        pages = [self.wire_page(page_id) for page_id in ids]
        if known is None:
            # In a right-to-left locale the trailing side is the left: say so, and PageStack mirrors.
            self.client.create(NAVIGATOR, pages, layout="rtl" if self.view.sign < 0 else "ltr")
        elif known != ids:
            self.client.replace(NAVIGATOR, pages)

    # What popgestured says.
    def on_event(self, event):
        fields = event.raw or vars(event)  # the library's own events (connected...) have no line
        print(event.type, *(f"{k}={v}" for k, v in fields.items() if k not in ("type", "raw", "navigator", "time_us")),
              flush=True)
        if isinstance(event, popgesture.Connected):
            self.sync_navigator()
        elif isinstance(event, popgesture.PopBegan):
            if self.view.begin_pop():  # the page below goes under the top page, shifted and dimmed
                self.view.follow(event.progress)
        elif isinstance(event, popgesture.PopProgress):
            self.view.follow(event.progress)
        elif isinstance(event, popgesture.PopFinished):
            self.finishing = True
            self.view.finish_pop(done=self.after_pop)
        elif isinstance(event, popgesture.PopCancelled):
            self.view.cancel_pop()
        elif isinstance(event, popgesture.Back):
            # The daemon popped its copy already: pop ours, never send `pop` for it.
            if not self.finishing and self.view.ids[-1:] == [event.popped]:
                self.finishing = True
                self.view.pop(done=self.after_pop)
        elif isinstance(event, popgesture.Bar):
            self.bar.set_visible(not event.hidden)


def main():
    parser = argparse.ArgumentParser(description="A GTK 4 app whose pages follow popgestured's swipe back.")
    parser.add_argument("--socket", help="popgestured's socket (default: $POPGESTURED_SOCKET, else the system one)")
    parser.add_argument("--pages", default="inbox,message",
                        help="the stack to start with, bottom first (default: inbox,message; pages: inbox,message,details)")
    parser.add_argument("--maximized", action="store_true", help="start maximized, as on a tablet")
    options = parser.parse_args()
    pages = options.pages.split(",")
    if not pages or any(page not in PAGES for page in pages) or len(set(pages)) != len(pages):
        parser.error(f"--pages: distinct pages among {', '.join(PAGES)}")
    GLib.set_prgname(APP_ID)  # X11's WM_CLASS, which a focus bridge matches against the app id
    sys.exit(PagesApp(options.socket, pages, options.maximized).run([sys.argv[0]]))


if __name__ == "__main__":
    main()
