# Runs inside the VM (Tests/VM/run boots it): prepares uinput and udev once, then
# runs every scenario in Tests/VM/scenarios in order, each in its own process
# group with a time limit, or the measurement (VM_MODE=measure). Prints PASS/FAIL
# per scenario, writes $LOGDIR/results.txt for the host, and exits non-zero when
# anything failed, which vng passes on as its own exit status.
set -uo pipefail

: "${REPO:?}" "${LOGDIR:?}" "${RECORDINGS:?}" "${FIXTURES:?}"
VM_MODE=${VM_MODE:-scenarios}
VM_ONLY=${VM_ONLY:-}
VM_SCENARIO_TIMEOUT=${VM_SCENARIO_TIMEOUT:-300}
export REPO LOGDIR RECORDINGS FIXTURES CI="${CI:-}"
export POPGESTURED="${POPGESTURED:-$REPO/.build/debug/popgestured}"
export POPGESTURECTL="${POPGESTURECTL:-$REPO/.build/debug/popgesturectl}"
export PATH="$LOGDIR/bin:$PATH"
results="$LOGDIR/results.txt"
: >"$results"

uptime_s() { cut -d' ' -f1 /proc/uptime; }
echo "guest: kernel $(uname -r), $(nproc) CPU(s), clock $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown), booted in $(uptime_s) s"
echo "boot $(uptime_s)" >>"$results"

# The kernel side every scenario needs: uinput, and udev to tag the devices.
# virtme-ng's init may have started udevd already: a second one would announce
# every device twice (two adds, two removes), so start one only when none answers.
setup_log="$LOGDIR/setup.log"
(
    set -x
    modprobe uinput && test -c /dev/uinput &&
        { udevadm control --ping --timeout=10 || /lib/systemd/systemd-udevd --daemon; } &&
        udevadm trigger && udevadm settle --timeout=120 &&
        mkdir -p /run/popgestured
) >"$setup_log" 2>&1
if [ $? -ne 0 ]; then
    echo "FAIL setup 0 uinput/udev setup failed (see setup.log)" | tee -a "$results"
    tail -n 20 "$setup_log"
    exit 1
fi

# run_one NAME SCRIPT TIMEOUT: runs SCRIPT as its own session (so everything it
# started can be killed together), enforces TIMEOUT, records PASS/FAIL (SKIP: exit 77).
failures=0 ran=0
run_one() {
    ran=$((ran + 1))
    local name=$1 script=$2 limit=$3 work="$LOGDIR/$1"
    rm -rf "$work"; mkdir -p "$work"
    local log="$work/scenario.log" start=$EPOCHREALTIME
    echo "---- $name (limit ${limit}s)"
    WORK="$work" setsid bash "$script" >"$log" 2>&1 </dev/null &
    local pid=$! timed_out=false
    local deadline=$(( ${start%.*} + limit ))
    while [ -e "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
        if (( ${EPOCHREALTIME%.*} >= deadline )); then
            timed_out=true
            kill -TERM -- "-$pid" 2>/dev/null; sleep 3
            kill -KILL -- "-$pid" 2>/dev/null
            break
        fi
        sleep 0.5
    done
    wait "$pid"; local rc=$?
    if $timed_out; then
        rc=124
        echo "FAIL: timed out after ${limit}s (guest.sh killed it)" >>"$log"
    fi
    # Whatever the scenario left behind (daemon, evemu-device, clients) goes now.
    kill -KILL -- "-$pid" 2>/dev/null
    sleep 0.5
    rm -f /run/popgestured/*.sock
    udevadm settle --timeout=60 >/dev/null 2>&1

    local secs
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if [ $rc -eq 0 ]; then
        echo "PASS $name $secs" | tee -a "$results"
    elif [ $rc -eq 77 ]; then
        # skip (lib.sh): this root lacks what the scenario is about, and it said why.
        echo "SKIP $name $secs $(grep -h 'SKIP:' "$log" | tail -n 1 | sed 's/.*SKIP: //')" | tee -a "$results"
    else
        failures=$((failures + 1))
        local why
        why=$(grep -h 'FAIL:' "$log" | tail -n 1 | sed 's/.*FAIL: //')
        echo "FAIL $name $secs ${why:-exit status $rc}" | tee -a "$results"
    fi
}

if [ "$VM_MODE" = measure ]; then
    run_one measure "$REPO/Tests/VM/measure.sh" "${VM_MEASURE_TIMEOUT:-2400}"
else
    for script in "$REPO"/Tests/VM/scenarios/*.sh; do
        name=$(basename "$script" .sh)
        if [ -n "$VM_ONLY" ] && ! [[ $name =~ $VM_ONLY ]]; then continue; fi
        # A scenario may ask for more time with a "# timeout: SECONDS" line.
        limit=$(sed -n 's/^# timeout: *\([0-9]\+\).*/\1/p' "$script" | head -n 1)
        run_one "$name" "$script" "${limit:-$VM_SCENARIO_TIMEOUT}"
    done
fi

if [ $ran -eq 0 ]; then
    echo "FAIL select 0 no scenario matches VM_ONLY='$VM_ONLY'" | tee -a "$results"
    failures=1
fi
echo "guest-done $(uptime_s) failures=$failures" >>"$results"
[ $failures -eq 0 ]
