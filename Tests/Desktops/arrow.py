"""The back arrow on a desktop, as the package installs it (issue 31): the package's
popgestured reads a finger from its event pipe (Alt+Left for every app, from the edge;
no /dev/uinput here, so nothing is sent, and the swipe still goes to the back input),
and the arrow observes it: the Python indicator (/usr/share/popgestured/popgesture-
indicator.py) on a layer-shell surface, or the GNOME Shell extension. A scenario gives
its compositor and how to take a screenshot; this checks, pixel by pixel, that the
arrow is there halfway to the commit point, gone after a release short of it, at its
full size past it, and gone after that lift, which went back (`popgesturectl monitor`
saw back-input). Screenshots in the scenario's log folder."""
import glob
import os
import subprocess
import sys
import time

sys.path.insert(0, "/testlib")
from arrow_pixels import arrow, expected_right  # noqa: E402
from eventpipe import PANEL_MM, Finger  # noqa: E402

from desktop import RUNTIME, SOCKET, environment, fail, log, start, step, text_of, wait_for  # noqa: E402

INDICATOR = "/usr/share/popgestured/popgesture-indicator.py"
COMMIT = 0.3                   # the daemon's default commit-progress
START_MM = 0.02 * PANEL_MM     # inside the 4.8 mm edge zone


def daemon_with_finger():
    """The package's popgestured on SOCKET with an empty configuration and an event pipe;
    `popgesturectl monitor` recording what it sends observers. Returns the Finger."""
    open("/tmp/empty.conf", "w").close()
    os.mkfifo("/tmp/events", 0o600)
    process = start("popgestured", ["/usr/bin/popgestured", "run", "--socket", SOCKET, "--config", "/tmp/empty.conf",
                                    "--event-pipe", "/tmp/events"])
    wait_for(30, "the daemon's socket", lambda: os.path.exists(SOCKET) or process.poll() is not None)
    if process.poll() is not None:
        fail(f"popgestured ended with {process.returncode}:\n{text_of(process)}")
    start("monitor", ["/usr/bin/popgesturectl", "--socket", SOCKET, "monitor"])
    return Finger("/tmp/events")


def start_indicator(env):
    """The package's indicator, as its user unit runs it, with the session's display."""
    indicator = start("indicator", ["/usr/bin/python3", INDICATOR, "--socket", SOCKET],
                      dict(env, NO_AT_BRIDGE="1", PYTHONUNBUFFERED="1"))
    wait_for(30, "the indicator observing the daemon",
             lambda: "observing popgestured" in text_of(indicator) or indicator.poll() is not None)
    if indicator.poll() is not None:
        fail(f"the indicator ended with {indicator.returncode}:\n{text_of(indicator)}")
    log(" ".join(line.split(": ", 1)[-1] for line in text_of(indicator).splitlines()))
    return indicator


def observed(kind):
    try:
        with open("/logs/monitor.log") as f:
            return sum(1 for line in f if line.split()[1:2] == [kind])
    except OSError:
        return 0


def shot(name, grab, check, timeout=10):
    """Screenshots until `check(image)` is None (what is wrong otherwise) or the time is
    up; the last one saved as /logs/NAME.png."""
    deadline = time.monotonic() + timeout
    while True:
        image = grab()
        problem = check(image)
        if problem is None or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    image.save_png(f"/logs/{name}.png")
    if problem is not None:
        fail(f"{name}: {problem} (/logs/{name}.png)")
    right, count = arrow(image)
    log(f"{name}: {'no arrow' if count == 0 else f'the arrow, {right} px wide, {count} px'}")
    return image


def arrow_at(fraction):
    def check(image):
        right, count = arrow(image)
        if count == 0:
            return "no pixel of the arrow's colour near the left edge"
        expected = expected_right(fraction)
        return None if abs(right - expected) <= 3 else f"the arrow reaches x {right}, expected {expected:.1f} +- 3"
    return check


def no_arrow(image):
    right, count = arrow(image)
    return None if count == 0 else f"{count} pixels of the arrow's colour, up to x {right}"


def check_arrow(name, grab, finger):
    """The swipes and the screenshots; `name` prefixes the files."""
    step(f"{name}: a swipe from the edge held halfway to the commit point, then released short")
    shot(f"{name}-0-idle", grab, no_arrow)
    finger.down(START_MM, 68.0)
    finger.move_to(START_MM + 0.5 * COMMIT * PANEL_MM)
    shot(f"{name}-1-halfway", grab, arrow_at(0.5))
    time.sleep(0.3)
    finger.up()
    wait_for(10, "input-cancelled", lambda: observed("input-cancelled") == 1)
    shot(f"{name}-2-released", grab, no_arrow)

    step(f"{name}: a swipe past the commit point, then the lift: back")
    finger.down(START_MM, 68.0)
    finger.move_to(START_MM + 1.3 * COMMIT * PANEL_MM)
    shot(f"{name}-3-committing", grab, arrow_at(1.0))
    finger.up()
    wait_for(10, "back-input", lambda: observed("back-input") == 1)
    shot(f"{name}-4-after-back", grab, no_arrow)


def grim(env):
    """A wlroots compositor's outputs now (grim's screencopy), as an Image."""
    import screenshot
    dump = subprocess.run(["grim", "-t", "ppm", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10,
                          check=True, env=env).stdout
    return screenshot.read_ppm(dump)


def headless_sway(config=""):
    """sway headless, 1280 x 800 on a grey background plus `config`; its display's name."""
    with open("/tmp/sway.conf", "w") as f:
        f.write("output HEADLESS-1 resolution 1280x800 bg #404040 solid_color\n" + config)
    sway = start("sway", ["sway", "-c", "/tmp/sway.conf"], environment(
        WLR_BACKENDS="headless", WLR_LIBINPUT_NO_DEVICES="1", WLR_RENDERER="pixman"))

    def display():
        if sway.poll() is not None:
            fail(f"sway ended with {sway.returncode}:\n{text_of(sway)[-3000:]}")
        return next((os.path.basename(p) for p in glob.glob(f"{RUNTIME}/wayland-*") if not p.endswith(".lock")), None)
    return wait_for(60, "sway's Wayland socket", display)


def client_env(display, **extra):
    return environment(WAYLAND_DISPLAY=display, GDK_BACKEND="wayland", **extra)
