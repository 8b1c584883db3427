#!/bin/bash
# Issue 19, "Bridges that start themselves": the package enables
# popgesturectl-bridge.service (`popgesturectl bridge auto`) for every user
# (deb-systemd-helper --user: systemctl --global), and a real user manager (alice's
# console login: pam_systemd starts user@UID.service) starts it with
# graphical-session.target, which a stand-in desktop target binds to, as
# gnome-session's and the sway wiki's sway-session.target do. In a session where
# none fits (sway's, without SWAYSOCK given to systemd) it says so and ends inactive, not failed, never
# restarted. In sway's session (a stand-in sway IPC socket) it runs sway's bridge,
# which becomes the daemon's shell. A real failure is restarted until systemd's
# start limit. A user switch to bob and back pauses alice's bridge and resumes it as
# the shell, with no restart (issue 28). The per-bridge sway unit replaces it (Conflicts=), also when both
# are wanted at once. apt remove stops it in alice's manager and masks it; apt
# purge leaves no link. The back indicator's unit (issue 31) is enabled for every user
# too, with the package's Recommends (its Python GTK modules, in this root already)
# satisfied; in a session with no display it ends with 3, inactive, not failed.
# shellcheck source=../lib.sh
. "$TIER/lib.sh"

unit=popgesturectl-bridge.service
sway_unit=popgesturectl-sway-bridge.service
link=/etc/systemd/user/graphical-session.target.wants/$unit

step "a fresh installation of the package: $unit enabled for every user, the per-bridge units not"
dpkg --purge popgestured >"$WORK/purge-before.log" 2>&1 || { cat "$WORK/purge-before.log"; fail "dpkg --purge before the installation failed"; }
cp "$REPO/$DEB" /root/
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y "/root/${DEB##*/}" >"$WORK/apt.log" 2>&1; then
    sed 's/^/      /' "$WORK/apt.log"
    fail "apt install ./${DEB##*/} failed"
fi
show ls -l "$link"
[ "$(readlink -f "$link")" = "/usr/lib/systemd/user/$unit" ] ||
    fail "the package did not enable $unit for every user: $link -> $(readlink "$link" || echo nothing)"
show systemctl --global is-enabled "$unit" "$sway_unit" popgesturectl-x11-bridge.service
[ "$(systemctl --global is-enabled "$unit")" = enabled ] || fail "systemctl --global is-enabled $unit: not enabled"
for other in "$sway_unit" popgesturectl-x11-bridge.service; do
    [ "$(systemctl --global is-enabled "$other" || true)" = disabled ] || fail "the package enabled $other too"
done
indicator=popgesture-indicator.service
[ "$(systemctl --global is-enabled "$indicator")" = enabled ] || fail "the package did not enable $indicator for every user"
recommends=$(dpkg-query -W -f '${Recommends}' popgestured)
log "Recommends: $recommends"
for package in $(tr -d ',' <<<"$recommends"); do
    [ "$(dpkg-query -W -f '${db:Status-Status}' "$package" 2>/dev/null)" = installed ] ||
        fail "the package recommends $package, which is not installed"
done
show dpkg-query -W python3-gi python3-gi-cairo gir1.2-gtk-3.0 gir1.2-gtklayershell-0.1

step "alice's console login, the active session of seat0: her user manager"
id alice >/dev/null 2>&1 || useradd -m -s /bin/bash alice
uid=$(id -u alice)
autologin alice 2
activate alice
user_manager alice
as_alice() { as_user alice "$@"; }
user_ctl() { as_alice systemctl --user "$@"; }
prop() { user_unit_prop alice "$1" "$2"; }
show user_ctl is-enabled "$unit"
session() { desktop_session alice "$@"; }
end_session() {
    user_ctl stop systemvm-desktop.target graphical-session.target
    wait_for 30 "$unit to stop with the session" test "$(prop ActiveState "$unit")" = inactive
}
# bridge_journal UNIT: what alice's UNIT logged (its stderr, systemd's lines).
bridge_journal() { journalctl --no-pager -o cat "_SYSTEMD_USER_UNIT=$1" "_UID=$uid" 2>/dev/null | sed 's/^/      /'; }
# journal_has TEXT: a journal line holds TEXT (journald may take a moment).
journal_has() { journalctl --no-pager -o cat 2>/dev/null | grep -qF -- "$1"; }

