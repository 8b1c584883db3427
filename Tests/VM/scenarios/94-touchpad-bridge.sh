#!/usr/bin/env bash
# (t) The touchpad bridge (issue 21). With firefox marked `touchpad` in [back-input]
# the daemon makes "popgestured touchpad", which udev tags ID_INPUT_TOUCHPAD, libinput
# lists as a touchpad (Capabilities: pointer gesture, Size: 100x60mm) and the daemon
# never reads. A shell says firefox has focus, and that the session scrolls touchpads
# traditionally (`touchpad-scrolling`: until a shell says it, an entry that follows the
# session gets the standard back input); `libinput debug-events` reads the touchpad as
# a compositor would, with libinput's defaults (natural scrolling off). On the ELAN panel (a real protocol-B description):
#   1. a left-edge swipe (1 % -> 60 % in 200 ms) commits: libinput reports a
#      two-finger horizontal scroll (POINTER_SCROLL_FINGER) toward the left only,
#      ended by a scroll stop at the lift; observers see input-began, input-progress,
#      back-input; the back input's keys device sends no key;
#   2. a slow short swipe (1 % -> 12 % in 1.5 s) is cancelled: the scroll goes left,
#      then right back toward where it started, and stops at the lift; input-cancelled.
# With it comes "popgestured pointer" (udev: ID_INPUT_MOUSE, libinput: an absolute
# pointer): before each swipe's fingers land it moves once, to where the finger is
# (near the left edge, at half the height), as libinput reads it.
#   3. the shell says its session takes no touchpad bridge (`"bridge":false`, as the
#      GNOME bridge does): the touchpad and the pointer go away, status says "off", and
#      the edge swipe sends Alt+Left on the back input device instead; said again with
#      the bridge, both come back.
# timeout: 300
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)  # protocol B, 331 mm wide
edge="$WORK/edge-swipe.events"
short="$WORK/short-swipe.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.01 >"$edge"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.01 --to 0.12 --duration-ms 1500 >"$short"

TOUCHPAD_NAME="popgestured touchpad"
POINTER_NAME="popgestured pointer"
KEYS_NAME="popgestured back input"
node_named() {
    local dir
    for dir in /sys/class/input/event*; do
        [ "$(cat "$dir/device/name" 2>/dev/null)" = "$1" ] && { echo "/dev/input/${dir##*/}"; return; }
    done
}
has_node_named() { [ -n "$(node_named "$1")" ] && [ -e "$(node_named "$1")" ]; }

conf="$WORK/touchpad.conf"
printf '%s\n' 'back-input = alt+left' '[back-input]' 'firefox = touchpad' >"$conf"
start_daemon --config "$conf"
wait_for 60 "the daemon's \"$TOUCHPAD_NAME\"" has_node_named "$TOUCHPAD_NAME"
wait_for 60 "the daemon's \"$KEYS_NAME\"" has_node_named "$KEYS_NAME"
pad=$(node_named "$TOUCHPAD_NAME")
keys=$(node_named "$KEYS_NAME")
udevadm settle --timeout=60 || true
udev_prop "$pad" ID_INPUT_TOUCHPAD=1 || fail "udev did not tag $pad ID_INPUT_TOUCHPAD=1"

# libinput's own verdict, as every Wayland compositor would get it.
libinput list-devices >"$WORK/list-devices.out" 2>&1 || true
awk -v name="$TOUCHPAD_NAME" '$1 == "Device:" { on = (substr($0, index($0, $2)) == name) } on' \
    "$WORK/list-devices.out" >"$WORK/touchpad-listing.out"
cat "$WORK/touchpad-listing.out" >&2
grep -qE '^Capabilities: +pointer gesture *$' "$WORK/touchpad-listing.out" ||
    fail "libinput does not list $TOUCHPAD_NAME with the capabilities pointer gesture (a touchpad)"
grep -qE '^Size: +100x60mm *$' "$WORK/touchpad-listing.out" || fail "libinput does not see a 100x60mm touchpad"
log "libinput: $pad is a touchpad: $(grep -E '^(Size|Capabilities)' "$WORK/touchpad-listing.out" | tr -s ' ' | tr '\n' ';')"
wait_for 60 "the daemon's \"$POINTER_NAME\"" has_node_named "$POINTER_NAME"
pointer=$(node_named "$POINTER_NAME")
udev_prop "$pointer" ID_INPUT_MOUSE=1 || fail "udev did not tag $pointer ID_INPUT_MOUSE=1"
awk -v name="$POINTER_NAME" '$1 == "Device:" { on = (substr($0, index($0, $2)) == name) } on' \
    "$WORK/list-devices.out" >"$WORK/pointer-listing.out"
grep -qE '^Capabilities: +pointer *$' "$WORK/pointer-listing.out" ||
    fail "libinput does not list $POINTER_NAME as a pointer: $(tr '\n' ';' <"$WORK/pointer-listing.out")"
read_with_libinput pointer "$pointer"

read_with_libinput pad "$pad"
# The touchpad's own frames, for when libinput reads them otherwise than expected.
evemu-record "$pad" >"$WORK/pad.evemu" 2>/dev/null &
BG_PIDS+=("$!")
python3 "$VM_DIR/evread.py" "$keys" --keys >"$WORK/keys.out" 2>"$WORK/keys.err" &
BG_PIDS+=("$!")
wait_for 30 "the key reader to open $keys" grep -qx ready "$WORK/keys.out"

