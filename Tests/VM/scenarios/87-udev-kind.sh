#!/usr/bin/env bash
# (h) One kind per device, udev's (issue 8, defect 3). A runtime udev rule makes a
# Synaptics touchpad description a touchscreen (ID_INPUT_TOUCHSCREEN=1,
# ID_INPUT_TOUCHPAD=0), as hwdb or a rule may for a panel whose bits look like a
# touchpad (BTN_TOOL_FINGER, no INPUT_PROP_DIRECT). The daemon must use it as udev
# says throughout: `status` lists it as a touchscreen, and the generated
# one-finger swipe from 2 % of the width goes back once, as on any touchscreen
# (taken for a touchpad, the engine would wait for two fingers: nothing at all).
source "$(dirname "$0")/../lib.sh"

desc=$(recording synaptics.desc)  # protocol B, BTN_TOOL_FINGER, INPUT_PROP_POINTER
swipe=$(fixture synaptics.swipe.events)
udev_rule touchscreen-kind "$(desc_name "$desc")" 'ENV{ID_INPUT_TOUCHPAD}="0", ENV{ID_INPUT_TOUCHSCREEN}="1"'

start_daemon
open_owner app
open_observer watch

create_device "$desc"
[ "$DEV_KIND" = touchscreen ] || fail "the udev rule did not make $DEV_NODE a touchscreen (udev says $DEV_KIND)"
wait_device_listed "$DEV_NODE"
status=$(vmctl status)
log "status: $status"
grep -qE "\"path\" *: *\"$DEV_NODE\" *, *\"kind\" *: *\"touchscreen\"" <<<"$status" ||
    fail "status does not list $DEV_NODE as a touchscreen"

play "$DEV_NODE" "$swipe"
wait_for 30 "the observer to see the back" has_event "$WORK/watch.out" back
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/app.out" back 1
expect_events "$WORK/watch.out" rejected 0

daemon_alive
stop_daemon
