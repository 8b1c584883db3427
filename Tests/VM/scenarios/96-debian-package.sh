#!/usr/bin/env bash
# timeout: 900
# Issue 11: the Debian package (scripts/package) installed with dpkg into the
# VM's own root. virtme-ng boots the host's root read-only under writable tmpfs
# overlays on /etc, /usr, /var (and /lib, /opt...), so dpkg, systemd-sysusers and
# deb-systemd-helper write there and the host never sees it. systemd is not PID 1
# in the VM: deb-systemd-invoke and systemctl are skipped, as in a chroot.
#
#   install:   files in place (dpkg --verify), the units' paths rewritten,
#              /etc/popgestured/popgestured.conf a conffile as the repository has
#              it, the maintainer scripts ran: the popgestured-touch and
#              popgestured-uinput groups exist, the socket and the service are
#              enabled (deb-systemd-helper's symlinks: sockets.target and
#              popgestured-touch.target, not multi-user.target), udev applied the
#              rules: /dev/uinput to its group, and a touchscreen plugged in
#              before the install got its popgestured-touch ACL entry and the
#              start rule's SYSTEMD_WANTS=popgestured-touch.target (which the
#              postinst's check for a touch device finds); no other node wants it;
#              the binaries need no Swift runtime
#   run:       systemd-socket-activate on the unit's socket path runs
#              /usr/bin/popgestured as the unit would (not root: its User=,
#              popgestured, made by sysusers.d, in the
#              unit's SupplementaryGroups=, popgestured-touch and
#              popgestured-uinput), with the Swift toolchain hidden;
#              `popgesturectl status` (the packaged one, default socket) starts
#              and answers; the touchscreen there before and one plugged in now
#              (the installed rules give it its entry and SYSTEMD_WANTS) are
#              listed, the back input made with KEY_BACK too (the shipped file's
#              [back-input] table read), and it wants no target
#   upgrade:   dpkg -i again (postinst configure with the old version) works and
#              keeps an edit of the conffile
#   remove:    dpkg -r: the files go but the conffile, the units are masked,
#              state kept, the touchscreen's entry taken away (prerm)
#   reinstall: after a removal, enabled again and unmasked, the entry back, the
#              edited conffile as it was
#   purge:     dpkg -P: the watched folders are exactly as before the install
source "$(dirname "$0")/../lib.sh"

# scripts/package's version for this machine's release (the VM runs the host's root).
version=$(sed -n '1s/^popgestured (\([^)]*\)).*/\1/p' "$REPO/packaging/debian/changelog")+deb$(. /etc/os-release && echo "$VERSION_ID")
deb=${POPGESTURED_DEB:-$REPO/dist/popgestured_${version}_$(dpkg --print-architecture).deb}
need_file "$deb" "the package (scripts/package builds it; Tests/VM/run does when this scenario is selected)"
log "package: $deb ($(du -h "$deb" | cut -f1))"

# ---- Where dpkg will write: never the host's files.
for dir in /etc /usr /var /opt; do
    fstype=$(findmnt -n -o FSTYPE --target "$dir")
    [ "$fstype" = overlay ] || fail "$dir is $fstype here, not virtme-ng's overlay: dpkg -i would write to the host"
done
writable_shadow
log "PID 1 is $(cat /proc/1/comm); /run/systemd/system $([ -d /run/systemd/system ] && echo exists || echo is absent)"
if dpkg-query -W popgestured >/dev/null 2>&1; then
    fail "popgestured is already known to dpkg here (the host's database): the before/after comparison would mean nothing"
fi

# The folders the package and its scripts touch, listed with types, modes and
# link targets. /var/lib/dpkg/info only for this package's files.
snapshot() {
    { find /usr/bin /usr/lib/systemd/system /usr/lib/systemd/user /usr/lib/udev /usr/lib/sysusers.d \
        /usr/lib/modules-load.d /usr/share/doc/popgestured /etc/systemd /etc/udev /etc/popgestured \
        /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked \
        -printf '%y %m %p -> %l\n' 2>/dev/null || true; } | sort
    find /var/lib/dpkg/info -name 'popgestured*' -printf '%p\n' | sort
}
# A touchscreen plugged in before the install: the postinst's udev trigger must give
# it its popgestured-touch entry (a device plugged in later gets it from the rule).
create_device "$(recording elan-touchscreen.desc)"
[ "$DEV_KIND" = touchscreen ] || fail "udev did not tag $DEV_NODE as a touchscreen"
screen=$DEV_NODE screen_pid=$DEV_PID
screen_mode=$(stat -c '%U %G %a' "$screen")
acl_of() { getfacl --absolute-names --omit-header "$1" 2>/dev/null; }
has_touch_entry() { acl_of "$1" | grep -q '^group:popgestured-touch:r--'; }
has_touch_entry "$screen" && fail "$screen has a popgestured-touch entry before the install"

