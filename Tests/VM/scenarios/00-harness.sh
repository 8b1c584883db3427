#!/usr/bin/env bash
# The VM tier itself, with no daemon: uinput devices made from real descriptions
# (protocol B and protocol A), udev tagging them ID_INPUT_TOUCHSCREEN=1, the
# generated swipe fixtures playing into them, a bare reader seeing the lift, and
# Debian's lisgd recognising each swipe as a left-edge, left-to-right gesture.
# When this fails, the other scenarios say nothing about the daemon.
source "$(dirname "$0")/../lib.sh"

for name in elan-touchscreen ntrig-multitouch; do
    create_device "$(recording "$name.desc")"
    [ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $DEV_NODE (${name}) ID_INPUT_TOUCHSCREEN=1"

    python3 -u "$VM_DIR/evread.py" "$DEV_NODE" >"$WORK/$name.evread" 2>&1 &
    reader=$!
    BG_PIDS+=("$reader")
    wait_for 30 "the bare reader to open $DEV_NODE" grep -q '^ready' "$WORK/$name.evread"

    # lisgd needs a screen size without X/Wayland; 2 % of 1920 is inside its 50 px edge.
    lisgd -v -d "$DEV_NODE" -w 1920 -h 1080 -g "1,LR,L,*,R,echo fired >>'$WORK/$name.lisgd'" \
        >"$WORK/$name.lisgd.log" 2>&1 &
    lisgd_pid=$!
    BG_PIDS+=("$lisgd_pid")
    try_wait 30 has_open "$lisgd_pid" "$DEV_NODE" ||
        { cat "$WORK/$name.lisgd.log" >&2; fail "lisgd did not open $DEV_NODE"; }
    sleep 0.5  # opened; let libinput finish adding the device

    play "$DEV_NODE" "$(fixture "$name.swipe.events")"
    wait_for 30 "the bare reader to see the finger lift on $name" grep -q '^up ' "$WORK/$name.evread"
    wait_for 30 "lisgd to run its command for the $name swipe" test -s "$WORK/$name.lisgd"
    log "$name: bare reader saw the lift, lisgd fired $(wc -l <"$WORK/$name.lisgd") time(s)"
    [ "$(wc -l <"$WORK/$name.lisgd")" -eq 1 ] || fail "lisgd fired more than once for one swipe"
    grep -q '^dropped' "$WORK/$name.evread" && fail "the bare reader saw SYN_DROPPED on a plain swipe"

    kill "$lisgd_pid" "$reader"
    remove_device
done

# Unplug while a reader has the device open: the node goes, and the same
# description plugs in again.
create_device "$(recording elan-touchscreen.desc)"
first=$DEV_NODE
remove_device
create_device "$(recording elan-touchscreen.desc)"
log "replugged: $first, then $DEV_NODE"
remove_device
log "harness OK"