step "sway without SWAYSOCK: no bridge fits; the unit ends inactive with 3, not failed, not restarted"
session XDG_CURRENT_DESKTOP=sway XDG_SESSION_TYPE=wayland WAYLAND_DISPLAY=wayland-0 DISPLAY=:0
wait_for 30 "$unit to run and end" test "$(prop ExecMainStatus "$unit")" = 3
sleep 3  # no restart after RestartSec=2
show user_ctl show -p ActiveState -p Result -p ExecMainStatus -p NRestarts "$unit"
[ "$(prop ActiveState "$unit")" = inactive ] || fail "$unit is $(prop ActiveState "$unit") after exit 3, not inactive"
[ "$(prop Result "$unit")" = success ] || fail "$unit's result is $(prop Result "$unit"): exit 3 must count as success"
[ "$(prop NRestarts "$unit")" = 0 ] || fail "$unit was restarted after exit 3"
# The indicator started with the session too, and found no display to draw on.
wait_for 30 "$indicator to run and end" test "$(prop ExecMainStatus "$indicator")" = 3
show user_ctl show -p ActiveState -p Result -p ExecMainStatus -p NRestarts "$indicator"
[ "$(prop Result "$indicator")" = success ] && [ "$(prop NRestarts "$indicator")" = 0 ] ||
    fail "$indicator: result $(prop Result "$indicator"), $(prop NRestarts "$indicator") restarts after exit 3"
bridge_journal "$indicator"
wait_for 30 "the journal's line saying that no bridge fits" journal_has 'popgesturectl: bridge auto: sway'"'"'s session without SWAYSOCK: sway has not given it to systemd (systemctl --user import-environment SWAYSOCK); see docs/BRIDGES.md (the session: XDG_CURRENT_DESKTOP=sway, XDG_SESSION_TYPE=wayland, WAYLAND_DISPLAY=wayland-0, SWAYSOCK unset, DISPLAY=:0)'
bridge_journal "$unit"
end_session

step "sway: bridge auto runs sway's bridge, the daemon's shell"
# A stand-in for sway's IPC socket (fake-sway.py): one focused window, app
# org.example.one, pid 4242.
swaysock=/run/user/$uid/sway-ipc.systemvm.sock
fake_sway alice "$swaysock" org.example.one 4242
session SWAYSOCK="$swaysock" WAYLAND_DISPLAY=wayland-1
wait_for 30 "$unit to be active" user_ctl is-active --quiet "$unit"
wait_for 60 "the daemon's focus from alice's sway bridge" shell_focus org.example.one alice
show popgesturectl status
wait_for 30 "the journal's line saying that bridge auto runs sway's bridge" journal_has "popgesturectl bridge auto: SWAYSOCK is set: running bridge sway"
bridge_journal "$unit"

step "a user switch to bob and back: alice's bridge is paused, never ended, and is the shell again (issue 28)"
id bob >/dev/null 2>&1 || useradd -m -s /bin/bash bob
autologin bob 3
bridge_pid=$(prop MainPID "$unit")
activate bob
wait_for 30 "the journal's line saying alice's bridge is paused" journal_has "popgesturectl bridge sway: paused:"
no_shell_focus() { ! shell_focus org.example.one alice; }
wait_for 30 "the daemon's focus to be no longer alice's bridge's" no_shell_focus
sleep 3  # a bridge that ended would be restarted (RestartSec=2) or be inactive by now
show user_ctl show -p ActiveState -p MainPID -p NRestarts "$unit"
user_ctl is-active --quiet "$unit" || fail "$unit ended at the switch to bob"
[ "$(prop MainPID "$unit")" = "$bridge_pid" ] || fail "$unit's bridge was restarted at the switch (pid $bridge_pid, now $(prop MainPID "$unit"))"
activate alice
wait_for 60 "the daemon's focus from alice's bridge again, with no restart" shell_focus org.example.one alice
wait_for 30 "the journal's line saying alice's bridge is resumed" journal_has "popgesturectl bridge sway: resumed: the shell again"
[ "$(prop MainPID "$unit")" = "$bridge_pid" ] && [ "$(prop NRestarts "$unit")" = 0 ] ||
    fail "$unit's bridge was restarted over the switch (pid $bridge_pid, now $(prop MainPID "$unit"), $(prop NRestarts "$unit") restarts)"
log "alice's bridge (pid $bridge_pid) was paused while bob was active and is the shell again, never restarted"
bridge_journal "$unit"

