#!/usr/bin/env bash
# timeout: 900
# (w) Issue 27, the gesture follows the screen the finger is on: each touchscreen
# turns with the transform of the output it drives, as the shell (`popgesturectl
# bridge sway`) reports sway's outputs, and the accelerometer is not used while it
# does. A real compositor (sway 1.7, libinput backend, headless outputs; desktop.sh)
# maps each uinput touchscreen to its output (`input ID map_to_output OUT`, in its
# config, where the bridge reads it, and by swaymsg) and turns the output (`swaymsg
# output OUT transform T`; sway 1.7 has no output events on its IPC, so the bridge
# follows the turn through wlr-output-management on sway's display); a real Wayland client,
# wev, prints the wl_touch events it gets in its own surface coordinates, so each
# swipe's direction is read from the app, not computed here. An owner client (hello
# "app" = wev's app id, so in front while a wev window has focus) counts the backs,
# an observer the rejections.
#
# sway names its transforms clockwise, the other way round from wl_output: its
# `transform 90` is wl_output's 270, which wlroots applies to a touchscreen mapped
# to the output so that the app's rightward is the panel's top edge toward its
# bottom: the daemon's rotation 270 (rotation_of below). The swipes, in panel
# fractions (ELAN panel 331.2 x 187.2 mm; as in 84-screen-turns):
#   panel-right   x 0.02 -> 0.5 at y 0.5 -> 0.45: rightward on the bare panel;
#   turned-90     x 0.5, y 0.98 -> 0.5: bottom edge toward the top, rightward in the
#                 app at rotation 90 (sway's transform 270), where the app's point
#                 (x, y) is the panel's (y, 1 - x);
#   turned-270    x 0.5, y 0.02 -> 0.5: top edge toward the bottom, rightward at
#                 rotation 270 (sway's transform 90);
#   held          panel-right's direction, resting 4 s at 30 %, then on to 90 %.
# wev says which way each went in the app; the scenario checks that too.
#
# 2. The fake iio-sensor-proxy says left-up (84's fixture) while sway's output is at
#    transform 0: the ELAN panel stays at 0 from the shell, status's screen.sensor is
#    `unused` (the sensor's claim released), panel-right goes back in the app's
#    rightward direction, and a held swipe across SetOrientation(bottom-up) is not
#    cancelled and goes back.
# 1. sway's transform 90, then 270: status says rotation 270, then 90, from the
#    shell; the app sees turned-270 (turned-90) rightward and it goes back; the app
#    sees panel-right vertical, and it is rejected (wrong-direction at rotation 270,
#    where it leans left in the app; too-steep at 90, where it leans right), no back.
# 3. A second touchscreen (Atmel maXTouch) on a second headless output
#    (`swaymsg create_output`) at transform 0, the ELAN panel's output at 90, a wev
#    on each: each panel decides on its own output (status: 270 and 0), and on each
#    the app's rightward swipe goes back and the other one is refused.
#
# Every check of the daemon's behaviour is counted rather than fatal (`check`), so
# one run says which hold; any that failed fails the scenario at the end with a
# summary. The set-up (sway, wev, the devices, the bridge) fails at once.
source "$(dirname "$0")/../lib.sh"
source "$VM_DIR/desktop.sh"

elan_desc=$(recording elan-touchscreen.desc)    # USB, protocol B, 3312 x 1872 at 10 units/mm
atmel_desc=$(recording atmel-maxtouch.desc)     # I2C, protocol B, 800 x 480, no resolution
make_swipe() { local out="$WORK/$1.events"; shift; python3 "$VM_DIR/make-swipe.py" "$@" >"$out"; }
make_swipe elan-panel-right "$elan_desc" --from 0.02 --to 0.5 --y 0.5 --to-y 0.45
make_swipe elan-turned-90 "$elan_desc" --from 0.5 --to 0.5 --y 0.98 --to-y 0.5
make_swipe elan-turned-270 "$elan_desc" --from 0.5 --to 0.5 --y 0.02 --to-y 0.5
make_swipe elan-held "$elan_desc" --shape hold --from 0.02 --hold-at 0.3 --to 0.9 --y 0.5 --hold-ms 4000
make_swipe atmel-panel-right "$atmel_desc" --from 0.02 --to 0.5 --y 0.5 --to-y 0.45
make_swipe atmel-turned-90 "$atmel_desc" --from 0.5 --to 0.5 --y 0.98 --to-y 0.5
need_exec /usr/bin/wev "wev (scripts/setup --vm installs it)"

# ---------------------------------------------------------------- checks

