#!/usr/bin/env bash
# (a) Hotplug and a real client. The daemon starts with no touchscreen; one
# appears through udev (a uinput device from a real protocol-B description); a
# generated left-edge swipe (2 % -> 60 % of the width in 200 ms) is played into
# it; the documented client, examples/client.py --once, receives the back and
# exits 0. An observer sees the whole committed gesture exactly once.
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)  # protocol B, 10 slots, 10 units/mm
swipe=$(fixture elan-touchscreen.swipe.events)

start_daemon
open_observer watch
start_example_client

create_device "$desc"
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $DEV_NODE as a touchscreen"
wait_device_listed "$DEV_NODE"

play "$DEV_NODE" "$swipe"
wait_for 30 "examples/client.py to receive the back and exit" not_alive "$EXAMPLE_PID"
rc=0
wait "$EXAMPLE_PID" || rc=$?
log "examples/client.py said: $(cat "$WORK/example-client.out")"
[ "$rc" -eq 0 ] || fail "examples/client.py exited with status $rc"
grep -qx 'back: detail -> home' "$WORK/example-client.out" ||
    fail "examples/client.py did not print 'back: detail -> home'"

wait_for 10 "the observer to see the back" has_event "$WORK/watch.out" back
expect_events "$WORK/watch.out" pop-began 1
expect_events "$WORK/watch.out" pop-finished 1
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/watch.out" pop-cancelled 0

daemon_alive
stop_daemon
