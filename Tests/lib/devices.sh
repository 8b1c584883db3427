# Device helpers both VM tiers share (sourced; bash): Tests/VM/lib.sh and
# Tests/SystemVM/lib.sh source this one copy. Each uses the sourcing tier's log,
# fail and wait_for, its $WORK folder and its BG_PIDS array (stopped at cleanup).

# udev_prop NODE KEY=VALUE: true when udev has that property on NODE.
udev_prop() { udevadm info --query=property --name="$1" 2>/dev/null | grep -qx "$2"; }

# desc_name DESC: the device name an evemu description gives (its N: line).
desc_name() { sed -n 's/^N: //p' "$1" | head -n 1; }

_evemu_printed_node() {
    # Alive, and not a zombie yet to be reaped.
    [ -e "/proc/$DEV_PID" ] && [ "$(awk '{print $3}' "/proc/$DEV_PID/stat" 2>/dev/null)" != Z ] || { cat "$1" >&2; fail "evemu-device exited: cannot create a device from $DEV_DESC"; }
    grep -q '/dev/input/event[0-9]' "$1"
}
# create_device DESC: a uinput device made from an evemu description (or a recording
# with its header) by evemu-device, which keeps it while it runs (a touchscreen
# plugged in). Sets DEV_NODE (/dev/input/eventN), DEV_PID and DEV_KIND (touchscreen,
# touchpad or other) once udev has processed it, so the daemon's monitor has seen it.
create_device() {
    DEV_DESC=$1
    [ -e "$DEV_DESC" ] || fail "the device description is missing: $DEV_DESC"
    local out
    out=$(mktemp -p "$WORK" evemu-device.XXXX)
    # stdbuf: evemu-device prints the node, then sleeps; not in a buffer.
    stdbuf -oL evemu-device "$DEV_DESC" >"$out" 2>&1 &
    DEV_PID=$!
    BG_PIDS+=("$DEV_PID")
    wait_for 60 "evemu-device to print its /dev/input node" _evemu_printed_node "$out"
    DEV_NODE=$(grep -o '/dev/input/event[0-9]*' "$out" | head -n 1)
    udevadm settle --timeout=60 || true
    wait_for 60 "udev to tag $DEV_NODE" udev_prop "$DEV_NODE" ID_INPUT=1
    DEV_KIND=other
    udev_prop "$DEV_NODE" ID_INPUT_TOUCHSCREEN=1 && DEV_KIND=touchscreen
    udev_prop "$DEV_NODE" ID_INPUT_TOUCHPAD=1 && DEV_KIND=touchpad
    log "device $DEV_NODE ($DEV_KIND, \"$(cat "/sys/class/input/${DEV_NODE##*/}/device/name" 2>/dev/null)\") from ${DEV_DESC##*/}, evemu-device pid $DEV_PID"
}

# remove_device [PID NODE]: unplugs it (ends evemu-device) and waits for the node to go.
remove_device() {
    local pid=${1:-$DEV_PID} node=${2:-$DEV_NODE}
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    wait_for 30 "$node to disappear" test ! -e "$node"
    udevadm settle --timeout=60 || true
    log "device $node removed"
}

# play NODE FILE: evemu-play of FILE's events into NODE, with their own timing.
play() {
    [ -e "$2" ] || fail "the recording is missing: $2"
    log "playing ${2##*/} into $1"
    evemu-play "$1" <"$2" || fail "evemu-play $1 < $2 failed"
}

# back_input_node: the event node of the daemon's "popgestured back input"; empty if none.
back_input_node() {
    local dir
    for dir in /sys/class/input/event*; do
        [ "$(cat "$dir/device/name" 2>/dev/null)" = "popgestured back input" ] && { echo "/dev/input/${dir##*/}"; return 0; }
    done
    return 0
}
has_back_input_node() { local node; node=$(back_input_node); [ -n "$node" ] && [ -e "$node" ]; }

# key_lines [SUFFIX]: the "key CODE VALUE" lines Tests/VM/evread.py --keys wrote to
# $WORK/keysSUFFIX.out so far, without their times.
key_lines() { awk '$1 == "key" { print $2, $3 }' "$WORK/keys${1:-}.out"; }

# restore_uinput: /dev/uinput back to the kernel's root:root 0600, for a scenario that
# gave it to a group (a udev rule's effect outlives the scenario in the VM).
restore_uinput() { chgrp root /dev/uinput; chmod 0600 /dev/uinput; }
