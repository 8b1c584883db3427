#!/usr/bin/python3
"""examples/gtk-pages.py, a real GTK 4 window, following a real swipe.

The real daemon (`popgestured run --event-pipe FIFO`) reads a swipe that this test
writes into its event pipe frame by frame, at a finger's pace, as raw `input_event`
records of its 217 x 136 mm touchscreen. The app runs under Xvfb with openbox (so
its window gets focus as on a desktop, and follow_window_focus reports it), drawn by
GSK's cairo renderer. Screenshots (xwd, read by screenshot.py) are checked pixel by
pixel:

- before the swipe, the top page (Message) fills the window;
- a swipe to 20 % that rests and lifts is cancelled: Message springs back and fills it again;
- then a swipe to 75 %, resting at about 50 % on the way: there Message's leading edge
  is at progress x width, and Inbox shows on its left, dimmed;
- after that swipe's back, Inbox fills the window, its title drawn.

The app's stdout must list the events in the protocol's order. Needs /usr/bin/python3
with PyGObject and GTK 4 (python3-gi, gir1.2-gtk-4.0), Xvfb, openbox, xwd (x11-apps)
and xdotool, which scripts/setup installs, and the daemon binary ($POPGESTURED_BINARY,
else .build/debug/popgestured). Without them the test skips and says what is missing;
with CI set it fails instead.

    POPGESTURED_BINARY=.build/debug/popgestured /usr/bin/python3 Tests/GUI/test_gtk_pages.py -v

The screenshots (0-before, 0-cancelled, 1-halfway, 2-after) go to $POPGESTURE_SCREENSHOTS when it is set; otherwise they
are kept only when a check fails (the message says where).
"""

import os
import re
import select
import shutil
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "Tests", "lib"))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
import screenshot  # noqa: E402
import session  # noqa: E402
from session import Session  # noqa: E402
from tests import support  # noqa: E402  (clients/python/tests/support.py: the daemon, the binary)

EXAMPLE = os.path.join(REPO, "examples", "gtk-pages.py")
APP_PYTHON = "/usr/bin/python3"  # Debian's, which python3-gi serves
SCREEN = (800, 500)              # the event pipe's panel is 217 x 136 mm: the same 1.6 aspect

PANEL_MM = session.PANEL_MM


def page_colours():
    """The pages' backgrounds, read from the example, so the two cannot drift apart."""
    with open(EXAMPLE, encoding="utf-8") as file:
        source = file.read()
    colours = {}
    for page in ("inbox", "message"):
        match = re.search(r'"%s": \([^)]*"#([0-9a-fA-F]{6})"' % page, source)
        assert match, f"no colour for page {page} in {EXAMPLE}"
        colours[page] = tuple(int(match.group(1)[i:i + 2], 16) for i in (0, 2, 4))
    return colours


COLOURS = page_colours()


def near(pixel, colour, tolerance=24):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def dimming(pixel, colour, tolerance=20):
    """The factor f with pixel = colour x f (a black veil over it), or None if it is not that."""
    brightest = max(range(3), key=lambda i: colour[i])
    factor = pixel[brightest] / colour[brightest]
    if all(abs(p - c * factor) <= tolerance for p, c in zip(pixel, colour)):
        return factor
    return None


