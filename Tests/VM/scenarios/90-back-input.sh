#!/usr/bin/env bash
# (n) The back input for apps without a navigator (issue 9). With the default
# configuration (back-input = alt+left, back-input-mode = edge) the daemon makes
# its uinput device "popgestured back input"; a bare reader (evread.py --keys) is
# on it. On the ELAN panel (a real protocol-B description):
#   1. no client: a left-edge swipe (1 % -> 60 %) -> Alt down, Left down, Left up,
#      Alt up, in two frames; observers see input-began and back-input;
#   2. a vertical scroll -> nothing;
#   3. a swipe from mid-screen (40 % -> 95 %) -> nothing: edge-only by default,
#      because the app under the finger gets those touches too;
#   4. a client's navigator in front, focused (it never said otherwise): the edge
#      swipe pops it, and the device emits nothing;
#   5. the client says {"type":"focus","focused":false}: the next edge swipe goes
#      to the back input again, and the client gets no back.
# Then without access to /dev/uinput (the daemon as nobody): the daemon still
# starts, and says the back input is off and why.
# timeout: 480
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)  # protocol B, 10 slots, 10 units/mm
edge="$WORK/edge-swipe.events"
mid="$WORK/mid-screen-swipe.events"
scroll="$WORK/vertical-scroll.events"
# From 1 % of the width: inside the 4.8 mm edge zone on this panel (2 % is 6 mm in).
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.01 >"$edge"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.40 --to 0.95 >"$mid"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.5 --to 0.5 --y 0.2 --to-y 0.8 >"$scroll"

BACK_INPUT_NAME="popgestured back input"
KEY_LEFTALT=56 KEY_LEFT=105


# key_lines (Tests/lib/devices.sh): the reader's "key CODE VALUE" lines so far.
key_count() { key_lines | wc -l; }
has_keys() { [ "$(key_count)" -ge "$1" ]; }
# expect_keys N: exactly N key events so far, or fail showing them.
expect_keys() {
    local got
    got=$(key_count)
    [ "$got" -eq "$1" ] || { cat "$WORK/keys.out" >&2; fail "expected $1 key event(s) from the back input device, got $got"; }
}
# expect_alt_left FROM: key events FROM+1 … FROM+4 are Alt down, Left down, Left up,
# Alt up, and they came in two frames (SYN_REPORT after the downs and after the ups).
expect_alt_left() {
    local from=$1 want got
    want=$(printf '%s\n' "$KEY_LEFTALT 1" "$KEY_LEFT 1" "$KEY_LEFT 0" "$KEY_LEFTALT 0")
    got=$(key_lines | sed -n "$((from + 1)),$((from + 4))p")
    [ "$got" = "$want" ] || { cat "$WORK/keys.out" >&2; fail "expected Alt+Left (down, down, up, up), got: $(tr '\n' ',' <<<"$got")"; }
    # The four keys, and a syn after the second and the fourth.
    awk -v from="$from" '
        $1 == "key" { k++; if (k > from && k <= from + 4) seen = k - from; next }
        $1 == "syn" && seen == 2 && !mid { mid = 1; next }
        $1 == "syn" && seen == 4 && mid { ok = 1; exit }
        END { exit !ok }' "$WORK/keys.out" || { cat "$WORK/keys.out" >&2; fail "Alt+Left did not come as two frames (downs, then ups)"; }
}

# back_event_to_input: the observer saw the back go to the back input.
back_event_to_input() { grep -qE '"type" *: *"back-input"' "$WORK/watch.out"; }

start_daemon
wait_for 60 "the daemon's \"$BACK_INPUT_NAME\" device" has_back_input_node
keys_node=$(back_input_node)
log "the back input device is $keys_node; daemon says: $(grep -i 'back input' "$DAEMON_LOG" | tail -n 1)"
udevadm settle --timeout=60 || true
udev_prop "$keys_node" ID_INPUT_KEY=1 || fail "udev did not tag $keys_node ID_INPUT_KEY=1 (compositors would ignore it)"
udev_prop "$keys_node" ID_INPUT_TOUCHSCREEN=1 && fail "udev took the back input device for a touchscreen"

python3 "$VM_DIR/evread.py" "$keys_node" --keys >"$WORK/keys.out" 2>"$WORK/keys.err" &
BG_PIDS+=("$!")
wait_for 30 "the key reader to open $keys_node" grep -qx ready "$WORK/keys.out"

open_observer watch
create_device "$desc"
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $DEV_NODE as a touchscreen"
wait_device_listed "$DEV_NODE"

# 1. No client: the edge swipe presses Alt+Left.
play "$DEV_NODE" "$edge"
wait_for 30 "Alt+Left on the back input device" has_keys 4
sleep 2  # a second press would show up now
expect_keys 4
expect_alt_left 0
wait_for 10 "the observer to see the back to the input" back_event_to_input
grep -E '"type" *: *"back-input"' "$WORK/watch.out" | grep -qE '"input" *: *"alt\+left"' ||
    fail "the observer's back-input does not name the input alt+left: $(grep -E '"type" *: *"back-input"' "$WORK/watch.out")"
expect_events "$WORK/watch.out" back-input 1
log "1. edge swipe, no client: Alt+Left"