PASSED=() FAILED=()
# check WHAT CMD...: one check of the behaviour under test; logged and counted, and
# the scenario goes on (the summary at the end fails it).
check() {
    local what=$1; shift
    if "$@"; then PASSED+=("$what"); log "check ok: $what"
    else FAILED+=("$what"); log "check FAILED: $what"; fi
}

# device_turn NODE: "ROTATION SOURCE OUTPUT" of NODE in the daemon's status ("-" for none).
device_turn() {
    "$POPGESTURECTL" status --json --socket "$SOCK" | python3 -c '
import json, sys
for d in json.load(sys.stdin).get("devices", []):
    if d.get("path") == sys.argv[1]:
        print(*(d.get(k) if d.get(k) is not None else "-" for k in ("rotation", "rotationSource", "output")))' "$1"
}
_turn_is() { [ "$(device_turn "$1")" = "$2" ]; }
# turned NODE "ROTATION SOURCE OUTPUT": status says so within 30 s.
turned() { try_wait 30 _turn_is "$1" "$2" || { log "status says \"$(device_turn "$1")\" for $1"; return 1; }; }
screen_sensor() {
    "$POPGESTURECTL" status --json --socket "$SOCK" |
        python3 -c 'import json, sys; print((json.load(sys.stdin).get("screen") or {}).get("sensor"))'
}
_sensor_is() { [ "$(screen_sensor)" = "$1" ]; }
sensor_is() { try_wait 30 _sensor_is "$1" || { log "status's screen.sensor is \"$(screen_sensor)\""; return 1; }; }
claims_become() { try_wait 30 claims_are "$1" || { log "the fake sensor counts $(sensor_claims) claims"; return 1; }; }

# ---------------------------------------------------------------- sway and wev

# rotation_of T: the daemon's rotation for sway's transform T. sway names its turns
# clockwise, the other way round from wl_output's (sway/commands/output/transform.c
# and ipc-json.c: "Sway uses clockwise transforms, while WL_OUTPUT_TRANSFORM_*
# describes anti-clockwise transforms"): `transform 90` is wl_output's 270, and
# get_outputs says "90" for it. wlroots maps a touchscreen mapped to that output as
# for wl_output 270 (wlr_cursor's apply_output_transform): the app's rightward is the
# panel's top edge toward its bottom, which is the daemon's rotation 270 (its 90 is
# wl_output's 90, as WlrootsFocus maps it). So T becomes (360 - T) mod 360.
rotation_of() { case "$1" in normal | 0) echo 0 ;; *) echo $(( (360 - $1) % 360 )) ;; esac; }

