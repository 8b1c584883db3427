# Helpers for the VM scenarios (Tests/VM/scenarios/*.sh) and the measurement.
# Sourced inside the VM, as root, by a scenario that guest.sh runs with:
#   REPO       the checkout (read-only in the VM)
#   LOGDIR     the writable log folder shared with the host
#   WORK       this scenario's own folder under LOGDIR (its logs and outputs)
#   RECORDINGS the real recordings (../shared/recordings)
#   FIXTURES   generated evemu files (Tests/VM/run writes them before booting)
# A scenario fails by exiting non-zero; `fail` says why in a line starting "FAIL:",
# which guest.sh shows as the reason.
set -euo pipefail

: "${REPO:?REPO is not set: run scenarios through Tests/VM/run}"
: "${LOGDIR:?}" "${WORK:?}" "${RECORDINGS:?}" "${FIXTURES:?}"
VM_DIR="$REPO/Tests/VM"
POPGESTURED="${POPGESTURED:-$REPO/.build/debug/popgestured}"
POPGESTURECTL="${POPGESTURECTL:-$REPO/.build/debug/popgesturectl}"
SOCK="${SOCK:-/run/popgestured/popgestured.sock}"
export POPGESTURED_SOCKET="$SOCK"
mkdir -p "$WORK"
cd "$WORK"
# FIFOs and such live on the VM's own tmpfs, not on the 9p log folder.
RUNDIR=$(mktemp -d /run/vmtest.XXXXXX)

# ---------------------------------------------------------------- basics

