#!/bin/bash
# Issue 18, per seat: two touchscreens from the same real description (the ELAN panel
# of ../shared/recordings), the second put on seat1 by a udev rule (ID_SEAT, as
# `loginctl attach` writes one). The installed daemon reads both, makes a second back
# input device for seat1 (phys popgestured-back/seat1, which the package's
# 71-popgestured-back-seat rule puts on seat1), and a left-edge swipe on each screen
# types Alt+Left on its own seat's back input device only. Issue 28: both screens
# swiped at once type on both seats (one arbiter per seat: neither is busy), and a
# reload that turns the back input off and on again gives seat1 its device again.
# shellcheck source=../lib.sh
. "$TIER/lib.sh"

KEY_LEFTALT=56 KEY_LEFT=105
desc=$(recording elan-touchscreen.desc)

step "the package (installed by an earlier scenario, or now)"
ensure_package
show dpkg -s popgestured
[ -f /usr/lib/udev/rules.d/71-popgestured-back-seat.rules ] || fail "the package has no 71-popgestured-back-seat.rules"

step "a rule that puts the touchscreen named \"Seat One Touchscreen\" on seat1"
cat >/etc/udev/rules.d/70-systemvm-seat1.rules <<'RULE'
SUBSYSTEM=="input", ATTRS{name}=="Seat One Touchscreen", ENV{ID_SEAT}="seat1", TAG+="seat"
RULE
udevadm control --reload
sed 's/^N: .*/N: Seat One Touchscreen/' "$desc" >"$WORK/seat1.desc"
journal_mark

step "the two touchscreens"
create_device "$desc"
screen0=$DEV_NODE
create_device "$WORK/seat1.desc"
screen1=$DEV_NODE
show udevadm info --query=property --name="$screen1" --property=ID_SEAT,ID_INPUT_TOUCHSCREEN,TAGS
udev_prop "$screen1" ID_SEAT=seat1 || fail "udev did not put $screen1 on seat1"
systemctl start popgestured.service
wait_for 120 "the daemon to use both screens" sh -c \
    "journalctl -u popgestured.service -o cat | grep -q 'using it as a touchscreen on seat1'"

# back_input_of SEAT: the event node of the back input device whose phys names SEAT.
back_input_of() {
    local dir
    for dir in /sys/class/input/event*; do
        [ "$(cat "$dir/device/name" 2>/dev/null)" = "popgestured back input" ] || continue
        [ "$(cat "$dir/device/phys" 2>/dev/null)" = "popgestured-back/$1" ] && { echo "/dev/input/${dir##*/}"; return 0; }
    done
    return 0
}
has_back_input_of() { [ -n "$(back_input_of "$1")" ]; }
input_devices() {  # every event node: its name and phys
    local dir
    for dir in /sys/class/input/event*; do
        echo "${dir##*/} \"$(cat "$dir/device/name" 2>/dev/null)\" phys \"$(cat "$dir/device/phys" 2>/dev/null)\""
    done
}
trap 'show input_devices; show journal_since_mark; cleanup' EXIT
wait_for 60 "seat0's back input device" has_back_input_of seat0
wait_for 60 "seat1's back input device" has_back_input_of seat1
udevadm settle --timeout=60 || true
keys0=$(back_input_of seat0)
keys1=$(back_input_of seat1)
show udevadm info --query=property --name="$keys1" --property=ID_SEAT,ID_INPUT_KEY,TAGS,CURRENT_TAGS
udev_prop "$keys1" ID_SEAT=seat1 || fail "the back input device of seat1 ($keys1) is not on seat1"
udev_prop "$keys0" ID_SEAT=seat1 && fail "seat0's back input device ($keys0) is on seat1"
log "back input devices: seat0 $keys0, seat1 $keys1"

for seat in 0 1; do
    python3 "$REPO/Tests/VM/evread.py" "$(eval echo \$keys$seat)" --keys >"$WORK/keys$seat.out" 2>"$WORK/keys$seat.err" &
    BG_PIDS+=("$!")
    wait_for 30 "the reader of seat$seat's back input" grep -qx ready "$WORK/keys$seat.out"
done
key_count() { awk '$1 == "key"' "$WORK/keys$1.out" | wc -l; }

