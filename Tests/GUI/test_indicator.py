#!/usr/bin/python3
"""The back indicator (clients/indicator/popgesture-indicator.py) as a user meets it.

The real daemon reads a swipe from its event pipe (`popgestured run --event-pipe FIFO`,
the defaults: Alt+Left for every app, from the edge; no /dev/uinput here, so the table
decides and nothing is sent), and the indicator observes it, drawn twice:

- IndicatorOnSwayTest: a headless sway (WLR_BACKENDS=headless, pixman), foot in front,
  the indicator on a layer-shell surface; screenshots by grim;
- IndicatorOnX11Test: Xvfb with no window manager, a grey xterm in front, the
  indicator on an override-redirect window; screenshots by xwd. With no compositor
  the window is not see-through: the app must show around its 48 x 96 px box.

Screenshots are checked pixel by pixel:

- no swipe: no arrow;
- a swipe from the edge held at a quarter of the commit point, then at half of it: the
  arrow's colour at the leading edge, wider at half than at a quarter, each width as the
  indicator's rule gives it (15 % of its size plus the rest in proportion);
- the finger rests and lifts there (released short: `input-cancelled`): the arrow goes;
- a swipe past the commit point: the arrow at its full size, then on the lift
  (`back-input`) it goes.

`popgesturectl monitor` records the observer's events, to check the cancel and the back.
ArrowTests read the indicator's handling of the daemon's lines without a display: the
fraction, odd values, and the 64 KiB line limit.
Needs sway, foot, grim, setpriv (util-linux), Xvfb, xwd (x11-apps), xterm, and
/usr/bin/python3 with PyGObject, GTK 3, its cairo binding and gtk-layer-shell (python3-gi,
gir1.2-gtk-3.0, python3-gi-cairo, gir1.2-gtklayershell-0.1), which
scripts/setup installs, and the binaries ($POPGESTURED_BINARY, else .build/debug/
popgestured, and popgesturectl beside it). Without them the test skips and says what
is missing; with CI set it fails instead.

    POPGESTURED_BINARY=.build/debug/popgestured /usr/bin/python3 Tests/GUI/test_indicator.py -v

The screenshots (wayland- and x11-: 0-app, 0-idle, 1-quarter, 2-halfway, 3-cancelled,
4-committing, 5-after) go to
$POPGESTURE_SCREENSHOTS when it is set; otherwise they are kept only when a check fails.
"""

import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "Tests", "lib"))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
import gnome_shot  # noqa: E402
from arrow_pixels import COLOUR, SIZE, arrow, expected_right, near, refusal  # noqa: E402
import screenshot  # noqa: E402
from session import PANEL_MM, Session  # noqa: E402
from tests import support  # noqa: E402

INDICATOR = os.path.join(REPO, "clients", "indicator", "popgesture-indicator.py")
APP_PYTHON = "/usr/bin/python3"
SCREEN = (1280, 800)
GREY = (0x80, 0x80, 0x80)      # the X11 test's xterm background
COMMIT = 0.3                   # the daemon's default commit-progress
START_MM = 0.02 * PANEL_MM     # inside the 4.8 mm edge zone: the back input takes it


