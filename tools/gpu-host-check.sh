#!/usr/bin/env bash
# Converge one GPU server that reaches no network with the collection from this checkout, as site.yml does, and
# keep what it printed: gpu_facts, the first play (preflight), nvidia_driver, horovod into the server's own Python
# environment (horovod_venv_mode: existing, Horovod's dependencies from the bundle) and horovod_benchmark, then
# nvidia_driver and horovod once more, which must change nothing.
#
#   tools/gpu-host-bundle.sh .gpu-host 3.12        # on a machine that reaches the package index
#   tools/gpu-host-check.sh .gpu-host OUTDIR [ENV]  # on the GPU server, as root, in the checkout's root
#
# ENV is the server's environment with the framework (default /opt/torch/.venv). Ansible runs from a venv made
# with the server's python3 (without pip: ENV's pip installs into it from the bundle); nothing goes into ENV but
# Horovod and what it lacks of Horovod's dependencies. OUTDIR gets gpu_facts.json, site.log, again.log, the
# benchmark's report (report.md, result.json) and summary.txt. GPU_HOST_EXTRA_VARS (JSON) is passed to both runs as
# --extra-vars, e.g. '{"horovod_benchmark_batch_size": 128}'. GPU_HOST_BUDGET (seconds, default 540) bounds the
# whole check: each playbook runs under `timeout` with what is left, and the second run is skipped (and said so)
# when too little is left for it. A failed build leaves its log in OUTDIR (build.log).
set -uo pipefail
export LC_ALL=C.UTF-8
deadline=$(( $(date +%s) + ${GPU_HOST_BUDGET:-540} ))
left() { echo $(( deadline - $(date +%s) )); }

bundle=$(cd "${1:?bundle directory (tools/gpu-host-bundle.sh)}" && pwd)
out=${2:?output directory}
env_path=${3:-/opt/torch/.venv}
here=$(cd "$(dirname "$0")/.." && pwd)
work=${GPU_HOST_WORK:-/var/tmp/gpu-host-check}
mkdir -p "$out" "$work"
cd "$here" || exit 1
# Ansible ignores an ansible.cfg in a world-writable directory: name it.
export ANSIBLE_CONFIG="$here/ansible.cfg"

step() { printf '\n=== %s\n' "$*" | tee -a "$out/summary.txt"; }
fail() { echo "gpu-host-check: $*" | tee -a "$out/summary.txt" >&2; exit 1; }

step "bundle checksums"
(cd "$bundle" && sha256sum --quiet -c SHA256SUMS) 2>&1 | tee -a "$out/summary.txt" || fail "the bundle does not match its SHA256SUMS"

step "host"
{ uname -srm; sed -n 's/^PRETTY_NAME=//p' /etc/os-release; nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
  "$env_path/bin/python" -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, torch.version.cuda)' 2>&1
} | tee -a "$out/summary.txt"