# From 1 % of the width (3.3 mm in, inside the edge zone), 150 mm to the right in
# 300 ms, then up: past commit-progress (30 % of 331 mm), so a stall of the emulation
# while it plays cannot turn it into a cancel.
width=$(awk '$1 == "A:" && $2 == "35" { print $4 - $3; exit }' "$desc")
res=$(awk '$1 == "A:" && $2 == "35" { print $7; exit }' "$desc")
to=$(awk -v w="$width" -v r="$res" 'BEGIN { printf "%.4f", 0.01 + 150 * r / w }')
python3 "$REPO/Tests/VM/make-swipe.py" "$desc" --from 0.01 --to "$to" --duration-ms 300 >"$WORK/edge-swipe.events"
want=$(printf '%s\n' "$KEY_LEFTALT 1" "$KEY_LEFT 1" "$KEY_LEFT 0" "$KEY_LEFTALT 0")

step "a left-edge swipe on seat1's screen: Alt+Left on seat1's back input only"
play "$screen1" "$WORK/edge-swipe.events"
wait_for 20 "4 key events on seat1's back input" sh -c "[ \$(awk '\$1 == \"key\"' '$WORK/keys1.out' | wc -l) -ge 4 ]"
sleep 2
log "seat1's device: $(key_lines 1 | tr '\n' ','); seat0's: $(key_lines 0 | tr '\n' ',')"
[ "$(key_lines 1)" = "$want" ] || fail "seat1's back input sent $(key_lines 1 | tr '\n' ','), not Alt+Left once"
[ "$(key_count 0)" -eq 0 ] || fail "a swipe on seat1 typed on seat0: $(key_lines 0 | tr '\n' ',')"

step "a left-edge swipe on seat0's screen: Alt+Left on seat0's back input only"
play "$screen0" "$WORK/edge-swipe.events"
wait_for 20 "4 key events on seat0's back input" sh -c "[ \$(awk '\$1 == \"key\"' '$WORK/keys0.out' | wc -l) -ge 4 ]"
sleep 2
log "seat0's device: $(key_lines 0 | tr '\n' ','); seat1's: $(key_lines 1 | tr '\n' ',')"
[ "$(key_lines 0)" = "$want" ] || fail "seat0's back input sent $(key_lines 0 | tr '\n' ','), not Alt+Left once"
[ "$(key_count 1)" -eq 4 ] || fail "a swipe on seat0 typed on seat1: $(key_lines 1 | tr '\n' ',')"

step "both screens swiped at once: Alt+Left on each seat's back input, neither busy"
play "$screen0" "$WORK/edge-swipe.events" &
both0=$!
play "$screen1" "$WORK/edge-swipe.events" &
both1=$!
wait "$both0" "$both1" || fail "playing the two swipes at once failed"
wait_for 20 "8 key events on each seat's back input" sh -c \
    "[ \$(awk '\$1 == \"key\"' '$WORK/keys0.out' | wc -l) -ge 8 ] && [ \$(awk '\$1 == \"key\"' '$WORK/keys1.out' | wc -l) -ge 8 ]"
sleep 2
log "seat0's device: $(key_lines 0 | tr '\n' ','); seat1's: $(key_lines 1 | tr '\n' ',')"
[ "$(key_count 0)" -eq 8 ] && [ "$(key_count 1)" -eq 8 ] ||
    fail "two swipes at once typed $(key_count 0) keys on seat0 and $(key_count 1) on seat1, not 8 each"

step "a reload turns the back input off, then on: seat1's device comes back with seat0's"
conf=/etc/popgestured/popgestured.conf
mkdir -p /etc/popgestured
had_conf=false
if [ -f "$conf" ]; then had_conf=true; cp -p "$conf" "$WORK/popgestured.conf.orig"; fi
# Alone in the file: the shipped file's [back-input] table gives apps keys of their
# own, which keep the devices.
echo 'back-input = none' >"$conf"
systemctl reload popgestured.service
no_back_input_of() { ! has_back_input_of "$1"; }
wait_for 60 "seat1's back input device to go" no_back_input_of seat1
if $had_conf; then cp -p "$WORK/popgestured.conf.orig" "$conf"; else rm -f "$conf"; fi
systemctl reload popgestured.service
wait_for 60 "seat0's back input device again" has_back_input_of seat0
wait_for 60 "seat1's back input device again" has_back_input_of seat1
log "after the reloads: seat0 $(back_input_of seat0), seat1 $(back_input_of seat1)"

step "the daemon's journal"
show journal_since_mark
rm -f /etc/udev/rules.d/70-systemvm-seat1.rules
udevadm control --reload
log "PASS"