# 2. A vertical scroll: nothing.
play "$DEV_NODE" "$scroll"
sleep 3
expect_keys 4
expect_events "$WORK/watch.out" back-input 1
log "2. vertical scroll: nothing"

# 3. A swipe from mid-screen: nothing, in the default edge-only back input.
play "$DEV_NODE" "$mid"
sleep 3
expect_keys 4
expect_events "$WORK/watch.out" back-input 1
log "3. mid-screen swipe, back-input-mode = edge: nothing"

# 4. A client's navigator in front; it never reported focus, so it counts as focused.
open_owner app
vmctl wait-front --timeout 30 || fail "the client's navigator is not in front"
play "$DEV_NODE" "$edge"
wait_for 30 "the client to get the back" has_event "$WORK/app.out" back
sleep 2
expect_events "$WORK/app.out" back 1
expect_keys 4
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/watch.out" back-input 1
log "4. navigator in front and focused: the client got the back, the device nothing"

# 5. The client loses focus: the next swipe goes to the back input, though its
# navigator could pop again.
push_detail app push-again
request app unfocus '"type":"focus","focused":false'
play "$DEV_NODE" "$edge"
wait_for 30 "Alt+Left after the client lost focus" has_keys 8
sleep 2
expect_keys 8
expect_alt_left 4
expect_events "$WORK/app.out" back 1
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/watch.out" back-input 2
log "5. client unfocused: Alt+Left again, no back for the client"

daemon_alive
stop_daemon
wait_for 30 "the back input device to go with the daemon" sh -c "! grep -qx '$BACK_INPUT_NAME' /sys/class/input/event*/device/name 2>/dev/null"

# The daemon as nobody, in the supplementary GROUP ("" for none), with its own
# socket folder ($RUNDIR is root's, 0700). Sets NOBODY_PID and NOBODY_LOG.
start_as_nobody() {
    local group=$1 dir
    dir=$(mktemp -d /run/vmtest-nobody.XXXXXX)
    chmod 0777 "$dir"
    NOBODY_LOG="$WORK/daemon-nobody${group:+-$group}.log"
    if [ -n "$group" ]; then
        setpriv --reuid=nobody --regid=nogroup --groups="$group" "$POPGESTURED" --socket "$dir/sock" >"$NOBODY_LOG" 2>&1 &
    else
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$POPGESTURED" --socket "$dir/sock" >"$NOBODY_LOG" 2>&1 &
    fi
    NOBODY_PID=$!
    BG_PIDS+=("$NOBODY_PID")
    wait_for 120 "the daemon as nobody${group:+ in $group} to be ready" _nobody_ready
}
_nobody_ready() {
    alive "$NOBODY_PID" || { cat "$NOBODY_LOG" >&2; fail "the daemon as nobody exited instead of going on"; }
    grep -qiw ready "$NOBODY_LOG"
}
stop_nobody() {
    kill -TERM "$NOBODY_PID"
    try_wait 30 not_alive "$NOBODY_PID" || fail "the daemon as nobody ignored SIGTERM"
}

# Without write access to /dev/uinput (root:root 0600) the daemon goes on, with the
# back input off, and says why and what to do.
ls -l /dev/uinput >&2
start_as_nobody ""
grep -E 'back input off: cannot create the back input device on /dev/uinput: Permission denied' "$NOBODY_LOG" >&2 ||
    { cat "$NOBODY_LOG" >&2; fail "no warning saying the back input is off and why"; }
grep -q 'popgestured-uinput' "$NOBODY_LOG" || fail "the warning does not name the fix (the popgestured-uinput group)"
has_back_input_node && fail "a back input device exists although the daemon could not open /dev/uinput"
stop_nobody
log "without /dev/uinput: the daemon runs, the back input is off, the log says why"

# The shipped udev rule gives /dev/uinput to a group, 0660, and a daemon in that
# group makes its device. The group is swapped for "input", which exists here:
# the VM shares the host's /etc, so systemd-sysusers must not run in it.
rule=/run/udev/rules.d/70-popgestured-uinput.rules
mkdir -p /run/udev/rules.d
sed 's/GROUP="popgestured-uinput"/GROUP="input"/' "$REPO/systemd/udev/70-popgestured-uinput.rules" >"$rule"
grep -q 'GROUP="input"' "$rule" || fail "systemd/udev/70-popgestured-uinput.rules no longer sets GROUP=\"popgestured-uinput\""
UDEV_RULES+=("$rule")
udevadm control --reload
udevadm trigger --action=change --sysname-match=uinput
udevadm settle --timeout=60 || true
uinput_mode=$(stat -c '%G %a' /dev/uinput)
# Back to the kernel's root:root 0600 whatever happens next (restore_uinput).
[ "$uinput_mode" = "input 660" ] || { restore_uinput; fail "the udev rule left /dev/uinput as $uinput_mode, not input 660"; }
log "the shipped udev rule: /dev/uinput is $uinput_mode"
start_as_nobody input
try_wait 60 has_back_input_node || { restore_uinput; cat "$NOBODY_LOG" >&2; fail "the daemon in the uinput group made no back input device"; }
stop_nobody
restore_uinput
log "in the group the udev rule names, the daemon as nobody makes its back input device"
