# Helpers for the system VM's scenarios (sourced; bash). The scenario runs as root in
# the booted Debian with systemd as PID 1; $WORK is its folder on the host's share,
# $REPO the repository (read-only), $TIER this folder, $DEB the package's path in
# the repository, $SCENARIO its name, $SYSTEMVM_BOOT 1, or after reboot_vm the
# number of the boot it runs in.
set -euo pipefail

SOCK=/run/popgestured/popgestured.sock
T0=$(date +%s.%N)
BG_PIDS=()

stamp() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%7.2f", b - a }'; }
log() { echo "[$(stamp)] $*"; }
step() { echo; echo "[$(stamp)] ---- $*"; }
fail() { echo "FAIL: $*"; exit 1; }
# show CMD...: runs a command and prints it with its output, indented.
show() {
    echo "[$(stamp)] \$ $*"
    "$@" 2>&1 | sed 's/^/      /' || true
}

# reboot_vm: reboots the VM and runs this scenario again from the top at the next
# boot, with SYSTEMVM_BOOT one higher (guest.sh). What it did before stays on the
# VM's disk; its log goes on. The host allows one boot more per reboot_vm.
reboot_vm() {
    mkdir -p /var/lib/systemvm
    printf 'RESUME_SCENARIO=%q\nRESUME_BOOT=%q\nRESUME_T0=%q\n' \
        "$SCENARIO" "$(( SYSTEMVM_BOOT + 1 ))" "$SCENARIO_T0" >/var/lib/systemvm/resume
    sync
    echo "$SCENARIO $(( SYSTEMVM_BOOT + 1 ))" >>"$OUT/reboots"
    log "rebooting (boot $(( SYSTEMVM_BOOT + 1 )) of $SCENARIO comes next)"
    systemctl reboot
    # systemd stops this scenario on the way down.
    exec sleep infinity
}

