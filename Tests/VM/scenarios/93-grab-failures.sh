#!/usr/bin/env bash
# (q) Grab mode's failures (issue 10): a finger down on the clone when the device
# is unplugged, when the daemon gets SIGTERM, and when it gets SIGKILL. Each ends
# with no contact stuck on the clone (libinput saw TOUCH_CANCEL, never TOUCH_UP)
# and the real device usable again: a new device after the unplug is cloned and
# grabbed, and after a stop or a kill the real node reaches libinput itself (the
# kernel drops a grab when its holder's fd closes, SIGKILL included).
# The held finger drags down from the middle: no back, so the clone has it.
# timeout: 600
source "$(dirname "$0")/../lib.sh"

need_daemon
command -v libinput >/dev/null || fail "libinput (libinput-tools) is missing: scripts/setup --vm installs it"
desc=$(recording elan-touchscreen.desc)
press="$WORK/press.events" release="$WORK/release.events" tap="$WORK/tap.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape press --from 0.5 --to 0.5 --y 0.3 --to-y 0.4 >"$press"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape release --from 0.5 --to 0.5 --y 0.4 --to-y 0.45 >"$release"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.5 --to 0.502 --duration-ms 20 >"$tap"

# finger_down_on_clone NAME: a press on $REAL reaches libinput on the clone as TOUCH_DOWN.
finger_down_on_clone() {
    read_with_libinput "$1" "$CLONE"
    play "$REAL" "$press"
    wait_for 30 "the press's TOUCH_DOWN on the clone ($1)" has_touches "$1" TOUCH_DOWN 1
}
# ended_as_cancel NAME: the contact ended as TOUCH_CANCEL, and no TOUCH_UP came.
ended_as_cancel() {
    wait_for 30 "the contact's TOUCH_CANCEL ($1)" has_touches "$1" TOUCH_CANCEL 1
    sleep 1
    expect_touches "$1" 1 0 1
}
new_daemon_log() { [ -z "${DAEMON_LOG:-}" ] || mv "$DAEMON_LOG" "$WORK/daemon-$1.log"; }

start_daemon --grab on
open_owner owner

# 1. Unplug with a finger down on the clone.
create_device "$desc"
REAL=$DEV_NODE
wait_grabbed "$REAL"
finger_down_on_clone unplug
remove_device
ended_as_cancel unplug
wait_for 30 "the clone $CLONE to go with its device" test ! -e "$CLONE"
daemon_alive
# A new device is cloned and grabbed, and a tap reaches its clone.
mark_daemon_log
create_device "$desc"
REAL=$DEV_NODE
wait_grabbed "$REAL"
read_with_libinput replugged "$CLONE"
play "$REAL" "$tap"
wait_for 30 "the tap on the new clone" has_touches replugged TOUCH_UP 1
expect_touches replugged 1 1 0

# 2. SIGTERM with a finger down on the clone.
read_with_libinput real "$REAL"
finger_down_on_clone term
stop_daemon
ended_as_cancel term
wait_for 30 "the clone $CLONE to go on SIGTERM" test ! -e "$CLONE"
play "$REAL" "$release"
play "$REAL" "$tap"
wait_for 30 "a tap on the real node after SIGTERM" has_touches real TOUCH_UP 1
expect_touches real 1 1 0

# 3. SIGKILL with a finger down on the clone: the kernel removes the clone (libinput
# cancels the touches of a device that goes) and drops the grab.
new_daemon_log term
start_daemon --grab on
wait_grabbed "$REAL"
finger_down_on_clone kill
kill -KILL "$DAEMON_PID"
try_wait 30 not_alive "$DAEMON_PID" || fail "the daemon survived SIGKILL"
wait "$DAEMON_PID" 2>/dev/null || true
wait_for 30 "the clone $CLONE to go after SIGKILL" test ! -e "$CLONE"
ended_as_cancel kill
play "$REAL" "$release"
play "$REAL" "$tap"
wait_for 30 "a tap on the real node after SIGKILL" has_touches real TOUCH_UP 2
expect_touches real 2 2 0
log "grab mode: unplug, SIGTERM and SIGKILL with a finger down left nothing stuck"
