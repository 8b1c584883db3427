#!/usr/bin/env bash
# (g) A finger already down when the daemon starts, in slot 2, the current slot.
# The kernel then sends its moves without ABS_MT_SLOT. Held since the open, it must
# start no pan; a second finger that swipes from the left edge while it rests must
# give no back either, as with any two fingers. Once both have lifted, a real swipe
# gives exactly one back.
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)  # protocol B, 10 slots
gen() { python3 "$VM_DIR/make-swipe.py" "$@" "$desc"; }
gen --shape press --slot 2 --tracking-id 200 --from 0.02 --to 0.05 --duration-ms 50 >press.events
gen --shape drag --slot 2 --from 0.05 --to 0.30 --duration-ms 200 >drag.events
gen --shape swipe --slot 0 --tracking-id 300 >second.events
gen --shape release --slot 2 --from 0.30 --to 0.31 --duration-ms 10 >lift.events
swipe=$(fixture elan-touchscreen.swipe.events)

create_device "$desc"
play "$DEV_NODE" press.events  # the device keeps the finger down, slot 2 current
start_daemon
open_owner owner
open_observer watch
wait_device_listed "$DEV_NODE"

play "$DEV_NODE" drag.events
play "$DEV_NODE" second.events
play "$DEV_NODE" lift.events
sleep 3  # a pan or back from the held finger or the second one would show now
expect_events "$WORK/watch.out" pop-began 0
expect_events "$WORK/owner.out" back 0

expect_one_back_from "$swipe" 1
expect_events "$WORK/watch.out" pop-cancelled 0

daemon_alive
stop_daemon
