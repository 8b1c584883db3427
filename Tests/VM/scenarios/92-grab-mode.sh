#!/usr/bin/env bash
# (p) Grab mode in the daemon (issue 10), read by libinput as a compositor reads
# (`libinput debug-events`). `popgestured --grab on` clones each protocol B
# touchscreen, grabs the real one once udev announced the clone, and forwards every
# frame it does not claim. A client's navigator is in front, so swipes go back.
#   1. Before the daemon: libinput's reading of two real multi-finger recordings
#      (a 4-finger drag on the Atmel panel, a 2-finger scroll on the EP0430M09)
#      on their real nodes: the reference; and of a tap at 50 % and one at 80 % on
#      the ELAN panel.
#   2. Fullscreen mode (the default), on the ELAN panel's clone:
#      a tap -> TOUCH_DOWN, TOUCH_UP; a vertical scroll -> TOUCH_DOWN, motion,
#      TOUCH_UP, and no back; a back swipe -> TOUCH_DOWN … TOUCH_CANCEL, never
#      TOUCH_UP, and the client gets its back; a tap where the back swipe ended.
#      The two taps land where libinput saw them land on the real node, although the
#      kernel sent no position the clone had not got (the first tap's y is the last
#      one before the grab, the second's x and y are those of the claimed swipe's
#      end). The grabbed real node gives libinput nothing.
#   3. The two recordings again, now into grabbed devices: libinput reads the same
#      touches, slots, coordinates and frames on their clones as on the real nodes.
#   4. SIGTERM: the daemon exits 0, the clones go, the real node reaches libinput.
#   5. Edge mode: a back swipe from the edge -> nothing at all on the clone, and the
#      back; a tap at the edge (held, then released at the lift) -> TOUCH_DOWN,
#      TOUCH_UP; a swipe from mid-screen (no back in edge mode) -> DOWN … UP.
#   6. A finger resting at start, and nothing reading the clone (issue 19): a new
#      panel with a finger down before the daemon starts (debug log). Cloned, but
#      while nothing opens the clone there is no grab at all, whatever the finger
#      does: status says waiting-for-reader, the daemon says so once, and libinput on
#      the real node follows the finger. A compositor (libinput) opens the clone:
#      waiting-for-lift, still no grab while the finger moves. It lifts: exactly one
#      EVIOCGRAB, after the lift, and none given back; the real node's reader saw the
#      touch end (TOUCH_UP), the clone saw none of it, and the next tap goes to the
#      clone only.
# timeout: 1200
source "$(dirname "$0")/../lib.sh"

need_daemon
command -v libinput >/dev/null || fail "libinput (libinput-tools) is missing: scripts/setup --vm installs it"
desc=$(recording elan-touchscreen.desc)  # protocol B, 10 slots, 10 units/mm, 331 mm wide
tap="$WORK/tap.events" scroll="$WORK/scroll.events" back="$WORK/back.events"
edge="$WORK/edge.events" edge_tap="$WORK/edge-tap.events" mid="$WORK/mid.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.5 --to 0.502 --duration-ms 20 >"$tap"
tap80="$WORK/tap80.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.8 --to 0.802 --duration-ms 20 >"$tap80"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.5 --to 0.5 --y 0.2 --to-y 0.8 >"$scroll"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.3 --to 0.8 >"$back"
# From 1 % of the width: inside the 4.8 mm edge zone (3.3 mm in).
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.01 >"$edge"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.01 --to 0.011 --duration-ms 20 >"$edge_tap"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.40 --to 0.95 >"$mid"

# wait_lifts NAME N: N TOUCH_UP or TOUCH_CANCEL lines in NAME.out.
_lifted() { [ $(( $(touches "$1" TOUCH_UP) + $(touches "$1" TOUCH_CANCEL) )) -ge "$2" ]; }
wait_lifts() { wait_for 60 "$2 lifts in $1" _lifted "$1" "$2"; }
expect_backs() { expect_events "$WORK/owner.out" back "$1"; }
# down_at NAME N: where libinput put NAME.out's Nth TOUCH_DOWN: "x%/y% (xmm/ymm)".
down_at() { grep ' TOUCH_DOWN ' "$WORK/$1.out" | sed -n "$2p" | awk '{print $6, $7}'; }
expect_down_at() {
    local got want
    got=$(down_at "$1" "$2") want=$(down_at "$3" "$4")
    [ -n "$want" ] && [ "$got" = "$want" ] || fail "$1's touch $2 landed at '$got', not at '$want' as on the real node"
}

