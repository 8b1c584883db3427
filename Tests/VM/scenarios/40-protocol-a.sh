#!/usr/bin/env bash
# (d) Protocol A (SYN_MT_REPORT, read through mtdev): on both N-Trig descriptions a
# generated protocol-A left-edge swipe gives exactly one back.
source "$(dirname "$0")/../lib.sh"

start_daemon
open_owner owner
open_observer watch

backs=0
for name in ntrig-multitouch ntrig-dell-xt2; do
    create_device "$(recording "$name.desc")"
    wait_device_listed "$DEV_NODE"
    play "$DEV_NODE" "$(fixture "$name.swipe.events")"
    backs=$((backs + 1))
    wait_for 30 "the back from the $name swipe" has_events "$WORK/owner.out" back "$backs"
    log "$name: back"
    push_detail owner "push-$name"
    remove_device
    wait_device_gone "$DEV_NODE"
done
sleep 1
expect_events "$WORK/owner.out" back 2
expect_events "$WORK/watch.out" back 2
expect_events "$WORK/watch.out" pop-cancelled 0

daemon_alive
stop_daemon
