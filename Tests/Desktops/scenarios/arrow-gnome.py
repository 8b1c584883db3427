"""The back arrow in GNOME Shell (48 on Debian 13), headless, as the package installs
it: the package's Shell extension (in /usr/share/gnome-shell/extensions) draws it in
the Shell's stage, observing the package's daemon; the package's indicator, as its
user unit would start it, sees the extension and leaves the arrow to it (exit 3).
Screenshots by a test extension in the Shell (Tests/lib/gnome_shot.py;
Tests/Desktops/arrow.py)."""
import os
import subprocess
import sys

sys.path.insert(0, "/tier")
sys.path.insert(0, "/testlib")
from arrow import INDICATOR, check_arrow, client_env, daemon_with_finger  # noqa: E402
from desktop import SOCKET, environment, fail, gdbus, log, main, release, session_bus, start, step, text_of, wait_for  # noqa: E402
import gnome_shot  # noqa: E402
import screenshot  # noqa: E402

DISPLAY = "wayland-gnome"
UUID = "popgestured-bridge@popgestured"


def grab():
    done = gdbus(gnome_shot.NAME, gnome_shot.PATH, gnome_shot.METHOD, "/tmp/shot.png", "192")
    if done.returncode != 0:
        fail(f"the screenshot failed: {done.stdout}{done.stderr}")
    with open("/tmp/shot.png", "rb") as f:
        return screenshot.read_png(f.read())


def scenario():
    step(f"{release()}: session and system buses of their own, the package's daemon with an event pipe, GNOME Shell headless")
    session_bus()
    start("system-bus", ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=unix:path=/tmp/runtime/system_bus"])
    wait_for(10, "the stand-in system bus", lambda: os.path.exists("/tmp/runtime/system_bus"))
    finger = daemon_with_finger()
    version = subprocess.run(["gnome-shell", "--version"], capture_output=True, text=True).stdout.strip()
    major = int(version.split()[-1].split(".")[0])
    gnome_shot.install("/tmp/home/.local/share", major)
    log(f"{version}; the package's extension: /usr/share/gnome-shell/extensions/{UUID}")
    shell = start("gnome-shell", ["gnome-shell", "--headless", "--virtual-monitor", "1280x800",
                                  "--wayland-display", DISPLAY, "--no-x11"],
                  environment(DBUS_SYSTEM_BUS_ADDRESS="unix:path=/tmp/runtime/system_bus", GSETTINGS_BACKEND="memory",
                              XDG_CURRENT_DESKTOP="GNOME", XDG_SESSION_TYPE="wayland", POPGESTURED_SOCKET=SOCKET))

    def enabled():
        if shell.poll() is not None:
            fail(f"gnome-shell ended with {shell.returncode}:\n{text_of(shell)[-3000:]}")
        return all("true" in gdbus("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions.EnableExtension",
                                   uuid).stdout for uuid in (gnome_shot.UUID, UUID))
    wait_for(90, "GNOME Shell with the package's extension and the test's enabled", enabled)
    wait_for(30, "the screenshot extension on the bus", lambda: gdbus(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetNameOwner", gnome_shot.NAME).returncode == 0)

    step("the package's indicator, as its user unit starts it: it leaves the arrow to the extension")
    run = subprocess.run(["/usr/bin/python3", INDICATOR, "--socket", SOCKET], capture_output=True, text=True, timeout=30,
                         env=client_env(DISPLAY, NO_AT_BRIDGE="1"))
    log(f"exit {run.returncode}: {(run.stdout + run.stderr).strip()}")
    if run.returncode != 3 or "draws the arrow here" not in run.stderr:
        fail(f"the indicator did not leave the arrow to the Shell's extension: exit {run.returncode}\n{run.stderr}")
    check_arrow("gnome-shell", grab, finger)


main(scenario)