cleanup() {
    local pid
    for pid in "${BG_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# wait_for SECONDS WHAT CMD...: polls CMD every 0.1 s; fails naming WHAT.
wait_for() {
    local limit=$1 what=$2 deadline
    shift 2
    deadline=$(awk -v n="$(date +%s.%N)" -v l="$limit" 'BEGIN { printf "%.2f", n + l }')
    until "$@"; do
        awk -v n="$(date +%s.%N)" -v d="$deadline" 'BEGIN { exit !(n > d) }' &&
            fail "timed out after $limit s waiting for $what"
        sleep 0.1
    done
}

# ---------------------------------------------------------------- logind

# session_of USER: the id of USER's session on seat0 (empty when none).
session_of() {
    loginctl list-sessions --no-legend 2>/dev/null |
        awk -v u="$1" '$3 == u && $4 == "seat0" { print $1; exit }'
}
has_session() { [ -n "$(session_of "$1")" ]; }
# active_user: the user of seat0's active session (empty when none).
active_user() {
    local sid
    sid=$(loginctl show-seat seat0 -p ActiveSession --value 2>/dev/null) || return 0
    [ -n "$sid" ] && loginctl show-session "$sid" -p Name --value 2>/dev/null
    return 0
}
is_active_user() { [ "$(active_user)" = "$1" ]; }

# autologin USER VT: a console login of USER on ttyVT, as a person logging in there:
# getty@ttyVT with agetty --autologin (a drop-in in /run), login and PAM
# (pam_systemd), so that logind makes it a seat0 session on that VT.
autologin() {
    local user=$1 vt=$2 dir=/run/systemd/system/getty@tty$2.service.d
    mkdir -p "$dir"
    cat >"$dir/autologin.conf" <<EOF
[Service]
ExecStart=
ExecStart=-/sbin/agetty -o '-p -f -- \\\\u' --noclear --autologin $user - \$TERM
EOF
    systemctl daemon-reload
    # restart, not start: a getty already running on that VT (logind's autovt) would keep its old command line
    systemctl restart "getty@tty$vt.service"
    wait_for 120 "$user's session on seat0 (tty$vt)" has_session "$user"
    log "$user logged in on tty$vt: session $(session_of "$user")"
}

# activate USER: makes USER's session seat0's active one (loginctl activate, which
# switches the VT) and returns once logind says so.
activate() {
    local sid
    sid=$(session_of "$1")
    [ -n "$sid" ] || fail "$1 has no session on seat0"
    loginctl activate "$sid"
    wait_for 60 "$1's session $sid to become seat0's active session" is_active_user "$1"
    log "seat0's active session is now $sid ($1); foreground VT tty$(cat /sys/class/tty/tty0/active | tr -dc 0-9)"
}

# ---------------------------------------------------------------- clients

# run_as NAME USER COMMAND...: COMMAND as USER in the background (setpriv: no PAM, so no
# session of its own), stdin from $WORK/NAME.in when there is one, stdout to
# $WORK/NAME.out, stderr to NAME.err; NAME.exit appears with its exit status when it
# ends. setpriv execs COMMAND, so the pid cleanup ends is the program's own (a paused
# client outlives a user switch, and must not outlive its scenario).
run_as() {
    local name=$1 user=$2 input=/dev/null
    shift 2
    rm -f "$WORK/$name.out" "$WORK/$name.err" "$WORK/$name.exit" "$WORK/$name.pid"
    [ -e "$WORK/$name.in" ] && input=$WORK/$name.in
    (
        setpriv --reuid="$user" --regid="$user" --init-groups "$@" <"$input" >"$WORK/$name.out" 2>"$WORK/$name.err" &
        echo $! >"$WORK/$name.pid"
        wait $!
        echo $? >"$WORK/$name.exit"
    ) &
    BG_PIDS+=("$!")
    wait_for 10 "$name's pid" test -s "$WORK/$name.pid"
    BG_PIDS+=("$(cat "$WORK/$name.pid")")
}
# client NAME USER [client.py options]: client.py as USER (run_as), received lines to
# $WORK/NAME.out, the timed log to NAME.err; NAME.exit appears when the connection
# ends. Waits for the first line.
client() {
    local name=$1 user=$2
    shift 2
    run_as "$name" "$user" python3 "$TIER/client.py" --name "$name" "$@"
    wait_for 30 "the daemon's first line to $name" test -s "$WORK/$name.out"
}
# ensure_package: the package installed, by an earlier scenario or now.
ensure_package() {
    dpkg -s popgestured >/dev/null 2>&1 && return 0
    cp "$REPO/$DEB" /root/
    DEBIAN_FRONTEND=noninteractive apt-get install -y "/root/${DEB##*/}" >"$WORK/apt.log" 2>&1 ||
        { sed 's/^/      /' "$WORK/apt.log"; fail "apt install ./${DEB##*/} failed"; }
}
# lines NAME: what NAME received so far, indented.
lines() { sed 's/^/      /' "$WORK/$1.out"; }
got() { grep -qE "$2" "$WORK/$1.out"; }
closed() { [ -e "$WORK/$1.exit" ]; }
hello_ok() { grep -qE '"type" *: *"hello".*"id" *: *"hello"|"id" *: *"hello".*"type" *: *"hello"' "$WORK/$1.out"; }
error_code() { grep -qE "\"code\" *: *\"$2\"" "$WORK/$1.out"; }

# expect_admitted NAME [subscribed]: its hello was answered with hello (and its
# subscribe with ok), no error, and it is still connected.
expect_admitted() {
    local name=$1
    hello_ok "$name" || { lines "$name"; fail "$name: no hello reply"; }
    if [ "${2:-}" = subscribed ]; then
        wait_for 30 "$name's subscribe reply" got "$name" '"id" *: *"subscribe"'
        got "$name" '"type" *: *"ok".*"subscribe"' || { lines "$name"; fail "$name: subscribe not accepted"; }
    fi
    got "$name" '"type" *: *"error"' && { lines "$name"; fail "$name got an error"; }
    sleep 0.5
    closed "$name" && { lines "$name"; fail "$name was closed"; }
    log "$name: admitted and connected:"
    lines "$name"
}
# expect_closed_with NAME CODE: NAME got an error with CODE and the daemon closed it.
expect_closed_with() {
    local name=$1 code=$2
    wait_for 60 "$name to get $code" error_code "$name" "$code"
    wait_for 30 "the daemon to close $name" closed "$name"
    log "$name: got $code and was closed:"
    lines "$name"
    sed 's/^/      /' "$WORK/$name.err" | grep -E 'received|closed|reset'
}
# expect_still_open NAME: no error and still connected.
expect_still_open() {
    got "$1" '"type" *: *"error"' && { lines "$1"; fail "$1 got an error"; }
    closed "$1" && { lines "$1"; fail "$1 was closed"; }
    log "$1: still connected, no error"
}

# events NAME TYPE: how many lines of "type" TYPE NAME received so far.
events() { grep -cE "\"type\" *: *\"$2\"" "$WORK/$1.out" || true; }
has_events() { [ "$(events "$1" "$2")" -ge "$3" ]; }
# expect_event NAME TYPE [N]: NAME has received its Nth (default 1st) TYPE line and is
# still connected, with no error (a user switch pauses and resumes, never closes).
expect_event() {
    local name=$1 type=$2 count=${3:-1}
    wait_for 60 "$name's $type #$count" has_events "$name" "$type" "$count"
    expect_still_open "$name"
    log "$name: $type #$count"
}

# journal_since CURSOR-FILE: the daemon's journal lines after the cursor saved in
# CURSOR-FILE, which is then moved on.
journal_mark() { journalctl -n 1 --show-cursor -q -o cat 2>/dev/null | sed -n "s/^-- cursor: //p" >"$WORK/.cursor"; }
journal_since_mark() {
    local cursor
    cursor=$(cat "$WORK/.cursor" 2>/dev/null || true)
    journalctl -u popgestured.service -u popgestured.socket --no-pager -o short-monotonic \
        ${cursor:+--after-cursor="$cursor"} 2>&1 | sed 's/^/      /'
}

# ---------------------------------------------------------------- input devices

# recording NAME: a file of the shared ../shared/recordings (RECORDINGS); fails when
# the host shared none.
recording() {
    [ -r "${RECORDINGS:-/nonexistent}/$1" ] ||
        fail "no $1 in the shared recordings (${RECORDINGS:-unset}; HAVE_RECORDINGS=${HAVE_RECORDINGS:-?}): the host needs ../shared/recordings"
    echo "$RECORDINGS/$1"
}
# The device helpers both VM tiers share: udev_prop, desc_name, create_device,
# remove_device, play, back_input_node, key_lines, restore_uinput.
source "$REPO/Tests/lib/devices.sh"

# ---------------------------------------------------------------- user managers and bridges

# user_manager USER: waits for USER's systemd user manager, which their login started
# (pam_systemd: user@UID.service), and its private socket.
user_manager() {
    local uid
    uid=$(id -u "$1")
    wait_for 60 "user@$uid.service" systemctl is-active --quiet "user@$uid.service"
    wait_for 60 "$1's manager's socket" test -S "/run/user/$uid/systemd/private"
}
# as_user USER CMD...: CMD as USER with USER's XDG_RUNTIME_DIR (no D-Bus user bus
# here: systemctl --user reaches the manager through its own socket).
as_user() {
    local user=$1
    shift
    setpriv --reuid="$user" --regid="$user" --init-groups env XDG_RUNTIME_DIR="/run/user/$(id -u "$user")" "$@"
}
# user_unit_prop USER PROPERTY UNIT: a property of UNIT in USER's manager.
user_unit_prop() { as_user "$1" systemctl --user show -p "$2" --value "$3"; }
# desktop_session USER VAR=VALUE...: USER's manager's environment is exactly these of
# bridge auto's variables, and a stand-in desktop target starts, binding
# graphical-session.target as gnome-session's and the sway wiki's targets do.
desktop_session() {
    local user=$1
    shift
    if [ ! -e /etc/systemd/user/systemvm-desktop.target ]; then
        cat >/etc/systemd/user/systemvm-desktop.target <<'UNIT'
[Unit]
Description=A stand-in desktop session (Tests/SystemVM)
BindsTo=graphical-session.target
Wants=graphical-session-pre.target
After=graphical-session-pre.target
UNIT
        as_user "$user" systemctl --user daemon-reload
    fi
    as_user "$user" systemctl --user unset-environment XDG_CURRENT_DESKTOP XDG_SESSION_TYPE WAYLAND_DISPLAY SWAYSOCK DISPLAY
    as_user "$user" systemctl --user set-environment "$@"
    as_user "$user" systemctl --user start systemvm-desktop.target
    wait_for 30 "graphical-session.target in $user's manager" as_user "$user" systemctl --user is-active --quiet graphical-session.target
}
# fake_sway USER SOCKET APP PID: fake-sway.py as USER, sway's IPC socket at SOCKET with
# one focused window (APP, PID); sway_focus SOCKET APP PID moves the focus.
fake_sway() {
    # An earlier scenario's socket and focus file (the same user's runtime folder).
    rm -f "$2" "$2.focus"
    as_user "$1" python3 "$TIER/fake-sway.py" "$2" "$3" "$4" >"$WORK/fake-sway.log" 2>&1 &
    BG_PIDS+=("$!")
    wait_for 30 "the stand-in sway socket" test -S "$2"
}
sway_focus() {
    local sock=$1
    shift
    echo "$*" >"$sock.focus.new" && mv "$sock.focus.new" "$sock.focus"
}
# sway_bridge_session USER APP: USER's stand-in desktop session with the package's
# popgesturectl-bridge.service, bridge auto running sway's bridge against fake-sway.py
# (APP focused, pid 4242); waits until the unit is active and the daemon's focus is
# that bridge's word. Sets SWAYSOCK_PATH and BRIDGE_PID; end_sway_bridge_session USER
# ends the session.
sway_bridge_session() {
    local user=$1 app=$2
    user_manager "$user"
    SWAYSOCK_PATH=/run/user/$(id -u "$user")/sway-ipc.systemvm.sock
    fake_sway "$user" "$SWAYSOCK_PATH" "$app" 4242
    desktop_session "$user" SWAYSOCK="$SWAYSOCK_PATH" WAYLAND_DISPLAY=wayland-1
    wait_for 30 "popgesturectl-bridge.service to be active" \
        as_user "$user" systemctl --user is-active --quiet popgesturectl-bridge.service
    wait_for 60 "the daemon's focus from $user's bridge" shell_focus "$app" "$user"
    BRIDGE_PID=$(user_unit_prop "$user" MainPID popgesturectl-bridge.service)
}
end_sway_bridge_session() {
    as_user "$1" systemctl --user stop systemvm-desktop.target graphical-session.target || true
    as_user "$1" systemctl --user unset-environment SWAYSOCK WAYLAND_DISPLAY || true
}
# shell_focus APP USER: the daemon's focus is the shell's word for APP (pid 4242), and
# the shell is USER's `popgesturectl bridge sway`.
shell_focus() {
    popgesturectl status --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin); f = s.get("focus") or {}
shell = [c for c in s.get("clients", []) if c.get("client") == f.get("shell")]
sys.exit(0 if f.get("source") == "shell" and f.get("app") == sys.argv[1] and f.get("pid") == 4242
         and shell and shell[0].get("name") == "popgesturectl bridge sway" and shell[0].get("uid") == int(sys.argv[2]) else 1)
' "$1" "$(id -u "$2")"
}
