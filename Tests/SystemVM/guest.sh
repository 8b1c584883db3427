#!/bin/bash
# In the booted VM, as root, from systemvm.service (the image's systemvm-run, after
# multi-user.target): runs each scenarios/*.sh in turn, each with its own folder
# $OUT/NAME (scenario.log and whatever it keeps), and writes results.txt
# (boot ..., PASS|FAIL NAME SECONDS [REASON], guest-done). systemvm-run powers off.
#
# A scenario may reboot the VM (lib.sh's reboot_vm, for what must survive a boot):
# it leaves /var/lib/systemvm/resume on the VM's disk and reboots; at the next boot
# this script skips the scenarios already done and runs that one again from the
# top with SYSTEMVM_BOOT one higher (1 on its first run), its log appended.
#
# Environment from systemvm-run: REPO (the shared repository, read-only), OUT (the
# shared log folder), RECORDINGS (the shared recordings, when the host has them);
# from the host, $OUT/request.env: DEB, ONLY, SCENARIO_TIMEOUT, CI, HAVE_RECORDINGS.
set -u
: "${REPO:?}" "${OUT:?}"
# shellcheck disable=SC1091
. "$OUT/request.env"
results="$OUT/results.txt"
console() { echo "systemvm: $*" >/dev/console; }
echo "$(cut -d' ' -f1 /proc/uptime)" >>"$OUT/boots"

# Back from a scenario's reboot: which one, its boot number and when it started.
resume=/var/lib/systemvm/resume
RESUME_SCENARIO="" RESUME_BOOT=1 RESUME_T0=""
if [ -f "$resume" ]; then
    # shellcheck disable=SC1090
    . "$resume"
    rm -f "$resume"  # a boot that fails again must not loop
    console "back from a reboot: $RESUME_SCENARIO continues (boot $RESUME_BOOT)"
fi

# The boot as systemd saw it: finished (running or degraded), and how long it took.
state=$(timeout 300 systemctl is-system-running --wait 2>/dev/null) || true
echo "boot state=${state:-unknown} pid1=$(ps -o comm= -p 1) kernel=$(uname -r) $(systemd-analyze 2>/dev/null | head -n 1)" >>"$results"
console "boot: $(tail -n 1 "$results")"
if [ "$state" != running ]; then
    systemctl --failed --no-pager --plain >"$OUT/failed-units.txt" 2>&1 || true
    console "not every unit started: $(grep -c '\.' "$OUT/failed-units.txt") failed (failed-units.txt)"
fi

export REPO OUT RECORDINGS DEB CI HAVE_RECORDINGS
export TIER="$REPO/Tests/SystemVM"
for script in "$TIER"/scenarios/*.sh; do
    name=$(basename "$script" .sh)
    if [ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]]; then continue; fi
    boot=1 t0=$(date +%s.%N)
    if [ -n "$RESUME_SCENARIO" ]; then
        # Those before it ran in an earlier boot.
        [ "$name" = "$RESUME_SCENARIO" ] || continue
        boot=$RESUME_BOOT t0=$RESUME_T0 RESUME_SCENARIO=""
    fi
    mkdir -p "$OUT/$name"
    console "scenario $name$([ "$boot" -gt 1 ] && echo " (boot $boot)")"
    [ "$boot" -gt 1 ] && echo "---- boot $boot of $name (after its reboot)" >>"$OUT/$name/scenario.log"
    # Its own session, so that everything it leaves running can be killed.
    WORK="$OUT/$name" SCENARIO="$name" SYSTEMVM_BOOT="$boot" SCENARIO_T0="$t0" \
        timeout --kill-after=10 "${SCENARIO_TIMEOUT:-600}" setsid bash "$script" \
        >>"$OUT/$name/scenario.log" 2>&1 </dev/null
    rc=$?
    if [ -f "$resume" ]; then
        # The scenario asked for a reboot (reboot_vm): the shutdown stops this service.
        console "$name reboots the VM"
        exec sleep infinity
    fi
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 0 ]; then
        echo "PASS $name $secs" >>"$results"
    else
        why=$(grep '^FAIL: ' "$OUT/$name/scenario.log" | tail -n 1 | cut -c7-)
        [ "$rc" -eq 124 ] && why="timed out after ${SCENARIO_TIMEOUT:-600} s"
        echo "FAIL $name $secs ${why:-exit status $rc}" >>"$results"
    fi
    console "$(tail -n 1 "$results")"
done
echo guest-done >>"$results"
