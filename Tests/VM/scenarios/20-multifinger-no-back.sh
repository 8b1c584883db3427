#!/usr/bin/env bash
# (b) The real multi-finger recordings (drags, scrolls, touches, clicks, on
# touchscreens and touchpads) never produce a back, on a stack where a back is
# possible. A generated one-finger swipe at the end proves the daemon was
# listening all along (and, read in order, that it had processed them all).
# timeout: 600
source "$(dirname "$0")/../lib.sh"

# recording | its description when the recording has no header
recordings=(
    "atmel-maxtouch.2-fingers-touch-release.events|"
    "atmel-maxtouch.4-finger-drag-down.events|"
    "ep0430m09.2-finger-scroll-down.events|"
    "ep0430m09.2-fingers-touch-release.events|"
    "ntrig-multitouch.2-fingers-touch-release.events|ntrig-multitouch.desc"
    "cypress.two-finger-press.events|"
    "bcm5974.three-finger-click.events|"
    "synaptics-hp8470p.two-finger-scroll-vertical.events|synaptics-hp8470p.desc"
)

start_daemon
open_owner owner
open_observer watch

for entry in "${recordings[@]}"; do
    rec=$(recording "${entry%%|*}")
    desc=$rec
    [ -z "${entry#*|}" ] || desc=$(recording "${entry#*|}")
    create_device "$desc"
    wait_device_listed "$DEV_NODE"
    play "$DEV_NODE" "$rec"
    sleep 2  # let the daemon read the end of it before the device goes
    remove_device
    wait_device_gone "$DEV_NODE"
    for who in owner watch; do
        n=$(count_events "$WORK/$who.out" back)
        [ "$n" -eq 0 ] || fail "${rec##*/} produced $n back(s) (seen by $who)"
    done
    log "${rec##*/} ($DEV_KIND): no back; observer lines so far: $(wc -l <"$WORK/watch.out")"
done

# The control: one real swipe must still give exactly one back.
create_device "$(recording elan-touchscreen.desc)"
wait_device_listed "$DEV_NODE"
play "$DEV_NODE" "$(fixture elan-touchscreen.swipe.events)"
wait_for 30 "the control swipe's back" has_event "$WORK/owner.out" back
sleep 1
expect_events "$WORK/owner.out" back 1
expect_events "$WORK/watch.out" back 1
log "rejections the observer saw:$(grep -E '"type" *: *"rejected"' "$WORK/watch.out" |
    grep -oE '"reason" *: *"[a-z-]+"' | sort | uniq -c | tr -s ' \n' ' ')"

daemon_alive
stop_daemon