# sway_transform OUTPUT: the output's transform as sway says it (normal, 90, ...).
sway_transform() {
    swaymsg -t get_outputs -r | python3 -c '
import json, sys
print(next((o.get("transform") for o in json.load(sys.stdin) if o.get("name") == sys.argv[1]), ""))' "$1"
}
_transform_is() { [ "$(sway_transform "$1")" = "$2" ]; }
has_output() { [ -n "$(sway_transform "$1")" ]; }
# transform OUTPUT T: swaymsg output OUTPUT transform T, until sway says so. sway 1.7
# sends no output events on its IPC (1.8 has them): the bridge follows the turn through
# wlr-output-management on sway's Wayland display, which says every change at once.
transform() {
    swaymsg output "$1" transform "$2" >/dev/null || fail "swaymsg output $1 transform $2 refused"
    wait_for 30 "sway to turn $1 to $2" _transform_is "$1" "$2"
    log "sway: output $1 transform $2"
}
# sway_identifier DESC: sway's identifier of a device from DESC: decimal vendor and
# product, and the name with its spaces as underscores (sway's input/input-manager.c).
sway_identifier() {
    local name vendor product
    name=$(desc_name "$1")
    read -r _ _ vendor product _ < <(grep -m 1 '^I:' "$1")
    printf '%d:%d:%s\n' "0x$vendor" "0x$product" "${name// /_}"
}
# map_touchscreen DESC OUTPUT: `swaymsg input <identifier> map_to_output OUTPUT`, once
# sway reads the device (its identifier must be sway_identifier's, which the config
# names). The config's line is what the bridge reads (get_config: sway's IPC tells no
# mapping otherwise); the command is what makes sway apply it now, to an output made
# after the device.
map_touchscreen() {
    local name id
    name=$(desc_name "$1")
    wait_sway_input "$name"
    id=$(sway_input_id "$name")
    [ "$id" = "$(sway_identifier "$1")" ] || fail "sway names \"$name\" $id, not $(sway_identifier "$1") as the config does"
    swaymsg input "$id" map_to_output "$2" >/dev/null || fail "swaymsg input $id map_to_output $2 refused"
    log "sway: input $id mapped to output $2"
}
# _view_on PID OUTPUT: sway shows a window of process PID, or of a child of PID, on OUTPUT.
_view_on() {
    swaymsg -t get_tree -r | python3 -c '
import json, sys
pid, want = int(sys.argv[1]), sys.argv[2]
def ours(view):
    try:
        with open(f"/proc/{view}/stat") as stat:
            parent = int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        parent = None
    return pid in (view, parent)
def on(node, output):
    output = node.get("name") if node.get("type") == "output" else output
    if node.get("pid") and ours(node["pid"]):
        return output == want
    return any(on(child, output) for child in node.get("nodes", []) + node.get("floating_nodes", []))
sys.exit(0 if on(json.load(sys.stdin), None) else 1)' "$1" "$2"
}
# start_wev NAME OUTPUT: wev (-f wl_touch: only its touch events, in surface
# coordinates) as a window on OUTPUT (the only one there, so it fills it), into NAME.out.
start_wev() {
    swaymsg focus output "$2" >/dev/null || fail "swaymsg focus output $2 refused"
    as_desktop_user stdbuf -oL wev -f wl_touch >"$WORK/$1.out" 2>"$WORK/$1.err" &
    local pid=$!  # the subshell running as_desktop_user; wev is its child
    BG_PIDS+=("$pid")
    wait_for 120 "wev ($1) to show a window on $2" _view_on "$pid" "$2"
    log "wev ($1, under pid $pid) has a window on $2: \"$(focused_window)\""
}
# wev_touch NAME MARK: the first touch in NAME.out after line MARK as the app saw it,
# once the finger lifted: "DX DY from X0,Y0 to X1,Y1" (down to last motion, surface
# pixels); nothing before the lift.
wev_touch() {
    tail -n +"$(( $2 + 1 ))" "$WORK/$1.out" | python3 -c '
import re, sys
down = last = None
for line in sys.stdin:
    event = re.search(r"wl_touch\] (down|motion|up)\b", line)
    xy = re.search(r"x, y: (-?[0-9.]+), (-?[0-9.]+)", line)
    if not event:
        continue
    if event.group(1) == "down" and down is None:
        down = last = (float(xy.group(1)), float(xy.group(2)))
    elif event.group(1) == "motion" and down is not None:
        last = (float(xy.group(1)), float(xy.group(2)))
    elif event.group(1) == "up" and down is not None:
        print(f"{last[0] - down[0]:.0f} {last[1] - down[1]:.0f} from {down[0]:.0f},{down[1]:.0f} to {last[0]:.0f},{last[1]:.0f}")
        break'
}
_wev_lifted() { [ -n "$(wev_touch "$1" "$2")" ]; }
# app_saw rightward|vertical: the last swipe's motion in the app (SEEN) was mostly that.
app_saw() {
    local dx dy
    read -r dx dy _ <<<"$SEEN"
    dx=${dx#-} dy=${dy#-}
    case "$1" in
        rightward) [ "${SEEN%% *}" -gt 100 ] && [ "$dx" -gt $((3 * dy)) ] ;;
        vertical) [ "$dy" -gt 100 ] && [ "$dy" -gt $((3 * dx)) ] ;;
    esac
}

# ---------------------------------------------------------------- swipes

pushes=0
# swipe NODE NAME WEV: plays $WORK/NAME.events into NODE, waits until WEV's window saw
# the lift and for the daemon's verdict (a back at the owner or a rejection at the
# observer; 10 s at most). Sets SEEN (wev_touch), BACKS and REASONS (the observer's
# rejections' reasons, one line each) for this swipe; a back is undone (push) for the
# next one.
swipe() {
    local node=$1 events="$WORK/$2.events" wev=$3 mark backs rejects watched
    mark=$(wc -l <"$WORK/$wev.out")
    watched=$(wc -l <"$WORK/watch.out")
    backs=$(count_events "$WORK/app.out" back)
    rejects=$(count_events "$WORK/watch.out" rejected)
    play "$node" "$events"
    wait_for 30 "$wev to see the finger of $2 lift" _wev_lifted "$wev" "$mark"
    SEEN=$(wev_touch "$wev" "$mark")
    try_wait 10 _verdict "$backs" "$rejects" || true
    sleep 1  # anything more (a second back) would show now
    BACKS=$(( $(count_events "$WORK/app.out" back) - backs ))
    REASONS=$(tail -n +"$((watched + 1))" "$WORK/watch.out" | grep -E '"type" *: *"rejected"' |
        sed -n 's/.*"reason" *: *"\([^"]*\)".*/\1/p' || true)
    log "$2 on $node: $wev saw dx dy $SEEN; backs $BACKS, rejected: ${REASONS:-nothing}"
    if [ "$BACKS" -gt 0 ]; then pushes=$((pushes + 1)); push_detail app "push-$pushes"; fi
}
_verdict() { has_events "$WORK/app.out" back $(($1 + 1)) || has_events "$WORK/watch.out" rejected $(($2 + 1)); }
went_back_once() { [ "$BACKS" -eq 1 ] && [ -z "$REASONS" ]; }
# refused_as REASON: no back, and exactly one rejection, for REASON.
refused_as() { [ "$BACKS" -eq 0 ] && [ "$REASONS" = "$1" ]; }

