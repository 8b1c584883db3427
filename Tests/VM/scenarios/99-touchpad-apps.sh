#!/usr/bin/env bash
# (v) Issue 21, the touchpad bridge with real apps: the page follows the finger. In
# the desktop of 99-real-apps (sway with its libinput backend, Tests/VM/desktop.sh),
# the shipped configuration plus `touchpad` for Firefox ESR and the libadwaita
# leaflet app (Tests/VM/apps/leaflet-pages.py). For each app, at page popB after popA:
#   1. a left-edge swipe held at 45 % of the width for 8 s: a screenshot halfway
#      (held-APP.png: the app's own back animation, under the finger), then the lift:
#      the title says popA, still 5 s later (one back, by the app's own commit), unless
#      EXPECTED says what a test run showed instead;
#   2. back at popB, a swipe held at 6 % then released (the daemon cancels): the
#      title stays popB; screenshots while held (early-APP.png) and after
#      (released-APP.png).
# Checked: whether the page moved while held (the screenshot differs from the one at
# rest; MOVES), and the titles (EXPECTED where a run showed otherwise). Screenshots
# land in this scenario's log folder; docs/images has the ones the docs show. VM_APPS=regex picks apps, as in 99-real-apps.
# timeout: 900
source "$(dirname "$0")/../lib.sh"
source "$VM_DIR/desktop.sh"

desc=$(recording elan-touchscreen.desc)
held="$WORK/held-swipe.events" early="$WORK/early-swipe.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape hold --from 0.01 --hold-at 0.45 --hold-ms 8000 --to 0.5 >"$held"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape hold --from 0.01 --hold-at 0.06 --hold-ms 8000 --to 0.065 >"$early"

PAGES="$DESKTOP_HOME/pages"
mkdir -p "$PAGES"
for page in popA popB; do
    {
        printf '<!doctype html><html><head><meta charset="utf-8"><title>%s</title></head>\n' "$page"
        printf '<body style="font: 96px sans-serif; background: %s"><h1>%s</h1></body></html>\n' \
            "$([ $page = popA ] && echo '#cde' || echo '#edc')" "$page"
    } >"$PAGES/$page.html"
done
firefox_profile
chown -R nobody:nogroup "$DESKTOP_HOME"

conf="$WORK/touchpad.conf"
{ cat "$REPO/systemd/popgestured.conf"
  echo "firefox-esr = touchpad"
  echo "org.popgestured.LeafletPages = touchpad"; } >"$conf"

start_desktop "$desc"
start_daemon --config "$conf"
wait_sway_input "popgestured touchpad"
open_observer watch

FAILURES=()
# Where an app did otherwise in a test run (docs/APPS.md): the title after the held swipe.
declare -A EXPECTED=(
    # The leaflet follows the fingers (held-leaflet.png: popA slides in), but what it
    # decides at the lift changed from run to run under TCG: one run came back to popB
    # after the held swipe and stayed at the early release, the next went back to popA
    # after both. Not decided (docs/APPS.md); either page passes, the motion must show.
    [leaflet held]='popA|popB' [leaflet early]='popA|popB'
)
# Whether the held swipe moves the page (the screenshot while held differs from the
# one at rest): the app's own back animation following the fingers.
# Firefox ESR 153 draws its swipe arrow under the fingers and goes back at the lift in
# a VM that has the machine to itself (run of 2026-11-26); in three runs beside another
# VM it showed nothing (docs/APPS.md).
declare -A MOVES=([firefox]=yes [leaflet]=yes)
# check_touchpad_app NAME PAGE-A PAGE-B CMD...
check_touchpad_app() {
    local name=$1 page_a=$2 page_b=$3; shift 3
    app_selected "$name" || return 0
    log "== $name: $*"
    as_desktop_user "$@" >"$WORK/$name.log" 2>&1 &
    BG_PIDS+=("$!")
    wait_title 240 '\bpopA\b'
    log "$name: app id \"$(focused_window | cut -f1)\""
    sleep 3
    navigate "$page_b"; wait_title 120 '\bpopB\b'
    # The scroll goes to the surface under the pointer (docs/CONFIGURATION.md, the
    # touchpad bridge's catches): the pointer rests mid-page, as a user's would.
    swaymsg seat seat0 cursor set 640 500 >/dev/null
    sleep 3
    # 1. Held halfway, then lifted.
    screenshot "$WORK/rest-$name.png"
    play_bg "$DEV_NODE" "$held"
    sleep 5
    screenshot "$WORK/held-$name.png"
    local moved=yes
    cmp -s "$WORK/rest-$name.png" "$WORK/held-$name.png" && moved=no
    log "$name: held at 45 %: the page moved: $moved"
    [ "$moved" = "${MOVES[$name]}" ] || FAILURES+=("$name: held at 45 %, the page moved: $moved (expected ${MOVES[$name]})")
    log "$name: held at 45 %: title \"$(focused_title)\""
    wait "$PLAY_PID"
    try_wait 60 _title_is '\bpopA\b' || true
    sleep 5
    local after; after=$(focused_title)
    log "$name: lifted: \"$after\""
    local want=${EXPECTED[$name held]:-popA}
    grep -qE "\\b($want)\\b" <<<"$after" || FAILURES+=("$name: the held swipe left \"$after\", not $want")
    # 2. Released early.
    navigate "$page_b"; wait_title 120 '\bpopB\b'
    sleep 3
    play_bg "$DEV_NODE" "$early"
    sleep 5
    screenshot "$WORK/early-$name.png"
    wait "$PLAY_PID"
    sleep 5
    screenshot "$WORK/released-$name.png"
    after=$(focused_title)
    log "$name: released early: \"$after\""
    want=${EXPECTED[$name early]:-popB}
    grep -qE "\\b($want)\\b" <<<"$after" || FAILURES+=("$name: the early release left \"$after\", not $want")
    close_apps
}

check_touchpad_app firefox "file://$PAGES/popA.html" "file://$PAGES/popB.html" \
    firefox-esr --no-remote --profile "$DESKTOP_HOME/firefox" "file://$PAGES/popA.html"
check_touchpad_app leaflet popA popB dbus-run-session env GIO_USE_VFS=local python3 "$VM_DIR/apps/leaflet-pages.py"

grep -c '"input-progress"' "$WORK/watch.out" | sed 's/^/input-progress events: /' >&2 || true
[ "${#FAILURES[@]}" -eq 0 ] || { printf '%s\n' "${FAILURES[@]}" >&2; fail "${FAILURES[0]}"; }