def missing_requirements():
    missing = [f"{tool} (Debian: {package})" for tool, package in
               (("sway", "sway"), ("foot", "foot"), ("grim", "grim"), ("setpriv", "util-linux")) if shutil.which(tool) is None]
    probe = subprocess.run([APP_PYTHON, "-c", "import gi; gi.require_version('Gtk', '3.0'); "
                            "gi.require_version('GtkLayerShell', '0.1'); from gi.repository import Gtk, GtkLayerShell"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if os.access(APP_PYTHON, os.X_OK) else None
    if probe is None or probe.returncode != 0:
        missing.append(f"GTK 3 and gtk-layer-shell for {APP_PYTHON} "
                       "(Debian: python3-gi gir1.2-gtk-3.0 gir1.2-gtklayershell-0.1)")
    return missing


class IndicatorScenario(Session):
    """The scenario; a subclass gives the display: start_display(), grab(), start_app()."""
    watched = "indicator"
    failed_prefix = "indicator-failed-"

    def setUp(self):
        missing = self.missing_requirements()
        self.require(missing, "the indicator's test")
        self.start_daemon()
        ctl = os.path.join(os.path.dirname(support.BINARY), "popgesturectl")
        self.spawn([ctl, "--socket", self.daemon.socket, "monitor"], "monitor")
        # The person's file for the arrow (indicator.conf) goes here; the folder exists
        # first, as ~/.config does, so that the indicator's file monitor sees it at once.
        self.config = os.path.join(self.directory, "config")
        os.makedirs(os.path.join(self.config, "popgestured"))
        self.start_display()
        self.env["XDG_CONFIG_HOME"] = self.config

    # ------------------------------------------------------------ processes

    def start_sway(self):
        """sway, headless, in a runtime directory of its own; as nobody when we are root
        (sway refuses root), which root's clients may still reach."""
        runtime = tempfile.mkdtemp(prefix="popgesture-sway-")
        self.addCleanup(shutil.rmtree, runtime, True)
        config = os.path.join(runtime, "config")
        with open(config, "w") as file:
            file.write("xwayland disable\noutput HEADLESS-1 resolution %dx%d\n" % SCREEN)
        argv = ["sway", "-c", config]
        if os.getuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(runtime, nobody.pw_uid, nobody.pw_gid)
            os.chown(config, nobody.pw_uid, nobody.pw_gid)
            argv = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"] + argv
        os.chmod(runtime, 0o700)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": runtime, "XDG_RUNTIME_DIR": runtime,
                    "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"}
        self.sway = self.spawn(argv, "sway", self.env)
        self.wait_for(lambda: any(n.startswith("wayland-") and not n.endswith(".lock") for n in os.listdir(runtime)),
                      20, "sway's Wayland socket")
        display = next(n for n in sorted(os.listdir(runtime)) if n.startswith("wayland-") and not n.endswith(".lock"))
        self.env = dict(self.env, WAYLAND_DISPLAY=display)
        self.wait_for(lambda: subprocess.run(["grim", "-t", "ppm", "-"], env=self.env, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL).returncode == 0, 20, "a first screenshot")

    def start_app(self):
        """foot, as an app with no navigator under the arrow, filling the output (sway tiles it)."""
        text = "The app in front has no navigator: the back input goes to it, and the arrow shows the swipe."
        self.spawn(["foot", "--app-id=org.example.Reader", "--", "sh", "-c", f"echo '{text}'; exec sleep 600"], "foot",
                   dict(self.env, LANG="C.UTF-8"))

        def foot_drawn(image):
            middle = image.pixel(image.width // 2, image.height // 2)
            return None if not near(middle, (0x3F, 0x3F, 0x3F), 2) else "sway's empty background in the middle"
        self.shot("0-app", foot_drawn, timeout=20)

    def start_indicator(self):
        env = dict(self.env, GDK_BACKEND=self.backend, NO_AT_BRIDGE="1", PYTHONUNBUFFERED="1")
        self.indicator = self.spawn([APP_PYTHON, INDICATOR, "--socket", self.daemon.socket], "indicator", env)
        self.wait_for(lambda: "observing popgestured" in self.read("indicator"), 20, "the indicator observing")
        self.assertIn(f"drawing on {self.surface}", self.read("indicator"), self.logs())

    def logs(self):
        return (f"\n--- indicator:\n{self.read('indicator')}\n--- monitor:\n{self.read('monitor')}"
                f"\n--- sway:\n{self.read('sway')[-2000:]}\n--- daemon:\n{self.daemon.log}")

    def monitor_count(self, kind):
        return sum(1 for line in self.read("monitor").splitlines() if line.split()[1:2] == [kind])

    # ------------------------------------------------------------ screenshots

    def shot(self, name, check, timeout=5.0):
        return Session.shot(self, f"{self.backend}-{name}", check, timeout)

    @staticmethod
    def no_arrow(image):
        right, count = arrow(image)
        return None if count == 0 else f"{count} pixels of the arrow's colour, up to x {right}"

    def arrow_at(self, fraction):
        """The arrow for progress `fraction` of the commit point: its bubble reaches
        SIZE x (0.15 + 0.85 x fraction) from the left edge, +- 3 px of antialiasing;
        beside it the app shows when there is a compositor (`see_through`)."""
        see_through = self.see_through
        expected = expected_right(fraction)

        def check(image):
            right, count = arrow(image)
            if count == 0:
                return "no pixel of the arrow's colour near the left edge"
            if abs(right - expected) > 3:
                return f"the arrow reaches x {right}, expected {expected:.1f} (fraction {fraction}) +- 3"
            # Beside the arrow, inside its surface, the app shows through (a compositor's
            # work: X11 without one shows the surface's box, see docs/INDICATOR.md).
            middle = image.height // 2
            corners = [(2, middle - SIZE + 2), (2, middle + SIZE - 3)] if fraction < 0.9 else []
            if not see_through and not near(image.pixel(SIZE + 4, middle), GREY, 2):
                return f"pixel ({SIZE + 4}, {middle}), past the arrow's window, is not the app's grey"
            for x, y in ([(round(expected) + 4, middle)] + corners) * see_through:
                if near(image.pixel(x, y), COLOUR) or min(image.pixel(x, y)) < 0x10:
                    return f"pixel ({x}, {y}) beside the arrow is {image.pixel(x, y)}: its window is not see-through"
            return None
        return check

    # ------------------------------------------------------------ the test

    def test_the_arrow_follows_the_finger_and_goes_on_cancel_and_on_back(self):
        self.start_app()
        self.start_indicator()
        self.shot("0-idle", self.no_arrow)

        # Held at a quarter of the commit point, then at half of it.
        self.finger.down(START_MM, 68.0)
        self.finger.move_to(START_MM + 0.25 * COMMIT * PANEL_MM)
        quarter = self.shot("1-quarter", self.arrow_at(0.25))
        self.finger.move_to(START_MM + 0.5 * COMMIT * PANEL_MM)
        halfway = self.shot("2-halfway", self.arrow_at(0.5))
        (quarter_right, quarter_count), (half_right, half_count) = arrow(quarter), arrow(halfway)
        self.assertGreater(half_count, quarter_count * 1.5, f"the arrow grows with the finger{self.logs()}")
        print(f"\narrow at a quarter of the commit point: {quarter_right} px wide, {quarter_count} px; "
              f"at half: {half_right} px wide, {half_count} px", file=sys.stderr)

        # The finger rests, then lifts short of the commit point: cancelled, the arrow goes.
        time.sleep(0.3)
        self.finger.up()
        self.wait_for(lambda: self.monitor_count("input-cancelled") == 1, 10, "input-cancelled")
        self.shot("3-cancelled", self.no_arrow)
        self.assertEqual(self.monitor_count("back-input"), 0, self.logs())

        # Past the commit point: the arrow at its full size; the lift goes back, the arrow goes.
        self.finger.down(START_MM, 68.0)
        self.finger.move_to(START_MM + 1.3 * COMMIT * PANEL_MM)
        self.shot("4-committing", self.arrow_at(1.0))
        self.finger.up()
        self.wait_for(lambda: self.monitor_count("back-input") == 1, 10, "back-input")
        self.shot("5-after", self.no_arrow)
        self.assertEqual(self.monitor_count("input-began"), 2, self.logs())
        self.assertIsNone(getattr(self, self.watched).poll(), f"the {self.watched} exited{self.logs()}")

    def test_arrow_off_in_the_person_s_file_draws_nothing_and_on_again_draws(self):
        self.start_app()
        self.start_indicator()
        settings = os.path.join(self.config, "popgestured", "indicator.conf")
        with open(settings, "w") as file:
            file.write("# turned off by the person\narrow = off\n")
        self.finger.down(START_MM, 68.0)
        self.finger.move_to(START_MM + 0.5 * COMMIT * PANEL_MM)
        self.wait_for(lambda: self.monitor_count("input-progress") > 0, 10, "input-progress")
        self.shot("off-halfway", self.no_arrow)
        self.finger.up()
        self.wait_for(lambda: self.monitor_count("input-cancelled") == 1, 10, "input-cancelled")
        with open(settings, "w") as file:
            file.write("arrow = on\n")
        time.sleep(1)  # the file monitor
        self.finger.down(START_MM, 68.0)
        self.finger.move_to(START_MM + 0.5 * COMMIT * PANEL_MM)
        self.shot("on-again-halfway", self.arrow_at(0.5))
        self.finger.up()


    def refuse_every_swipe(self):
        """No back input for any app (`back-input = none`, reloaded): a swipe from the
        edge is refused as no-navigator, whoever has focus."""
        with open(os.path.join(self.directory, "empty.conf"), "w") as file:
            file.write("back-input = none\n")
        self.daemon.process.send_signal(signal.SIGHUP)
        self.wait_for(lambda: "configuration reloaded" in self.daemon.log, 10, "the daemon reloading")
        time.sleep(0.5)

    def test_a_refused_swipe_shows_no_only_when_the_person_asked_for_it(self):
        self.start_app()
        self.start_indicator()
        self.refuse_every_swipe()

        def shows_no(image):
            count = refusal(image)
            return None if count > SIZE * SIZE // 2 else f"{count} pixels of the refusal's grey"

        def shows_nothing(image):
            count = refusal(image) + arrow(image)[1]
            return None if count == 0 else f"{count} pixels of the arrow or the refusal"

        # Off by default: the refused swipe draws nothing.
        self.finger.down(START_MM, 68.0)
        self.finger.move_to(START_MM + 0.5 * COMMIT * PANEL_MM)
        self.wait_for(lambda: self.monitor_count("refused") == 1, 10, "refused")
        self.shot("refused-off", shows_nothing)
        self.finger.up()
        settings = os.path.join(self.config, "popgestured", "indicator.conf")
        with open(settings, "w") as file:
            file.write("refused = on\n")
        time.sleep(1)  # the file monitor
        self.finger.down(START_MM, 68.0)
        self.finger.move_to(START_MM + 0.5 * COMMIT * PANEL_MM)
        self.wait_for(lambda: self.monitor_count("refused") == 2, 10, "the second refused")
        self.shot("refused-on", shows_no, timeout=0.6)
        self.finger.up()
        time.sleep(1)  # 700 ms, then it goes
        self.shot("refused-gone", shows_nothing)
        self.assertEqual(self.monitor_count("input-began"), 0, self.logs())
        self.assertIn("no-navigator", self.read("monitor"), self.logs())


class IndicatorOnSwayTest(IndicatorScenario, unittest.TestCase):
    """wlroots: a layer-shell surface, over foot."""
    backend, surface, see_through = "wayland", "a layer-shell surface", True

    @staticmethod
    def missing_requirements():
        return missing_requirements()

    def start_display(self):
        self.start_sway()

    def grab(self):
        return screenshot.grab_wayland(self.env)


class IndicatorOnX11Test(IndicatorScenario, unittest.TestCase):
    """X11: an override-redirect window, on Xvfb with no window manager (none is needed)."""
    backend, surface, see_through = "x11", "an override-redirect window", False

    @staticmethod
    def missing_requirements():
        missing = [f"{tool} (Debian: {package})" for tool, package in (("Xvfb", "xvfb"), ("xwd", "x11-apps"), ("xterm", "xterm"))
                   if shutil.which(tool) is None]
        probe = subprocess.run([APP_PYTHON, "-c", "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode != 0:
            missing.append(f"GTK 3 for {APP_PYTHON} (Debian: python3-gi gir1.2-gtk-3.0)")
        return missing

    def start_display(self):
        number = 90 + os.getpid() % 500
        self.display = f":{number}"
        self.spawn(["Xvfb", self.display, "-screen", "0", "%dx%dx24" % SCREEN, "-nolisten", "tcp"], "Xvfb")
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.directory, "DISPLAY": self.display}
        self.wait_for(lambda: subprocess.run(["xwd", "-root", "-silent", "-display", self.display],
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0,
                      20, "Xvfb")

    def start_app(self):
        """xterm on grey, over the left of the screen, with no window manager: an
        override-redirect window needs none. With no compositor the arrow's window is
        not see-through: the check is that the app shows around the window's box."""
        self.spawn(["xterm", "-geometry", "80x40+0+0", "-bg", "#808080", "-fg", "#000000"], "xterm", self.env)

        def xterm_drawn(image):
            return None if near(image.pixel(5, image.height // 2), GREY, 2) else "no grey xterm at the left edge"
        self.shot("0-app", xterm_drawn, timeout=20)

    def grab(self):
        return screenshot.grab(self.display)


STRIP = 4 * SIZE  # the screenshot's width: the arrow and what is beside it


class IndicatorOnGnomeShellTest(IndicatorScenario, unittest.TestCase):
    """GNOME Shell on Wayland, which has no layer-shell: the arrow is drawn in the Shell's
    own stage by the package's extension (desktop/gnome-shell/arrow.js), here on
    `gnome-shell --headless` with a private session bus, and observes the daemon at
    $POPGESTURED_SOCKET. Screenshots of the left strip come from the Shell itself."""
    backend, surface, see_through = "gnome-shell", None, True
    watched = "shell"

    @staticmethod
    def missing_requirements():
        return [f"{tool} (Debian: {package})" for tool, package in
                (("gnome-shell", "gnome-shell"), ("dbus-daemon", "dbus"), ("gdbus", "libglib2.0-bin"))
                if shutil.which(tool) is None]

    def bus(self, name):
        """A dbus-daemon of its own (the session bus's configuration), its address."""
        process = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"})
        self.addCleanup(self.stop, process)
        address = process.stdout.readline().decode().strip()
        if not address:
            self.fail(f"the {name} bus did not start")
        return address

    def gdbus(self, destination, path, method, *arguments, check=True):
        run = subprocess.run(["gdbus", "call", "--session", "--timeout", "20", "--dest", destination,
                              "--object-path", path, "--method", method, *arguments],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.env)
        if check and run.returncode != 0:
            self.fail(f"gdbus {method} {arguments}: {run.stdout.decode()}{self.logs()}")
        return run.returncode == 0 and run.stdout.decode()

    def start_display(self):
        version = subprocess.run(["gnome-shell", "--version"], stdout=subprocess.PIPE, check=True).stdout.decode()
        major = int(version.split()[-1].split(".")[0])  # "GNOME Shell 43.9"
        data = os.path.join(self.directory, "data")
        subprocess.run([os.path.join(REPO, "desktop", "install"), data, str(major)], check=True)
        gnome_shot.install(data, major)
        runtime = tempfile.mkdtemp(prefix="popgesture-gnome-")
        self.addCleanup(shutil.rmtree, runtime, True)
        os.chmod(runtime, 0o700)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.directory, "XDG_RUNTIME_DIR": runtime,
                    "XDG_DATA_HOME": data, "XDG_CONFIG_HOME": self.config,
                    "DBUS_SESSION_BUS_ADDRESS": self.bus("session")}
        shell_env = dict(self.env, DBUS_SYSTEM_BUS_ADDRESS=self.bus("system"), GSETTINGS_BACKEND="memory",
                         XDG_CURRENT_DESKTOP="GNOME", XDG_SESSION_TYPE="wayland",
                         POPGESTURED_SOCKET=self.daemon.socket)
        os.makedirs("/tmp/.X11-unix", mode=0o1777, exist_ok=True)
        self.shell = self.spawn(["gnome-shell", "--headless", "--virtual-monitor", "%dx%d" % SCREEN,
                                 "--wayland-display", "wayland-arrow"], "shell", shell_env)

        def enabled():
            return all(self.gdbus("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions.EnableExtension",
                                  uuid, check=False) for uuid in (gnome_shot.UUID, "popgestured-bridge@popgestured"))
        self.wait_for(enabled, 60, "GNOME Shell with both extensions enabled")
        self.wait_for(lambda: self.gdbus("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                         "org.freedesktop.DBus.GetNameOwner", gnome_shot.NAME, check=False),
                      30, "the screenshot hook")
        # The arrow observes the daemon: the daemon lists it among its clients.
        self.wait_for(lambda: "popgestured arrow" in (subprocess.run(
            [os.path.join(os.path.dirname(support.BINARY), "popgesturectl"), "--socket", self.daemon.socket, "status"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode()), 30, "the arrow observing the daemon")

    def start_app(self):
        self.shot("0-app", lambda image: None)

    def start_indicator(self):
        pass  # the extension is the indicator, enabled with the Shell

    def grab(self):
        path = os.path.join(self.directory, "strip.png")
        self.gdbus(gnome_shot.NAME, gnome_shot.PATH, gnome_shot.METHOD, path, str(STRIP))
        with open(path, "rb") as file:
            return screenshot.read_png(file.read())

    def test_the_python_indicator_leaves_the_arrow_to_the_extension(self):
        run = subprocess.run([APP_PYTHON, INDICATOR, "--socket", self.daemon.socket], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=30,
                             env=dict(self.env, WAYLAND_DISPLAY="wayland-arrow", GDK_BACKEND="wayland", NO_AT_BRIDGE="1"))
        output = run.stdout.decode()
        self.assertEqual(run.returncode, 3, output)
        self.assertIn("GNOME Shell's extension popgestured-bridge@popgestured draws the arrow here", output)

    def logs(self):
        return (f"\n--- gnome-shell:\n{self.read('shell')[-3000:]}\n--- monitor:\n{self.read('monitor')}"
                f"\n--- daemon:\n{self.daemon.log}")



def load_indicator():
    """The indicator's module, imported from its file (it is a script, not a package)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("popgesture_indicator", INDICATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ArrowTests(unittest.TestCase):
    """The indicator's reading of the daemon's lines, without a display."""

    def setUp(self):
        try:
            self.module = load_indicator()
        except (ImportError, ValueError) as error:
            if os.environ.get("CI"):
                raise
            self.skipTest(f"the indicator needs PyGObject with GTK 3 for this python ({error})")

    def test_a_swipe_shows_the_arrow_growing_to_the_commit_point_and_its_end_hides_it(self):
        arrow = self.module.Arrow()
        self.assertFalse(arrow.handle({"type": "input-progress", "progress": 0.1, "commit": 0.3}),
                         "progress before input-began is no swipe of ours")
        self.assertTrue(arrow.handle({"type": "input-began", "time_us": 1}))
        self.assertEqual((arrow.visible, arrow.fraction), (True, 0.0))
        arrow.handle({"type": "input-progress", "progress": 0.15, "commit": 0.3})
        self.assertAlmostEqual(arrow.fraction, 0.5)
        arrow.handle({"type": "input-progress", "progress": 0.9, "commit": 0.3})
        self.assertEqual(arrow.fraction, 1.0, "clamped at the commit point")
        self.assertFalse(arrow.handle({"type": "pop-progress", "progress": 0.5}), "a navigator's pop is the app's")
        self.assertTrue(arrow.handle({"type": "back-input", "input": "alt+left"}))
        self.assertFalse(arrow.visible)
        arrow.handle({"type": "input-began"})
        self.assertTrue(arrow.handle({"type": "input-cancelled", "reason": "released"}))
        self.assertFalse(arrow.visible)

    def test_odd_values_change_nothing(self):
        arrow = self.module.Arrow()
        arrow.handle({"type": "input-began"})
        arrow.handle({"type": "input-progress", "progress": 0.15, "commit": 0.3})
        for odd in ({"progress": True, "commit": 0.3}, {"progress": "0.2", "commit": 0.3}, {"progress": 0.2},
                    {"type": "input-progress"}):
            self.assertFalse(arrow.handle(dict({"type": "input-progress"}, **odd)), odd)
        self.assertAlmostEqual(arrow.fraction, 0.5)
        arrow.handle({"type": "input-progress", "progress": 0.2, "commit": 0})
        self.assertEqual(arrow.fraction, 1.0, "a commit progress of 0 commits at once")

    def test_the_person_s_file_turns_the_arrow_off_and_moves_it_and_nothing_else(self):
        directory = support.temporary_directory(self)
        path = os.path.join(directory, "indicator.conf")
        self.assertEqual(self.module.read_settings(path), {}, "no file: the defaults")
        with open(path, "w") as file:
            file.write("# a comment\narrow = off\nedge=right\ncolour = red\narrow = maybe\n#edge = left\n"
                       "refused = on\nrefused = perhaps\n")
        self.assertEqual(self.module.read_settings(path), {"arrow": False, "edge": "right", "refused": True})
        with open(path, "wb") as file:
            file.write(b"arrow = on\n" + b"x" * 8192 + b"\nedge = right\n")
        self.assertEqual(self.module.read_settings(path), {"arrow": True}, "only the first 4 KiB are read")

    def test_a_refused_swipe_sets_the_no_until_it_is_cleared_and_a_new_swipe_clears_it(self):
        arrow = self.module.Arrow()
        self.assertTrue(arrow.handle({"type": "refused", "reason": "stack-too-shallow", "device": 0}))
        self.assertTrue(arrow.refused)
        self.assertFalse(arrow.handle({"type": "refused", "reason": "no-navigator", "device": 0}), "already up")
        self.assertTrue(arrow.clear_refusal())
        self.assertFalse(arrow.clear_refusal(), "cleared once")
        arrow.handle({"type": "refused", "reason": "no-navigator", "device": 0})
        arrow.handle({"type": "input-began"})
        self.assertEqual((arrow.visible, arrow.refused), (True, False), "a swipe that goes back replaces the no")
        self.assertFalse(arrow.handle({"type": "refused", "reason": "busy", "device": 1}),
                         "never over the arrow of a swipe under way")

    def test_a_line_longer_than_the_protocol_allows_ends_the_connection(self):
        import socket
        indicator = self.module.Indicator.__new__(self.module.Indicator)
        indicator.arrow, indicator.buffer = self.module.Arrow(), b""
        ours, theirs = socket.socketpair()
        self.addCleanup(ours.close)
        self.addCleanup(theirs.close)
        ours.setblocking(False)
        indicator.connection = ours
        ended = []
        indicator.disconnect = ended.append
        indicator.update = lambda: None
        theirs.sendall(b'{"type":"input-began"}\n' + b"x" * 70000)
        for _ in range(10):  # 65,536 bytes a read: two reads reach the limit
            if ended or not indicator.readable(ours.fileno(), None):
                break
        self.assertEqual(ended, [f"a line longer than {self.module.MAXIMUM_LINE} bytes"])
        self.assertTrue(indicator.arrow.visible, "the whole line before it was read")


if __name__ == "__main__":
    unittest.main()