# goes_back NODE SWIPE WEV WHERE: the app sees SWIPE rightward, and it goes back once.
goes_back() {
    swipe "$1" "$2" "$3"
    check "$4: $2 is rightward in the app ($SEEN)" app_saw rightward
    check "$4: $2 goes back once (backs $BACKS, rejected: ${REASONS:-nothing})" went_back_once
}
# refused NODE SWIPE WEV WHERE: the app sees SWIPE vertical; it is rejected, no back:
# too-steep when it also leans right in the app, wrong-direction when it does not
# (panel-right drifts 5 % up the panel: 40 px left in the app at rotation 270; the
# Atmel panel's upward swipe has no sideways part at all).
refused() {
    swipe "$1" "$2" "$3"
    local want=too-steep
    [ "${SEEN%% *}" -gt 0 ] || want=wrong-direction
    check "$4: $2 is vertical in the app ($SEEN)" app_saw vertical
    check "$4: $2 is rejected $want, no back (backs $BACKS, rejected: ${REASONS:-nothing})" refused_as "$want"
}

# ---------------------------------------------------------------- set-up
start_system_bus
start_fake_sensor left-up
start_daemon
open_observer watch
create_device "$elan_desc"
elan_node=$DEV_NODE
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $elan_node as a touchscreen"
wait_device_listed "$elan_node"
check "no shell yet: the ELAN panel turns 90 from the sensor (left-up)" turned "$elan_node" "90 sensor -"

out1=HEADLESS-1 out2=HEADLESS-2  # the second made by create_output (part 3)
start_sway "input $(sway_identifier "$elan_desc") map_to_output $out1
input $(sway_identifier "$atmel_desc") map_to_output $out2"
has_output "$out1" || fail "sway has no output $out1: $(swaymsg -t get_outputs)"
map_touchscreen "$elan_desc" "$out1"
transform "$out1" normal
start_wev wev1 "$out1"
wev_app=$(focused_window | cut -f1)
[ -n "$wev_app" ] || fail "wev's window has no app id in sway's tree: the owner cannot name it"
open_owner app "\"app\":\"$wev_app\""
start_bridge
_shell_focus() {
    vmctl status | python3 -c '
import json, sys
s = json.load(sys.stdin)
focus = s.get("focus") or {}
front = any(n.get("front") for n in s.get("navigators", []))
sys.exit(0 if focus.get("source") == "shell" and focus.get("app") == sys.argv[1] and front else 1)' "$1"
}
wait_for 60 "the bridge to report wev's window focused (the owner in front)" _shell_focus "$wev_app"
_bridge_has_wayland() { grep -q "outputs:" "$WORK/bridge.log" && ! grep -q "cannot connect to the Wayland display" "$WORK/bridge.log"; }
wait_for 30 "the bridge to list sway's outputs with its Wayland display (wlr-output-management)" _bridge_has_wayland
log "the bridge is the shell: focus on \"$wev_app\", the owner's navigator in front"

# ---------------------------------------------------------------- 2. the sensor turns nothing
log "-- 2. sway's output at transform 0, the sensor says left-up"
check "transform 0: the ELAN panel is at 0 from the shell, output $out1" turned "$elan_node" "0 shell $out1"
check "screen.sensor is unused while the shell reports the outputs" sensor_is unused
check "the daemon released its claim on the accelerometer" claims_become 0
goes_back "$elan_node" elan-panel-right wev1 "transform 0, sensor left-up"