# packaging/debian/postinst's check for a touch device (then it starts the service
# at once): the nodes the start rule marked. Before the install, none.
marked_nodes() {
    udevadm trigger --dry-run --verbose --subsystem-match=input --sysname-match='event*' \
        --property-match='SYSTEMD_WANTS=*popgestured-touch.target*'
}
[ -z "$(marked_nodes)" ] || fail "before the install the postinst's check already finds a touch device: $(marked_nodes | xargs)"

snapshot >"$WORK/before.txt"
group_before=$(getent group popgestured-uinput || true)
uinput_before=$(stat -c '%G %a' /dev/uinput)
log "before: $(wc -l <"$WORK/before.txt") entries; /dev/uinput $uinput_before; group: ${group_before:-none}"
# /dev/uinput back to the kernel's root:root 0600 when the scenario ends: the
# group and rule outlive the scenario in this VM (udev does not undo a rule).
trap 'restore_uinput; cleanup' EXIT

dpkg_do() {  # dpkg_do NAME ARGS...: runs dpkg, output in $WORK/dpkg-NAME.log
    local name=$1; shift
    log "dpkg $*"
    dpkg "$@" >"$WORK/dpkg-$name.log" 2>&1 || { cat "$WORK/dpkg-$name.log" >&2; fail "dpkg $* failed"; }
    # A maintainer script that complains but exits 0 is a failure too.
    if grep -iE 'warning|error|not found|cannot' "$WORK/dpkg-$name.log" >&2; then
        fail "dpkg $* printed the complaints above"
    fi
}
status_of() { dpkg-query -W -f='${db:Status-Abbrev}${Version}' popgestured 2>/dev/null || echo "unknown"; }

# ---------------------------------------------------------------- install
dpkg_do install -i "$deb"
[ "$(status_of)" = "ii $version" ] || fail "after dpkg -i the status is '$(status_of)', not 'ii $version'"
dpkg --verify popgestured || fail "dpkg --verify: installed files differ from the package's md5sums"

for path in /usr/bin/popgestured /usr/bin/popgesturectl /usr/lib/udev/popgestured-clone-properties \
    /usr/lib/udev/popgestured-touch-access; do
    [ -x "$path" ] || fail "$path is missing or not executable"
done
for path in /usr/lib/systemd/system/popgestured.service /usr/lib/systemd/system/popgestured.socket \
    /usr/lib/systemd/user/popgesturectl-sway-bridge.service /usr/lib/systemd/user/popgesturectl-x11-bridge.service \
    /usr/lib/systemd/user/popgesturectl-wlroots-bridge.service \
    /usr/lib/sysusers.d/popgestured.conf /usr/lib/modules-load.d/popgestured.conf \
    /usr/lib/udev/rules.d/70-popgestured-uinput.rules /usr/lib/udev/rules.d/71-popgestured-touch-clone.rules \
    /usr/lib/udev/rules.d/72-popgestured-touch-access.rules /usr/lib/udev/rules.d/99-popgestured-start.rules \
    /usr/lib/systemd/system/popgestured-touch.target /usr/share/lintian/overrides/popgestured \
    /usr/share/doc/popgestured/copyright /usr/share/doc/popgestured/changelog.Debian.gz; do
    [ -f "$path" ] || fail "$path is missing"
done
grep -qx 'License: MIT' /usr/share/doc/popgestured/copyright || fail "the copyright file names no MIT license"
# The configuration file: a conffile (dpkg keeps its sum, and a user's edits), the
# repository's systemd/popgestured.conf as it is.
conffile=/etc/popgestured/popgestured.conf
dpkg-query -W -f='${Conffiles}\n' popgestured | grep -q "^ $conffile [0-9a-f]\{32\}\$" ||
    fail "$conffile is not a conffile of the package: $(dpkg-query -W -f='${Conffiles}' popgestured)"
