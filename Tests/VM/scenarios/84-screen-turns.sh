#!/usr/bin/env bash
# timeout: 600
# (r) Issue 20, the gesture turns with the screen. The ELAN panel (331.2 x 187.2 mm,
# landscape) from its real description; turned 90 degrees clockwise it is a screen
# 187.2 mm wide and 331.2 mm tall whose point (x, y) is the panel's (y, 1 - x): a
# move toward the turned screen's right is a move toward the panel's top. The
# swipes, written in panel fractions here by hand (not by the daemon's formulas):
#   - landscape back: panel x 0.02 -> 0.5 at y 0.5 -> 0.45 (159 mm right, 9 mm up).
#     Turned, that is 9 mm across and 159 mm down the screen: too steep.
#   - turned back: panel x 0.5, y 0.98 -> 0.5: from 2 % of the turned width, half-way
#     down, 90 mm toward the turned screen's right.
#   - held landscape back: down at x 0.02, to 0.3, resting 8 s (room for a slow
#     gdbus call under TCG), then on to 0.9.
# First a shell client (role shell) reports the output turned 90 degrees: the turned
# back goes back, the landscape back is refused as too-steep, and a turn while a
# landscape pop is under the finger gives pop-cancelled (rotated) and no back. Then
# the shell leaves, and the same with the orientation from iio-sensor-proxy: a fake
# net.hadess.SensorProxy (Tests/Fixtures/iio/fake-sensor-proxy.py) on a dbus-daemon
# of the scenario's own, which the daemon takes for the system bus
# (DBUS_SYSTEM_BUS_ADDRESS); left-up is 90 degrees, as mutter maps it.
# Last (issue 27), a shell lists its outputs with eDP-1 at transform 0 while the
# sensor says left-up: the shell's 0 is the truth, the accelerometer is released
# (the fake proxy counts no claim), and a tilt under a held swipe cancels nothing;
# the shell gone, the sensor is claimed again and turns the screen.
source "$(dirname "$0")/../lib.sh"

desc=$(recording elan-touchscreen.desc)  # protocol B, 3312 x 1872 at 10 units/mm
landscape="$WORK/landscape-back.events"
turned="$WORK/turned-back.events"
held="$WORK/landscape-held.events"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.02 --to 0.5 --y 0.5 --to-y 0.45 >"$landscape"
python3 "$VM_DIR/make-swipe.py" "$desc" --from 0.5 --to 0.5 --y 0.98 --to-y 0.5 >"$turned"
python3 "$VM_DIR/make-swipe.py" "$desc" --shape hold --from 0.02 --hold-at 0.3 --to 0.9 --y 0.5 --hold-ms 8000 >"$held"

start_system_bus

# screen_is ROTATION SOURCE [SENSOR]: status's screen says so.
screen_is() {
    "$POPGESTURECTL" status --json --socket "$SOCK" | python3 -c '
import json, sys
screen = json.load(sys.stdin).get("screen") or {}
want = sys.argv[1:]
got = [str(screen.get("rotation")), screen.get("rotationSource"), screen.get("sensor")][:len(want)]
sys.exit(0 if got == want else 1)' "$@"
}
expect_screen() {
    wait_for 30 "status to say rotation $1 from the $2${3:+, sensor $3}" screen_is "$@"
    log "screen: rotation $1 from the $2${3:+, sensor $3}"
}
backs=0
# one_more_back SWIPE WHAT: SWIPE gives the owner exactly one more back.
one_more_back() {
    play "$DEV_NODE" "$1"
    backs=$((backs + 1))
    wait_for 30 "$2 to go back" has_events "$WORK/app.out" back "$backs"
    sleep 0.5
    expect_events "$WORK/app.out" back "$backs"
    push_detail app "push-$backs"
}
rejected=0
# refused_as_steep SWIPE WHAT: SWIPE is rejected too-steep, and nothing goes back.
refused_as_steep() {
    play "$DEV_NODE" "$1"
    rejected=$((rejected + 1))
    wait_for 30 "$2 to be rejected too-steep" has_events "$WORK/watch.out" rejected "$rejected"
    expect_events "$WORK/watch.out" rejected "$rejected" too-steep
    expect_events "$WORK/app.out" back "$backs"
}
cancels=0
# turn_mid_swipe TURN WHAT: a held landscape pop begins; TURN turns the screen under
# the finger: pop-cancelled (rotated) at the owner and the observer, and no back.
turn_mid_swipe() {
    local began
    began=$(count_events "$WORK/app.out" pop-began)
    play_bg "$DEV_NODE" "$held"
    wait_for 30 "the held swipe to begin ($2)" has_events "$WORK/app.out" pop-began $((began + 1))
    "$1"
    cancels=$((cancels + 1))
    wait_for 30 "pop-cancelled (rotated) at the owner ($2)" has_events "$WORK/app.out" pop-cancelled "$cancels"
    expect_events "$WORK/app.out" pop-cancelled "$cancels" rotated
    expect_events "$WORK/watch.out" pop-cancelled "$cancels" rotated
    wait "$PLAY_PID" 2>/dev/null || true
    sleep 0.5
    expect_events "$WORK/app.out" back "$backs"
}