open_client shell '"role":"shell"'
request shell focus '"type":"focused-window","app":"firefox","pid":4321'
request shell scrolling '"type":"touchpad-scrolling","natural":false'
open_observer watch
create_device "$desc"
wait_device_listed "$DEV_NODE"
vmctl wait-device "$pad" --gone --timeout 2 || fail "the daemon reads its own touchpad $pad"
vmctl wait-device "$pointer" --gone --timeout 2 || fail "the daemon reads its own pointer $pointer"
# motions: the absolute motions libinput read from the pointer, "X Y" in percent of
# its axes (debug-events prints them transformed to 100).
motions() { awk '/POINTER_MOTION_ABSOLUTE/ { x = $(NF - 1); sub("/", "", x); print x, $NF }' "$WORK/pointer.out"; }

# scrolls FROM: the horizontal values of the POINTER_SCROLL_FINGER lines of pad.out
# after line FROM, one a line ("0" for the scroll stop).
scroll_lines() { tail -n +"$(( $1 + 1 ))" "$WORK/pad.out" | grep POINTER_SCROLL_FINGER || true; }
scrolls() { scroll_lines "$1" | sed -n 's/.*horiz \(-\{0,1\}[0-9.]*\)\/[-0-9.]*\*.*/\1/p'; }
has_stop() { scrolls "$1" | awk '$1 + 0 == 0 { found = 1 } END { exit !found }'; }
# swipe EVENTS TYPE: plays EVENTS, waits for the observer's TYPE event and the scroll
# stop, shows the scroll, and sets FROM to where its lines begin in pad.out.
swipe() {
    FROM=$(wc -l <"$WORK/pad.out")
    play "$DEV_NODE" "$1"
    wait_for 30 "the observer's $2" has_event "$WORK/watch.out" "$2"
    wait_for 30 "the scroll stop at the lift" has_stop "$FROM"
    sleep 1
    scroll_lines "$FROM" >&2
}

# 1. The committed swipe: a scroll to the left, then the stop; no key.
swipe "$edge" back-input
from=$FROM
[ "$(scrolls "$from" | awk '$1 < 0' | wc -l)" -ge 5 ] || fail "fewer than 5 leftward scroll events for the swipe"
[ "$(scrolls "$from" | awk '$1 > 0' | wc -l)" -eq 0 ] || fail "a rightward scroll in a committed swipe"
grep -q "Touch jump" "$WORK/pad.out" && fail "libinput saw a touch jump on the touchpad (its frames: pad.evemu)"
expect_events "$WORK/watch.out" input-began 1
has_event "$WORK/watch.out" input-progress || fail "no input-progress for the observer"
[ "$(awk '$1 == "key"' "$WORK/keys.out" | wc -l)" -eq 0 ] || fail "a key went out for an app marked touchpad"
motions >&2
[ "$(motions | wc -l)" -eq 1 ] || fail "the pointer moved $(motions | wc -l) times for one swipe, not once"
motions | awk '{ exit !($1 < 10 && $2 > 45 && $2 < 55) }' ||
    fail "the pointer went to $(motions | tail -n 1), not under the finger near the left edge at half the height"
log "1. the pointer went under the finger: $(motions | tail -n 1) (percent of the layout)"
log "1. committed: $(scrolls "$from" | awk '$1 < 0 { n++; s += $1 } END { printf "%d scroll events, %.1f in all", n, s }') to the left, then a stop; no key"

# 2. The cancelled swipe: left, back right, the stop.
swipe "$short" input-cancelled
from=$FROM
scrolls "$from" | awk '$1 < 0 { left = 1 } $1 > 0 && left { right = 1 } END { exit !(left && right) }' ||
    fail "the cancelled swipe did not scroll left and then back right"
expect_events "$WORK/watch.out" back-input 1
[ "$(awk '$1 == "key"' "$WORK/keys.out" | wc -l)" -eq 0 ] || fail "a key went out for a cancelled swipe"
log "2. cancelled: $(scrolls "$from" | awk '{ s += $1 } $1 < 0 { l += $1 } END { printf "%.1f left, %.1f net", l, s }'), then a stop"

# 3. A session that takes no touchpad bridge.
scrolling_is() { [ "$(vmctl status | python3 -c 'import json, sys; print(json.load(sys.stdin)["focus"].get("touchpadScrolling", ""))')" = "$1" ]; }
gone_named() { ! has_node_named "$1"; }
request shell declined '"type":"touchpad-scrolling","natural":false,"bridge":false'
wait_for 30 "the touchpad to go" gone_named "$TOUCHPAD_NAME"
wait_for 30 "the pointer to go" gone_named "$POINTER_NAME"
scrolling_is off || fail "status says touchpadScrolling \"$(vmctl status | grep -o '"touchpadScrolling":"[a-z]*"')\", not off"
play "$DEV_NODE" "$edge"
wait_for 30 "the observer's second back-input" sh -c "[ \$(grep -c '\"back-input\"' '$WORK/watch.out') -ge 2 ]"
# Alt+Left: KEY_LEFTALT (56) and KEY_LEFT (105) down.
wait_for 30 "Alt+Left on $keys" sh -c "awk '\$1 == \"key\" && \$3 == 1 { print \$2 }' '$WORK/keys.out' | tr '\n' ' ' | grep -q '56 105'"
log "3. no touchpad bridge: the touchpad and the pointer went, status says off, the swipe sent Alt+Left"
request shell again '"type":"touchpad-scrolling","natural":false'
wait_for 30 "the touchpad to come back" has_node_named "$TOUCHPAD_NAME"
wait_for 30 "the pointer to come back" has_node_named "$POINTER_NAME"
scrolling_is traditional || fail "status does not say traditional again"
log "3. the bridge said again: both are back"

daemon_alive
stop_daemon
wait_for 30 "the touchpad to go with the daemon" sh -c "! grep -qx '$TOUCHPAD_NAME' /sys/class/input/event*/device/name 2>/dev/null"
