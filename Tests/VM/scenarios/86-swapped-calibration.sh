#!/usr/bin/env bash
# (g) A calibration matrix that swaps the axes, from udev (issue 8, defect 4). A
# runtime udev rule gives the ELAN panel LIBINPUT_CALIBRATION_MATRIX="0 1 0 -1 0 1"
# (libinput's 270°: screen x is the panel's y, screen y is 1 - the panel's x), so
# the 331.2 x 187.2 mm panel is a screen 187.2 mm wide and 331.2 mm tall. Both
# swipes below are written in screen terms and turned into panel fractions here,
# by hand, not by the daemon's formulas:
#   - from 2 % of the screen's width to 60 %, half-way down: panel x 0.5, panel y
#     0.02 -> 0.6. One back.
#   - 60 mm at 40 degrees below the horizontal from (30 %, 30 %): 45.96 mm across
#     (+45.96 / 187.2 = +0.2455 of the panel's y) and 38.57 mm down (-38.57 / 331.2
#     = -0.1164 of the panel's x), from panel (0.7, 0.30) to (0.5836, 0.5455).
#     Steeper than the 30 degree limit of a start outside the edge zone (from the
#     edge, 45 degrees would take it: issue 22): rejected too-steep, no back. With the
#     sizes left unswapped it would read as 81 mm across, 22 mm down (15 degrees): a back.
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)  # protocol B, 3312 x 1872 at 10 units/mm
udev_rule swapped-calibration "$(desc_name "$desc")" 'ENV{LIBINPUT_CALIBRATION_MATRIX}="0 1 0 -1 0 1"'

left_edge="$WORK/screen-left-edge.events"
steep="$WORK/screen-40-degrees.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.5 --to 0.5 --y 0.02 --to-y 0.6 >"$left_edge"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.7 --to 0.5836 --y 0.30 --to-y 0.5455 >"$steep"

start_daemon
open_owner app
open_observer watch

create_device "$desc"
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $DEV_NODE as a touchscreen"
udev_prop "$DEV_NODE" "LIBINPUT_CALIBRATION_MATRIX=0 1 0 -1 0 1" ||
    fail "the udev rule did not give $DEV_NODE the swapped calibration matrix"
wait_device_listed "$DEV_NODE"

play "$DEV_NODE" "$left_edge"
wait_for 30 "the observer to see the back" has_event "$WORK/watch.out" back
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/app.out" back 1

push_detail app push-again
play "$DEV_NODE" "$steep"
wait_for 30 "the observer to see the 40 degree swipe rejected" has_event "$WORK/watch.out" rejected too-steep
expect_events "$WORK/watch.out" rejected 1
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/app.out" back 1
expect_events "$WORK/watch.out" pop-began 1

daemon_alive
stop_daemon
