#!/usr/bin/env bash
# Host tools the make targets need: Debian's docker.io (and a running dockerd: PID 1 on the
# build machines is not systemd), debootstrap (`make images`), rsync and shellcheck (`make lint`,
# `make sanity`), the OpenSSH client (molecule reaches its nodes over SSH). Installs only what is missing, with apt; idempotent; prints what it did.
set -euo pipefail

need_apt=()
command -v dockerd >/dev/null 2>&1 || need_apt+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need_apt+=(debootstrap)
command -v rsync >/dev/null 2>&1 || need_apt+=(rsync)
command -v shellcheck >/dev/null 2>&1 || need_apt+=(shellcheck)
command -v ssh-keyscan >/dev/null 2>&1 || need_apt+=(openssh-client)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "missing ${need_apt[*]}: run as root or install them first" >&2; exit 1
    fi
    echo "installing ${need_apt[*]} with apt ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if docker info >/dev/null 2>&1; then
    exit 0
fi

if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    systemctl start docker
else
    echo "starting dockerd (no systemd here) ..."
    mkdir -p /var/log
    # containerd is started by dockerd itself when no system containerd runs.
    nohup dockerd >>/var/log/dockerd.log 2>&1 &
fi
for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && { echo "docker engine is up"; exit 0; }
    sleep 1
done
echo "the docker engine did not answer within 60s; see /var/log/dockerd.log:" >&2
tail -n 20 /var/log/dockerd.log >&2 || true
exit 1
