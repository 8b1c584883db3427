"""A Phosh session as Mobian starts one, headless: phoc (0.46 on Debian 13) running
phosh, with squeekboard, the on-screen keyboard, and XDG_CURRENT_DESKTOP=Phosh:GNOME.
The package's `bridge auto` there runs the wlroots bridge (phoc is not GNOME Shell,
though the session names GNOME too), and the daemon's focus follows the windows
phoc activates: two GTK windows, the first activated again as a task switcher does.
Phosh's own surfaces (its panels, squeekboard) are layer surfaces, never the focus.
wlr-foreign-toplevel names no pid: the focus is the app id alone. The bridge also
follows GNOME's touchpad natural-scroll, which phoc applies (the session's GSettings
on a keyfile backend here, no dconf service): natural at first, GNOME's default, then
traditional after `gsettings set`, in the daemon's status."""
import os
import subprocess
import sys

sys.path.insert(0, "/tier")
from desktop import (RUNTIME, daemon, environment, fail, log, main, release, session_bus, shell_focus, start, start_bridge, status, step, text_of, wait_for, window, within)  # noqa: E402

HELPER = "/opt/popgestured-tests/wlroots-test-client"
DISPLAY = "wayland-0"
PHOSH_DESKTOP = "Phosh:GNOME"


def scenario():
    step(f"{release()}: a session bus, the package's daemon, phoc headless running phosh and squeekboard")
    session_bus()
    daemon()
    with open("/tmp/phoc.ini", "w") as f:
        f.write("[core]\nxwayland=false\n")
    phosh = "/usr/libexec/phosh"
    if not os.access(phosh, os.X_OK):
        fail(f"{phosh} is not there: {os.listdir('/usr/libexec')}")
    session = dict(XDG_CURRENT_DESKTOP=PHOSH_DESKTOP, XDG_SESSION_DESKTOP="phosh", XDG_SESSION_TYPE="wayland",
                   GSETTINGS_BACKEND="keyfile")
    # --unlocked: as after the person unlocked it (phosh starts locked, a PIN away).
    phoc = start("phoc", ["phoc", "-C", "/tmp/phoc.ini", "-E", f"{phosh} --unlocked"],
                 environment(WLR_BACKENDS="headless", WLR_LIBINPUT_NO_DEVICES="1", WLR_RENDERER="pixman", **session))
    wait_for(30, "phoc's Wayland socket", lambda: os.path.exists(f"{RUNTIME}/{DISPLAY}") or phoc.poll() is not None)
    if phoc.poll() is not None:
        fail(f"phoc ended with {phoc.returncode}:\n{text_of(phoc)[-3000:]}")
    client = environment(WAYLAND_DISPLAY=DISPLAY, **session)
    # Headless phoc has no input device, so no seat, and activates no window without one.
    seat = subprocess.Popen([HELPER, "seat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=client, text=True)
    if seat.stdout.readline().strip() != "ready":
        fail(f"phoc made no seat:\n{text_of(phoc)[-3000:]}")
    start("squeekboard", ["squeekboard"], client)
    versions = start("versions", ["sh", "-c", "phoc --version; dpkg-query -W phosh squeekboard"])
    versions.wait()
    log(" ".join(text_of(versions).split()))
    within(5, lambda: False)  # phosh's panels and the keyboard come up
    if phoc.poll() is not None:
        fail(f"phoc (and phosh) ended with {phoc.returncode}:\n{text_of(phoc)[-3000:]}")

    step("bridge auto in the Phosh session: it runs the wlroots bridge")
    bridge = start_bridge("auto", client, says="running bridge wlroots")

    step("two windows, then the first activated again: the daemon's focus follows phoc's")
    window("test.popgestured.one", DISPLAY)
    expect_focus("test.popgestured.one", bridge, phoc)
    window("test.popgestured.two", DISPLAY)
    expect_focus("test.popgestured.two", bridge, phoc)
    activated = subprocess.run([HELPER, "activate", "test.popgestured.one"], env=client, capture_output=True, text=True)
    if activated.returncode != 0:
        fail(f"the task switcher's activate failed: {activated.stdout}{activated.stderr}")
    expect_focus("test.popgestured.one", bridge, phoc)

    step("GNOME's touchpad natural-scroll, as phoc applies it: the bridge tells the daemon, and each change")
    expect_scrolling("natural", bridge)
    done = subprocess.run(["gsettings", "set", "org.gnome.desktop.peripherals.touchpad", "natural-scroll", "false"],
                          env=client, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"gsettings set failed: {done.stdout}{done.stderr}")
    expect_scrolling("traditional", bridge)
    print("      " + text_of(bridge).replace("\n", "\n      "), flush=True)
    seat.stdin.close()
    seat.wait()


def expect_scrolling(word, bridge):
    if not within(30, lambda: (status().get("focus") or {}).get("touchpadScrolling") == word):
        fail(f"the daemon's touchpad scrolling never became {word}: {status().get('focus')}\nbridge:\n{text_of(bridge)}")
    log(f"touchpad scrolling: {word}")


def expect_focus(app, bridge, phoc):
    if not within(30, lambda: shell_focus(app, None)):
        fail(f"the daemon's focus never became {app}: {status().get('focus')}\n"
             f"bridge:\n{text_of(bridge)}\nphoc:\n{text_of(phoc)[-3000:]}")
    log(f"focus: {status().get('focus')}")


main(scenario)