cmp -s "$conffile" "$REPO/systemd/popgestured.conf" || fail "$conffile is not the repository's systemd/popgestured.conf"
zcat /usr/share/doc/popgestured/changelog.Debian.gz | head -n 1 | grep -qF "($version)" ||
    fail "changelog.Debian.gz does not start with version $version"

# The paths the installed files name point into the package.
grep -qx 'ExecStart=/usr/bin/popgestured' /usr/lib/systemd/system/popgestured.service ||
    fail "popgestured.service: $(grep '^ExecStart=' /usr/lib/systemd/system/popgestured.service)"
for unit in /usr/lib/systemd/system/popgestured.* /usr/lib/systemd/system/popgestured-touch.target /usr/lib/systemd/user/popgesturectl-*; do
    for target in $(sed -n 's#^Documentation=file://##p' "$unit"); do
        [ -f "$target" ] || fail "${unit##*/}: Documentation= names $target, which is not installed"
    done
    exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
    [ -z "$exe" ] || [ -x "$exe" ] || fail "${unit##*/}: ExecStart= names $exe, which is not installed"
done
helper=$(sed -n 's/.*IMPORT{program}="\([^ "]*\).*/\1/p' /usr/lib/udev/rules.d/71-popgestured-touch-clone.rules)
[ "$helper" = /usr/lib/udev/popgestured-clone-properties ] || fail "the touch-clone rule runs $helper"
grep -qx 'RUN+="/usr/lib/udev/popgestured-touch-access"' /usr/lib/udev/rules.d/72-popgestured-touch-access.rules ||
    fail "the touch access rule runs $(grep '^RUN' /usr/lib/udev/rules.d/72-popgestured-touch-access.rules)"
grep -qE '^Depends:.*\bacl\b' <(dpkg-query -s popgestured) || fail "the package does not depend on acl (its rule runs setfacl)"
if dpkg -L popgestured | xargs -d '\n' grep -Ils '/usr/local' 2>/dev/null | xargs -r grep -n '/usr/local' | grep -v ':[0-9]*: *#' | grep -v '\.md:'; then
    fail "an installed file names /usr/local outside a comment (above)"
fi
# systemd's own check of the installed units (offline: no manager needed).
verify=$(systemd-analyze verify popgestured.socket popgestured.service popgestured-touch.target 2>&1 || true)
[ -z "$verify" ] || { echo "$verify" >&2; fail "systemd-analyze verify complained about the installed units"; }
mkdir -m 700 "$RUNDIR/user-runtime"
for unit in popgesturectl-sway-bridge.service popgesturectl-x11-bridge.service popgesturectl-wlroots-bridge.service; do
    verify=$(XDG_RUNTIME_DIR="$RUNDIR/user-runtime" systemd-analyze --user verify "/usr/lib/systemd/user/$unit" 2>&1 || true)
    [ -z "$verify" ] || { echo "$verify" >&2; fail "systemd-analyze --user verify complained about $unit"; }
done
log "files in place; ExecStart=, Documentation= and the udev helper point into the package; systemd-analyze verify clean"

# No Swift runtime needed: nothing of it among the libraries, none missing.
for exe in /usr/bin/popgestured /usr/bin/popgesturectl; do
    libs=$(ldd "$exe")
    if grep -E 'libswift|Foundation|libdispatch|not found' <<<"$libs" >&2; then
        fail "$exe needs the libraries above"
    fi
done

# The maintainer scripts ran: systemd-sysusers, deb-systemd-helper, udev.
getent group popgestured-uinput >/dev/null || fail "no popgestured-uinput group: systemd-sysusers did not run"
getent group popgestured-touch >/dev/null || fail "no popgestured-touch group: systemd-sysusers did not run"
getent passwd popgestured >/dev/null || fail "no popgestured user (the unit's User=): systemd-sysusers did not run"
link=/etc/systemd/system/sockets.target.wants/popgestured.socket
# deb-systemd-helper names the unit by /lib/systemd/system, /usr/lib's alias here (merged /usr).
[ "$(readlink -f "$link")" = /usr/lib/systemd/system/popgestured.socket ] ||
    fail "the socket is not enabled: $link -> $(readlink "$link" || echo nothing)"
[ -e /var/lib/systemd/deb-systemd-helper-enabled/popgestured.socket.dsh-also ] ||
    fail "deb-systemd-helper kept no state for popgestured.socket"
