"""bridge auto in sway's session (sway 1.10 on Debian 13) headless, the package's
popgestured and popgesturectl as installed: `bridge auto`, with the session's
variables as sway's systemd integration gives them (XDG_CURRENT_DESKTOP=sway, SWAYSOCK),
runs sway's bridge; two GTK windows in turn, and the daemon's focus follows each, as
the shell's word."""
import glob
import os
import sys

sys.path.insert(0, "/tier")
from desktop import (RUNTIME, daemon, environment, fail, log, main, release, session_bus, shell_focus, start, start_bridge, status, step, text_of, wait_for, window, within)  # noqa: E402


def scenario():
    step(f"{release()}: a session bus, the package's daemon, sway headless")
    session_bus()
    daemon()
    with open("/tmp/sway.conf", "w") as f:
        f.write("output HEADLESS-1 resolution 1280x800\n")
    sway = start("sway", ["sway", "-c", "/tmp/sway.conf"], environment(
        WLR_BACKENDS="headless", WLR_LIBINPUT_NO_DEVICES="1", WLR_RENDERER="pixman"))
    socket = wait_for(60, "sway's IPC socket",
                      lambda: (glob.glob(f"{RUNTIME}/sway-ipc.*.sock") or [None])[0] or (sway.poll() is not None and "gone"))
    if sway.poll() is not None:
        fail(f"sway ended with {sway.returncode}:\n{text_of(sway)[-3000:]}")
    display = wait_for(30, "sway's Wayland socket",
                       lambda: next((os.path.basename(p) for p in glob.glob(f"{RUNTIME}/wayland-*") if not p.endswith(".lock")), None))
    version = start("sway-version", ["sway", "--version"])
    version.wait()
    log(f"{text_of(version).strip()}: IPC {socket}, display {display}")

    step("bridge auto in sway's session: it runs sway's bridge")
    bridge = start_bridge("auto", environment(XDG_CURRENT_DESKTOP="sway", XDG_SESSION_TYPE="wayland", WAYLAND_DISPLAY=display,
                                              SWAYSOCK=socket), says="running bridge sway")

    step("two windows in turn: the daemon's focus follows sway's")
    for app in ("test.popgestured.one", "test.popgestured.two"):
        win = window(app, display)
        if not within(30, lambda: shell_focus(app, win.pid)):
            fail(f"the daemon's focus never became {app} (pid {win.pid}): {status().get('focus')}\n{text_of(bridge)}")
        log(f"focus: {status().get('focus')}")
    print("      " + text_of(bridge).replace("\n", "\n      "), flush=True)


main(scenario)
