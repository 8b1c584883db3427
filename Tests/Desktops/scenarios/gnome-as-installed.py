"""bridge gnome with the package's files where the package puts them: GNOME Shell (48 on
Debian 13) headless, with the package's extension in /usr/share/gnome-shell/extensions
before the Shell starts, the package's popgestured, and `bridge gnome`, which enables
the extension. Two GTK windows in turn: the daemon's focus follows the Shell's focus
window, as the shell's word."""
import os
import sys
import time

sys.path.insert(0, "/tier")
from desktop import (daemon, environment, fail, log, main, release, session_bus, shell_focus, start, start_bridge, status, step, text_of, wait_for, window, within)  # noqa: E402

DISPLAY = "wayland-gnome"
UUID = "popgestured-bridge@popgestured"


def scenario():
    step(f"{release()}: session and system buses of their own, the package's daemon, GNOME Shell headless")
    session_bus()
    system_bus = start("system-bus", ["dbus-daemon", "--session", "--nofork", "--nopidfile",
                                      "--address=unix:path=/tmp/runtime/system_bus"])
    wait_for(10, "the stand-in system bus", lambda: os.path.exists("/tmp/runtime/system_bus"))
    daemon()
    version = start("gnome-shell-version", ["gnome-shell", "--version"])
    version.wait()
    log(f"{text_of(version).strip()}; the extension: /usr/share/gnome-shell/extensions/{UUID}")
    shell = start("gnome-shell", ["gnome-shell", "--headless", "--virtual-monitor", "1280x800",
                                  "--wayland-display", DISPLAY, "--no-x11"],
                  environment(DBUS_SYSTEM_BUS_ADDRESS="unix:path=/tmp/runtime/system_bus", GSETTINGS_BACKEND="memory",
                              XDG_CURRENT_DESKTOP="GNOME", XDG_SESSION_TYPE="wayland"))
    wait_for(90, "GNOME Shell's Wayland socket",
             lambda: os.path.exists(f"/tmp/runtime/{DISPLAY}") or shell.poll() is not None)
    if shell.poll() is not None:
        fail(f"gnome-shell ended with {shell.returncode}:\n{text_of(shell)[-3000:]}")

    step("bridge gnome, as installed: it enables the package's extension")
    bridge = start_bridge("gnome")

    step("a window, then a second: the daemon's focus follows the Shell's focus window")
    one = window("test.popgestured.one", DISPLAY)
    expect_focus("test.popgestured.one", one.pid, bridge, shell)
    # Mutter keeps the focus from a window that opens without an activation token; the
    # first one closing gives it to the second.
    two = window("test.popgestured.two", DISPLAY)
    time.sleep(3)  # for it to be mapped: nothing here can see that but the Shell
    one.kill()
    expect_focus("test.popgestured.two", two.pid, bridge, shell)
    if "cannot enable the extension" in text_of(bridge) and "enabled the extension" not in text_of(bridge):
        fail(f"the bridge found GNOME Shell not ready and never said it enabled the extension:\n{text_of(bridge)}")
    print("      " + text_of(bridge).replace("\n", "\n      "), flush=True)


def expect_focus(app, pid, bridge, shell):
    if not within(60, lambda: shell_focus(app, pid)):
        fail(f"the daemon's focus never became {app} (pid {pid}): {status().get('focus')}\n"
             f"bridge:\n{text_of(bridge)}\ngnome-shell:\n{text_of(shell)[-3000:]}")
    log(f"focus: {status().get('focus')}")


main(scenario)