held_across_orientation() {
    local began backs cancels mark
    began=$(count_events "$WORK/app.out" pop-began)
    backs=$(count_events "$WORK/app.out" back)
    cancels=$(count_events "$WORK/app.out" pop-cancelled)
    mark=$(wc -l <"$WORK/wev1.out")
    play_bg "$elan_node" "$WORK/elan-held.events"
    HELD_BEGAN=false
    try_wait 30 has_events "$WORK/app.out" pop-began $((began + 1)) && HELD_BEGAN=true
    set_orientation bottom-up
    log "the fake sensor says bottom-up while the finger rests (pop began: $HELD_BEGAN)"
    wait "$PLAY_PID" 2>/dev/null || true
    wait_for 30 "wev1 to see the held finger lift" _wev_lifted wev1 "$mark"
    try_wait 10 has_events "$WORK/app.out" back $((backs + 1)) || true
    sleep 1
    HELD_BACKS=$(( $(count_events "$WORK/app.out" back) - backs ))
    HELD_CANCELS=$(( $(count_events "$WORK/app.out" pop-cancelled) - cancels ))
    log "held swipe: wev1 saw $(wev_touch wev1 "$mark"); backs $HELD_BACKS, pop-cancelled $HELD_CANCELS"
    if [ "$HELD_BACKS" -gt 0 ]; then pushes=$((pushes + 1)); push_detail app "push-$pushes"; fi
}
held_across_orientation
check "the held swipe began a pop" $HELD_BEGAN
held_not_cancelled() { $HELD_BEGAN && [ "$HELD_CANCELS" -eq 0 ]; }
check "SetOrientation(bottom-up) under the held pop cancels nothing (pop-cancelled: $HELD_CANCELS)" held_not_cancelled
check "the held swipe goes back once (backs $HELD_BACKS)" test "$HELD_BACKS" -eq 1
check "after the sensor's bottom-up: still 0 from the shell" turned "$elan_node" "0 shell $out1"

# ---------------------------------------------------------------- 1. transforms 90 and 270
for t in 90 270; do
    r=$(rotation_of "$t")
    log "-- 1. sway's output at transform $t, rotation $r (the sensor says bottom-up)"
    transform "$out1" "$t"
    check "transform $t: the ELAN panel is at $r from the shell, output $out1" turned "$elan_node" "$r shell $out1"
    goes_back "$elan_node" "elan-turned-$r" wev1 "transform $t"
    refused "$elan_node" elan-panel-right wev1 "transform $t"
done

# ---------------------------------------------------------------- 3. two touchscreens, two outputs
log "-- 3. a second touchscreen on a second output"
transform "$out1" 90
create_device "$atmel_desc"
atmel_node=$DEV_NODE
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $atmel_node as a touchscreen"
wait_device_listed "$atmel_node"
swaymsg create_output >/dev/null || fail "swaymsg create_output refused"
wait_for 30 "sway's second headless output, $out2 (the config maps the Atmel panel there)" has_output "$out2"
swaymsg output "$out2" resolution "${DESKTOP_WIDTH}x${DESKTOP_HEIGHT}" >/dev/null || fail "swaymsg output $out2 resolution refused"
transform "$out2" normal
log "sway's outputs: $(swaymsg -t get_outputs -r | python3 -c '
import json, sys
print("; ".join("%s %dx%d at %d,%d, transform %s" % (o["name"], o["rect"]["width"], o["rect"]["height"],
                o["rect"]["x"], o["rect"]["y"], o.get("transform")) for o in json.load(sys.stdin)))')"
map_touchscreen "$atmel_desc" "$out2"
start_wev wev2 "$out2"
wait_for 60 "the bridge to report the second wev focused" _shell_focus "$wev_app"
check "two outputs: the ELAN panel is at 270 from the shell, output $out1" turned "$elan_node" "270 shell $out1"
check "two outputs: the Atmel panel is at 0 from the shell, output $out2" turned "$atmel_node" "0 shell $out2"
goes_back "$elan_node" elan-turned-270 wev1 "two outputs, ELAN on $out1 at transform 90"
refused "$elan_node" elan-panel-right wev1 "two outputs, ELAN on $out1 at transform 90"
goes_back "$atmel_node" atmel-panel-right wev2 "two outputs, Atmel on $out2 at 0"
refused "$atmel_node" atmel-turned-90 wev2 "two outputs, Atmel on $out2 at 0"

# ---------------------------------------------------------------- summary
log "the bridge's log (last lines):"
tail -n 15 "$WORK/bridge.log" >&2 || true
grep -E "rotation|outputs|output " "$DAEMON_LOG" | tail -n 15 >&2 || true
daemon_alive
stop_daemon
log "checks passed: ${#PASSED[@]}"
for what in "${PASSED[@]}"; do log "  ok      $what"; done
log "checks failed: ${#FAILED[@]}"
for what in "${FAILED[@]}"; do log "  FAILED  $what"; done
[ ${#FAILED[@]} -eq 0 ] ||
    fail "${#FAILED[@]} of $(( ${#PASSED[@]} + ${#FAILED[@]} )) checks failed (summary above), first: ${FAILED[0]}"
