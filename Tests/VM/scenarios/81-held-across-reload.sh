#!/usr/bin/env bash
# (h) The same across a SIGHUP re-open: a finger in slot 2 begins a swipe; the
# configuration changes (touchpads), so SIGHUP re-opens every device, which cancels
# the pop. The finger is then held: it moves on with no ABS_MT_SLOT and starts
# nothing; a second finger's swipe while it rests gives no back. Once both have
# lifted, a real swipe gives exactly one back.
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)
gen() { python3 "$VM_DIR/make-swipe.py" "$@" "$desc"; }
gen --shape press --slot 2 --tracking-id 200 --from 0.02 --to 0.20 --duration-ms 300 >press.events
gen --shape drag --slot 2 --from 0.20 --to 0.60 --duration-ms 200 >drag.events
gen --shape swipe --slot 0 --tracking-id 300 >second.events
gen --shape release --slot 2 --from 0.60 --to 0.61 --duration-ms 10 >lift.events
swipe=$(fixture elan-touchscreen.swipe.events)
conf="$WORK/popgestured.conf"
echo "touchpads = two-finger" >"$conf"

create_device "$desc"
start_daemon --config "$conf"
open_owner owner
open_observer watch
wait_device_listed "$DEV_NODE"

play "$DEV_NODE" press.events
wait_for 30 "the swipe to begin (pop-began)" has_event "$WORK/watch.out" pop-began
echo "touchpads = one-finger" >"$conf"
kill -HUP "$DAEMON_PID"
wait_for 30 "the re-open after SIGHUP" grep -q "devices re-opened" "$DAEMON_LOG"
wait_for 30 "the pop to be cancelled by the re-open" has_event "$WORK/watch.out" pop-cancelled device-removed

play "$DEV_NODE" drag.events
play "$DEV_NODE" second.events
play "$DEV_NODE" lift.events
sleep 3
expect_events "$WORK/watch.out" pop-began 1
expect_events "$WORK/owner.out" back 0

expect_one_back_from "$swipe" 2
expect_events "$WORK/watch.out" pop-cancelled 1

daemon_alive
stop_daemon
