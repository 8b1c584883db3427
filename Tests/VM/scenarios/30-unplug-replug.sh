#!/usr/bin/env bash
# (c) Unplugging during a swipe cancels it. A finger starts a back swipe and rests
# under the finger (the pop has begun); the device is unplugged (evemu-device
# killed); the owner and an observer (popgesturectl monitor --json) see
# pop-cancelled with reason device-removed and no back; the daemon stays up and
# drops the device; the same description plugged in again gives a back.
source "$(dirname "$0")/../lib.sh"

desc=$(recording quanta-optical.desc)  # protocol B, 10 slots, no resolution
hold=$(fixture quanta-optical.hold.events)
swipe=$(fixture quanta-optical.swipe.events)

start_daemon
open_owner owner
start_monitor watch

create_device "$desc"
wait_device_listed "$DEV_NODE"
play_bg "$DEV_NODE" "$hold"
wait_for 30 "the held swipe to begin (pop-began)" has_event "$WORK/owner.out" pop-began
log "pop began; unplugging $DEV_NODE under the finger"
gone=$DEV_NODE
remove_device
wait "$PLAY_PID" 2>/dev/null || true  # evemu-play fails once its device is gone

wait_for 30 "pop-cancelled (device-removed) at the owner" has_event "$WORK/owner.out" pop-cancelled device-removed
wait_for 30 "pop-cancelled (device-removed) at the monitor" has_event "$WORK/watch.out" pop-cancelled device-removed
expect_events "$WORK/owner.out" back 0
expect_events "$WORK/watch.out" back 0
daemon_alive
wait_device_gone "$gone"

# Replug the same description: a new swipe goes back.
create_device "$desc"
wait_device_listed "$DEV_NODE"
play "$DEV_NODE" "$swipe"
wait_for 30 "the back after replugging" has_event "$WORK/owner.out" back
wait_for 10 "the monitor to see that back" has_event "$WORK/watch.out" back
sleep 1
expect_events "$WORK/owner.out" back 1
expect_events "$WORK/watch.out" back 1

daemon_alive
stop_daemon