start_daemon
wait_for 30 "the daemon to find no iio-sensor-proxy" grep -q "iio-sensor-proxy: absent" "$DAEMON_LOG"
open_owner app
open_observer watch
create_device "$desc"
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $DEV_NODE as a touchscreen"
wait_device_listed "$DEV_NODE"
expect_screen 0 configuration absent

log "-- not turned: the landscape back goes back"
one_more_back "$landscape" "the landscape back"

log "-- the shell reports the output turned 90 degrees"
open_client shell '"role":"shell"'
# The owner's socat is the focused window's process.
request shell focus '"type":"focused-window","app":"vm-app","pid":'"${CLIENT_PID[app]}"
request shell turn '"type":"rotation","rotation":90,"output":"eDP-1"'
wait_for 30 "the observer to see screen-changed" has_event "$WORK/watch.out" screen-changed
expect_screen 90 shell absent
grep -q '"rotation":90' <<<"$("$POPGESTURECTL" status --json --socket "$SOCK")" || fail "the device is not listed turned"
one_more_back "$turned" "a swipe toward the turned screen's trailing side"
refused_as_steep "$landscape" "the landscape back's panel motion on the turned screen"

log "-- a turn under the finger"
request shell level '"type":"rotation","rotation":0,"output":"eDP-1"'
expect_screen 0 shell absent
turn_90_by_shell() { request shell "turn-$cancels" '"type":"rotation","rotation":90,"output":"eDP-1"'; }
turn_mid_swipe turn_90_by_shell "the shell turns the screen"
one_more_back "$turned" "the turned back after the cancelled one"

log "-- the shell leaves: the configuration's rotation"
kill "${CLIENT_PID[shell]}"
expect_screen 0 configuration absent

log "-- iio-sensor-proxy says left-up"
start_fake_sensor left-up
expect_screen 90 sensor left-up
one_more_back "$turned" "a swipe toward the turned screen's trailing side (sensor)"
refused_as_steep "$landscape" "the landscape back's panel motion on the screen the sensor turned"

set_orientation normal
expect_screen 0 sensor normal
turn_left_up() { set_orientation left-up; }
turn_mid_swipe turn_left_up "the sensor turns the screen"
expect_screen 90 sensor left-up
one_more_back "$turned" "the turned back after the sensor's cancel"

log "-- a shell lists its outputs: eDP-1 at transform 0 while the sensor says left-up"
open_client outputs-shell '"role":"shell"'
request outputs-shell outputs-focus '"type":"focused-window","app":"vm-app","pid":'"${CLIENT_PID[app]}"
request outputs-shell outputs '"type":"outputs","outputs":[{"name":"eDP-1","rotation":0,"builtIn":true}]'
expect_screen 0 shell unused
wait_for 30 "the daemon to release the accelerometer" claims_are 0
log "the fake proxy counts $(sensor_claims) claims"
"$POPGESTURECTL" status --json --socket "$SOCK" | python3 -c '
import json, sys
device = json.load(sys.stdin)["devices"][0]
got = (device.get("rotation"), device.get("rotationSource"), device.get("output"))
sys.exit(0 if got == (0, "shell", "eDP-1") else "device: %r" % (got,))' || fail "the device does not turn with eDP-1"
one_more_back "$landscape" "the landscape back (the shell says 0, the sensor left-up)"
log "-- a tilt under a held swipe: nothing turns, nothing is cancelled"
began=$(count_events "$WORK/app.out" pop-began)
play_bg "$DEV_NODE" "$held"
wait_for 30 "the held swipe to begin (tilt)" has_events "$WORK/app.out" pop-began $((began + 1))
set_orientation normal
set_orientation left-up
wait "$PLAY_PID" 2>/dev/null || true
backs=$((backs + 1))
wait_for 30 "the held swipe to go back across the tilt" has_events "$WORK/app.out" back "$backs"
expect_events "$WORK/app.out" pop-cancelled "$cancels"
push_detail app "push-$backs"
expect_screen 0 shell unused

log "-- that shell leaves: the sensor is claimed again and turns the screen"
kill "${CLIENT_PID[outputs-shell]}"
expect_screen 90 sensor left-up
wait_for 30 "the daemon to claim the accelerometer again" claims_are 1

grep -q "rotation 90° from the shell, output eDP-1, was 0° from the configuration" "$DAEMON_LOG" ||
    fail "the daemon did not log the shell's rotation with its source"
grep -q "rotation 90° from the sensor" "$DAEMON_LOG" || fail "the daemon did not log the sensor's rotation with its source"
daemon_alive
stop_daemon