def missing_requirements():
    missing = []
    for tool, package in (("Xvfb", "xvfb"), ("openbox", "openbox"), ("xwd", "x11-apps"), ("xdotool", "xdotool")):
        if shutil.which(tool) is None:
            missing.append(f"{tool} (Debian: {package})")
    if not os.access(APP_PYTHON, os.X_OK):
        missing.append(APP_PYTHON)
    else:
        probe = subprocess.run([APP_PYTHON, "-c", "import gi; gi.require_version('Gtk', '4.0'); from gi.repository import Gtk"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode != 0:
            missing.append(f"GTK 4 for {APP_PYTHON} (Debian: python3-gi gir1.2-gtk-4.0)")
    return missing


class GtkPagesTest(Session, unittest.TestCase):
    watched = "app"
    failed_prefix = "gtk-pages-failed-"

    def setUp(self):
        missing = missing_requirements()
        self.require(missing, "the GTK example's test")
        self.display = self.start_display()
        self.start_daemon()
        self.app_log = os.path.join(self.directory, "app.log")

    # ------------------------------------------------------------ processes

    def start_display(self):
        """Xvfb on a display it picks (-displayfd), and openbox managing it."""
        read_end, write_end = os.pipe()
        log = open(os.path.join(self.directory, "Xvfb.log"), "wb")
        self.addCleanup(log.close)
        server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "%dx%dx24" % SCREEN,
                                   "-nolisten", "tcp"], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                  pass_fds=(write_end,))
        self.addCleanup(self.stop, server)
        os.close(write_end)
        number = b""
        deadline = time.monotonic() + 15
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            if select.select([read_end], [], [], 0.2)[0]:
                chunk = os.read(read_end, 16)
                if not chunk:
                    break
                number += chunk
        os.close(read_end)
        self.assertTrue(number.strip().isdigit(), f"Xvfb gave no display number: {self.read('Xvfb')}")
        display = ":" + number.decode().strip()
        self.env = dict(os.environ, DISPLAY=display)
        self.env.pop("WAYLAND_DISPLAY", None)
        self.spawn(["openbox"], "openbox", self.env)
        # Windows made before openbox manages the screen would never be activated.
        self.wait_for(lambda: subprocess.run(["xdotool", "get_num_desktops"], env=self.env, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL).returncode == 0,
                      15, "openbox managing the display")
        return display

    def start_app(self):
        env = dict(self.env, GDK_BACKEND="x11", GSK_RENDERER="cairo", NO_AT_BRIDGE="1", GTK_A11Y="none",
                   PYTHONUNBUFFERED="1")
        self.app = self.spawn([APP_PYTHON, EXAMPLE, "--socket", self.daemon.socket, "--maximized"], "app", env)

    def app_lines(self):
        return self.read("app").splitlines()

    def logs(self):
        return f"\n--- app:\n{self.read('app')}\n--- daemon:\n{self.daemon.log}"

    # ------------------------------------------------------------ screenshots

    def grab(self):
        return screenshot.grab(self.display)


    def row_y(self, image):
        return int(image.height * 0.88)  # below every label and button of a page, above the window's edge

    def page_area(self, image, colour):
        """The run of `colour` along the check row: the page's left and right pixel."""
        y = self.row_y(image)
        xs = [x for x in range(image.width) if near(image.pixel(x, y), colour)]
        if not xs:
            return None
        return xs[0], xs[-1]

    def fills(self, colour, name):
        def check(image):
            area = self.page_area(image, colour)
            if area is None:
                return f"no pixel of {name}'s colour {colour} on row {self.row_y(image)}"
            left, right = area
            y = self.row_y(image)
            run = sum(near(image.pixel(x, y), colour) for x in range(left, right + 1))
            if right - left + 1 < 0.95 * image.width or run < 0.99 * (right - left + 1):
                return f"{name}'s colour covers x {left}..{right} ({run} pixels) of {image.width} on row {y}"
            column = sum(near(image.pixel(left + 20, y2), colour) for y2 in range(image.height))
            if column < 0.8 * image.height:
                return f"{name}'s colour covers only {column} of {image.height} pixels of column {left + 20}"
            if self.title_pixels(image, left, right) < 400:
                return f"no title drawn in the middle of {name}"
            return None
        return check

    def edge(self, image, left, right):
        """The first pixel of Message from the left on the check row."""
        y = self.row_y(image)
        return next((x for x in range(left, right + 1) if near(image.pixel(x, y), COLOURS["message"])), None)

    @staticmethod
    def title_pixels(image, left, right):
        """White pixels (the page's big title) in the middle of the page."""
        middle = (left + right) // 2
        return sum(min(image.pixel(x, y)) >= 235
                   for y in range(int(image.height * 0.30), int(image.height * 0.55), 2)
                   for x in range(middle - 150, middle + 150, 2))

    # ------------------------------------------------------------ the test

    def test_the_top_page_follows_the_finger_and_goes_back(self):
        self.start_app()
        self.wait_for(lambda: "window active: True" in self.app_lines(), 30, "active window (openbox focusing the app)")
        self.wait_for(lambda: any(line.startswith("bar page=message hidden=False") for line in self.app_lines()),
                      30, "navigator created (the bar event after create)")

        # 0 %: Message fills the window.
        before = self.shot("0-before", self.fills(COLOURS["message"], "Message"), timeout=15)
        left, right = self.page_area(before, COLOURS["message"])
        width = right - left + 1

        # A swipe to 20 % that rests, then lifts: short of the commit progress (0.3), cancelled.
        start = 0.02 * PANEL_MM
        self.finger.down(start, 68.0)
        self.finger.move_to(start + 0.2 * PANEL_MM)
        time.sleep(0.3)
        self.finger.up()
        self.wait_for(lambda: any(line.startswith("pop-cancelled page=message reason=released")
                                  for line in self.app_lines()), 10, "pop-cancelled (released)")
        self.wait_for(lambda: self.app_lines().count("bar page=message hidden=False") >= 2, 10,
                      "bar event after the cancel")
        self.shot("0-cancelled", self.fills(COLOURS["message"], "Message"))
        cancelled = len(self.app_lines())

        # Down at 2 % of the width, halfway down, then right at 400 mm/s to about 50 %.
        self.finger.down(start, 68.0)
        self.finger.move_to(start + 0.5 * PANEL_MM)

        def progress():
            values = [float(line.split("progress=")[1].split()[0]) for line in self.app_lines()[cancelled:]
                      if line.startswith(("pop-began", "pop-progress"))]
            return values[-1] if values else None
        self.wait_for(lambda: (progress() or 0) >= 0.49, 10, "pop-progress of 0.49 or more")
        p = progress()
        self.assertLessEqual(p, 0.52, f"the finger rests at 50 % of the width{self.logs()}")

        # ~50 %, the finger resting: Message's leading edge at p x width, Inbox dimmed to its left.
        def halfway(image):
            y = self.row_y(image)
            edge = self.edge(image, left, right)
            expected = left + p * width
            if edge is None:
                return f"no pixel of Message on row {y}"
            if abs(edge - expected) > 0.08 * image.width:
                return f"Message's leading edge is at x {edge}, expected {expected:.0f} (progress {p}) +- 8 %"
            if not all(near(image.pixel(x, y), COLOURS["message"]) for x in range(edge, right + 1)):
                return f"Message's colour does not fill x {edge}..{right} on row {y}"
            factors = [dimming(image.pixel(x, y), COLOURS["inbox"]) for x in range(left, edge - 16)]
            if None in factors or len(factors) < 0.3 * width:
                bad = next((x for x, f in zip(range(left, edge - 16), factors) if f is None), None)
                return (f"Inbox does not show left of x {edge}: pixel {image.pixel(bad, y) if bad is not None else '-'}"
                        f" at x {bad} is not Inbox's {COLOURS['inbox']} under a veil")
            if not 0.6 <= max(factors) <= 0.95:
                return f"Inbox is not dimmed: its colour x {max(factors):.2f}"
            return None
        image = self.shot("1-halfway", halfway)
        print(f"\nat progress {p}: Message's leading edge at x {self.edge(image, left, right)}, "
              f"expected {left + p * width:.0f} (window {image.width} px, page x {left}..{right})", file=sys.stderr)

        # On to 75 % and lift: past the commit progress (0.3), a back.
        self.finger.move_to(start + 0.75 * PANEL_MM)
        self.finger.up()
        self.wait_for(lambda: "back popped=message top=inbox" in self.app_lines(), 10, "back event")
        self.wait_for(lambda: "bar page=inbox hidden=False" in self.app_lines(), 10, "bar event after the back")

        # After the back: Inbox fills the window, its title drawn.
        self.shot("2-after", self.fills(COLOURS["inbox"], "Inbox"))

        # The app printed the owner's events of each swipe in the protocol's order:
        # pop-began, pop-progress..., then pop-cancelled and bar, or pop-finished, back and bar.
        def gesture(lines):
            kinds = [line.split()[0] for line in lines if line.split()[:1]
                     and line.split()[0] in ("pop-began", "pop-progress", "pop-finished", "pop-cancelled", "back", "bar")]
            kinds = kinds[kinds.index("pop-began"):] if "pop-began" in kinds else kinds  # not the bar after create
            return kinds[0], set(kinds[1:-3]), kinds[-3:], kinds.count("pop-progress")
        lines = self.app_lines()
        first, middle, last, steps = gesture(lines[:cancelled])
        self.assertEqual((first, middle, last[1:]), ("pop-began", {"pop-progress"}, ["pop-cancelled", "bar"]),
                         self.logs())
        self.assertGreater(steps, 5, self.logs())
        first, middle, last, steps = gesture(lines[cancelled:])
        self.assertEqual((first, middle, last), ("pop-began", {"pop-progress"}, ["pop-finished", "back", "bar"]),
                         self.logs())
        self.assertGreater(steps, 20, self.logs())
        self.assertIsNone(self.app.poll(), f"the app exited{self.logs()}")


if __name__ == "__main__":
    unittest.main()
