"""The back arrow in a Phosh session (phoc and phosh 0.46 on Debian 13), headless, as
the package installs it: its user unit's indicator on a layer-shell surface over
phosh's own panels, following a swipe through the package's daemon; screenshots by
grim, which phoc serves (Tests/Desktops/arrow.py)."""
import os
import subprocess
import sys

sys.path.insert(0, "/tier")
from arrow import check_arrow, client_env, daemon_with_finger, grim, start_indicator  # noqa: E402
from desktop import RUNTIME, environment, fail, main, release, session_bus, start, step, text_of, wait_for, within  # noqa: E402

HELPER = "/opt/popgestured-tests/wlroots-test-client"
DISPLAY = "wayland-0"


def scenario():
    step(f"{release()}: a session bus, the package's daemon with an event pipe, phoc headless running phosh")
    session_bus()
    finger = daemon_with_finger()
    with open("/tmp/phoc.ini", "w") as f:
        f.write("[core]\nxwayland=false\n")
    session = dict(XDG_CURRENT_DESKTOP="Phosh:GNOME", XDG_SESSION_DESKTOP="phosh", XDG_SESSION_TYPE="wayland",
                   GSETTINGS_BACKEND="memory")
    phoc = start("phoc", ["phoc", "-C", "/tmp/phoc.ini", "-E", "/usr/libexec/phosh --unlocked"],
                 environment(WLR_BACKENDS="headless", WLR_LIBINPUT_NO_DEVICES="1", WLR_RENDERER="pixman", **session))
    wait_for(30, "phoc's Wayland socket", lambda: os.path.exists(f"{RUNTIME}/{DISPLAY}") or phoc.poll() is not None)
    if phoc.poll() is not None:
        fail(f"phoc ended with {phoc.returncode}:\n{text_of(phoc)[-3000:]}")
    env = client_env(DISPLAY, **session)
    # Headless phoc has no input device, so no seat; phosh wants one.
    seat = subprocess.Popen([HELPER, "seat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
    if seat.stdout.readline().strip() != "ready":
        fail(f"phoc made no seat:\n{text_of(phoc)[-3000:]}")
    within(5, lambda: False)  # phosh's panels come up

    step("the package's indicator")
    start_indicator(env)
    check_arrow("phosh", lambda: grim(env), finger)
    seat.kill()


main(scenario)
