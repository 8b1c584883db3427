#!/bin/bash
# Issue 32, settings per user on a seat switch A → B → A: alice's
# ~/.config/popgestured/popgestured.conf (edge-width-mm = 9) goes to the daemon through
# her bridge unit (popgesturectl-bridge.service, bridge auto running sway's bridge
# against a stand-in sway socket) and is in force on seat0 while alice is active:
# `status` says so; her edit of the file is in force a moment later (inotify); while
# bob is active seat0 has the system's settings; back on alice, hers again, sent by
# the same bridge on its resume.
# shellcheck source=../lib.sh
. "$TIER/lib.sh"

step "the package (installed by an earlier scenario, or now)"
ensure_package

step "alice and bob logged in on seat0, alice active"
for user in alice bob; do id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"; done
has_session alice || autologin alice 2
has_session bob || autologin bob 3
activate alice
systemctl start popgestured.service
journal_mark

# settings_are WIDTH USER-KEYS: status's settings for seat0 (asked as root, on seat0).
settings_are() {
    popgesturectl status --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin).get("settings") or {}
sys.exit(0 if s.get("seat") == "seat0" and s.get("edgeWidthMm") == float(sys.argv[1])
         and s.get("user") == [k for k in sys.argv[2].split(",") if k] else 1)' "$1" "$2"
}
settings_now() { popgesturectl status --json | python3 -c 'import json, sys; print(json.load(sys.stdin).get("settings"))'; }

step "alice's file, then her desktop session: the bridge sends it"
home=$(getent passwd alice | cut -d: -f6)
install -d -o alice -g alice "$home/.config" "$home/.config/popgestured"
printf '# alice\nedge-width-mm = 9\n' >"$home/.config/popgestured/popgestured.conf"
chown alice:alice "$home/.config/popgestured/popgestured.conf"
unit=popgesturectl-bridge.service
trap 'end_sway_bridge_session alice; cleanup' EXIT
sway_bridge_session alice org.example.reader
bridge_pid=$BRIDGE_PID
wait_for 30 "alice's 9 mm edge in force on seat0" settings_are 9 edge-width-mm
log "alice active: $(settings_now)"

step "alice edits her file: in force at once"
printf '# alice\nedge-width-mm = 11\ncommit-progress = 0.4\n' >"$home/.config/popgestured/popgestured.conf.new"
chown alice:alice "$home/.config/popgestured/popgestured.conf.new"
mv "$home/.config/popgestured/popgestured.conf.new" "$home/.config/popgestured/popgestured.conf"
wait_for 30 "alice's 11 mm edge" settings_are 11 edge-width-mm,commit-progress
log "after her edit: $(settings_now)"

step "switch seat0 to bob: the system's settings"
activate bob
wait_for 30 "the system's 4.8 mm edge while bob is active" settings_are 4.8 ""
as_user alice systemctl --user is-active --quiet "$unit" || fail "$unit ended at the switch to bob"
log "bob active: $(settings_now)"

step "back to alice: hers again, from the same bridge"
activate alice
wait_for 60 "alice's 11 mm edge again" settings_are 11 edge-width-mm,commit-progress
[ "$(user_unit_prop alice MainPID "$unit")" = "$bridge_pid" ] || fail "alice's bridge was restarted over the switch"
log "alice again: $(settings_now)"
show journal_since_mark
log "PASS"
