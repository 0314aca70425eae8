#!/bin/sh
# Runs inside the debootstrapped root (chroot) before it is imported as an image.
# Part of the image recipe: a change here changes the image tag and triggers a rebuild.
set -eu

# No getty, no udev-triggered hardware setup, nothing that needs a real machine.
for unit in getty.target console-getty.service systemd-udevd.service systemd-udev-trigger.service \
            systemd-modules-load.service sys-kernel-config.mount sys-kernel-debug.mount \
            systemd-remount-fs.service systemd-firstboot.service; do
    ln -sf /dev/null "/etc/systemd/system/${unit}"
done
systemctl enable ssh.service >/dev/null 2>&1 || true

# Each container gets its own machine-id and host keys on first boot.
: > /etc/machine-id
rm -f /var/lib/dbus/machine-id /etc/ssh/ssh_host_*
mkdir -p /etc/systemd/system/ssh.service.d
cat > /etc/systemd/system/ssh.service.d/10-hostkeys.conf <<'UNIT'
[Service]
ExecStartPre=
ExecStartPre=/usr/bin/ssh-keygen -A
ExecStartPre=/usr/sbin/sshd -t
UNIT

# The CA certificates build-image.sh put in /usr/local/share/ca-certificates join the bundle.
update-ca-certificates >/dev/null

# dpkg without an fsync per file, as Docker's own Debian images do (docker-apt-speedup): a node is thrown away
# after its scenario, so a crash mid-install costs nothing, and the GPU stack's packages have tens of thousands of
# files (Debian 13's CUDA toolkit: 63 s against 53 s to install, measured on the 2-core test machine). The test
# image only; the collection leaves dpkg's settings alone on real hosts.
echo force-unsafe-io > /etc/dpkg/dpkg.cfg.d/gpucluster-sandbox-unsafe-io

# Small images: no docs, no apt lists.
apt-get clean
rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* /var/cache/apt/*.bin
# The lists are empty: make their age "never updated" so `cache_valid_time` refreshes them.
touch -d @0 /var/lib/apt/lists