# 1. The reference: the recordings on their real nodes, before any daemon.
declare -A REC_NODE REC_FILE REC_LIFTS
for rec in atmel-maxtouch.4-finger-drag-down.events ep0430m09.2-finger-scroll-down.events; do
    name=${rec%%.*}
    create_device "$(recording "$rec")"
    REC_NODE[$name]=$DEV_NODE REC_FILE[$name]=$(recording "$rec")
    read_with_libinput "$name-real" "$DEV_NODE"
    play "$DEV_NODE" "$(recording "$rec")"
    REC_LIFTS[$name]=$(grep -c '^E: .* 0003 0039 -001' "$(recording "$rec")")
    wait_lifts "$name-real" "${REC_LIFTS[$name]}"
    sleep 1
    touch_sequence "$name-real" >"$WORK/$name.reference"
    log "$name on its real node: $(touches "$name-real" TOUCH_DOWN) down, $(wc -l <"$WORK/$name.reference") touch events"
    [ "$(touches "$name-real" TOUCH_DOWN)" -ge 2 ] || fail "$rec gave libinput fewer than two contacts"
done

# 2. Fullscreen mode.
create_device "$desc"
REAL=$DEV_NODE
read_with_libinput taps-real "$REAL"
play "$REAL" "$tap"
play "$REAL" "$tap80"
wait_lifts taps-real 2
start_daemon --grab on
open_owner owner
wait_grabbed "$REAL"
read_with_libinput clone "$CLONE"
read_with_libinput real "$REAL"

play "$REAL" "$tap"
wait_lifts clone 1
expect_touches clone 1 1 0
expect_down_at clone 1 taps-real 1

play "$REAL" "$scroll"
wait_lifts clone 2
sleep 1
expect_touches clone 2 2 0
[ "$(grep -c ' TOUCH_MOTION ' "$WORK/clone.out")" -ge 10 ] || fail "the scroll's motion did not reach the clone"
expect_backs 0

play "$REAL" "$back"
wait_for 30 "the back swipe's back" has_event "$WORK/owner.out" back
wait_lifts clone 3
sleep 2  # a late TOUCH_UP would show up now
expect_touches clone 3 2 1
expect_backs 1
play "$REAL" "$tap80"
wait_lifts clone 4
expect_touches clone 4 3 1
expect_down_at clone 4 taps-real 2
grep -E ' TOUCH_(DOWN|UP|CANCEL) ' "$WORK/clone.out" | awk '{print $2}' | tr '\n' ' ' >"$WORK/clone.order"
[ "$(cat "$WORK/clone.order")" = "TOUCH_DOWN TOUCH_UP TOUCH_DOWN TOUCH_UP TOUCH_DOWN TOUCH_CANCEL TOUCH_DOWN TOUCH_UP " ] ||
    fail "the clone's touches came in this order: $(cat "$WORK/clone.order")"
expect_touches real 0 0 0

# 3. The recordings into grabbed devices: the same touches on the clones.
for name in atmel-maxtouch ep0430m09; do
    node=${REC_NODE[$name]}
    wait_grabbed "$node"
    read_with_libinput "$name-clone" "$CLONE"
    play "$node" "${REC_FILE[$name]}"
    wait_lifts "$name-clone" "${REC_LIFTS[$name]}"
    sleep 1
    touch_sequence "$name-clone" >"$WORK/$name.clone"
    diff "$WORK/$name.reference" "$WORK/$name.clone" >"$WORK/$name.diff" ||
        { head -n 20 "$WORK/$name.diff" >&2; fail "$name: libinput read other touches on the clone than on the real node"; }
    log "$name through its clone: the same $(wc -l <"$WORK/$name.clone") touch events"
done
expect_backs 1

