#!/bin/bash
# Issue 28, a user switch A → B → A with what alice runs from the start: the package's
# bridge unit (popgesturectl-bridge.service in her user manager, bridge auto running
# sway's bridge against a stand-in sway socket), her Python app (clients/python's
# BlockingClient) and `popgesturectl session` (the Swift client library's command
# line), each app owning a navigator (home, detail) on a real touchscreen (the ELAN
# panel). While bob is active, a swipe reaches neither app, both stay connected, and
# the bridge is paused, not ended; back on alice, the bridge is the shell again with no
# restart, and the next swipes' backs reach the same connections: the Python app's
# (the window sway says has focus), then, once the focus moves, the Swift one's.
# shellcheck source=../lib.sh
. "$TIER/lib.sh"

desc=$(recording elan-touchscreen.desc)

step "the package (installed by an earlier scenario, or now)"
ensure_package

step "alice and bob logged in on seat0, alice active; a touchscreen"
for user in alice bob; do id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"; done
has_session alice || autologin alice 2
has_session bob || autologin bob 3
activate alice
journal_mark
# No back input: while bob is active the swipe would go to it, and Alt+Left on a text
# console is the kernel's "previous VT", which would hand seat0 back to alice.
conf=/etc/popgestured/popgestured.conf
had_conf=false
if [ -f "$conf" ]; then had_conf=true; cp -p "$conf" "$WORK/popgestured.conf.orig"; fi
mkdir -p /etc/popgestured
echo 'back-input = none' >"$conf"
restore_conf() { if $had_conf; then cp -p "$WORK/popgestured.conf.orig" "$conf"; else rm -f "$conf"; fi; systemctl reload-or-restart popgestured.service; }
trap 'restore_conf; cleanup' EXIT
create_device "$desc"
screen=$DEV_NODE
systemctl start popgestured.service
systemctl reload popgestured.service
wait_for 120 "the daemon to use $screen" sh -c \
    "journalctl -u popgestured.service -o cat | grep -q '$screen \"ELAN Touchscreen\": using it as a touchscreen'"
# From 1 % of the width, 150 mm to the right in 300 ms, then up (as 18-second-seat's).
width=$(awk '$1 == "A:" && $2 == "35" { print $4 - $3; exit }' "$desc")
res=$(awk '$1 == "A:" && $2 == "35" { print $7; exit }' "$desc")
to=$(awk -v w="$width" -v r="$res" 'BEGIN { printf "%.4f", 0.01 + 150 * r / w }')
python3 "$REPO/Tests/VM/make-swipe.py" "$desc" --from 0.01 --to "$to" --duration-ms 300 >"$WORK/edge-swipe.events"

step "alice's desktop session: the bridge unit runs sway's bridge, the daemon's shell"
uid=$(id -u alice)
unit=popgesturectl-bridge.service
trap 'end_sway_bridge_session alice; restore_conf; cleanup' EXIT
sway_bridge_session alice org.example.py
swaysock=$SWAYSOCK_PATH bridge_pid=$BRIDGE_PID
log "alice's bridge: pid $bridge_pid"

step "alice's Swift and Python clients, each with a navigator"
# The Swift one: popgesturectl session, waiting for its back for up to 10 minutes.
printf '%s\n' "create swift home detail" "wait back swift --timeout 600" >"$WORK/swift.in"
chmod 644 "$WORK/swift.in"
run_as swift alice popgesturectl session --app org.example.swift
wait_for 30 "the Swift client's navigator" grep -q 'ok.*create' "$WORK/swift.out"
# The Python one: prints each event's type; ends after its back.
cat >"$WORK/py-client.py" <<'PY'
import sys
import popgesture
client = popgesture.BlockingClient(app="org.example.py", name="systemvm python")
client.wait_ready(30)
client.create("py", ["home", "detail"])
for event in client.events():
    print(event.type, flush=True)
    if event.type == "back":
        break
