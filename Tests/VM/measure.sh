#!/usr/bin/env bash
# The measurement (Tests/VM/run --measure): popgestured against Debian's lisgd and
# a bare evdev reader, in one VM, on the same uinput device and the same generated
# swipe. Writes a markdown table to $LOGDIR/measure.md.
#
# - latency: from the kernel timestamp of the finger-up frame (read by the bare
#   reader with EVIOCSCLOCKID = CLOCK_MONOTONIC) to CLOCK_MONOTONIC when the back
#   reaches a client (the C `stamp client`), or when lisgd's command runs (`stamp`,
#   a C program: no interpreter start-up counted; lisgd's own sh -c is, being its
#   design). The bare reader's own column is finger-up to its read(): the floor.
# - CPU for the N swipes: utime+stime (/proc/PID/stat) and the scheduler's ns
#   count summed over threads (/proc/PID/task/*/schedstat), before/after.
# - peak RSS: VmHWM. Wakeups: voluntary+nonvoluntary context switches summed over
#   all threads during 10 s with no input.
# The tools take turns (lisgd, then popgestured), so they do not compete for the
# 2 emulated CPUs; the bare reader runs throughout. A phase that fails (the daemon
# missing, say) is reported in the table, and the script then exits 1.
source "$(dirname "$0")/lib.sh"

N=${VM_MEASURE_SWIPES:-20}
IDLE_SECS=10
need_exec "$LOGDIR/bin/stamp" "the stamp helper (Tests/VM/run builds it from Tests/VM/stamp.c)"
# On the VM's tmpfs, not the 9p log folder: lisgd execs it for every gesture.
STAMP="$RUNDIR/stamp"
cp "$LOGDIR/bin/stamp" "$STAMP"
desc=$(recording elan-touchscreen.desc)
swipe=$(fixture elan-touchscreen.swipe.events)
tck=$(getconf CLK_TCK)