# The service is enabled into popgestured-touch.target, which the start rule makes
# every touch device want: it starts with the devices, not at every boot.
service_link=/etc/systemd/system/popgestured-touch.target.wants/popgestured.service
[ "$(readlink -f "$service_link")" = /usr/lib/systemd/system/popgestured.service ] ||
    fail "the service is not enabled into popgestured-touch.target: $service_link -> $(readlink "$service_link" || echo nothing)"
[ -e /var/lib/systemd/deb-systemd-helper-enabled/popgestured.service.dsh-also ] ||
    fail "deb-systemd-helper kept no state for popgestured.service"
[ ! -e /etc/systemd/system/multi-user.target.wants/popgestured.service ] ||
    fail "the service was enabled into multi-user.target: it would run on machines without a touch device"
udevadm settle --timeout=60 || true
[ "$(stat -c '%G %a' /dev/uinput)" = "popgestured-uinput 660" ] ||
    fail "/dev/uinput is $(stat -c '%G %a' /dev/uinput) after the postinst's udev trigger, not popgestured-uinput 660"
log "maintainer scripts: user $(getent passwd popgestured), groups $(getent group popgestured-touch) $(getent group popgestured-uinput), $link, $service_link, /dev/uinput popgestured-uinput 660"
has_touch_entry "$screen" || { acl_of "$screen" >&2; fail "the touchscreen $screen, there before the install, has no popgestured-touch entry (the postinst's udev trigger)"; }
[ "$(stat -c '%U %G %a' "$screen")" = "$screen_mode" ] || fail "$screen is $(stat -c '%U %G %a' "$screen") after the install, was $screen_mode"
log "the touchscreen there before the install: $screen $screen_mode + $(acl_of "$screen" | grep '^group:popgestured-touch')"
# The start rule: the postinst's trigger marked the touchscreen (it wants the
# target, tagged for systemd), and nothing else here wants it. The postinst starts
# the service when its check finds a node so marked; systemd, at boot and on
# hotplug, for the same nodes.
wants_target() { udevadm info --query=property --name="$1" 2>/dev/null | grep -qE '^SYSTEMD_WANTS=(.* )?popgestured-touch\.target( |$)'; }
tagged_systemd() { udevadm info --query=property --name="$1" 2>/dev/null | grep -qE '^(CURRENT_)?TAGS=.*:systemd:'; }
wants_target "$screen" || { udevadm info --query=property --name="$screen" >&2; fail "the touchscreen $screen does not want popgestured-touch.target after the postinst's trigger"; }
tagged_systemd "$screen" || fail "the touchscreen $screen is not tagged for systemd"
# every_node_wants WHEN: each event node wants the target exactly when udev says
# touchscreen or touchpad and it is none of the daemon's own uinput devices (grab
# clones, the back input, and the virtual touchpad the shipped file's Firefox entries make).
every_node_wants() {
    local sys node want got name phys
    for sys in /sys/class/input/event*; do
        node=/dev/input/${sys##*/} name=$(cat "$sys/device/name") phys=$(cat "$sys/device/phys" 2>/dev/null || true)
        want=no got=no
        if { udev_prop "$node" ID_INPUT_TOUCHSCREEN=1 || udev_prop "$node" ID_INPUT_TOUCHPAD=1; } &&
            [[ $phys != popgestured/* && $phys != popgestured-touchpad/* && $name != "popgestured back input" ]]; then
            want=yes
        fi
        wants_target "$node" && got=yes
        log "$1: $node \"$name\": wants popgestured-touch.target: $got"
        [ "$want" = "$got" ] || fail "$1: $node \"$name\" wants popgestured-touch.target: $got, expected $want"
    done
}
every_node_wants installed
marked=$(marked_nodes)
grep -qx "/sys$(udevadm info --query=path --name="$screen")" <<<"$marked" ||
    fail "the postinst's check for a touch device found ${marked:-nothing}, not $screen"
log "start rule: $screen wants popgestured-touch.target, as every touch node and no other; the postinst's check finds: $(xargs <<<"$marked")"

# ---------------------------------------------------------------- run it as the units would
# The socket unit's path; the unit's User= (popgestured, made by the postinst's
# systemd-sysusers) in its SupplementaryGroups=.
# The Swift toolchain (/opt/swift) is hidden under an empty tmpfs in a mount
# namespace of the daemon's own, as on a tablet without it. Each program execs
# the next, so the pid stays the same (LISTEN_PID).
activate=$(command -v systemd-socket-activate || echo /lib/systemd/systemd-socket-activate)
need_exec "$activate" "systemd-socket-activate"
mkdir -p /run/popgestured
rm -f "$SOCK"
DAEMON_LOG="$WORK/daemon.log"
unit_groups=$(sed -n 's/^SupplementaryGroups=//p' /usr/lib/systemd/system/popgestured.service | tr ' ' ',')
unit_user=$(sed -n 's/^User=//p' /usr/lib/systemd/system/popgestured.service)
[ "$unit_user" = popgestured ] || fail "the installed unit's User= is ${unit_user:-empty}, not popgestured"
[ "$unit_groups" = popgestured-touch,popgestured-uinput ] || fail "the installed unit's SupplementaryGroups= is ${unit_groups:-empty}"
unshare --mount --propagation private -- sh -c 'mount -t tmpfs -o ro,mode=0755 none /opt/swift && exec "$@"' sh \
    "$activate" -l "$SOCK" \
    setpriv --reuid="$unit_user" --regid="$unit_user" --groups="$unit_groups" -- /usr/bin/popgestured \
    >"$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
BG_PIDS+=("$DAEMON_PID")
wait_for 30 "systemd-socket-activate to listen on $SOCK" test -S "$SOCK"

# The packaged popgesturectl, its default socket path (the unit's), the first
# connection: it starts the daemon and waits in the backlog meanwhile.
env -u POPGESTURED_SOCKET timeout 180 unshare --mount --propagation private -- \
    sh -c 'mount -t tmpfs -o ro none /opt/swift && exec /usr/bin/popgesturectl status' \
    >"$WORK/status.out" 2>&1 || { cat "$WORK/status.out" "$DAEMON_LOG" >&2; fail "popgesturectl status got no answer"; }
cat "$WORK/status.out" >&2
grep -qiw ready "$DAEMON_LOG" || fail "the daemon never logged 'ready'"
[ "$(readlink "/proc/$DAEMON_PID/exe")" = /usr/bin/popgestured ] || fail "pid $DAEMON_PID runs $(readlink "/proc/$DAEMON_PID/exe")"
[ "$(stat -c %U "/proc/$DAEMON_PID")" = "$unit_user" ] || fail "the daemon runs as $(stat -c %U "/proc/$DAEMON_PID"), not $unit_user"
[ -z "$(ls -A /proc/"$DAEMON_PID"/root/opt/swift)" ] || fail "the daemon could see /opt/swift"
log "socket-activated /usr/bin/popgestured (pid $DAEMON_PID, $unit_user, no Swift toolchain) answered popgesturectl status"

# Through the groups the package set up: it reads the touchscreens (popgestured-touch,
# the one there before the install and one plugged in now) and made its back input
# device (/dev/uinput, popgestured-uinput).
if grep -i 'back input off' "$DAEMON_LOG" >&2; then fail "the daemon could not make its back input device"; fi
wait_for 60 "the back input device" grep -qx 'popgestured back input' /sys/class/input/input*/name
# It declares what the installed configuration file names: Alt+Left (the default)
# and KEY_BACK (Waydroid's entry in [back-input]), so the daemon read the conffile.
back_input=""
for dir in /sys/class/input/input*; do
    [ "$(cat "$dir/name")" = "popgestured back input" ] && back_input=$dir
done
has_key() {  # has_key CODE: the back input device declares that key
    python3 -c 'import sys
words = open(sys.argv[1]).read().split()
bits = int("".join(w.rjust(16, "0") for w in words), 16)
sys.exit(0 if bits >> int(sys.argv[2]) & 1 else 1)' "$back_input/capabilities/key" "$1"
}
for code in 56 105 158; do  # KEY_LEFTALT, KEY_LEFT, KEY_BACK
    has_key "$code" || fail "the back input device does not declare key $code: capabilities/key is $(cat "$back_input/capabilities/key")"
done
log "back input device $back_input: KEY_LEFTALT, KEY_LEFT and KEY_BACK (the installed $conffile's [back-input])"
wait_device_listed "$screen"
create_device "$(recording atmel-maxtouch.desc)"
has_touch_entry "$DEV_NODE" || { acl_of "$DEV_NODE" >&2; fail "the touchscreen $DEV_NODE plugged in after the install has no popgestured-touch entry"; }
wait_device_listed "$DEV_NODE"
wants_target "$DEV_NODE" || fail "the touchscreen $DEV_NODE plugged in after the install does not want popgestured-touch.target"
udevadm settle --timeout=60 || true
every_node_wants "daemon running"
if grep -iE 'cannot use it|permission denied' "$DAEMON_LOG" | grep -vi 'back input' >&2; then fail "the daemon could not open a touchscreen (above)"; fi
remove_device
stop_daemon
log "as $unit_user in $unit_groups: both touchscreens listed, the back input made, SIGTERM clean"

# ---------------------------------------------------------------- upgrade (same version again)
# The administrator's edit of the conffile survives (the package's copy did not
# change, so dpkg keeps the edited one without asking).
edit="# edited by 96-debian-package before the upgrade"
echo "$edit" >>"$conffile"
dpkg_do upgrade -i "$deb"
[ "$(status_of)" = "ii $version" ] || fail "after a second dpkg -i the status is '$(status_of)'"
[ -L "$link" ] || fail "the upgrade lost the socket's enablement"
[ -L "$service_link" ] || fail "the upgrade lost the service's enablement"
[ "$(tail -n 1 "$conffile")" = "$edit" ] || fail "the upgrade did not keep the edit of $conffile"
log "upgrade: enabled as before, the edit of $conffile kept"

# ---------------------------------------------------------------- remove, reinstall, remove, purge
package_files=$(dpkg -L popgestured | grep -v '^/\.$')
check_removed() {
    local path
    [ "$(status_of)" = "rc $version" ] || fail "after dpkg -r the status is '$(status_of)', not 'rc $version'"
    while read -r path; do
        [ -d "$path" ] && continue  # shared folders (/usr/bin) stay
        [ "$path" = "$conffile" ] && continue  # a conffile stays until the purge
        [ ! -e "$path" ] || fail "dpkg -r left $path"
    done <<<"$package_files"
    [ "$(tail -n 1 "$conffile")" = "$edit" ] || fail "dpkg -r did not keep the conffile $conffile as edited"
    # Masked (dh_installsystemd): the enablement symlinks kept for a reinstall start nothing.
    [ "$(readlink /etc/systemd/system/popgestured.socket)" = /dev/null ] || fail "dpkg -r did not mask popgestured.socket"
    [ "$(readlink /etc/systemd/system/popgestured.service)" = /dev/null ] || fail "dpkg -r did not mask popgestured.service"
}
dpkg_do remove -r popgestured
check_removed
has_touch_entry "$screen" && { acl_of "$screen" >&2; fail "dpkg -r left the popgestured-touch entry on $screen"; }
[ "$(stat -c '%U %G %a' "$screen")" = "$screen_mode" ] || fail "$screen is $(stat -c '%U %G %a' "$screen") after dpkg -r, was $screen_mode"
acl_of "$screen" | grep -qx 'group::rw-' || { acl_of "$screen" >&2; fail "dpkg -r changed the input group's access to $screen"; }
log "removed: the files are gone but $conffile, the units masked, their enablement kept for a reinstall, $screen without its entry"

dpkg_do reinstall -i "$deb"
[ ! -e /etc/systemd/system/popgestured.socket ] || fail "the reinstall left popgestured.socket masked"
[ -L "$link" ] || fail "the reinstall did not enable the socket again"
[ ! -e /etc/systemd/system/popgestured.service ] || fail "the reinstall left popgestured.service masked"
[ -L "$service_link" ] || fail "the reinstall did not enable the service again"
has_touch_entry "$screen" || fail "the reinstall did not give $screen its entry back"
wants_target "$screen" || fail "after the reinstall $screen does not want popgestured-touch.target"
[ "$(tail -n 1 "$conffile")" = "$edit" ] || fail "the reinstall did not keep the edited $conffile"
remove_device "$screen_pid" "$screen"
dpkg_do remove-again -r popgestured
check_removed

dpkg_do purge -P popgestured
[ "$(status_of)" = unknown ] || [ "$(status_of)" = "pn " ] || fail "after dpkg -P the status is '$(status_of)'"
snapshot >"$WORK/after-purge.txt"
if ! diff -u "$WORK/before.txt" "$WORK/after-purge.txt" >"$WORK/purge.diff"; then
    cat "$WORK/purge.diff" >&2
    fail "after dpkg -P the watched folders differ from before the install (above)"
fi
# Debian never deletes a system group: files may still carry its id.
log "purged: $(wc -l <"$WORK/before.txt") entries as before; the user and the groups stay: $(getent passwd popgestured) $(getent group popgestured-touch) $(getent group popgestured-uinput)"
