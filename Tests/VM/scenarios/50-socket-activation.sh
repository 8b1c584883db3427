#!/usr/bin/env bash
# (e) Socket activation: systemd-socket-activate binds the socket and starts the
# daemon on the first connection, passing it the listening socket (LISTEN_FDS).
# The daemon must serve that very socket (same inode: it did not bind its own),
# find the touchscreen by itself, and deliver a back.
source "$(dirname "$0")/../lib.sh"

activate=$(command -v systemd-socket-activate || true)
[ -n "$activate" ] || activate=/lib/systemd/systemd-socket-activate
need_exec "$activate" "systemd-socket-activate (Debian's systemd package)"
need_daemon

mkdir -p "$(dirname "$SOCK")"
rm -f "$SOCK"
DAEMON_LOG="$WORK/daemon.log"
"$activate" -l "$SOCK" "$POPGESTURED" >"$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!  # systemd-socket-activate execs the daemon: the pid stays
BG_PIDS+=("$DAEMON_PID")
wait_for 30 "systemd-socket-activate to listen on $SOCK" test -S "$SOCK"
inode=$(stat -c %i "$SOCK")

# The first connection starts the daemon; its hello waits in the backlog meanwhile.
REPLY_TIMEOUT=120 open_owner owner
wait_for 60 "the socket-activated daemon to log 'ready'" grep -qiw ready "$DAEMON_LOG"
exe=$(readlink "/proc/$DAEMON_PID/exe")
[ "$exe" = "$(readlink -f "$POPGESTURED")" ] || fail "pid $DAEMON_PID runs $exe, not popgestured"
[ "$(stat -c %i "$SOCK")" = "$inode" ] || fail "the daemon replaced the activated socket with its own"
log "socket-activated daemon pid $DAEMON_PID serves the inherited socket"

create_device "$(recording elan-touchscreen.desc)"
wait_device_listed "$DEV_NODE"
play "$DEV_NODE" "$(fixture elan-touchscreen.swipe.events)"
wait_for 30 "the back through the activated socket" has_event "$WORK/owner.out" back
sleep 1
expect_events "$WORK/owner.out" back 1

stop_daemon
