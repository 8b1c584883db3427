#!/usr/bin/env bash
# (o) Grab mode's device layer on a real kernel, without the engine (issue 10):
# `popgestured debug-clone NODE --grab --cancel-after 8` clones the ELAN panel
# (protocol B, no ABS_MT_TOOL_TYPE of its own), grabs it and forwards every frame;
# a touch still down after 8 frames is cancelled on the clone. libinput reads both
# nodes, as a compositor would (`libinput debug-events`):
#   1. the clone: the real name and ids, the real axes, INPUT_PROP_DIRECT,
#      ABS_MT_TOOL_TYPE 0…15 added, phys popgestured/<real node>, udev tags it a
#      touchscreen;
#   2. a tap (3 frames) -> TOUCH_DOWN, TOUCH_UP on the clone;
#   3. a swipe (22 frames) -> TOUCH_DOWN, then TOUCH_CANCEL and no TOUCH_UP;
#   4. a tap in the same slot -> TOUCH_DOWN, TOUCH_UP: the slot's tool type was set
#      back to finger (a slot left at palm would swallow it);
#   5. all along, libinput on the grabbed real node sees no touch at all;
#   6. SIGTERM: the tool ungrabs and exits 0, the clone goes, and a tap on the real
#      node reaches libinput there;
#   7. SIGKILL with a finger down on the clone: the clone goes, its touch ends as
#      TOUCH_CANCEL (libinput cancels a removed device's touches), never TOUCH_UP,
#      and the kernel dropped the grab (a tap reaches the real node).
# timeout: 420
source "$(dirname "$0")/../lib.sh"

need_daemon
command -v libinput >/dev/null || fail "libinput (libinput-tools) is missing: scripts/setup --vm installs it"
desc=$(recording elan-touchscreen.desc)
tap="$WORK/tap.events"
swipe="$WORK/swipe.events"
press="$WORK/press.events"
release="$WORK/release.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.5 --to 0.52 --duration-ms 20 >"$tap"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.3 --to 0.8 >"$swipe"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape press --from 0.4 --to 0.45 >"$press"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape release --from 0.45 --to 0.5 >"$release"

create_device "$desc"
REAL=$DEV_NODE

# start_clone NAME ARGS...: the tool on $REAL; sets TOOL_PID and CLONE_NODE once it
# has grabbed and udev has tagged the clone.
start_clone() {
    local name=$1; shift
    "$POPGESTURED" debug-clone "$REAL" --grab "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    TOOL_PID=$!
    BG_PIDS+=("$TOOL_PID")
    wait_for 120 "debug-clone to grab $REAL" _tool_said "$name" '^grabbed$'
    grep -q '^announced$' "$WORK/$name.out" || fail "debug-clone grabbed before udev announced the clone"
    CLONE_NODE=$(sed -n 's/^clone //p' "$WORK/$name.out")
    [ -e "$CLONE_NODE" ] || fail "debug-clone printed no clone node: $(cat "$WORK/$name.out")"
    udevadm settle --timeout=60 || true
    wait_for 60 "udev to tag the clone $CLONE_NODE a touchscreen" udev_prop "$CLONE_NODE" ID_INPUT_TOUCHSCREEN=1
    log "clone $CLONE_NODE of $REAL, tool pid $TOOL_PID"
}
_tool_said() {
    alive "$TOOL_PID" || { cat "$WORK/$1.out" "$WORK/$1.err" >&2; fail "debug-clone exited early"; }
    grep -q "$2" "$WORK/$1.out"
}

start_clone tool --cancel-after 8

# 1. What the clone is.
evemu-describe "$REAL" >"$WORK/real.desc" 2>&1 || fail "evemu-describe $REAL failed"
evemu-describe "$CLONE_NODE" >"$WORK/clone.desc" 2>&1 || fail "evemu-describe $CLONE_NODE failed"
[ "$(sed -n 's/^N: //p' "$WORK/clone.desc")" = "$(sed -n 's/^N: //p' "$WORK/real.desc")" ] ||
    fail "the clone's name is $(sed -n 's/^N: //p' "$WORK/clone.desc"), not the real one"
[ "$(grep '^I:' "$WORK/clone.desc")" = "$(grep '^I:' "$WORK/real.desc")" ] || fail "the clone's ids differ"
grep -q '^P: 02' "$WORK/clone.desc" || fail "the clone lacks INPUT_PROP_DIRECT: $(grep '^P:' "$WORK/clone.desc")"
grep -q '^A: 37 0 15 ' "$WORK/clone.desc" || fail "the clone lacks ABS_MT_TOOL_TYPE 0…15"
# The panel has no fuzz: every real axis is on the clone as it is.
diff <(grep '^A:' "$WORK/real.desc") <(grep '^A:' "$WORK/clone.desc" | grep -v '^A: 37 ') >&2 ||
    fail "the clone's axes differ from the real ones"
