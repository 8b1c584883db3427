#!/usr/bin/env bash
# (p) What a grab-mode clone inherits through udev (issues 10 and 19). Two runtime
# rules give the real ELAN panel the properties a compositor configures a touchscreen
# by: a user's rule keyed on the device's name, as calibration rules usually are
# (LIBINPUT_CALIBRATION_MATRIX, and a marker), and one keyed on the real node's
# kernel name, which no clone can match (output, seats, size, fuzz, one value with
# shell characters, one property not on the list). `popgestured debug-clone NODE`
# (no grab) clones it:
#   1. without systemd/udev/71-popgestured-touch-clone.rules: the clone has the real
#      name (evemu-describe), so the name-keyed rule applies to it by itself
#      (LIBINPUT_CALIBRATION_MATRIX and the marker), and libinput reads the
#      calibration matrix on the clone; it has nothing of the node-keyed rule, and no
#      POPGESTURED_CLONE;
#   2. with it (its helper run from the checkout) the clone is marked
#      POPGESTURED_CLONE=1 and has the real node's WL_OUTPUT, WL_SEAT, ID_SEAT (and
#      so the seat's tag, from 73-seat-late, which runs after it), ID_INPUT_WIDTH_MM
#      and LIBINPUT_FUZZ_00 (libinput's fuzz rule, which runs after it, keeps it);
#      ID_INPUT_HEIGHT_MM="187;$(id)" is not imported (the clone keeps its own 187),
#      nor is the property off the list; it is still a touchscreen;
#   3. libinput reads the clone's seats and calibration matrix.
# timeout: 360
source "$(dirname "$0")/../lib.sh"

need_daemon
command -v libinput >/dev/null || fail "libinput (libinput-tools) is missing: scripts/setup --vm installs it"
desc=$(recording elan-touchscreen.desc)  # 3312 x 1872 at 10 units/mm: 331 x 187 mm
rules="$REPO/systemd/udev/71-popgestured-touch-clone.rules"
helper="$REPO/systemd/udev/popgestured-clone-properties"
need_file "$rules" "the shipped clone rule"
need_exec "$helper" "the shipped clone rule's helper"

# The user's setting keyed on the name: it matches every device of that name.
udev_rule named "$(desc_name "$desc")" \
    'ENV{LIBINPUT_CALIBRATION_MATRIX}="0 1 0 -1 0 1", ENV{POPGESTURED_VMTEST_NAMED}="1"'
create_device "$desc"
REAL=$DEV_NODE
# Keyed on the real node itself: only the clone rule can pass these on.
node_rule=/run/udev/rules.d/99-vmtest-real-node.rules
printf '%s\n' "ACTION!=\"remove\", SUBSYSTEM==\"input\", KERNEL==\"${REAL##*/}\", ENV{WL_OUTPUT}=\"DSI-1\", ENV{WL_SEAT}=\"vmtest\", ENV{ID_SEAT}=\"seat-vmtest\", ENV{ID_INPUT_WIDTH_MM}=\"300\", ENV{ID_INPUT_HEIGHT_MM}=\"187;\$\$(id)\", ENV{LIBINPUT_FUZZ_00}=\"8\", ENV{POPGESTURED_VMTEST_OTHER}=\"1\"" >"$node_rule"
UDEV_RULES+=("$node_rule")
udevadm control --reload
udevadm trigger --action=change --settle "$REAL"
for want in "LIBINPUT_CALIBRATION_MATRIX=0 1 0 -1 0 1" POPGESTURED_VMTEST_NAMED=1 WL_OUTPUT=DSI-1 \
    'ID_INPUT_HEIGHT_MM=187;$(id)' POPGESTURED_VMTEST_OTHER=1; do
    wait_for 30 "the test rules to give $REAL $want" udev_prop "$REAL" "$want"
done

# start_clone NAME: the tool on $REAL, no grab; sets TOOL_PID and CLONE_NODE once
# udev has processed the clone.
start_clone() {
    "$POPGESTURED" debug-clone "$REAL" >"$WORK/$1.out" 2>"$WORK/$1.err" &
    TOOL_PID=$!
    BG_PIDS+=("$TOOL_PID")
    wait_for 120 "debug-clone to see udev announce its clone" _tool_said "$1" '^announced$'
    CLONE_NODE=$(sed -n 's/^clone //p' "$WORK/$1.out")
    [ -e "$CLONE_NODE" ] || fail "debug-clone printed no clone node: $(cat "$WORK/$1.out")"
    udevadm settle --timeout=60 || true
    wait_for 60 "udev to tag the clone $CLONE_NODE a touchscreen" udev_prop "$CLONE_NODE" ID_INPUT_TOUCHSCREEN=1
    udevadm info --query=property --name="$CLONE_NODE" >"$WORK/$1.props"
    log "clone $CLONE_NODE of $REAL, tool pid $TOOL_PID"
}
_tool_said() {
    alive "$TOOL_PID" || { cat "$WORK/$1.out" "$WORK/$1.err" >&2; fail "debug-clone exited early"; }
    grep -q "$2" "$WORK/$1.out"
}
stop_clone() {
    kill -TERM "$TOOL_PID"
    try_wait 30 not_alive "$TOOL_PID" || fail "debug-clone ignored SIGTERM"
    wait_for 30 "the clone $CLONE_NODE to go" test ! -e "$CLONE_NODE"
    udevadm settle --timeout=60 || true
}
# clone_has NAME KEY=VALUE / clone_lacks NAME KEY: in the clone's properties as saved.
clone_has() { grep -qxF "$2" "$WORK/$1.props" || { cat "$WORK/$1.props" >&2; fail "the clone ($1) lacks $2"; }; }
clone_lacks() { ! grep -q "^$2=" "$WORK/$1.props" || { cat "$WORK/$1.props" >&2; fail "the clone ($1) has $(grep "^$2=" "$WORK/$1.props")"; }; }