step "Ansible from the bundle ($(cd "$bundle/wheels" && echo ansible_core-*.whl))"
if [ ! -x "$work/ansible/bin/ansible-playbook" ]; then
  python3 -m venv --without-pip "$work/ansible" || fail "python3 -m venv --without-pip failed"
  site=$("$work/ansible/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  # the environment's pip, into the Ansible venv's site-packages: both interpreters must be one Python version
  [ "$("$work/ansible/bin/python" -c 'import sys; print(sys.version_info[:2])')" = \
    "$("$env_path/bin/python" -c 'import sys; print(sys.version_info[:2])')" ] \
    || fail "python3 and $env_path/bin/python are different Python versions; make the bundle for python3's"
  PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$env_path/bin/python" -m pip install --quiet --no-compile \
    --no-index --find-links "$bundle/wheels" --target "$site" ansible-core || fail "ansible-core did not install"
  printf '#!/bin/sh\nexec %s -m ansible.cli.playbook "$@"\n' "$work/ansible/bin/python" > "$work/ansible/bin/ansible-playbook"
  chmod 0755 "$work/ansible/bin/ansible-playbook"
fi
playbook=("$work/ansible/bin/ansible-playbook")
[ -n "${GPU_HOST_EXTRA_VARS:-}" ] && playbook+=(--extra-vars "$GPU_HOST_EXTRA_VARS")

# ansible.cfg's collections_path: .cache/collections holds this checkout and the collections it depends on
mkdir -p .cache/collections/ansible_collections/gpucluster
ln -sfn ../../../.. .cache/collections/ansible_collections/gpucluster/horovod
tar -C .cache/collections -xzf "$bundle/collections.tar.gz"

# What the server has, read before anything runs (the role checks it too; here it chooses the variables): the CUDA
# compiler (horovod_cuda_home from the nvcc on PATH or /usr/local/cuda), MPI's development files (a Gloo-only build
# without them), sudo (else su, as root, for the benchmark's training user), the compiler tools and NCCL's header in
# the environment's nvidia-nccl wheel.
step "probe"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cuda_home=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
[ -x "$cuda_home/bin/nvcc" ] || fail "no nvcc (PATH, /usr/local/cuda): the GPU build needs the CUDA toolkit"
with_mpi=false
if command -v mpicxx >/dev/null; then
  for d in $(mpicxx --showme:incdirs 2>/dev/null); do [ -f "$d/mpi.h" ] && with_mpi=auto; done
fi
become_method=sudo
command -v sudo >/dev/null || become_method=su
missing=$(for t in g++ make cmake; do command -v "$t" >/dev/null || printf '%s ' "$t"; done)
[ -z "$missing" ] || fail "the build tools $missing are missing"
nccl_h=$("$env_path/bin/python" -c 'import glob, os, nvidia.nccl as n
p = list(n.__path__)[0]; print((glob.glob(os.path.join(p, "include", "nccl.h")) or [""])[0])' 2>/dev/null)
{ echo "nvcc: $cuda_home/bin/nvcc ($("$cuda_home/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
  echo "mpi.h: $([ "$with_mpi" = auto ] && echo found || echo 'missing: Gloo only (horovod_with_mpi: false)')"
  echo "become: $become_method"; echo "nccl.h in the environment: ${nccl_h:-none}"
  echo "time left: $(left)s"; } | tee -a "$out/summary.txt"

host=$(hostname)
cat > "$work/hosts.yml" <<EOF
all:
  children:
    hvd_nodes:
      hosts:
        $host:
          ansible_connection: local
          ansible_python_interpreter: $(command -v python3)
          ansible_become_method: $become_method
      vars:
        gpucluster_framework: pytorch
        horovod_venv_mode: existing
        horovod_venv: $env_path
        horovod_wheelhouse: $bundle/wheels
        horovod_pip_no_index: true
        horovod_wheel_cache_dir: $work/wheels
        horovod_cuda_home: $cuda_home
        horovod_with_mpi: $with_mpi
        horovod_build_jobs: $(nproc)
        # the server's own compiler, CMake and make: no package source to install them from
        horovod_build_packages_install: false
        horovod_benchmark_results_dir: $work/results
        # one server: no link to measure
        horovod_benchmark_link: false
        # no matplotlib in the bundle: the report without plots
        horovod_benchmark_plots: false
        # numpy for the benchmark and hvd.allgather_object, when the environment lacks it (the bundle has it)
        horovod_pip_packages: [numpy]
        horovod_benchmark_batch_size: 64
        # ResNet-50 at batch 64 is about 1700 samples/s on one H100: 200 steps are about 7 s a run, enough to see a
        # difference of 1 % between Horovod and plain PyTorch.
        horovod_benchmark_steps: 200
        horovod_benchmark_warmup_steps: 20
        horovod_benchmark_sizes: 1M,16M,64M,256M
        horovod_benchmark_run_timeout: 240
EOF

step "gpu_facts"
ANSIBLE_LOAD_CALLBACK_PLUGINS=1 ANSIBLE_STDOUT_CALLBACK=ansible.posix.json \
  "$work/ansible/bin/python" -m ansible.cli.adhoc -i "$work/hosts.yml" hvd_nodes -m gpucluster.horovod.gpu_facts \
  > "$out/gpu_facts.json" 2>> "$out/summary.txt"
python3 -c 'import json, sys
text = open(sys.argv[1]).read()  # between the profile_tasks callback'"'"'s lines
for host, r in json.JSONDecoder().raw_decode(text[text.index("{"):])[0]["plays"][0]["tasks"][0]["hosts"].items():
    g = r.get("ansible_facts", {}).get("gpucluster_gpu", r.get("msg"))
    print(host, json.dumps({k: g[k] for k in ("gpu_count", "models", "driver_version", "cuda_driver_version",
                                               "kernel_module", "nvswitch_count", "secure_boot")}
                           if isinstance(g, dict) else g))' "$out/gpu_facts.json" 2>&1 | tee -a "$out/summary.txt"

step "site.yml --tags nvidia_driver,horovod,benchmark (the first play, preflight, always runs)"
start=$(date +%s)
[ "$(left)" -gt 120 ] || fail "only $(left)s of GPU_HOST_BUDGET left before site.yml"
timeout --kill-after=10 "$(( $(left) - 20 ))" \
  "${playbook[@]}" -i "$work/hosts.yml" playbooks/site.yml --tags nvidia_driver,horovod,benchmark > "$out/site.log" 2>&1
rc=$?
case $rc in 124|137) echo "site.yml ran out of the time budget (GPU_HOST_BUDGET), rc $rc" | tee -a "$out/summary.txt" ;; esac
echo "rc=$rc in $(( $(date +%s) - start ))s" | tee -a "$out/summary.txt"
grep -A3 'PLAY RECAP' "$out/site.log" | tee -a "$out/summary.txt"
if [ $rc -ne 0 ]; then
  grep -B2 -A20 'FAILED!\|fatal:' "$out/site.log" | head -80 >> "$out/summary.txt"
  log=$(find /var/log/gpucluster -name 'horovod-build-*.log' -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)
  [ -n "$log" ] && cp "$log" "$out/build.log"
  fail "site.yml failed"
fi

step "again: site.yml --tags nvidia_driver,horovod (must change nothing)"
if [ "$(left)" -lt 70 ]; then
  echo "skipped: $(left)s left of GPU_HOST_BUDGET, too little for the second run" | tee -a "$out/summary.txt"
else
  timeout --kill-after=10 "$(( $(left) - 10 ))" \
    "${playbook[@]}" -i "$work/hosts.yml" playbooks/site.yml --tags nvidia_driver,horovod > "$out/again.log" 2>&1
  rc=$?
  grep -A3 'PLAY RECAP' "$out/again.log" | tee -a "$out/summary.txt"
  [ $rc -eq 0 ] || fail "the second run failed (rc $rc)"
  grep -q "changed=0 " "$out/again.log" || fail "the second run changed something"
fi

step "benchmark report"
report=$(find "$work/results" -name report.md -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)
[ -n "$report" ] || fail "no report under $work/results"
cp "$report" "$out/report.md"
cp "$(dirname "$report")"/result.json "$out/result.json" 2>/dev/null
sed -n '1,60p' "$report" | tee -a "$out/summary.txt" >/dev/null
echo "report: $report" | tee -a "$out/summary.txt"