# 4. SIGTERM: the clones go, and the real node reaches libinput again.
stop_daemon
wait_for 30 "the clone $CLONE to go" test ! -e "$CLONE"
grep -q "grabbed" "$DAEMON_LOG" || fail "no grab in the log"
play "$REAL" "$tap"
wait_lifts real 1
expect_touches real 1 1 0

# 5. Edge mode.
mv "$DAEMON_LOG" "$WORK/daemon-fullscreen.log"
start_daemon --grab on --mode edge
open_owner owner2
wait_grabbed "$REAL"
read_with_libinput edge-clone "$CLONE"
play "$REAL" "$edge"
wait_for 30 "the edge swipe's back" has_event "$WORK/owner2.out" back
sleep 2
expect_touches edge-clone 0 0 0
[ "$(grep -c ' TOUCH_' "$WORK/edge-clone.out")" -eq 0 ] || fail "the held edge swipe reached the clone"

play "$REAL" "$edge_tap"
wait_lifts edge-clone 1
expect_touches edge-clone 1 1 0

play "$REAL" "$mid"
wait_lifts edge-clone 2
sleep 1
expect_touches edge-clone 2 2 0
expect_events "$WORK/owner2.out" back 1
stop_daemon

# 6. A finger resting at start, and no reader of the clone until later.
mv "$DAEMON_LOG" "$WORK/daemon-edge.log"
rest_press="$WORK/rest-press.events" rest_drag="$WORK/rest-drag.events" rest_lift="$WORK/rest-lift.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape press --from 0.40 --to 0.45 --y 0.3 >"$rest_press"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape drag --from 0.45 --to 0.60 --y 0.3 --duration-ms 400 >"$rest_drag"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape release --from 0.60 --to 0.61 --y 0.3 >"$rest_lift"
create_device "$desc"
REST=$DEV_NODE
read_with_libinput rest-real "$REST"
play "$REST" "$rest_press"
wait_for 30 "the resting finger's TOUCH_DOWN on the real node" has_touches rest-real TOUCH_DOWN 1
start_daemon --grab on --log-level debug
wait_clone "$REST"
play "$REST" "$rest_drag"
# Past GrabGate.readerNotice (10 s) with nothing reading the clone.
wait_for 60 "the daemon to say nothing opened the clone" grep -qF "$REST: nothing has opened the clone $CLONE" "$DAEMON_LOG"
play "$REST" "$rest_drag"
sleep 2
expect_grab_stage "$REST" waiting-for-reader
[ "$(grep -cF "$REST: nothing has opened the clone" "$DAEMON_LOG")" -eq 1 ] || fail "the missing reader was not said exactly once"
[ "$(grabs_of "$REST")" -eq 0 ] || fail "the daemon grabbed $REST while nothing read its clone"
open_compositor
wait_for 30 "the stage waiting-for-lift" stage_is "$REST" waiting-for-lift
play "$REST" "$rest_drag"
sleep 2
expect_grab_stage "$REST" waiting-for-lift
[ "$(grabs_of "$REST")" -eq 0 ] || fail "the daemon grabbed $REST while a finger rested on it"
play "$REST" "$rest_lift"
wait_grab "$REST"
sleep 2  # a second grab would show up now
expect_grab_stage "$REST" grabbed
log "EVIOCGRAB on $REST: $(grabs_of "$REST") ($(grep -F "$REST: grab stage:" "$DAEMON_LOG" | sed 's/.*grab stage: //' | tr '\n' ';'))"
[ "$(grabs_of "$REST")" -eq 1 ] || fail "$(grabs_of "$REST") grabs of $REST, not exactly one"
! grep -qF "$REST: a finger landed just before the grab" "$DAEMON_LOG" || fail "a grab of $REST was given back"
wait_for 30 "the lift on the real node" has_touches rest-real TOUCH_UP 1
expect_touches rest-real 1 1 0
expect_touches "compositor-$COMPOSITORS" 0 0 0
play "$REST" "$tap"
wait_for 30 "the tap on the clone" has_touches "compositor-$COMPOSITORS" TOUCH_UP 1
expect_touches "compositor-$COMPOSITORS" 1 1 0
expect_touches rest-real 1 1 0
stop_daemon
log "grab mode: passthrough, cancel, hold, the same multi-finger touches, a clean stop, no grab without a reader, and one grab after a resting finger's lift as expected"
