#!/bin/bash
# Issue 18: switching the active session of a seat. The installed package (apt, from
# dist/), the daemon started through its socket unit as the systemd service, two
# users with console logins on seat0 (alice on tty2, bob on tty3, through getty,
# login and PAM as a person logs in). With `clients = seat` (the default), the
# active user's observer and shell are admitted; the other user, who has a session
# on the seat but not the active one, connects paused, and a user with no session
# is refused. Issue 28: switching the active session pauses the old user's clients
# (never closes them) and resumes the new user's, whose waiting shell is the shell
# at once; switching back does the reverse, on the same connections. Then with
# `clients = any`: a switch pauses only the old user's shell, its observer stays.
# shellcheck source=../lib.sh
. "$TIER/lib.sh"

step "the system: systemd as PID 1, logind, seat0"
show ps -o pid,comm -p 1
show systemctl is-system-running
show loginctl list-seats --no-legend
show loginctl show-seat seat0 -p CanTTY -p CanGraphical -p ActiveSession
[ "$(ps -o comm= -p 1)" = systemd ] || fail "PID 1 is $(ps -o comm= -p 1), not systemd"
systemctl is-active --quiet systemd-logind || fail "systemd-logind is not running"

step "install the package: apt install ./${DEB##*/} (no network in the VM)"
cp "$REPO/$DEB" /root/
apt_log="$WORK/apt.log"
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y "/root/${DEB##*/}" >"$apt_log" 2>&1; then
    sed 's/^/      /' "$apt_log"
    fail "apt install ./${DEB##*/} failed"
fi
grep -E '^(Setting up|Unpacking|Selecting|Created symlink|[0-9]+ upgraded)' "$apt_log" | sed 's/^/      /'
show systemctl is-enabled popgestured.socket
show systemctl is-active popgestured.socket popgestured.service
systemctl is-active --quiet popgestured.socket || fail "the postinst did not start popgestured.socket"
systemctl is-active --quiet popgestured.service && log "note: the service already runs before any client"
[ -S "$SOCK" ] || fail "no socket at $SOCK"
show stat -c '%n %U:%G %a' "$SOCK"

step "two users, each with a console login on seat0"
# carol has an account and no session: the daemon refuses her.
for user in alice bob carol; do id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"; done
autologin alice 2
autologin bob 3
show loginctl list-sessions
for user in alice bob; do
    show loginctl show-session "$(session_of "$user")" -p Name -p Seat -p VTNr -p TTY -p Type -p Class -p Remote -p State
done

step "alice's session active"
activate alice
show loginctl list-sessions
journal_mark

step "alice: an observer and a shell are admitted (the service runs: started by the socket, or already)"
client alice-observer alice --subscribe
expect_admitted alice-observer subscribed
client alice-shell alice --role shell
expect_admitted alice-shell
show systemctl is-active popgestured.service
main_pid=$(systemctl show -p MainPID --value popgestured.service)
[ "$main_pid" -gt 0 ] || fail "popgestured.service has no main process"
show ps -o pid,user,group,supgrp,comm -p "$main_pid"
# The unit's User=: the package's static system user popgestured, neither root nor alice.
[ "$(ps -o uid= -p "$main_pid" | tr -d ' ')" = "$(id -u popgestured)" ] ||
    fail "the daemon runs as $(ps -o user= -p "$main_pid"), not as the unit's user popgestured"

step "bob (a session on seat0, not the active one) connects paused; carol (no session) is refused"
client bob-observer bob --subscribe
expect_event bob-observer paused
hello_ok bob-observer || { lines bob-observer; fail "bob-observer: no hello reply before paused"; }
client bob-shell bob --role shell
expect_event bob-shell paused
client carol-refused carol --subscribe
expect_closed_with carol-refused not-permitted
show journal_since_mark

step "switch seat0 to bob: alice's clients are paused, not closed; bob's resume, his shell is the shell"
journal_mark
activate bob
expect_event alice-observer paused
expect_event alice-shell paused
expect_event bob-observer resumed
expect_event bob-shell resumed
# bob's waiting shell holds seat0's role: a second one is refused.
client bob-shell-2 bob --role shell
expect_closed_with bob-shell-2 shell-taken
show loginctl list-sessions
show journal_since_mark
journal_since_mark | grep -q 'logind changed a seat; clients asked again' ||
    fail "the daemon did not log 'logind changed a seat; clients asked again'"

step "switch seat0 back to alice: the reverse, on the same connections"
journal_mark
activate alice
expect_event alice-observer resumed
expect_event alice-shell resumed
expect_event bob-observer paused 2
expect_event bob-shell paused 2
client alice-shell-2 alice --role shell
expect_closed_with alice-shell-2 shell-taken
show loginctl list-sessions
show journal_since_mark
journal_since_mark | grep -q 'logind changed a seat; clients asked again' ||
    fail "the daemon did not log 'logind changed a seat; clients asked again' after the switch back"

step "clients = any (a reload): a switch pauses only the old user's shell; the observers stay served"
journal_mark
# The package may ship the file (every key at its default): change only `clients`
# (keys come before the one section, so a new line goes first), and put it back after.
conf=/etc/popgestured/popgestured.conf
mkdir -p /etc/popgestured
had_conf=false
if [ -f "$conf" ]; then had_conf=true; cp -p "$conf" "$WORK/popgestured.conf.orig"; fi
if $had_conf && grep -qE '^[[:space:]]*clients[[:space:]]*=' "$conf"; then
    sed -i -E 's/^[[:space:]]*clients[[:space:]]*=.*/clients = any/' "$conf"
else
    { echo 'clients = any'; cat "$conf" 2>/dev/null || true; } >"$conf.new" && mv "$conf.new" "$conf"
fi
show grep -nE '^[[:space:]]*clients' "$conf"
systemctl reload popgestured.service
wait_for 30 "the daemon to log the reload" sh -c "journalctl -u popgestured.service --after-cursor='$(cat "$WORK/.cursor")' -o cat | grep -q 'any'"
# bob, not active, may connect now; not as the shell.
client bob-observer-any bob --subscribe
expect_admitted bob-observer-any subscribed
activate bob
expect_event alice-shell paused 2
# bob's shell from before resumes with the role; alice's observer is never paused now.
expect_event bob-shell resumed 2
expect_still_open alice-observer
[ "$(events alice-observer paused)" = 1 ] || { lines alice-observer; fail "alice-observer was paused under clients = any"; }
expect_still_open bob-observer-any
show journal_since_mark
if $had_conf; then cp -p "$WORK/popgestured.conf.orig" "$conf"; else rm -f "$conf"; fi
systemctl reload popgestured.service

step "the daemon's whole journal"
journalctl -u popgestured.service -u popgestured.socket --no-pager -o short-monotonic >"$WORK/journal.txt" 2>&1 || true
sed 's/^/      /' "$WORK/journal.txt"
systemctl is-active --quiet popgestured.service || fail "popgestured.service is no longer active"
log "PASS"