step "the sway unit started by hand replaces bridge auto's (Conflicts=): one shell"
user_ctl start "$sway_unit"
wait_for 30 "$sway_unit to be active" user_ctl is-active --quiet "$sway_unit"
wait_for 30 "$unit to be stopped" test "$(prop ActiveState "$unit")" = inactive
wait_for 60 "the daemon's focus from the sway unit's bridge" shell_focus org.example.one alice
show user_ctl list-units --all 'popgesturectl-*'
bridge_journal "$sway_unit"
user_ctl stop "$sway_unit"
end_session

step "both wanted at once (the sway unit wanted by the desktop too): the sway unit runs, bridge auto's does not"
as_alice mkdir -p /home/alice/.config/systemd/user/systemvm-desktop.target.wants
as_alice ln -sf "/usr/lib/systemd/user/$sway_unit" "/home/alice/.config/systemd/user/systemvm-desktop.target.wants/$sway_unit"
user_ctl daemon-reload
started_before=$(prop ExecMainStartTimestampMonotonic "$unit")
session SWAYSOCK="$swaysock" WAYLAND_DISPLAY=wayland-1
wait_for 30 "$sway_unit to be active" user_ctl is-active --quiet "$sway_unit"
wait_for 60 "the daemon's focus from the sway unit's bridge" shell_focus org.example.one alice
sleep 2
show user_ctl list-units --all 'popgesturectl-*'
[ "$(prop ExecMainStartTimestampMonotonic "$unit")" = "$started_before" ] ||
    fail "$unit ran beside $sway_unit, which conflicts with it"
user_ctl stop "$sway_unit"
rm "/home/alice/.config/systemd/user/systemvm-desktop.target.wants/$sway_unit"
user_ctl daemon-reload
end_session

step "a real failure (sway's socket gone): restarted, then failed at the start limit"
session SWAYSOCK=/run/user/$uid/sway-ipc.gone.sock WAYLAND_DISPLAY=wayland-1
wait_for 90 "$unit to fail" user_ctl is-failed --quiet "$unit"
show user_ctl show -p ActiveState -p Result -p ExecMainStatus -p NRestarts "$unit"
[ "$(prop NRestarts "$unit")" -ge 3 ] || fail "$unit failed after $(prop NRestarts "$unit") restarts: Restart=on-failure did not retry"
bridge_journal "$unit" | tail -n 4
user_ctl stop systemvm-desktop.target graphical-session.target
user_ctl reset-failed "$unit"

step "apt remove: bridge auto's unit stops in alice's manager and is masked; apt purge: no link left"
session SWAYSOCK="$swaysock" WAYLAND_DISPLAY=wayland-1
wait_for 60 "the daemon's focus from alice's sway bridge" shell_focus org.example.one alice
DEBIAN_FRONTEND=noninteractive apt-get remove -y popgestured >"$WORK/remove.log" 2>&1 || { cat "$WORK/remove.log"; fail "apt remove failed"; }
show user_ctl show -p ActiveState -p Result "$unit"
[ "$(prop ActiveState "$unit")" = inactive ] || fail "apt remove left $unit $(prop ActiveState "$unit") in alice's manager"
pgrep -u alice -a popgesturectl && fail "a popgesturectl of alice's still runs after apt remove"
[ "$(readlink "/etc/systemd/user/$unit")" = /dev/null ] || fail "apt remove did not mask $unit in /etc/systemd/user"
[ "$(readlink "/etc/systemd/user/$indicator")" = /dev/null ] || fail "apt remove did not mask $indicator in /etc/systemd/user"
DEBIAN_FRONTEND=noninteractive apt-get purge -y popgestured >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "apt purge failed"; }
show find /etc/systemd/user -name 'popgesture*'
[ -z "$(find /etc/systemd/user -name 'popgesture*')" ] || fail "apt purge left links or masks in /etc/systemd/user"
[ ! -e /var/lib/systemd/deb-systemd-user-helper-enabled/$unit.dsh-also ] || fail "apt purge left deb-systemd-helper's state for $unit"
end_session
user_ctl unset-environment SWAYSOCK WAYLAND_DISPLAY
rm -f /etc/systemd/user/systemvm-desktop.target
log "bridge auto's unit: enabled for all, quiet where nothing fits, sway's bridge in sway, replaced by the sway unit, restarted on failure, gone with the package"
