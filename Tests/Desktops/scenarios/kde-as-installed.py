"""bridge kde with the package's files where the package puts them: KWin (6.3 on
Debian 13) headless, the package's popgestured and popgesturectl, and `bridge kde`
with no --script, so the one installed. Two GTK windows in turn: the daemon's focus
follows each, as the shell's word. Then the script is unloaded behind the bridge's
back (KWin tells no one): the bridge says so, loads it again, and the next window's
focus arrives. On the layout before issue 29 (a KWin package of the same id, not
enabled) KWin unloaded the script at once, and no window was ever reported."""
import sys

sys.path.insert(0, "/tier")
from desktop import (copy_without_capabilities, daemon, environment, fail, gdbus, log, main, release, session_bus, shell_focus, start, start_bridge, status, step, text_of, wait_for, window, within)  # noqa: E402

DISPLAY = "wayland-kde"


def scenario():
    step(f"{release()}: a session bus, the package's daemon, KWin headless")
    session_bus()
    daemon()
    kwin_binary = copy_without_capabilities("/usr/bin/kwin_wayland")
    kwin = start("kwin", [kwin_binary, "--virtual", "--no-lockscreen", "--socket", DISPLAY,
                          "--width", "1280", "--height", "800"],
                 environment(QT_QPA_PLATFORM="offscreen", XDG_CURRENT_DESKTOP="KDE"))

    def scripting():
        if kwin.poll() is not None:
            fail(f"kwin_wayland ended with {kwin.returncode}:\n{text_of(kwin)[-2000:]}")
        return gdbus("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.isScriptLoaded", "none").returncode == 0
    wait_for(60, "KWin's scripting interface", scripting)
    version = start("kwin-version", [kwin_binary, "--version"], environment(QT_QPA_PLATFORM="offscreen"))
    version.wait()
    log(f"KWin: {text_of(version).strip()}")

    step("bridge kde, as installed: its default script")
    bridge = start_bridge("kde", environment(WAYLAND_DISPLAY=DISPLAY))

    step("two windows in turn: the daemon's focus follows each")
    for app in ("test.popgestured.one", "test.popgestured.two"):
        win = window(app, DISPLAY)
        if not wait_for_focus(app, win.pid):
            fail(f"the daemon's focus never became {app} (pid {win.pid}): {status().get('focus')}\n"
                 f"bridge:\n{text_of(bridge)}\nscript loaded: "
                 f"{gdbus('org.kde.KWin', '/Scripting', 'org.kde.kwin.Scripting.isScriptLoaded', 'popgestured-bridge').stdout}")
        log(f"focus: {status().get('focus')}")
    loaded = gdbus("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.isScriptLoaded", "popgestured-bridge").stdout
    if "true" not in loaded:
        fail(f"the script is not loaded: {loaded}")

    step("the script unloaded behind the bridge's back: loaded again, and the next window reported")
    gdbus("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting.unloadScript", "popgestured-bridge")
    wait_for(20, "the bridge's line saying it loaded the script again", lambda: "loaded it again" in text_of(bridge))
    win = window("test.popgestured.three", DISPLAY)
    if not wait_for_focus("test.popgestured.three", win.pid):
        fail(f"after the reload, the focus never became test.popgestured.three: {status().get('focus')}\n{text_of(bridge)}")
    log(f"focus: {status().get('focus')}")
    print("      " + text_of(bridge).replace("\n", "\n      "), flush=True)


def wait_for_focus(app, pid):
    return within(30, lambda: shell_focus(app, pid))


main(scenario)
