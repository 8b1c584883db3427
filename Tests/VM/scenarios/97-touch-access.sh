#!/usr/bin/env bash
# timeout: 600
# Issue 18: the service reads touchscreens and touchpads only. It joins
# popgestured-touch, not input; systemd/udev/72-popgestured-touch-access.rules and its
# helper give that group an ACL entry (group:popgestured-touch:r--) on the event node
# of every device udev tags ID_INPUT_TOUCHSCREEN=1 or ID_INPUT_TOUCHPAD=1.
#
#   install:  a touchscreen (the ELAN panel), a keyboard (Tests/VM/keyboard.desc)
#             and a keyboard that is a touchpad in the same node
#             (Tests/VM/keyboard-touchpad.desc, issue 28) are there first; the group is made as the package's postinst makes it
#             (systemd-sysusers popgestured.conf; the VM's /etc is virtme-ng's tmpfs
#             overlay, never the host's), the rule and helper go in, and the
#             postinst's trigger (change, touch nodes only) gives the touchscreen
#             its entry and leaves the keyboard alone, untouched, not even
#             triggered; the typing touchpad is triggered and gets no entry.
#             Owner, group, mode and the input group's access stay.
#   access:   nobody in popgestured-touch alone opens the touchscreen read-only;
#             read-write, the keyboard and (without the group) the touchscreen
#             fail with EACCES.
#   daemon:   the real popgestured as nobody with only popgestured-touch uses the
#             touchscreen (a swipe's back reaches a client) and a touchpad plugged
#             in while it runs (the entry is there before udev announces the node);
#             a change event keeps the entry and the device.
#   decided last: a later rule (99-vmtest-*, after 72) makes the touchpad no
#             touchpad: on its change event the entry goes. The helper reads the
#             properties every rule left, as the daemon does.
#   grab:     the daemon in the service's two groups with --grab on grabs the
#             touchscreen through its read-only descriptor; the clone and the back
#             input device (both made through /dev/uinput) get no entry.
#   start:    udev/99-popgestured-start.rules, installed with the access rule,
#             makes the touch nodes, and no other (the keyboard, the clone, the
#             back input device), want popgestured-touch.target; checked with
#             the entries at each stage.
source "$(dirname "$0")/../lib.sh"

touch_group=popgestured-touch
helper="$REPO/systemd/udev/popgestured-touch-access"
need_exec "$helper" "the touch access rule's helper"
command -v setfacl >/dev/null && command -v getfacl >/dev/null || fail "setfacl/getfacl missing (acl; scripts/setup --vm installs it)"

# systemd-sysusers writes /etc/group: only into virtme-ng's overlay.
fstype=$(findmnt -n -o FSTYPE --target /etc)
[ "$fstype" = overlay ] || fail "/etc is $fstype here, not virtme-ng's overlay: systemd-sysusers would write the host's /etc/group"
# It adds the unit's user too (sysusers.d/popgestured.conf): /etc/shadow must be the
# overlay's, whether or not 96 ran first.
writable_shadow

