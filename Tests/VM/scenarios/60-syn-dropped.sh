#!/usr/bin/env bash
# (f) A forced SYN_DROPPED leaves no stuck or phantom gesture. A swipe begins and
# the finger rests; the daemon is stopped (SIGSTOP) while the rest of a long,
# dense recording (about 12 000 events, far beyond the kernel's evdev buffer) and
# the lift are played; SIGCONT. The daemon must report the loss (pop-cancelled,
# reason events-dropped) and must not turn the lost gesture into a back; a fresh
# swipe afterwards gives exactly one back, and nothing else happens.
# timeout: 480
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)
flood=$(fixture elan-touchscreen.flood.events)
swipe=$(fixture elan-touchscreen.swipe.events)

start_daemon
open_owner owner
open_observer watch
create_device "$desc"
wait_device_listed "$DEV_NODE"

play_bg "$DEV_NODE" "$flood"
wait_for 30 "the long swipe to begin (pop-began)" has_event "$WORK/owner.out" pop-began
kill -STOP "$DAEMON_PID"
log "daemon stopped; the rest of the recording goes into a full buffer"
wait_for 240 "the long recording to finish" not_alive "$PLAY_PID"
wait "$PLAY_PID" || fail "evemu-play of the long recording failed"
kill -CONT "$DAEMON_PID"
log "daemon continued"

wait_for 60 "pop-cancelled (events-dropped)" has_event "$WORK/owner.out" pop-cancelled events-dropped
sleep 2
expect_events "$WORK/owner.out" back 0
expect_events "$WORK/watch.out" back 0
daemon_alive
vmctl status >/dev/null || fail "the daemon does not answer status after SIGCONT"
began=$(count_events "$WORK/owner.out" pop-began)

play "$DEV_NODE" "$swipe"
wait_for 30 "the fresh swipe's back" has_event "$WORK/owner.out" back
sleep 3  # anything phantom would show up now
expect_events "$WORK/owner.out" back 1
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/owner.out" pop-finished 1
expect_events "$WORK/owner.out" pop-began $((began + 1))
expect_events "$WORK/owner.out" pop-cancelled 1

daemon_alive
stop_daemon
