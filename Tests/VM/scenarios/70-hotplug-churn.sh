#!/usr/bin/env bash
# Hotplug churn: 1,000 add/remove cycles of a uinput touchscreen (the real ELAN
# description) while two clients stay connected, a raw owner and
# `popgesturectl monitor --json`. `churn` (churn.c) waits in every cycle until the
# daemon has opened the new device and, after the removal, closed it, so each
# cycle goes all the way through udev and the daemon. The daemon's open fds and
# VmRSS are taken after 10 warm-up cycles and after the churn: the fds must not
# grow, RSS may grow by at most RSS_BOUND_KIB; the daemon must still run, list no
# device, keep both clients, answer the owner's `status` on the same connection,
# and turn a swipe on a freshly plugged device into exactly one back.
# Figures: scenario.log, churn.log (every 100 cycles) and figures.txt.
# timeout: 2700
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)  # protocol B, 10 slots
swipe=$(fixture elan-touchscreen.swipe.events)
cycles=${VM_CHURN_CYCLES:-1000}
# Cycles before the baseline: the first devices allocate what the daemon keeps
# for any device (buffers, the engine's tables), which is not growth.
warmup=10
# How much RSS may grow over the churn: 2 MiB. The debug build grew by 448 KiB
# over 1,000 cycles, in steps, flat over the last 400 (docs/RELIABILITY.md); a
# leak of 2 KiB a device would pass 2 MiB.
RSS_BOUND_KIB=2048

need_exec "$LOGDIR/bin/churn" "the churn helper (Tests/VM/run builds it from churn.c)"
daemon_fds() { ls "/proc/$DAEMON_PID/fd" | wc -l; }
daemon_rss_kib() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$DAEMON_PID/status"; }
churn() { "$LOGDIR/bin/churn" "$desc" "$1" --pid "$DAEMON_PID" --pause 10 | tee -a "$WORK/churn.log"; }

start_daemon
open_owner owner
start_monitor watch
log "no device yet: fds $(daemon_fds), VmRSS $(daemon_rss_kib) KiB"

# The harness itself: during the warm-up udev must announce each event node once
# (two udevd, say virtme-ng's and another, would announce everything twice).
udevadm monitor --udev --subsystem-match=input >"$WORK/udev-monitor.log" 2>&1 &
udev_monitor=$!
BG_PIDS+=("$udev_monitor")
sleep 1
churn "$warmup" || fail "the warm-up churn failed (see churn.log)"
sleep 1
kill "$udev_monitor"
adds=$(grep -cE ' add +/devices/.*/event[0-9]+ ' "$WORK/udev-monitor.log" || true)
[ "$adds" -eq "$warmup" ] ||
    fail "udev announced $adds event-node adds for $warmup devices (see udev-monitor.log; is a second udevd running?)"
fds_before=$(daemon_fds) rss_before=$(daemon_rss_kib)
log "after $warmup warm-up cycles: fds $fds_before, VmRSS $rss_before KiB"

start=$EPOCHREALTIME
churn "$cycles" || { daemon_alive; fail "the churn failed (see churn.log)"; }
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
daemon_alive
fds_after=$(daemon_fds) rss_after=$(daemon_rss_kib)
log "after $cycles cycles in $secs s: fds $fds_after, VmRSS $rss_after KiB"

cat >"$WORK/figures.txt" <<EOF
hotplug churn: $cycles cycles of "${desc##*/}" in $secs s ($warmup warm-up cycles before)
  daemon fds:   $fds_before before, $fds_after after
  daemon VmRSS: $rss_before KiB before, $rss_after KiB after ($((rss_after - rss_before)) KiB; bound $RSS_BOUND_KIB KiB)
EOF
cat "$WORK/figures.txt" >&2

# Every add and every removal reached the daemon (churn waited for each; the log says so too).
opened=$(grep -c 'using it as a touchscreen' "$DAEMON_LOG" || true)
dropped=$(grep -c ': dropped (' "$DAEMON_LOG" || true)
log "daemon log: $opened devices used, $dropped dropped"
[ "$opened" -eq $((warmup + cycles)) ] || fail "the daemon used $opened devices, expected $((warmup + cycles))"
[ "$dropped" -eq "$opened" ] || fail "the daemon used $opened devices but dropped $dropped"

[ "$fds_after" -le "$fds_before" ] || fail "the daemon's open fds grew from $fds_before to $fds_after"
(( rss_after - rss_before <= RSS_BOUND_KIB )) ||
    fail "the daemon's VmRSS grew by $((rss_after - rss_before)) KiB (bound $RSS_BOUND_KIB KiB)"

# Both clients are still connected; the owner's connection still answers.
alive "$MONITOR_PID" || { cat "$WORK/watch.err" >&2 || true; fail "popgesturectl monitor was disconnected"; }
request owner status-after '"type":"status"'
status=$(_reply_line owner status-after)
grep -qE '"devices" *: *\[\]' <<<"$status" || fail "the daemon still lists devices after the churn: $status"
vmctl wait-observers 1 --timeout 30 || fail "the monitor is no longer subscribed"

# A fresh device still works: one swipe, one back, at the owner and the monitor.
create_device "$desc"
wait_device_listed "$DEV_NODE"
play "$DEV_NODE" "$swipe"
wait_for 30 "the back after the churn" has_event "$WORK/owner.out" back
wait_for 10 "the monitor to see that back" has_event "$WORK/watch.out" back
sleep 1
expect_events "$WORK/owner.out" back 1
expect_events "$WORK/watch.out" back 1
expect_events "$WORK/owner.out" pop-cancelled 0

daemon_alive
stop_daemon
