#!/usr/bin/env bash
# (v) Issue 32, the settings app's Try it page on a real touchscreen. In the desktop of
# 99-real-apps (sway with its libinput backend reading the ELAN panel, Tests/VM/
# desktop.sh; the sway bridge), the daemon with the shipped file, and
# clients/settings/popgestured-settings.py as the desktop's user on a session bus of its
# own, on its Try it page (its `show-page` action over org.gtk.Actions). Then, on the
# panel:
#   1. a left-edge swipe (1 % -> 50 % of the width in 400 ms): the page draws the
#      finger's path (the touches reach the app through sway, grab off) and says the
#      back went out: back-input, Alt+Left to the app in front;
#   2. a vertical scroll from the edge (at 1 %, from 30 % to 70 % of the height): the
#      path, and "Refused: it was a scroll: too steep for a back".
# Checked: the app's own log (its verdict and the path it drew), the observer's
# events, and that each screenshot (try-back.png, try-refused.png, docs/SETTINGS.md)
# differs from the page before the swipe.
# timeout: 600
source "$(dirname "$0")/../lib.sh"
source "$VM_DIR/desktop.sh"

desc=$(recording elan-touchscreen.desc)
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.01 --to 0.5 --y 0.5 --duration-ms 400 >"$WORK/back.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.01 --to 0.015 --y 0.3 --to-y 0.7 --duration-ms 400 >"$WORK/scroll.events"

mkdir -p "$DESKTOP_HOME/home"
start_desktop "$desc"
# clients = any: the desktop's user here is nobody, on no logind session (Tests/VM has
# none), whom clients = seat turns away, as the app then says (a toast).
start_daemon --config "$REPO/systemd/popgestured.conf" --grab off --clients any
open_observer watch

# The app's session bus: its unique name and its actions.
DESKTOP_BUS="unix:path=$DESKTOP_RUNTIME/bus"
as_desktop_user dbus-daemon --session --address="$DESKTOP_BUS" --nofork >"$WORK/bus.log" 2>&1 &
BG_PIDS+=("$!")
wait_for 30 "the app's session bus" test -S "$DESKTOP_RUNTIME/bus"
as_desktop_user /usr/bin/python3 "$REPO/clients/settings/popgestured-settings.py" --socket "$SOCK" >"$WORK/app.log" 2>&1 &
BG_PIDS+=("$!")
wait_title 180 'Back Swipe'
log "the app in front: \"$(focused_window | cut -f1)\""
action() {
    as_desktop_user gdbus call --session --dest org.popgestured.Settings --object-path /org/popgestured/Settings \
        --method org.gtk.Actions.Activate "$1" "[$2]" "{}" >/dev/null || fail "the app's action $1 failed"
}
action show-page "<'try'>"
sleep 5
screenshot "$WORK/try-before.png"

# swipe EVENTS TYPE SHOT: plays EVENTS, waits for the observer's TYPE and the app's
# verdict after it, then the screenshot SHOT.png; VERDICT is the app's last verdict.
swipe() {
    local verdicts
    verdicts=$(grep -c '^verdict: ' "$WORK/app.log" || true)
    play "$DEV_NODE" "$1"
    wait_for 30 "the observer's $2" has_event "$WORK/watch.out" "$2"
    wait_for 30 "the app's verdict" sh -c "[ \$(grep -c '^verdict: ' '$WORK/app.log') -gt $verdicts ]"
    sleep 3
    screenshot "$WORK/$3.png"
    VERDICT=$(grep '^verdict: ' "$WORK/app.log" | tail -n 1)
    PATH_LINE=$(grep '^path: ' "$WORK/app.log" | tail -n 1)
    cmp -s "$WORK/try-before.png" "$WORK/$3.png" && fail "$3: the page looks as before the swipe"
    log "$3: $VERDICT; $PATH_LINE"
}

# 1. The back.
swipe "$WORK/back.events" back-input try-back
grep -q '^verdict: Back: alt+left went to ' <<<"$VERDICT" || fail "the back's verdict: $VERDICT"
grep -qE '^path: [0-9]+ points, ([2-9][0-9][0-9]|[0-9]{4,}) px across' <<<"$PATH_LINE" ||
    fail "the page drew no path across the screen: $PATH_LINE (app.log)"

# 2. The refused scroll.
swipe "$WORK/scroll.events" rejected try-refused
grep -qx 'verdict: Refused: it was a scroll: too steep for a back.' <<<"$VERDICT" || fail "the scroll's verdict: $VERDICT"
grep -qE '^path: [0-9]+ points, [0-9]+ px across, ([1-9][0-9][0-9]) px down' <<<"$PATH_LINE" ||
    fail "the page drew no path down the screen: $PATH_LINE (app.log)"
daemon_alive
