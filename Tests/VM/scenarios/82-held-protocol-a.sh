#!/usr/bin/env bash
# (i) Protocol A (N-Trig, read through mtdev) with a finger down at the left edge
# when the daemon starts. mtdev starts empty and reports it as a new contact, but
# BTN_TOUCH was set at open: held, it moves 55 % of the width and lifts with no pan
# and no back. The next swipe gives exactly one back.
source "$(dirname "$0")/../lib.sh"

desc=$(recording ntrig-dell-xt2.desc)  # protocol A, BTN_TOUCH
gen() { python3 "$VM_DIR/make-swipe.py" "$@" "$desc"; }
gen --shape press --from 0.02 --to 0.05 --duration-ms 50 >press.events
gen --shape release --from 0.05 --to 0.60 --duration-ms 200 >release.events
swipe=$(fixture ntrig-dell-xt2.swipe.events)

create_device "$desc"
play "$DEV_NODE" press.events  # BTN_TOUCH stays set
start_daemon
open_owner owner
open_observer watch
wait_device_listed "$DEV_NODE"

play "$DEV_NODE" release.events
sleep 3
expect_events "$WORK/watch.out" pop-began 0
expect_events "$WORK/owner.out" back 0

expect_one_back_from "$swipe" 1

daemon_alive
stop_daemon