phys=$(cat "/sys/class/input/${CLONE_NODE##*/}/device/phys")
[ "$phys" = "popgestured/${REAL##*/}" ] || fail "the clone's phys is '$phys'"
# What the daemon's udev monitor reads to skip clones: the parent inputN's PHYS.
udevadm info --query=property --path="$(readlink -f "/sys/class/input/${CLONE_NODE##*/}/device")" |
    grep -qx "PHYS=\"popgestured/${REAL##*/}\"" || fail "udev has no PHYS=\"popgestured/…\" on the clone's inputN"

read_with_libinput clone "$CLONE_NODE"
read_with_libinput real "$REAL"

# 2. A tap passes through.
play "$REAL" "$tap"
wait_for 30 "the tap's TOUCH_UP on the clone" has_touches clone TOUCH_UP 1
expect_touches clone 1 1 0

# 3. A swipe is cancelled after 8 frames: TOUCH_CANCEL, never TOUCH_UP.
play "$REAL" "$swipe"
wait_for 30 "the swipe's TOUCH_CANCEL on the clone" has_touches clone TOUCH_CANCEL 1
grep -q '^cancelled slot 0$' "$WORK/tool.out" || fail "debug-clone did not cancel slot 0: $(cat "$WORK/tool.out")"
sleep 2  # a late TOUCH_UP would show up now
expect_touches clone 2 1 1

# 4. The same slot's next touch begins normally.
play "$REAL" "$tap"
wait_for 30 "the second tap's TOUCH_UP on the clone" has_touches clone TOUCH_UP 2
expect_touches clone 3 2 1
grep -E ' TOUCH_(DOWN|UP|CANCEL) ' "$WORK/clone.out" | awk '{print $2}' >"$WORK/clone.order"
[ "$(tr '\n' ' ' <"$WORK/clone.order")" = "TOUCH_DOWN TOUCH_UP TOUCH_DOWN TOUCH_CANCEL TOUCH_DOWN TOUCH_UP " ] ||
    fail "the clone's touches came in this order: $(tr '\n' ' ' <"$WORK/clone.order")"

# 5. The grabbed real node gave libinput nothing.
expect_touches real 0 0 0

# 6. SIGTERM: released, ungrabbed, the clone gone; the real node works again.
kill -TERM "$TOOL_PID"
try_wait 30 not_alive "$TOOL_PID" || fail "debug-clone ignored SIGTERM"
rc=0; wait "$TOOL_PID" 2>/dev/null || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/tool.err" >&2; fail "debug-clone exited with status $rc on SIGTERM"; }
grep -q '^released$' "$WORK/tool.out" || fail "debug-clone did not say 'released'"
wait_for 30 "the clone $CLONE_NODE to go" test ! -e "$CLONE_NODE"
play "$REAL" "$tap"
wait_for 30 "the tap on the ungrabbed real node" has_touches real TOUCH_UP 1
expect_touches real 1 1 0
expect_touches clone 3 2 1

# 7. SIGKILL with a finger down on the clone.
start_clone killed
read_with_libinput clone2 "$CLONE_NODE"
play "$REAL" "$press"
wait_for 30 "the press's TOUCH_DOWN on the second clone" has_touches clone2 TOUCH_DOWN 1
kill -KILL "$TOOL_PID"
try_wait 30 not_alive "$TOOL_PID" || fail "debug-clone survived SIGKILL"
wait_for 30 "the clone $CLONE_NODE to go after SIGKILL" test ! -e "$CLONE_NODE"
sleep 1
log "libinput on the killed clone: $(grep -E 'TOUCH_(DOWN|UP|CANCEL)|DEVICE_REMOVED' "$WORK/clone2.out" | awk '{print $2}' | tr '\n' ' ')"
[ "$(touches clone2 TOUCH_UP)" -eq 0 ] || fail "the killed clone's touch ended as a TOUCH_UP"
# libinput cancels the touches of a device that goes away.
[ "$(touches clone2 TOUCH_CANCEL)" -eq 1 ] || fail "the killed clone's touch did not end as a TOUCH_CANCEL"
play "$REAL" "$release"
play "$REAL" "$tap"
wait_for 30 "a tap on the real node after SIGKILL (the kernel dropped the grab)" has_touches real TOUCH_UP 2
expect_touches real 2 2 0
log "touch clone: tap, cancel, tool-type reset, grab, SIGTERM and SIGKILL as expected"
