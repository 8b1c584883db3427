#!/usr/bin/env bash
# (r) Where the daemon's CPU goes on a real kernel (issue 12), by thread: an owner's
# navigator takes VM_PROFILE_SWIPES back swipes (20) as measure.sh plays them, each
# followed by the client's push of the page again; each thread's user and system time
# over them, then its system calls over as many more under `strace -f -c`. (perf
# records no samples in this TCG guest; callgrind on the host has the user-space
# detail, see BENCHMARKS.md.) Asserts only that every swipe was a back; the figures
# are for reading (this scenario's figures.txt, which Tests/VM/run prints).
# timeout: 600
source "$(dirname "$0")/../lib.sh"

need_daemon
need_exec "$LOGDIR/bin/stamp" "the stamp helper (Tests/VM/run builds it from Tests/VM/stamp.c)"
need_exec "$(command -v strace)" "strace (apt-get install strace)"
N=${VM_PROFILE_SWIPES:-20}
STAMP="$RUNDIR/stamp"
cp "$LOGDIR/bin/stamp" "$STAMP"
swipe=$(fixture elan-touchscreen.swipe.events)
create_device "$(recording elan-touchscreen.desc)"
start_daemon
wait_device_listed "$DEV_NODE"
"$STAMP" client "$SOCK" >"$RUNDIR/times" 2>"$WORK/stamp-client.err" &
BG_PIDS+=("$!")
wait_for 30 "the stamp client's navigator" grep -qE '"id" *: *"create"' "$RUNDIR/times"
backs() { grep -c '^back' "$RUNDIR/times" || true; }
reached() { [ "$(backs)" -ge "$1" ]; }

# One swipe not recorded: TCG translates code the first time it runs.
play "$DEV_NODE" "$swipe"
wait_for 20 "the warm-up back" reached 1
# thread_times: each thread's name, utime and stime in clock ticks.
thread_times() {
    for t in /proc/"$DAEMON_PID"/task/*; do
        awk -v name="$(cat "$t/comm")" '{ sub(/^.*\) /, ""); print name, $12, $13 }' "$t/stat"
    done
}
# swipes FROM TO: plays swipes number FROM to TO, each waited for as a back.
swipes() {
    local i
    for ((i = $1; i <= $2; i++)); do
        play "$DEV_NODE" "$swipe"
        wait_for 20 "back $i" reached "$i"
        sleep 0.3
    done
}

# 1. CPU by thread, user and system, nothing attached.
thread_times >"$WORK/threads.before"
swipes 2 $((N + 1))
thread_times >"$WORK/threads.after"

# 2. The same swipes under strace: what each thread asks of the kernel per swipe.
strace -f -c -o "$WORK/strace.txt" -p "$DAEMON_PID" 2>"$WORK/strace.err" &
STRACE_PID=$!
sleep 1
swipes $((N + 2)) $((2 * N + 1))
kill -INT "$STRACE_PID"
wait "$STRACE_PID" || true
[ -s "$WORK/strace.txt" ] || fail "strace wrote nothing: $(cat "$WORK/strace.err")"

{
    echo "$N back swipes (elan-touchscreen.swipe.events) with one owner, ${POPGESTURED#"$REPO"/}, $(uname -r)"
    echo
    tck=$(getconf CLK_TCK)
    echo "CPU by thread over the swipes (utime, stime; $tck ticks a second):"
    echo
    paste "$WORK/threads.before" "$WORK/threads.after" |
        awk -v n="$N" -v ms=$((1000 / tck)) '{ printf "  %-16s user %4d ms  system %4d ms  (%.1f ms a swipe)\n", $1, ($5 - $2) * ms, ($6 - $3) * ms, ($5 - $2 + $6 - $3) * ms / n }'
    echo
    echo "System calls over $N more swipes (strace -f -c, all threads):"
    echo
    sed 's/^/  /' "$WORK/strace.txt"
} >"$WORK/figures.txt"
log "profile in $WORK/figures.txt"
