#!/bin/bash
# Runs inside the freshly debootstrapped Debian 12 or 13 root (chroot, as root), once per
# cached root: Tests/SystemVM/run keys the cache on a hash of this file and of
# `packages`, so any change here builds a new root. Nothing of the repository is
# baked in: the scenarios come from the shared repository at every boot.
#
# It makes a plain Debian system that boots with systemd as PID 1 and, once
# multi-user.target is reached, runs systemvm.service: mount the host's shares
# (9p) and run Tests/SystemVM/guest.sh from the shared repository, then power off.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

echo popgestured-vm >/etc/hostname
printf '127.0.0.1\tlocalhost\n127.0.1.1\tpopgestured-vm\n' >/etc/hosts
# The root disk is the VM's virtio-blk /dev/vda (a qcow2 overlay, thrown away after
# each run); the host's shares are mounted by systemvm-run, not here.
printf '/dev/vda\t/\text4\trw,errors=remount-ro\t0\t1\n' >/etc/fstab
# A machine id now, so the first boot is an ordinary boot (an empty one makes systemd
# apply every preset on the first boot, which a user's installed system never sees).
rm -f /etc/machine-id /var/lib/dbus/machine-id
systemd-machine-id-setup
# Root without a password: only reachable from the VM's own consoles.
passwd -d root >/dev/null

# Timers that would spend the emulated CPU during a test, and the getty on the serial
# console (the console carries the boot and the scenarios' output instead).
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
    serial-getty@ttyS0.service >/dev/null 2>&1 || true
# No network in the VM: nothing waits for it.
systemctl mask systemd-networkd-wait-online.service >/dev/null 2>&1 || true

# The runner. The host passes three 9p shares: `out` (writable: results and logs),
# `repo` (the repository, read-only) and `recordings` (../shared/recordings,
# read-only; absent when the host has none).
install -d /usr/local/sbin
cat >/usr/local/sbin/systemvm-run <<'EOF'
#!/bin/bash
# Mounts the host's shares and runs the repository's Tests/SystemVM/guest.sh, then
# powers the VM off whatever happened (the host waits for QEMU to exit).
set -u
say() { echo "systemvm: $*" | tee /dev/console; }
finish() {
    sync
    systemctl poweroff --no-block || poweroff -f
    exit 0
}
modprobe -a 9pnet_virtio 9p 2>/dev/null || true
opts=trans=virtio,version=9p2000.L,msize=512000
mkdir -p /mnt/out /mnt/repo /mnt/recordings
if ! mount -t 9p -o "$opts" out /mnt/out; then
    say "FAIL: cannot mount the host's out share (9p): no results can be written"
    finish
fi
printf '%s\n' "$(cut -d' ' -f1 /proc/uptime)" >/mnt/out/booted
if ! mount -t 9p -o "$opts,ro" repo /mnt/repo; then
    say "FAIL: cannot mount the host's repository share (9p)"
    echo "guest-exit 1 cannot mount the repository share" >>/mnt/out/results.txt
    finish
fi
mount -t 9p -o "$opts,ro" recordings /mnt/recordings 2>/dev/null ||
    say "no recordings share (the host has no ../shared/recordings)"
guest=/mnt/repo/Tests/SystemVM/guest.sh
if [ -r "$guest" ]; then
    REPO=/mnt/repo OUT=/mnt/out RECORDINGS=/mnt/recordings bash "$guest"
    rc=$?
else
    say "FAIL: $guest is missing in the shared repository"
    rc=1
fi
echo "guest-exit $rc" >>/mnt/out/results.txt
sync
finish
EOF
chmod 755 /usr/local/sbin/systemvm-run

# After multi-user.target, as a user's own services would be; Type=simple so that
# the boot itself finishes (`systemctl is-system-running` says running) while it runs.
cat >/etc/systemd/system/systemvm.service <<'EOF'
[Unit]
Description=popgestured system VM: mount the host's shares, run the scenarios, power off
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/systemvm-run
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
systemctl enable systemvm.service

# Lists and downloaded packages are not needed in the VM (no network there); dpkg's
# status file is what `apt install ./popgestured_*.deb` resolves the Depends against.
apt-get clean
rm -rf /var/lib/apt/lists/* /var/log/*.log /var/cache/debconf/*-old