# ---- /proc readings
cpu_ticks() {  # utime+stime of the process (all its threads, live or gone)
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}
cpu_ns() {  # time on CPU of the live threads, in ns
    cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'  # %d overflows at 2^31 in mawk
}
ctx_switches() {
    cat /proc/"$1"/task/*/status 2>/dev/null |
        awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}
threads() { ls "/proc/$1/task" | wc -l; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

ups() { grep -c '^up ' "$WORK/bare.out" || true; }

# measure_phase NAME PID COUNTER: plays N swipes, waiting after each for the bare
# reader's lift and for the function COUNTER to reach the swipe's number; then
# records latencies, CPU, RSS and idle wakeups of PID into $WORK/NAME.*.
measure_phase() {
    local name=$1 pid=$2 count_cmd=$3 i base missed=0
    local t0 c0 n0
    base=$(ups)
    threads "$pid" >"$WORK/$name.threads"
    ls "/proc/$pid/task" >"$WORK/$name.tids"
    t0=$(cpu_ticks "$pid") n0=$(cpu_ns "$pid")
    : >"$WORK/$name.pairs"
    for ((i = 1; i <= N; i++)); do
        evemu-play "$DEV_NODE" <"$swipe" || fail "evemu-play failed"
        wait_for 20 "the bare reader's lift $i" _reached ups $((base + i))
        if ! try_wait 10 _reached "$count_cmd" "$((i - missed))"; then
            missed=$((missed + 1))
            log "$name: swipe $i not recognised within 10 s"
        fi
        ls "/proc/$pid/task" >>"$WORK/$name.tids"
        sleep 0.5
    done
    echo "$(( $(cpu_ticks "$pid") - t0 )) $(( $(cpu_ns "$pid") - n0 ))" >"$WORK/$name.cpu"
    threads "$pid" >>"$WORK/$name.threads"
    sleep 1
    c0=$(ctx_switches "$pid")
    sleep "$IDLE_SECS"
    echo $(( $(ctx_switches "$pid") - c0 )) >"$WORK/$name.wakeups"
    hwm_kb "$pid" >"$WORK/$name.hwm"
    echo "$base $missed" >"$WORK/$name.base"
    log "$name: $((N - missed))/$N swipes recognised"
}
# _reached COUNTER N: the function COUNTER prints at least N.
_reached() { [ "$("$1")" -ge "$2" ]; }
lisgd_count() { wc -l <"$RUNDIR/lisgd.times"; }
popgestured_count() { grep -c '^back' "$RUNDIR/popgestured.times" || true; }

# ---- The device and the bare reader (the floor, and the finger-up timestamps)
create_device "$desc"
python3 -u "$VM_DIR/evread.py" "$DEV_NODE" >"$WORK/bare.out" 2>"$WORK/bare.err" &
BARE_PID=$!
BG_PIDS+=("$BARE_PID")
wait_for 30 "the bare reader to open $DEV_NODE" grep -q '^ready' "$WORK/bare.out"

# ---- lisgd: a left-edge, left-to-right one-finger swipe runs `stamp`.
phase_lisgd() {
    BG_PIDS=()
    trap stop_background EXIT  # its own processes; $RUNDIR stays for the next phase
    : >"$RUNDIR/lisgd.times"
    lisgd -d "$DEV_NODE" -w 1920 -h 1080 -g "1,LR,L,*,R,$STAMP >>$RUNDIR/lisgd.times" \
        >"$WORK/lisgd.log" 2>&1 &
    local pid=$!
    BG_PIDS+=("$pid")
    try_wait 30 has_open "$pid" "$DEV_NODE" || { cat "$WORK/lisgd.log" >&2; fail "lisgd did not open $DEV_NODE"; }
    sleep 0.5  # opened; let libinput finish adding the device
    echo "lisgd $(dpkg-query -W -f='${Version}' lisgd 2>/dev/null)" >"$WORK/lisgd.version"
    measure_phase lisgd "$pid" lisgd_count
    cp "$RUNDIR/lisgd.times" "$WORK/lisgd.times"
    awk '{ print $1 }' "$WORK/lisgd.times" >"$WORK/lisgd.recv"
    # What lisgd's command costs by itself: sh -c "stamp >>file", spawned N times.
    python3 - "$STAMP" "$RUNDIR/spawn.times" "$N" >"$WORK/spawn.cost" <<'PY'
import subprocess, sys, time
stamp, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for _ in range(n):
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    subprocess.run(["sh", "-c", f"{stamp} >>{out}"], check=True)
    with open(out) as f:
        print(int(f.read().split()[-1]) - t0)
PY
}

_stamp_client_created() {
    alive "$STAMP_PID" || fail "the stamp client exited: $(cat "$WORK/stamp-client.err")"
    grep -qE '"id" *: *"create"' "$RUNDIR/popgestured.times"
}

# ---- popgestured: the daemon finds the device (already plugged) by itself; the
# C client owns a navigator, stamps each back and pushes the page again.
phase_popgestured() {
    BG_PIDS=()
    trap stop_background EXIT  # its own processes; $RUNDIR stays for the next phase
    start_daemon
    wait_device_listed "$DEV_NODE"
    "$STAMP" client "$SOCK" >"$RUNDIR/popgestured.times" 2>"$WORK/stamp-client.err" &
    STAMP_PID=$!
    BG_PIDS+=("$STAMP_PID")
    wait_for 30 "the stamp client's navigator" _stamp_client_created
    grep -E '"id" *: *"create"' "$RUNDIR/popgestured.times" | grep -qv '"error"' ||
        fail "the daemon refused the stamp client's navigator: $(cat "$RUNDIR/popgestured.times")"
    measure_phase popgestured "$DAEMON_PID" popgestured_count
    cp "$RUNDIR/popgestured.times" "$WORK/popgestured.times"
    awk '$1 == "back" { print $2 }' "$WORK/popgestured.times" >"$WORK/popgestured.recv"
    # The daemon's own time_us should be the kernel's timestamp of the lift.
    grep '^back' "$WORK/popgestured.times" | grep -oE '"time_us" *: *[0-9]+' | grep -oE '[0-9]+$' \
        >"$WORK/popgestured.time_us" || true
    stop_daemon
}

status=0
for phase in lisgd popgestured; do
    log "==== phase $phase"
    # A subshell with -e of its own (in an `if`, bash would ignore -e inside it).
    set +e
    ( set -e; "phase_$phase" ) >"$WORK/phase-$phase.log" 2>&1
    rc=$?
    set -e
    if [ $rc -eq 0 ]; then
        echo ok >"$WORK/$phase.status"
    else
        status=1
        why=$(grep -h 'FAIL:' "$WORK/phase-$phase.log" | tail -n 1 | sed 's/.*FAIL: //')
        echo "failed: ${why:-see phase-$phase.log}" >"$WORK/$phase.status"
        log "phase $phase failed: ${why:-see phase-$phase.log}"
        tail -n 20 "$WORK/phase-$phase.log" >&2
    fi
done
# The bare reader as a process of its own (a Python loop: its CPU and RSS are
# Python's, shown for scale, not as a target).
echo "$(cpu_ticks "$BARE_PID") $(cpu_ns "$BARE_PID")" >"$WORK/bare.cpu"
c0=$(ctx_switches "$BARE_PID"); sleep "$IDLE_SECS"
echo $(( $(ctx_switches "$BARE_PID") - c0 )) >"$WORK/bare.wakeups"
hwm_kb "$BARE_PID" >"$WORK/bare.hwm"

# ---- The table
python3 - "$WORK" "$N" "$tck" "$IDLE_SECS" >"$LOGDIR/measure.md" <<'PY'
import math, os, sys
work, n, tck, idle = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def read(name, default=None):
    try:
        with open(os.path.join(work, name)) as f:
            return f.read().split()
    except OSError:
        return default

def at(values, p):  # the p-th quantile, in microseconds (values must not be empty)
    v = sorted(values)
    return v[max(0, math.ceil(p * len(v)) - 1)]

def pct(values, p):
    return f"{at(values, p) / 1000:.2f} ms" if values else "n/a"

ups = [(int(l.split()[1]), int(l.split()[2])) for l in open(os.path.join(work, "bare.out")) if l.startswith("up ")]
cols = {}
for tool in ("lisgd", "popgestured"):
    st = " ".join(read(f"{tool}.status", ["not run"]))
    base_missed = read(f"{tool}.base")
    recv = [int(x) for x in read(f"{tool}.recv", [])]
    c = {"status": st}
    if base_missed:
        base = int(base_missed[0])
        phase_ups = ups[base:base + n]
        # The k-th stamp belongs to the k-th recognised swipe; with no misses, to swipe k.
        lat = [r - u[0] for r, u in zip(recv, phase_ups)] if len(recv) == len(phase_ups) else []
        c["recognised"] = f"{len(recv)}/{n}"
        c["p50"], c["p99"] = pct(lat, 0.5), pct(lat, 0.99)
        if not lat and recv:
            c["p50"] = c["p99"] = "n/a (missed swipes)"
        # Paired with the bare reader, woken by the same lifts in the same seconds: the
        # host's load moves both, so their ratio moves less between runs than either.
        same = [u[1] - u[0] for u in phase_ups]
        c["bare_same"] = pct(same, 0.5)
        if lat and same:
            c["ratio"] = f"{at(lat, 0.5) / max(1, at(same, 0.5)):.1f}x"
            added = [r - u[1] for r, u in zip(recv, phase_ups)]
            c["added"] = f"p50 {pct(added, 0.5)}, p99 {pct(added, 0.99)}"
        ticks, ns = (int(x) for x in read(f"{tool}.cpu"))
        c["cpu"] = f"{ticks * 1000 // tck} ms ({ns / 1e6:.1f} ms)" if ns else f"{ticks * 1000 // tck} ms (n/a)"
        c["hwm"] = f"{int(read(f'{tool}.hwm')[0]) / 1024:.1f} MiB"
        c["wake"] = read(f"{tool}.wakeups")[0]
        c["threads"] = " -> ".join(read(f"{tool}.threads", []))
        c["threads"] += f" ({len(set(read(f'{tool}.tids', [])))} distinct thread ids seen)"
        tus = [int(x) for x in read(f"{tool}.time_us", [])]
        if tus:
            same = sum(1 for t, u in zip(tus, phase_ups) if t == u[0])
            c["time_us"] = f"{same}/{len(tus)} equal the kernel's"
    cols[tool] = c

bare_lat = [r - e for e, r in ups]
ticks, ns = (int(x) for x in read("bare.cpu"))
spawn = [int(x) for x in read("spawn.cost", [])]
cols["lisgd"]["spawn"] = f"p50 {pct(spawn, 0.5)}, p99 {pct(spawn, 0.99)}" if spawn else ""
bare = {"status": "ok", "recognised": f"{len(ups)} lifts read", "p50": pct(bare_lat, 0.5),
        "p99": pct(bare_lat, 0.99), "cpu": f"{ticks * 1000 // tck} ms ({ns / 1e6:.1f} ms), whole run",
        "hwm": f"{int(read('bare.hwm')[0]) / 1024:.1f} MiB", "wake": read("bare.wakeups")[0]}
version = " ".join(read("lisgd.version", ["lisgd"]))

rows = [("phase", "status"), ("swipes recognised", "recognised"),
        ("latency finger-up -> event, p50", "p50"), ("latency finger-up -> event, p99", "p99"),
        ("  the bare reader's p50 over the same lifts", "bare_same"), ("  p50 over the bare reader's, same lifts", "ratio"),
        ("  after the bare reader's read, per lift", "added"),
        ("  lisgd's share: spawning its command (sh -c stamp)", "spawn"),
        (f"CPU for the {n} swipes: utime+stime (schedstat, live threads)", "cpu"), ("peak RSS (VmHWM)", "hwm"),
        (f"wakeups in {idle} s idle (context switches)", "wake"),
        ("threads (before -> after the swipes)", "threads"), ("back time_us", "time_us")]
print(f"Measured in a QEMU TCG VM (software CPU emulation: absolute numbers are inflated; compare columns).")
print(f"popgestured: {os.environ.get('POPGESTURED', '?')}.")
print(f"{n} generated left-edge swipes (2 % -> 60 % in 200 ms) on a uinput copy of elan-touchscreen.desc;")
print(f"p99 of {n} samples is their maximum. The bare reader's latency is over every lift it read.\n")
print(f"| | bare reader (python) | {version} | popgestured |")
print("|---|---|---|---|")
for label, key in rows:
    print(f"| {label} | {bare.get(key, '')} | {cols['lisgd'].get(key, '')} | {cols['popgestured'].get(key, '')} |")
PY
cat "$LOGDIR/measure.md"
exit $status
