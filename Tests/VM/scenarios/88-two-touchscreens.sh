#!/usr/bin/env bash
# (i) Two touchscreens and `screen` (issue 8, defect 10). Runtime udev rules put the
# ELAN panel on output eDP-1 and the Atmel panel on HDMI-A-1 (WL_OUTPUT, the output
# property libinput's compositors read). With `--screen eDP-1` the daemon uses the
# ELAN panel and leaves the Atmel one alone: a left-edge swipe on the Atmel panel
# gives nothing, the same swipe on the ELAN panel gives one back.
source "$(dirname "$0")/../lib.sh"

main_desc=$(recording elan-touchscreen.desc)
other_desc=$(recording atmel-maxtouch.desc)
udev_rule output-edp "$(desc_name "$main_desc")" 'ENV{WL_OUTPUT}="eDP-1"'
udev_rule output-hdmi "$(desc_name "$other_desc")" 'ENV{WL_OUTPUT}="HDMI-A-1"'

start_daemon --screen eDP-1
open_owner app
open_observer watch

create_device "$other_desc"
other_node=$DEV_NODE
udev_prop "$other_node" WL_OUTPUT=HDMI-A-1 || fail "the udev rule did not put $other_node on HDMI-A-1"
create_device "$main_desc"
main_node=$DEV_NODE
udev_prop "$main_node" WL_OUTPUT=eDP-1 || fail "the udev rule did not put $main_node on eDP-1"
wait_device_listed "$main_node"
wait_for 30 "the daemon to log that it leaves $other_node alone" \
    grep -q "$other_node .*left alone (screen = eDP-1" "$DAEMON_LOG"
vmctl status | grep -q "\"$other_node\"" && fail "status lists $other_node, which is not the screen"

play "$other_node" "$(fixture atmel-maxtouch.swipe.events)"
play "$main_node" "$(fixture elan-touchscreen.swipe.events)"
wait_for 30 "the observer to see the back" has_event "$WORK/watch.out" back
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/watch.out" pop-began 1
expect_events "$WORK/watch.out" rejected 0
expect_events "$WORK/app.out" back 1

daemon_alive
stop_daemon
