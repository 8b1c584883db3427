#!/usr/bin/env bash
# (g) The hand that holds the tablet. A palm (ABS_MT_TOOL_TYPE = MT_TOOL_PALM)
# rests on the left bezel, in slot 1 of a real description that declares the tool
# type (the Atmel maXTouch), from before the swipe until after it. A finger in
# slot 0 swipes from 2 % to 60 % of the width in 200 ms. A palm excludes only
# itself: exactly one back, no cancelled pop, and no rejection for the palm.
source "$(dirname "$0")/../lib.sh"

desc=$(recording atmel-maxtouch.desc)  # protocol B, 10 slots, ABS_MT_TOOL_TYPE 0..2
events="$WORK/palm-swipe.events"
python3 "$VM_DIR/make-palm-swipe.py" "$desc" >"$events" || fail "make-palm-swipe.py could not write the gesture"

start_daemon
open_owner owner
open_observer watch

create_device "$desc"
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $DEV_NODE as a touchscreen"
wait_device_listed "$DEV_NODE"

play "$DEV_NODE" "$events"
wait_for 30 "the back beside the palm" has_event "$WORK/owner.out" back
sleep 1  # anything after the back (a second one, a cancel) would show by now
for who in owner watch; do
    expect_events "$WORK/$who.out" back 1
    expect_events "$WORK/$who.out" pop-finished 1
    expect_events "$WORK/$who.out" pop-cancelled 0
done
expect_events "$WORK/watch.out" rejected 0
log "observer saw: $(grep -oE '"type" *: *"[a-z-]+"' "$WORK/watch.out" | tr -s ' \n' ' ')"

daemon_alive
stop_daemon