# Seconds since boot: one clock for every log line in the VM.
log() { printf '[%9s] %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }
# skip REASON: this root has not what the scenario tests (Debian 12's host files have no
# Phosh): the summary says SKIP and why; never for a tool the tier needs (that fails).
skip() { log "SKIP: $*"; exit 77; }
# A command failing where nobody checks it is a failure too; say which one.
trap 'log "FAIL: unexpected exit status $? at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND"' ERR

now_us() { echo "${EPOCHREALTIME/./}"; }

# alive PID: running, and not a zombie waiting for this shell to reap it.
alive() { [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
not_alive() { ! alive "$1"; }

# wait_for SECONDS WHAT CMD...: runs CMD every 0.2 s until it succeeds; fails
# naming WHAT after SECONDS. TCG is slow and the machine is shared: be generous.
wait_for() {
    local secs=$1 what=$2; shift 2
    try_wait "$secs" "$@" || fail "timed out after ${secs}s waiting for $what"
}
# try_wait SECONDS CMD...: the same, but returns 1 instead of failing.
try_wait() {
    local deadline=$(( $(now_us) + $1 * 1000000 )); shift
    until "$@"; do
        (( $(now_us) < deadline )) || return 1
        sleep 0.2
    done
}

need_file() { [ -e "$1" ] || fail "$2 is missing: $1"; }
need_exec() { [ -x "$1" ] || fail "$2 is missing or not executable: $1"; }
need_daemon() {
    need_exec "$POPGESTURED" "the daemon binary (Tests/VM/run builds it with 'swift build')"
}

# Every background process a scenario starts is recorded, and stopped when it
# exits (guest.sh also kills the scenario's whole process group afterwards).
BG_PIDS=()
stop_background() {
    local pid
    for pid in "${BG_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 0.2
    for pid in "${BG_PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}
cleanup() { stop_background; forget_udev_rules; rm -rf "$RUNDIR"; }
trap cleanup EXIT

# count_events FILE TYPE [REASON]: lines of a JSON event stream with that "type"
# (and "reason"). Compact or spaced JSON both match.
count_events() {
    local file=$1 type=$2 reason=${3:-}
    [ -e "$file" ] || { echo 0; return; }
    if [ -n "$reason" ]; then
        grep -E "\"type\" *: *\"$type\"" "$file" | grep -cE "\"reason\" *: *\"$reason\"" || true
    else
        grep -cE "\"type\" *: *\"$type\"" "$file" || true
    fi
}
has_event() { [ "$(count_events "$@")" -gt 0 ]; }
# has_events FILE TYPE N: at least N such events.
has_events() { [ "$(count_events "$1" "$2")" -ge "$3" ]; }
# expect_events FILE TYPE N [REASON]: exactly N such events, or fail showing the file.
expect_events() {
    local file=$1 type=$2 n=$3 reason=${4:-} got
    got=$(count_events "$file" "$type" "$reason")
    [ "$got" -eq "$n" ] || { tail -n 30 "$file" >&2 || true
        fail "expected $n \"$type\"${reason:+ ($reason)} event(s) in ${file##*/}, got $got"; }
}

# ---------------------------------------------------------------- udev and devices

# start_udevd: udev must run so that devices get ID_INPUT_TOUCHSCREEN and the
# daemon's udev monitor hears about them. guest.sh starts it once per boot.
start_udevd() {
    [ -e /dev/uinput ] || modprobe uinput || fail "modprobe uinput failed: this kernel has no uinput"
    if ! udevadm control --ping 2>/dev/null; then
        /lib/systemd/systemd-udevd --daemon || fail "systemd-udevd did not start"
    fi
    udevadm trigger
    udevadm settle --timeout=60
}

# udev_rule NAME DEVICE-NAME ASSIGNMENTS: a runtime udev rule
# (/run/udev/rules.d/99-vmtest-NAME.rules, on the VM's tmpfs) that gives the event
# nodes of devices called DEVICE-NAME the ASSIGNMENTS (e.g. ENV{WL_OUTPUT}="eDP-1"),
# for devices created after it. Removed when the scenario exits, so later scenarios
# never see it.
UDEV_RULES=()
udev_rule() {
    local file="/run/udev/rules.d/99-vmtest-$1.rules"
    local line="ACTION!=\"remove\", SUBSYSTEM==\"input\", KERNEL==\"event*\", ATTRS{name}==\"$2\", $3"
    mkdir -p /run/udev/rules.d
    printf '%s\n' "$line" >"$file"
    UDEV_RULES+=("$file")
    udevadm control --reload || fail "udevadm control --reload failed"
    log "udev rule $file: $line"
}
forget_udev_rules() {
    [ ${#UDEV_RULES[@]} -gt 0 ] || return 0
    rm -f "${UDEV_RULES[@]}"
    udevadm control --reload || true
}

# The device helpers both VM tiers share: udev_prop, desc_name, create_device,
# remove_device, play, back_input_node, key_lines, restore_uinput.
source "$REPO/Tests/lib/devices.sh"

# writable_shadow: virtme-ng mounts a file of its own over /etc/shadow, and
# systemd-sysusers writes /etc/shadow by renaming a new file onto it when it adds a
# user: onto a mount point that fails (EBUSY). Without that mount, /etc/shadow is the
# overlay's (the scenarios that run sysusers check /etc is an overlay first).
writable_shadow() {
    mountpoint -q /etc/shadow || return 0
    umount /etc/shadow || fail "cannot unmount virtme-ng's /etc/shadow (sysusers could not add the popgestured user)"
    log "virtme-ng's /etc/shadow mount taken away: sysusers writes the overlay's"
}

# has_open PID NODE: the process has NODE open (how to know lisgd is ready: it prints nothing).
has_open() {
    local fd
    for fd in /proc/"$1"/fd/*; do [ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0; done
    return 1
}

# play_bg NODE FILE: the same in the background; sets PLAY_PID.
play_bg() {
    need_file "$2" "the recording"
    log "playing ${2##*/} into $1 (background)"
    evemu-play "$1" <"$2" >"$WORK/evemu-play.log" 2>&1 &
    PLAY_PID=$!
    BG_PIDS+=("$PLAY_PID")
}

# fixture NAME: a generated evemu file, made by Tests/VM/run before booting.
fixture() { need_file "$FIXTURES/$1" "the generated fixture (Tests/VM/run makes it)"; echo "$FIXTURES/$1"; }
recording() { need_file "$RECORDINGS/$1" "the shared recording"; echo "$RECORDINGS/$1"; }

# ---------------------------------------------------------------- the daemon

_daemon_ready() {
    if ! alive "$DAEMON_PID"; then
        wait "$DAEMON_PID" 2>/dev/null && rc=0 || rc=$?
        tail -n 40 "$DAEMON_LOG" >&2 || true
        grep -q "Unknown option '--socket'" "$DAEMON_LOG" &&
            fail "this popgestured has no daemon mode yet: it rejects --socket (status $rc)"
        fail "the daemon exited (status $rc) before saying 'ready'"
    fi
    grep -qiw ready "$DAEMON_LOG" && [ -S "$SOCK" ]
}
# start_daemon [ARGS...]: popgestured --socket $SOCK in the foreground of a
# background job, stderr to $WORK/daemon.log; waits for a log line with the word
# "ready" and the socket. Sets DAEMON_PID and DAEMON_LOG.
start_daemon() {
    need_daemon
    mkdir -p "$(dirname "$SOCK")"
    rm -f "$SOCK"
    DAEMON_LOG="$WORK/daemon.log"
    # What this daemon logs starts after this line (start_daemon appends to the log).
    LOG_MARK=0
    if [ -e "$DAEMON_LOG" ]; then LOG_MARK=$(wc -l <"$DAEMON_LOG"); fi
    log "starting $POPGESTURED --socket $SOCK $*"
    "$POPGESTURED" --socket "$SOCK" "$@" >>"$DAEMON_LOG" 2>&1 &
    DAEMON_PID=$!
    BG_PIDS+=("$DAEMON_PID")
    wait_for 120 "the daemon to log 'ready' and create $SOCK" _daemon_ready
    log "daemon ready, pid $DAEMON_PID"
}

# daemon_alive: fails if the daemon is gone, showing its log.
daemon_alive() {
    alive "$DAEMON_PID" || {
        tail -n 40 "$DAEMON_LOG" >&2 || true; fail "the daemon (pid $DAEMON_PID) is no longer running"; }
}

# stop_daemon: SIGTERM must stop it cleanly (exit status 0) within 30 s.
stop_daemon() {
    daemon_alive
    kill -TERM "$DAEMON_PID"
    local rc=0
    try_wait 30 not_alive "$DAEMON_PID" || { kill -9 "$DAEMON_PID"; fail "the daemon ignored SIGTERM for 30 s"; }
    wait "$DAEMON_PID" 2>/dev/null || rc=$?
    [ "$rc" -eq 0 ] || { tail -n 20 "$DAEMON_LOG" >&2; fail "the daemon exited with status $rc on SIGTERM (expected 0)"; }
    log "daemon stopped cleanly"
}
# daemon_with_grab on|off CONFIG: the daemon (restarted if it runs) with CONFIG and
# grab mode on or off; with on, once it has grabbed the touchscreen ($DEV_NODE), which
# it does when the compositor has opened the clone.
daemon_with_grab() {
    [ -z "${DAEMON_PID:-}" ] || ! alive "$DAEMON_PID" || stop_daemon
    start_daemon --config "$2" --grab "$1"
    [ "$1" = off ] || wait_for 120 "the daemon to grab the touchscreen (sway opens its clone)" _grabbed "$DEV_NODE"
}

# vmctl ARGS: protocol checks (status, wait-device, wait-front) over the socket.
vmctl() { python3 "$VM_DIR/vmctl.py" --socket "$SOCK" "$@"; }
wait_device_listed() { vmctl wait-device "$1" --timeout "${2:-60}" || fail "the daemon never listed $1 (udev hotplug)"; }
wait_device_gone() { vmctl wait-device "$1" --gone --timeout "${2:-60}" || fail "the daemon still lists $1 after unplug"; }

# ---------------------------------------------------------------- clients

# open_client NAME: a raw protocol client (socat) that stays connected. Requests
# go in with `send NAME JSON`; every line received lands in $WORK/NAME.out.
# It says hello and waits for the reply. HELLO-MEMBERS (optional) go into its hello,
# e.g. '"role":"shell"'.
declare -A CLIENT_FD CLIENT_PID
open_client() {
    local name=$1 extra=${2:+,$2} fifo="$RUNDIR/$1.in" fd
    rm -f "$fifo" "$WORK/$name.out"
    mkfifo "$fifo"
    exec {fd}<>"$fifo"  # read-write: never blocks, and keeps socat's input open
    socat - UNIX-CONNECT:"$SOCK" <"$fifo" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    CLIENT_PID[$name]=$!
    BG_PIDS+=("$!")
    CLIENT_FD[$name]=$fd
    send "$name" "{\"type\":\"hello\",\"version\":1,\"name\":\"vm-$name\",\"id\":\"hello\"$extra}"
    _await_reply "$name" hello hello
}
send() { printf '%s\n' "$2" >&"${CLIENT_FD[$1]}"; }

_reply_line() { grep -E "\"id\" *: *\"$2\"" "$WORK/$1.out" | tail -n 1; }
_has_reply() {
    [ -z "${DAEMON_PID:-}" ] || daemon_alive
    alive "${CLIENT_PID[$1]}" || { cat "$WORK/$1.err" >&2 || true; fail "client $1 lost its connection"; }
    [ -n "$(_reply_line "$1" "$2")" ]
}
_await_reply() {
    local name=$1 id=$2 what=$3 line
    wait_for "${REPLY_TIMEOUT:-30}" "the daemon's reply to $what (client $name)" _has_reply "$name" "$id"
    line=$(_reply_line "$name" "$id")
    if grep -qE '"type" *: *"error"' <<<"$line"; then fail "$what refused: $line"; fi
}
# request NAME ID JSON-WITHOUT-BRACES: sends {"type":...,"id":"ID"} and waits for a non-error reply.
request() {
    local name=$1 id=$2 body=$3
    send "$name" "{$body,\"id\":\"$id\"}"
    _await_reply "$name" "$id" "{$body}"
}

# open_owner NAME [HELLO-MEMBERS]: a client owning navigator "main" with pages home
# and detail (in front, as a new window is), so a back pops "detail". HELLO-MEMBERS
# as open_client's (e.g. '"app":"wev"', for a shell's focused window of that app id).
open_owner() {
    open_client "$1" "${2:-}"
    request "$1" create '"type":"create","navigator":"main","pages":[{"id":"home"},{"id":"detail"}]'
}
# push_detail NAME ID: puts "detail" back on top so the next swipe can go back again.
push_detail() { request "$1" "$2" '"type":"push","navigator":"main","page":{"id":"detail"}'; }

# open_observer NAME: a client subscribed to every event, including "rejected".
open_observer() {
    open_client "$1"
    request "$1" subscribe '"type":"subscribe"'
}

# start_example_client: examples/client.py --once, the documented client; it
# prints "back: detail -> home" on its first back and exits 0. Sets EXAMPLE_PID.
start_example_client() {
    need_file "$REPO/examples/client.py" "the example client"
    POPGESTURED_SOCKET="$SOCK" python3 "$REPO/examples/client.py" --once >"$WORK/example-client.out" 2>&1 &
    EXAMPLE_PID=$!
    BG_PIDS+=("$EXAMPLE_PID")
    vmctl wait-front --timeout 60 || { cat "$WORK/example-client.out" >&2; fail "examples/client.py never put a navigator in front"; }
}

# start_monitor NAME: popgesturectl monitor --json, an observer through the CLI.
start_monitor() {
    need_exec "$POPGESTURECTL" "popgesturectl (Tests/VM/run builds it with 'swift build')"
    "$POPGESTURECTL" monitor --json --socket "$SOCK" >"$WORK/$1.out" 2>"$WORK/$1.err" &
    MONITOR_PID=$!
    BG_PIDS+=("$MONITOR_PID")
    vmctl wait-observers 1 --timeout 60 || { cat "$WORK/$1.err" >&2 || true
        fail "popgesturectl monitor never subscribed (no observer in status)"; }
}

# ---------------------------------------------------------------- iio-sensor-proxy

# start_system_bus: a dbus-daemon of the scenario's own (BUS, its address), standing
# for the system bus: exports DBUS_SYSTEM_BUS_ADDRESS, so a daemon started afterwards
# looks for iio-sensor-proxy there. Nobody owns the proxy's name yet.
start_system_bus() {
    BUS="unix:path=$RUNDIR/system_bus_socket"
    dbus-daemon --session --nofork --nopidfile --address="$BUS" >"$WORK/dbus.log" 2>&1 &
    BG_PIDS+=("$!")
    wait_for 30 "the scenario's dbus-daemon" test -S "$RUNDIR/system_bus_socket"
    export DBUS_SYSTEM_BUS_ADDRESS="$BUS"
}
# start_fake_sensor ORIENTATION: a fake net.hadess.SensorProxy on BUS
# (Tests/Fixtures/iio/fake-sensor-proxy.py, python3-gi) saying ORIENTATION.
start_fake_sensor() {
    need_exec /usr/bin/python3 "python3 (with python3-gi) for the fake iio-sensor-proxy"
    /usr/bin/python3 "$REPO/Tests/Fixtures/iio/fake-sensor-proxy.py" "$1" >"$WORK/sensor-proxy.log" 2>&1 &
    BG_PIDS+=("$!")
    wait_for 30 "the fake iio-sensor-proxy to own its name" grep -q ready "$WORK/sensor-proxy.log"
}
# fake_sensor METHOD [ARGS]: calls the fake sensor's net.hadess.SensorProxy.FakeControl.METHOD.
fake_sensor() {
    gdbus call --address "$BUS" --dest net.hadess.SensorProxy --object-path /net/hadess/SensorProxy \
        --method "net.hadess.SensorProxy.FakeControl.$1" "${@:2}"
}
# set_orientation ORIENTATION: the fake sensor now says ORIENTATION (left-up, normal...).
set_orientation() { fake_sensor SetOrientation "$1" >/dev/null || fail "gdbus SetOrientation $1"; }
# sensor_claims: how many clients hold a claim on the fake sensor's accelerometer.
sensor_claims() { fake_sensor Claims | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p'; }
claims_are() { [ "$(sensor_claims)" = "$1" ]; }

# ---------------------------------------------------------------- held fingers

# expect_one_back_from SWIPE BEGAN: plays the evemu file SWIPE into $DEV_NODE, which must
# give the owner exactly one back (the first of the scenario), with BEGAN pop-began in
# all seen by the observer "watch".
expect_one_back_from() {
    play "$DEV_NODE" "$1"
    wait_for 30 "the swipe's back" has_event "$WORK/owner.out" back
    sleep 2  # anything phantom would show up now
    expect_events "$WORK/owner.out" back 1
    expect_events "$WORK/watch.out" pop-began "$2"
}

# ---------------------------------------------------------------- libinput, as a compositor reads

# read_with_libinput NAME NODE: `libinput debug-events` on NODE into $WORK/NAME.out.
read_with_libinput() {
    : >"$WORK/$1.out"
    stdbuf -oL libinput debug-events --device "$2" >"$WORK/$1.out" 2>&1 &
    BG_PIDS+=("$!")
    wait_for 60 "libinput to add $2" grep -q DEVICE_ADDED "$WORK/$1.out"
}
# touches NAME KIND: how many KIND (TOUCH_DOWN, TOUCH_UP, TOUCH_CANCEL) lines NAME.out has.
touches() { grep -c " $2 " "$WORK/$1.out" || true; }
has_touches() { [ "$(touches "$1" "$2")" -ge "$3" ]; }
# expect_touches NAME DOWN UP CANCEL: exactly these counts, or fail showing the file.
expect_touches() {
    local got
    got="$(touches "$1" TOUCH_DOWN) $(touches "$1" TOUCH_UP) $(touches "$1" TOUCH_CANCEL)"
    [ "$got" = "$2 $3 $4" ] || { grep -v TOUCH_MOTION "$WORK/$1.out" | tail -n 30 >&2
        fail "$1: expected TOUCH_DOWN/UP/CANCEL $2 $3 $4, got $got"; }
}
# touch_sequence NAME: NAME.out's touch events without the node and the times: one
# line per TOUCH_DOWN/MOTION/UP/CANCEL/FRAME with its slots and coordinates, to compare
# what libinput made of two nodes given the same frames.
touch_sequence() {
    awk '$2 ~ /^TOUCH_/ { $1 = ""; $3 = ""; print }' "$WORK/$1.out"
}

# ---------------------------------------------------------------- grab mode

# mark_daemon_log: from now on clone_of and wait_grabbed read only newer log lines
# (a device replugged may come back on the same /dev/input node).
mark_daemon_log() { LOG_MARK=$(wc -l <"$DAEMON_LOG"); }
_log_since_mark() { tail -n +"$(( ${LOG_MARK:-0} + 1 ))" "$DAEMON_LOG"; }
# clone_of NODE: the clone the daemon logged for NODE ("NODE ...: cloned as /dev/input/eventN").
clone_of() { _log_since_mark | grep -F "$1 " | sed -n 's/.*cloned as \(\/dev\/input\/event[0-9]*\).*/\1/p' | tail -n 1; }
_grabbed() { daemon_alive; _log_since_mark | grep -qF "$1: grabbed; the compositor reads the clone"; }
_cloned() { daemon_alive; [ -n "$(clone_of "$1")" ]; }
# grabs_of NODE: how many times the daemon called EVIOCGRAB on NODE (its debug line
# "NODE: grabbing (EVIOCGRAB)", --log-level debug) since the mark.
grabs_of() { _log_since_mark | grep -cF "$1: grabbing (EVIOCGRAB)" || true; }
# wait_clone NODE: the daemon (--grab on) cloned NODE; sets CLONE to its clone, once
# udev has tagged it a touchscreen. Nothing reads the clone yet, so no grab comes.
wait_clone() {
    wait_for 120 "the daemon to clone $1" _cloned "$1"
    CLONE=$(clone_of "$1")
    [ -e "$CLONE" ] || fail "no clone node for $1 in the log: $(_log_since_mark | grep -F "$1")"
    wait_for 60 "udev to tag the clone $CLONE a touchscreen" udev_prop "$CLONE" ID_INPUT_TOUCHSCREEN=1
    log "$1 cloned as $CLONE"
}
# wait_grab NODE: the daemon grabbed NODE (once something reads its clone).
wait_grab() {
    wait_for 120 "the daemon to grab $1" _grabbed "$1"
    log "$1 grabbed; its clone is $CLONE"
}
# open_compositor: libinput reads $CLONE as a compositor does (`libinput debug-events`,
# into $WORK/compositor-N.out): the daemon grabs only once something opened the clone.
COMPOSITORS=0
open_compositor() {
    COMPOSITORS=$((COMPOSITORS + 1))
    read_with_libinput "compositor-$COMPOSITORS" "$CLONE"
}
# grab_stage NODE: grab mode's stage for NODE in the daemon's status (its device's
# "grab": waiting-for-udev, waiting-for-reader, waiting-for-lift, grabbed...).
grab_stage() {
    vmctl status | python3 -c 'import json, sys
for d in json.load(sys.stdin).get("devices", []):
    if d.get("path") == sys.argv[1]: print(d.get("grab", "")); break' "$1"
}
stage_is() { [ "$(grab_stage "$1")" = "$2" ]; }
expect_grab_stage() {
    local got
    got=$(grab_stage "$1")
    [ "$got" = "$2" ] || fail "grab mode's stage for $1 is '$got', not '$2'"
}
# wait_grabbed NODE: wait_clone, a compositor on the clone, then wait_grab.
wait_grabbed() {
    wait_clone "$1"
    open_compositor
    wait_grab "$1"
}
