"""The back arrow in sway (1.10 on Debian 13), headless, as the package installs it: its
user unit's indicator on a layer-shell surface (the overlay layer), following a swipe
through the package's daemon; screenshots by grim (Tests/Desktops/arrow.py)."""
import sys

sys.path.insert(0, "/tier")
from arrow import check_arrow, client_env, daemon_with_finger, grim, headless_sway, start_indicator  # noqa: E402
from desktop import log, main, release, session_bus, step  # noqa: E402


def scenario():
    step(f"{release()}: a session bus, the package's daemon with an event pipe, sway headless")
    session_bus()
    finger = daemon_with_finger()
    display = headless_sway()
    env = client_env(display)
    log(f"sway's display: {display}")

    step("the package's indicator")
    start_indicator(env)
    check_arrow("sway", lambda: grim(env), finger)


main(scenario)