# 1. Without the shipped rule: the real name, and the name-keyed setting applies.
start_clone bare
evemu-describe "$REAL" >"$WORK/real.desc" 2>&1 || fail "evemu-describe $REAL failed"
evemu-describe "$CLONE_NODE" >"$WORK/clone.desc" 2>&1 || fail "evemu-describe $CLONE_NODE failed"
real_name=$(sed -n 's/^N: //p' "$WORK/real.desc")
[ "$(sed -n 's/^N: //p' "$WORK/clone.desc")" = "$real_name" ] ||
    fail "the clone is called '$(sed -n 's/^N: //p' "$WORK/clone.desc")', not '$real_name'"
[ "$(grep '^I:' "$WORK/clone.desc")" = "$(grep '^I:' "$WORK/real.desc")" ] || fail "the clone's ids differ"
clone_has bare "LIBINPUT_CALIBRATION_MATRIX=0 1 0 -1 0 1"
clone_has bare POPGESTURED_VMTEST_NAMED=1
for key in WL_OUTPUT WL_SEAT ID_SEAT LIBINPUT_FUZZ_00 POPGESTURED_VMTEST_OTHER POPGESTURED_CLONE; do
    clone_lacks bare "$key"
done
clone_has bare ID_INPUT_WIDTH_MM=331
stdbuf -oL libinput debug-events --device "$CLONE_NODE" >"$WORK/libinput-bare.out" 2>&1 &
BG_PIDS+=("$!")
wait_for 60 "libinput to add $CLONE_NODE" grep -q DEVICE_ADDED "$WORK/libinput-bare.out"
added=$(grep DEVICE_ADDED "$WORK/libinput-bare.out")
log "libinput: $added"
grep -qw calib <<<"$added" || fail "libinput reads no calibration matrix on the clone: the name-keyed rule did not apply"
stop_clone
log "without the rule the clone, called '$real_name' as the real panel, has what the name-keyed rule sets, and nothing of the node-keyed one"

# 2. With it, as installed but with the helper where the checkout has it.
rule=/run/udev/rules.d/71-popgestured-touch-clone.rules
mkdir -p /run/udev/rules.d
sed "s|/usr/local/lib/udev/popgestured-clone-properties|$helper|" "$rules" >"$rule"
grep -qF "IMPORT{program}=\"$helper " "$rule" ||
    fail "71-popgestured-touch-clone.rules no longer runs /usr/local/lib/udev/popgestured-clone-properties"
UDEV_RULES+=("$rule")
udevadm control --reload

start_clone inherited
clone_has inherited POPGESTURED_CLONE=1
clone_has inherited "LIBINPUT_CALIBRATION_MATRIX=0 1 0 -1 0 1"
clone_has inherited WL_OUTPUT=DSI-1
clone_has inherited WL_SEAT=vmtest
clone_has inherited ID_SEAT=seat-vmtest
grep -q '^TAGS=.*:seat-vmtest:' "$WORK/inherited.props" || fail "73-seat-late did not tag the clone with its inherited seat"
clone_has inherited ID_INPUT_WIDTH_MM=300
clone_has inherited LIBINPUT_FUZZ_00=8
clone_has inherited ID_INPUT_HEIGHT_MM=187
clone_lacks inherited POPGESTURED_VMTEST_OTHER
clone_has inherited ID_INPUT_TOUCHSCREEN=1
log "the clone inherited: $(grep -E '^(LIBINPUT_|WL_|ID_SEAT|ID_INPUT_(WIDTH|HEIGHT)_MM)' "$WORK/inherited.props" | tr '\n' ' ')"

# 3. libinput on the clone: its DEVICE_ADDED line names the seats (ID_SEAT, then
# WL_SEAT) and ends in "calib" when the device has a calibration matrix.
stdbuf -oL libinput debug-events --device "$CLONE_NODE" >"$WORK/libinput.out" 2>&1 &
BG_PIDS+=("$!")
wait_for 60 "libinput to add $CLONE_NODE" grep -q DEVICE_ADDED "$WORK/libinput.out"
added=$(grep DEVICE_ADDED "$WORK/libinput.out")
log "libinput: $added"
grep -qE ' seat-vmtest +vmtest ' <<<"$added" || fail "libinput did not put the clone on seat-vmtest, vmtest"
grep -qw calib <<<"$added" || fail "libinput reads no calibration matrix on the clone"
stop_clone
log "clone properties: inherited through the shipped rule, odd values and other keys left out"