# has_entry NODE: the node's ACL names popgestured-touch, read-only.
acl_of() { getfacl --absolute-names --omit-header "$1" 2>/dev/null; }
has_entry() { acl_of "$1" | grep -q "^group:$touch_group:r--"; }
# open_as GROUPS NODE FLAGS: what open(2) gives nobody with only the supplementary
# GROUPS ("" for none): "ok" or the errno's name. FLAGS: r or rw.
open_as() {
    local groups=(--clear-groups)
    [ -z "$1" ] || groups=(--groups="$1")
    setpriv --reuid=nobody --regid=nogroup "${groups[@]}" -- /usr/bin/python3 -c '
import errno, os, sys
flags = os.O_RDONLY if sys.argv[2] == "r" else os.O_RDWR
try:
    os.close(os.open(sys.argv[1], flags | os.O_NONBLOCK))
    print("ok")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))' "$2" "$3"
}
# every_node_as_udev_says WHEN: each event node of the VM (its own keyboard and
# buttons included) has the entry exactly when udev tags it ID_INPUT_TOUCHSCREEN=1 or
# ID_INPUT_TOUCHPAD=1, it is no clone of the daemon's and it is no keyboard (the helper
# reads the kernel's key bitmap; for this VM's nodes that is udev's ID_INPUT_KEYBOARD);
# the list goes to the log.
every_node_as_udev_says() {
    local sys node kind want got
    for sys in /sys/class/input/event*; do
        node=/dev/input/${sys##*/}
        kind=$(udevadm info --query=property --name="$node" | { grep -oE '^ID_INPUT_(TOUCHSCREEN|TOUCHPAD|KEYBOARD|KEY|MOUSE)=1' || true; } | xargs)
        want=no
        if grep -qE 'TOUCHSCREEN|TOUCHPAD' <<<"$kind" && ! grep -q KEYBOARD <<<"$kind" &&
            [[ $(cat "$sys/device/phys" 2>/dev/null) != popgestured/* ]]; then want=yes; fi
        got=no
        if has_entry "$node"; then got=yes; fi
        wants=no
        if udevadm info --query=property --name="$node" | grep -qx 'SYSTEMD_WANTS=popgestured-touch.target'; then wants=yes; fi
        log "$1: $node \"$(cat "$sys/device/name")\" ${kind:-(no ID_INPUT_ type)}, phys \"$(cat "$sys/device/phys" 2>/dev/null)\": $touch_group entry $got, wants popgestured-touch.target $wants"
        [ "$want" = "$got" ] || { acl_of "$node" >&2; fail "$1: $node has the entry: $got, but udev says touch (and no clone): $want"; }
        [ "$want" = "$wants" ] || fail "$1: $node wants popgestured-touch.target: $wants, but udev says touch (and no clone): $want"
    done
}
expect_open() {  # expect_open GROUPS NODE FLAGS WANT WHAT
    local got
    got=$(open_as "$1" "$2" "$3")
    [ "$got" = "$4" ] || { acl_of "$2" >&2; ls -l "$2" >&2; fail "$5: open($2, ${3}) as nobody${1:+ in $1} gave $got, expected $4"; }
    log "$5: open($2, $3) as nobody${1:+ in $1}: $got"
}

# ---------------------------------------------------------------- devices there before the rule
create_device "$(recording elan-touchscreen.desc)"
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $DEV_NODE as a touchscreen"
screen=$DEV_NODE
create_device "$VM_DIR/keyboard.desc"
keyboard=$DEV_NODE
udev_prop "$keyboard" ID_INPUT_KEYBOARD=1 || fail "udev did not tag $keyboard ID_INPUT_KEYBOARD=1"
[ "$DEV_KIND" = other ] || fail "udev took the keyboard $keyboard for a $DEV_KIND"
create_device "$VM_DIR/keyboard-touchpad.desc"
typing_pad=$DEV_NODE
[ "$DEV_KIND" = touchpad ] && udev_prop "$typing_pad" ID_INPUT_KEYBOARD=1 ||
    fail "udev did not tag $typing_pad both a touchpad and a keyboard (kind $DEV_KIND)"
log "typing touchpad $typing_pad: capabilities/key $(cat "/sys/class/input/${typing_pad##*/}/device/capabilities/key")"
screen_before=$(stat -c '%U %G %a' "$screen")
keyboard_before=$(stat -c '%U %G %a' "$keyboard")
log "before: $screen $screen_before, $keyboard $keyboard_before"
has_entry "$screen" && fail "$screen has a $touch_group entry before the rule is installed"
# nobody has no way in: the node is root:input 0660.
expect_open "" "$screen" r EACCES "before the rule"

# ---------------------------------------------------------------- install as the package does
# The group: the package's postinst runs `systemd-sysusers popgestured.conf`, which
# finds the file in /usr/lib/sysusers.d; /run/sysusers.d is searched as well.
mkdir -p /run/sysusers.d
install -m644 "$REPO/systemd/sysusers.d/popgestured.conf" /run/sysusers.d/popgestured.conf
trap 'restore_uinput; rm -f /run/sysusers.d/popgestured.conf; cleanup' EXIT
systemd-sysusers popgestured.conf >"$WORK/sysusers.log" 2>&1 || { cat "$WORK/sysusers.log" >&2; fail "systemd-sysusers popgestured.conf failed"; }
getent group "$touch_group" >/dev/null || fail "systemd-sysusers made no $touch_group group"
log "group: $(getent group "$touch_group")"
# The rule, with the helper where the repository has it (the package's is /usr/lib/udev/).
rule=/run/udev/rules.d/72-popgestured-touch-access.rules
mkdir -p /run/udev/rules.d
sed "s#/usr/local/lib/udev/popgestured-touch-access#$helper#" "$REPO/systemd/udev/72-popgestured-touch-access.rules" >"$rule"
grep -qxF "RUN+=\"$helper\"" "$rule" || fail "systemd/udev/72-popgestured-touch-access.rules no longer runs /usr/local/lib/udev/popgestured-touch-access"
UDEV_RULES+=("$rule")
# The start rule, installed with it (the package's 99-popgestured-start.rules).
start_rule=/run/udev/rules.d/99-popgestured-start.rules
cp "$REPO/systemd/udev/99-popgestured-start.rules" "$start_rule"
UDEV_RULES+=("$start_rule")
udevadm control --reload
# packaging/debian/postinst's trigger: change events for the touch nodes alone.
udevadm trigger --verbose --action=change --settle --subsystem-match=input --sysname-match='event*' \
    --property-match=ID_INPUT_TOUCHSCREEN=1 --property-match=ID_INPUT_TOUCHPAD=1 >"$WORK/trigger.out" 2>&1 ||
    { cat "$WORK/trigger.out" >&2; fail "the postinst's udevadm trigger failed"; }
log "the postinst's trigger sent change to: $(tr '\n' ' ' <"$WORK/trigger.out")"
grep -q "/${screen##*/}\$" "$WORK/trigger.out" || fail "the trigger did not reach the touchscreen $screen"
grep -q "/${keyboard##*/}\$" "$WORK/trigger.out" && fail "the trigger sent the keyboard $keyboard a change event"

has_entry "$screen" || { acl_of "$screen" >&2; fail "after the trigger $screen has no $touch_group entry"; }
[ "$(stat -c '%U %G %a' "$screen")" = "$screen_before" ] || fail "$screen is now $(stat -c '%U %G %a' "$screen"), was $screen_before"
acl_of "$screen" | grep -qx 'group::rw-' || { acl_of "$screen" >&2; fail "the input group lost its rw- on $screen"; }
acl_of "$screen" | grep -qx 'mask::rw-' || { acl_of "$screen" >&2; fail "the mask of $screen is not rw- (the input group's access would be cut)"; }
[ "$(acl_of "$keyboard" | grep -vc '^$')" -eq 3 ] || { acl_of "$keyboard" >&2; fail "the keyboard $keyboard has an ACL"; }
grep -q "/${typing_pad##*/}\$" "$WORK/trigger.out" || fail "the trigger did not reach the typing touchpad $typing_pad"
has_entry "$typing_pad" && { acl_of "$typing_pad" >&2; fail "the typing touchpad $typing_pad has a $touch_group entry"; }
[ "$(stat -c '%U %G %a' "$keyboard")" = "$keyboard_before" ] || fail "$keyboard is now $(stat -c '%U %G %a' "$keyboard")"
log "installed: $screen $(stat -c '%U %G %a' "$screen") + $(acl_of "$screen" | grep "^group:$touch_group"); $keyboard $keyboard_before, no ACL"
ls -l "$screen" "$keyboard" >&2
every_node_as_udev_says installed

# ---------------------------------------------------------------- what the group opens
expect_open "$touch_group" "$screen" r ok "touchscreen"
expect_open "$touch_group" "$screen" rw EACCES "touchscreen, read-write"
expect_open "$touch_group" "$keyboard" r EACCES "keyboard"
expect_open "$touch_group" "$typing_pad" r EACCES "typing touchpad"
expect_open "" "$screen" r EACCES "touchscreen, without the group"

# ---------------------------------------------------------------- the daemon as nobody in popgestured-touch alone
# A socket folder nobody can write; clients connect as root.
SOCK="$(mktemp -d /run/vmtest-touch.XXXXXX)/popgestured.sock"
chmod 0777 "$(dirname "$SOCK")"
export POPGESTURED_SOCKET="$SOCK"
real_daemon=$POPGESTURED
# as_nobody GROUPS: POPGESTURED becomes a wrapper running the real binary as nobody in
# GROUPS (exec all the way: DAEMON_PID is the daemon's).
as_nobody() {
    POPGESTURED="$RUNDIR/popgestured-as-nobody-${1//,/-}"
    printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --groups=%s -- %q "$@"\n' "$1" "$real_daemon" >"$POPGESTURED"
    chmod 755 "$POPGESTURED"
}
daemon_uses() { grep -qF "$1 \"$2\": using it as a $3" "$DAEMON_LOG"; }

as_nobody "$touch_group"
start_daemon
[ "$(stat -c %U "/proc/$DAEMON_PID")" = nobody ] || fail "the daemon runs as $(stat -c %U "/proc/$DAEMON_PID")"
grep -E '^Groups:' "/proc/$DAEMON_PID/status" >&2
[ "$(awk '$1 == "Groups:" { $1 = ""; print $0 }' "/proc/$DAEMON_PID/status" | xargs)" = "$(getent group "$touch_group" | cut -d: -f3)" ] ||
    fail "the daemon's supplementary groups are not $touch_group alone: $(grep '^Groups:' "/proc/$DAEMON_PID/status")"
wait_device_listed "$screen"
wait_for 30 "the daemon to log that it uses $screen" daemon_uses "$screen" "ELAN Touchscreen" touchscreen
has_open "$DAEMON_PID" "$keyboard" && fail "the daemon has the keyboard open"
has_open "$DAEMON_PID" "$typing_pad" && fail "the daemon has the typing touchpad open"
grep -F "$typing_pad" "$DAEMON_LOG" | grep -iE 'cannot use|permission' && fail "the daemon tried the typing touchpad $typing_pad (above)"
log "daemon (pid $DAEMON_PID, nobody in $touch_group): $(grep -F "$screen " "$DAEMON_LOG" | tail -n 1)"

open_observer watch
open_owner owner
vmctl wait-front --timeout 30 || fail "the owner's navigator is not in front"
DEV_NODE=$screen expect_one_back_from "$(fixture elan-touchscreen.swipe.events)" 1
log "a swipe on $screen: the owner got its back: $(grep -E '"type" *: *"back"' "$WORK/owner.out")"

# Hotplugged while the daemon runs: the entry is set (RUN+=) before udev announces
# the node, so the daemon's first open works.
create_device "$(recording synaptics.desc)"
touchpad=$DEV_NODE touchpad_pid=$DEV_PID
[ "$DEV_KIND" = touchpad ] || fail "udev did not tag $touchpad as a touchpad"
has_entry "$touchpad" || { acl_of "$touchpad" >&2; fail "the hotplugged touchpad $touchpad has no $touch_group entry"; }
wait_device_listed "$touchpad"
wait_for 30 "the daemon to log that it uses $touchpad" daemon_uses "$touchpad" "SynPS/2 Synaptics TouchPad" touchpad
log "hotplugged touchpad: $(acl_of "$touchpad" | grep "^group:$touch_group"); $(grep -F "$touchpad " "$DAEMON_LOG" | tail -n 1)"

# A change event (a rule reloaded, udevadm trigger) keeps the entry and the device.
udevadm trigger --action=change --settle "$screen"
has_entry "$screen" || { acl_of "$screen" >&2; fail "a change event took the entry off $screen"; }
sleep 1
vmctl wait-device "$screen" --timeout 10 || fail "the daemon no longer lists $screen after a change event"
if grep -iE 'permission denied|cannot use it' "$DAEMON_LOG" | grep -vi 'back input' >&2; then
    fail "the daemon could not open a touch device (above)"
fi
daemon_alive
stop_daemon
grep -i 'back input off' "$DAEMON_LOG" >&2 || true  # no popgestured-uinput here: expected
log "the daemon in $touch_group alone used the touchscreen and the touchpad, and stopped cleanly"

# ---------------------------------------------------------------- decided after every rule
# A rule after 72 (99-vmtest-*) says the touchpad is none: on the change event the
# helper sees the final ID_INPUT_TOUCHPAD=0 and takes the entry away.
udev_rule no-touchpad "SynPS/2 Synaptics TouchPad" 'ENV{ID_INPUT_TOUCHPAD}="0"'
udevadm trigger --action=change --settle "$touchpad"
udev_prop "$touchpad" ID_INPUT_TOUCHPAD=0 || fail "the test rule did not make $touchpad a non-touchpad"
has_entry "$touchpad" && { acl_of "$touchpad" >&2; fail "$touchpad kept its entry after a later rule made it no touchpad"; }
acl_of "$touchpad" | grep -qx 'group::rw-' || { acl_of "$touchpad" >&2; fail "taking the entry away changed the input group's access"; }
expect_open "$touch_group" "$touchpad" r EACCES "touchpad made no touchpad by a 99- rule"
rm -f /run/udev/rules.d/99-vmtest-no-touchpad.rules
udevadm control --reload
udevadm trigger --action=change --settle "$touchpad"
has_entry "$touchpad" || fail "$touchpad did not get its entry back once the test rule was gone"
log "a later rule's ID_INPUT_TOUCHPAD=0 took the entry away; without that rule, back"
remove_device "$touchpad_pid" "$touchpad"

# ---------------------------------------------------------------- grab mode in the service's groups
# /dev/uinput to popgestured-uinput, as the shipped 70- rule does (the group exists
# now: systemd-sysusers made both).
uinput_rule=/run/udev/rules.d/70-popgestured-uinput.rules
cp "$REPO/systemd/udev/70-popgestured-uinput.rules" "$uinput_rule"
UDEV_RULES+=("$uinput_rule")
udevadm control --reload
udevadm trigger --action=change --sysname-match=uinput --settle
[ "$(stat -c '%G %a' /dev/uinput)" = "popgestured-uinput 660" ] || fail "/dev/uinput is $(stat -c '%G %a' /dev/uinput)"
groups=$(sed -n 's/^SupplementaryGroups=//p' "$REPO/systemd/popgestured.service" | tr ' ' ',')
[ "$groups" = "$touch_group,popgestured-uinput" ] || fail "the unit's groups are $groups"
as_nobody "$groups"
start_daemon --grab on
wait_grabbed "$screen"
wait_for 60 "the daemon's back input device" grep -qx 'popgestured back input' /sys/class/input/input*/name
back_input=""
for dir in /sys/class/input/event*; do
    [ "$(cat "$dir/device/name" 2>/dev/null)" = "popgestured back input" ] && back_input=/dev/input/${dir##*/}
done
[ -e "$back_input" ] || fail "no node for the back input device"
udevadm settle --timeout=60 || true
for node in "$CLONE" "$back_input"; do
    has_entry "$node" && { acl_of "$node" >&2; fail "$node, made by the daemon through /dev/uinput, got a $touch_group entry"; }
    expect_open "$touch_group" "$node" r EACCES "the daemon's own uinput device $node"
done
udev_prop "$CLONE" ID_INPUT_TOUCHSCREEN=1 || fail "the clone $CLONE is not tagged a touchscreen"
every_node_as_udev_says "grab mode"
open_owner owner2
vmctl wait-front --timeout 30 || fail "owner2's navigator is not in front"
play "$screen" "$(fixture elan-touchscreen.swipe.events)"
wait_for 30 "the back through the grabbed touchscreen" has_event "$WORK/owner2.out" back
expect_events "$WORK/owner2.out" back 1
stop_daemon
log "grab mode as nobody in $groups: $screen grabbed on its read-only descriptor, clone $CLONE and back input $back_input without an entry, a back"