print("paused" if client.client.paused else "served", flush=True)
PY
chmod 644 "$WORK/py-client.py"
run_as py alice env PYTHONPATH="$REPO/clients/python" python3 "$WORK/py-client.py"
in_front() { popgesturectl status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
sys.exit(0 if any(n.get("navigator") == sys.argv[1] and n.get("front") for n in s.get("navigators", [])) else 1)' "$1"; }
wait_for 30 "the Python client's navigator in front (its app has the shell's focus)" in_front py
show popgesturectl status

step "switch seat0 to bob: the bridge and both clients paused, still connected; a swipe reaches neither"
activate bob
no_shell_focus() { ! shell_focus org.example.py alice; }
wait_for 30 "the daemon's focus to be no longer alice's bridge's" no_shell_focus
wait_for 30 "the Python client's paused" grep -qx paused "$WORK/py.out"
# popgesturectl session prints events in columns: the type after the (empty) time.
wait_for 30 "the Swift client's paused" grep -qE '^ *paused ' "$WORK/swift.out"
play "$screen" "$WORK/edge-swipe.events"
sleep 3
grep -qE '^(pop-began|back)$' "$WORK/py.out" && { cat "$WORK/py.out"; fail "a swipe while bob is active reached alice's Python client"; }
grep -qE '^ *[0-9.]*s? *(pop-began|back) ' "$WORK/swift.out" && { cat "$WORK/swift.out"; fail "a swipe while bob is active reached alice's Swift client"; }
[ ! -e "$WORK/py.exit" ] && [ ! -e "$WORK/swift.exit" ] || fail "a client ended while paused"
is_active_user bob || fail "seat0's active user changed during the swipe: $(active_user)"
grep -qx resumed "$WORK/py.out" && fail "the Python client was resumed while bob is active"
as_user alice systemctl --user is-active --quiet "$unit" || fail "$unit ended at the switch to bob"
[ "$(user_unit_prop alice MainPID "$unit")" = "$bridge_pid" ] || fail "alice's bridge was restarted at the switch"
log "while bob was active: python $(tr '\n' ' ' <"$WORK/py.out"); swift: $(grep -c . "$WORK/swift.out") lines"

step "back to alice: the bridge is the shell again, not restarted; both clients resumed; the next swipes' backs reach the same connections"
activate alice
wait_for 60 "the daemon's focus from alice's bridge again" shell_focus org.example.py alice
[ "$(user_unit_prop alice MainPID "$unit")" = "$bridge_pid" ] && [ "$(user_unit_prop alice NRestarts "$unit")" = 0 ] ||
    fail "alice's bridge was restarted over the switch (pid $bridge_pid, now $(user_unit_prop alice MainPID "$unit"))"
wait_for 30 "the Python client's resumed" grep -qx resumed "$WORK/py.out"
wait_for 30 "the Swift client's resumed" grep -qE '^ *resumed ' "$WORK/swift.out"
play "$screen" "$WORK/edge-swipe.events"
wait_for 30 "the Python client's back" test -e "$WORK/py.exit"
[ "$(cat "$WORK/py.exit")" = 0 ] || { cat "$WORK/py.err"; fail "the Python client ended with $(cat "$WORK/py.exit")"; }
tail -n 1 "$WORK/py.out" | grep -qx served || fail "the Python client was still paused at its back"
log "python: $(tr '\n' ' ' <"$WORK/py.out")"
# sway's focus moves to the Swift app's window: its navigator is in front.
sway_focus "$swaysock" org.example.swift 4242
wait_for 30 "the daemon's focus on the Swift app" shell_focus org.example.swift alice
wait_for 30 "the Swift client's navigator in front" in_front swift
play "$screen" "$WORK/edge-swipe.events"
wait_for 30 "the Swift client's back" test -e "$WORK/swift.exit"
[ "$(cat "$WORK/swift.exit")" = 0 ] || { cat "$WORK/swift.out" "$WORK/swift.err"; fail "the Swift client ended with $(cat "$WORK/swift.exit")"; }
grep -qE ' back +swift ' "$WORK/swift.out" || fail "the Swift client saw no back"
sed 's/^/      /' "$WORK/swift.out"
show journal_since_mark
journalctl --no-pager -o cat "_SYSTEMD_USER_UNIT=$unit" "_UID=$uid" 2>/dev/null | tail -n 8 | sed 's/^/      /'
log "PASS"
