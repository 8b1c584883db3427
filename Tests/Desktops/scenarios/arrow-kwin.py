"""The back arrow in KDE Plasma's compositor (KWin 6.3 on Debian 13), as the package
installs it: its user unit's indicator on a layer-shell surface (KWin implements
zwlr_layer_shell_v1), following a swipe through the package's daemon.

KWin runs nested in a headless sway (its Wayland backend, QPainter), not as
`kwin_wayland --virtual`: KWin's own screenshots (org.kde.KWin.ScreenShot2) need
OpenGL, which has no render node on this machine, while sway's grim sees whatever KWin
composited into its window, which fills sway's output (no borders, no title). The
arrow is then KWin's drawing of the indicator's surface (Tests/Desktops/arrow.py)."""
import os
import sys

sys.path.insert(0, "/tier")
from arrow import check_arrow, client_env, daemon_with_finger, grim, headless_sway, start_indicator  # noqa: E402
from desktop import (RUNTIME, copy_without_capabilities, environment, fail, gdbus, log, main, release, session_bus,  # noqa: E402
                     start, step, text_of, wait_for)

DISPLAY = "wayland-kde"


def scenario():
    step(f"{release()}: a session bus, the package's daemon with an event pipe, sway headless, KWin in it")
    session_bus()
    finger = daemon_with_finger()
    sway_display = headless_sway("default_border none\n")
    kwin_binary = copy_without_capabilities("/usr/bin/kwin_wayland")
    kwin = start("kwin", [kwin_binary, "--wayland-display", sway_display, "--socket", DISPLAY, "--no-lockscreen",
                          "--width", "1280", "--height", "800"],
                 environment(WAYLAND_DISPLAY=sway_display, QT_QPA_PLATFORM="wayland", KWIN_COMPOSE="Q",
                             XDG_CURRENT_DESKTOP="KDE"))

    def ready():
        if kwin.poll() is not None:
            fail(f"kwin_wayland ended with {kwin.returncode}:\n{text_of(kwin)[-2000:]}")
        return gdbus("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.isScriptLoaded", "none").returncode == 0
    wait_for(60, "KWin's scripting interface", ready)
    wait_for(30, "KWin's Wayland socket", lambda: os.path.exists(f"{RUNTIME}/{DISPLAY}"))
    version = start("kwin-version", [kwin_binary, "--version"], environment(QT_QPA_PLATFORM="offscreen"))
    version.wait()
    log(f"KWin: {text_of(version).strip()}, nested in sway's {sway_display}")

    step("the package's indicator, on KWin's display")
    start_indicator(client_env(DISPLAY))
    sway_env = client_env(sway_display)
    check_arrow("kwin", lambda: grim(sway_env), finger)


main(scenario)
