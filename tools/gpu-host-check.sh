#!/usr/bin/env bash
# Converge one GPU server that reaches no network with the collection from this checkout, as site.yml does, and
# keep what it printed: the fixtures first (nvidia-smi -q -x, the kernel log's GPU lines, /sys/class/infiniband,
# nvidia-smi topo -m: kept even when a later step fails), gpu_facts, node_health and fabric_facts, the cuda and nccl
# roles' check programs (cuda_device_query.c, nccl_allreduce.c: compiled as their verify.yml compiles them, run on
# the GPUs), nccl-tests' all_reduce_perf built beside (the source archive in tests/nccl_tests, the environment's NCCL
# wheel, the server's nvcc and Open MPI), the first play (preflight), nvidia_driver, horovod into the server's own
# Python environment (horovod_venv_mode: existing, Horovod's dependencies from the bundle) and horovod_benchmark (with
# nccl-tests and NCCL's INFO log), then nvidia_driver and horovod once more, which must change nothing. The verdict at
# the end says, one line each, whether the run was what it claims (device cuda, Horovod built with NCCL, nccl-tests
# correct on the GPUs, the roles' check programs saw every GPU, the report's overhead ratio and
# GPU/driver/CUDA/NCCL/topology lines, a second run that changed nothing, node_health and fabric_facts ran); the exit
# status is 0 only when every line passed.
#
#   tools/gpu-host-bundle.sh .gpu-host 3.12        # on a machine that reaches the package index
#   tools/gpu-host-check.sh .gpu-host OUTDIR [ENV]  # on the GPU server, as root, in the checkout's root
#
# ENV is the server's environment with the framework (default /opt/torch/.venv). Ansible runs from a venv made
# with the server's python3 (without pip: ENV's pip installs into it from the bundle); nothing goes into ENV but
# Horovod and what it lacks of Horovod's dependencies. OUTDIR gets summary.txt (with the verdict), fixtures/,
# gpu_facts.json, node_health.json, fabric_facts.json, role-checks.txt, nccl-tests-build.log, site.log, again.log,
# nccl-info/ (NCCL_DEBUG=INFO of the runs) and the benchmark's results (report.md, result.json, raw/).
# GPU_HOST_EXTRA_VARS (JSON) is passed to both runs as --extra-vars, e.g. '{"horovod_benchmark_batch_size": 128}'.
# GPU_HOST_BUDGET (seconds, default 540) bounds the
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

# The fixtures, read before anything changes: what the parsers' tests need from a real GPU server.
step "capture: fixtures/"
fx="$out/fixtures"
mkdir -p "$fx"
nvidia-smi -q -x > "$fx/nvidia-smi-q.xml" 2>&1
nvidia-smi -q > "$fx/nvidia-smi-q.txt" 2>&1
nvidia-smi topo -m > "$fx/nvidia-smi-topo-m.txt" 2>&1
nvidia-smi nvlink -s > "$fx/nvidia-smi-nvlink-s.txt" 2>&1
nvidia-smi --query-gpu=index,name,pci.bus_id,compute_cap,driver_version,memory.total --format=csv \
  > "$fx/nvidia-smi-query-gpu.csv" 2>&1
# node_health reads journalctl -k -b, else dmesg: both, whole, and the lines it looks at
journalctl -k -b --no-pager -o short-monotonic > "$fx/journalctl-k.txt" 2>&1
dmesg > "$fx/dmesg.txt" 2>&1
cat "$fx/journalctl-k.txt" "$fx/dmesg.txt" | grep -iE 'NVRM|nvidia|xid|nvswitch|mlx|infiniband' \
  > "$fx/kernel-log-gpu-lines.txt"
{ echo "# ls -la /sys/class/infiniband /dev/infiniband"; ls -la /sys/class/infiniband /dev/infiniband 2>&1
  for port in /sys/class/infiniband/*/ports/*; do
    [ -d "$port" ] || continue
    for f in state phys_state rate link_layer; do printf '%s/%s: %s\n' "$port" "$f" "$(cat "$port/$f" 2>&1)"; done
  done
  echo "# ip -br link"; ip -br link 2>&1 || ls /sys/class/net
  echo "# lspci -nn (NVIDIA, Mellanox)"; lspci -nn 2>&1 | grep -iE 'nvidia|mellanox|10de:|15b3:' || true
} > "$fx/fabric.txt" 2>&1
{ echo "# uname -a"; uname -a; echo "# /etc/os-release"; cat /etc/os-release; echo "# nproc"; nproc
  echo "# ldconfig -p (nccl, cudnn, cudart, libcuda)"; ldconfig -p | grep -E 'nccl|cudnn|cudart|libcuda'
  echo "# pip list (the environment)"; "$env_path/bin/python" -m pip list 2>/dev/null | grep -iE '^(torch|nvidia-nccl|numpy|horovod) '
} > "$fx/host.txt" 2>&1
find "$fx" -type f -printf '%s %f\n' | sort -k2 | tee -a "$out/summary.txt"

# Horovod's Gloo binds the address the node's hostname resolves to: unresolvable, Horovod crashes (SIGSEGV); not an
# address of the host, it aborts ("bind(2) ... Cannot assign requested address"). The horovod_benchmark role's
# preflight refuses such a node; here, on a lent server, the hostname gets the Debian/Ubuntu convention (127.0.1.1 in
# /etc/hosts, the original kept as /etc/hosts.gpu-host-check) and the summary says so.
step "hostname"
if python3 - <<'PY' 2>&1 | tee -a "$out/summary.txt"
import socket, sys
name = socket.gethostname()
try:
    addrs = sorted({a[4][0] for a in socket.getaddrinfo(name, None)})
except socket.gaierror as e:
    addrs = []
    print("%s does not resolve (%s)" % (name, e))
bindable = []
for a in addrs:
    try:
        with socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((a, 0))
        bindable.append(a)
    except OSError:
        pass
print("%s resolves to %s; an address of this host: %s" % (name, addrs or "nothing", bindable or "none"))
sys.exit(0 if bindable else 1)
PY
then :; else
  cp -n /etc/hosts /etc/hosts.gpu-host-check
  { grep -vw "$(hostname)" /etc/hosts.gpu-host-check; printf '127.0.1.1\t%s\n' "$(hostname)"; } > /etc/hosts
  echo "added to /etc/hosts: 127.0.1.1 $(hostname) (the original: /etc/hosts.gpu-host-check)" | tee -a "$out/summary.txt"
fi

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

# nccl-tests' all_reduce_perf beside the converge (it needs nothing the converge makes): the release archive in
# tests/nccl_tests, NCCL's header and library from the environment's nvidia-nccl wheel (the one torch and Horovod use;
# the library found through the program's run path), the server's nvcc and Open MPI, for the GPUs' architecture.
step "nccl-tests: all_reduce_perf built in the background (nccl-tests-build.log)"
nccl_dir=$("$env_path/bin/python" -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null)
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=${arch:-${GPU_HOST_CUDA_ARCH:-90}}
tests_dir=$work/nccl-tests
nccl_tests_build() {
  set -e
  rm -rf "$tests_dir"; mkdir -p "$tests_dir/nccl/lib" "$tests_dir/mpi"
  ln -s "$nccl_dir/include" "$tests_dir/nccl/include"
  ln -s "$nccl_dir/lib/libnccl.so.2" "$tests_dir/nccl/lib/libnccl.so"
  ln -s "$(mpicc --showme:incdirs | awk '{print $1}')" "$tests_dir/mpi/include"
  ln -s "$(mpicc --showme:libdirs | awk '{print $1}')" "$tests_dir/mpi/lib"
  tar -C "$tests_dir" -xzf "$here/tests/nccl_tests/nccl-tests-2.19.6.tar.gz"
  LD_RUN_PATH="$nccl_dir/lib:$cuda_home/lib64" make -C "$tests_dir/nccl-tests-2.19.6/src" -j"$(nproc)" MPI=1 MPI_HOME="$tests_dir/mpi" \
    NCCL_HOME="$tests_dir/nccl" CUDA_HOME="$cuda_home" NVCC_GENCODE="-gencode=arch=compute_$arch,code=sm_$arch" \
    BUILDDIR="$tests_dir/build" "$tests_dir/build/all_reduce_perf"
  ldd "$tests_dir/build/all_reduce_perf" | grep -E 'nccl|cudart|mpi'
}
if [ -n "$nccl_dir" ] && [ "$with_mpi" = auto ]; then
  echo "NCCL $nccl_dir, sm_$arch" | tee -a "$out/summary.txt"
  ( nccl_tests_build ) > "$out/nccl-tests-build.log" 2>&1 &
  nccl_tests_pid=$!
else
  echo "not built: $([ -n "$nccl_dir" ] || echo 'no nvidia.nccl in the environment; ')$([ "$with_mpi" = auto ] || echo 'no mpi.h')" \
    | tee -a "$out/summary.txt"
  nccl_tests_pid=
fi
nccl_info=/tmp/gpu-host-nccl-info
rm -rf "$nccl_info"; mkdir -p "$nccl_info"; chmod 1777 "$nccl_info"

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
        # all_reduce_perf built beside (above); auto: the verdict says when it was not there to run
        horovod_benchmark_nccl_tests: auto
        horovod_benchmark_nccl_tests_dir: $tests_dir/build
        # NCCL's INFO log of every run, one file per process (not in the output the report parses)
        horovod_benchmark_env_extra:
          NCCL_DEBUG: INFO
          NCCL_DEBUG_FILE: $nccl_info/nccl.%h.%p.log
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

step "node_health"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
ANSIBLE_LOAD_CALLBACK_PLUGINS=1 ANSIBLE_STDOUT_CALLBACK=ansible.posix.json \
  "$work/ansible/bin/python" -m ansible.cli.adhoc -i "$work/hosts.yml" hvd_nodes -m gpucluster.horovod.node_health \
  -a "expected_gpus=$ngpu" > "$out/node_health.json" 2>> "$out/summary.txt"
python3 -c 'import json, sys
text = open(sys.argv[1]).read()
for host, r in json.JSONDecoder().raw_decode(text[text.index("{"):])[0]["plays"][0]["tasks"][0]["hosts"].items():
    print(host, "status:", r.get("status", r.get("msg")), "driver:", r.get("driver_version"), "sources:", r.get("sources"))
    for c in r.get("checks", []):
        print("  %-5s %-22s %s" % (c["status"], c["name"], c.get("reason") or c.get("value")))' \
  "$out/node_health.json" 2>&1 | tee -a "$out/summary.txt"

step "fabric_facts (the no-fabric path of a real server)"
ANSIBLE_LOAD_CALLBACK_PLUGINS=1 ANSIBLE_STDOUT_CALLBACK=ansible.posix.json \
  "$work/ansible/bin/python" -m ansible.cli.adhoc -i "$work/hosts.yml" hvd_nodes -m gpucluster.horovod.fabric_facts \
  > "$out/fabric_facts.json" 2>> "$out/summary.txt"
python3 -c 'import json, sys
text = open(sys.argv[1]).read()
for host, r in json.JSONDecoder().raw_decode(text[text.index("{"):])[0]["plays"][0]["tasks"][0]["hosts"].items():
    f = r.get("fabric", r.get("msg"))
    print(host, json.dumps(f)[:600])' "$out/fabric_facts.json" 2>&1 | tee -a "$out/summary.txt"

# The cuda and nccl roles' own check programs (roles/*/files), compiled with the arguments their verify.yml gives gcc
# and run on the GPUs: their asserts want "devices=N" at the end of a line and "allreduce ok devices=N ".
step "the roles' check programs: cuda_device_query.c and nccl_allreduce.c on the GPUs"
checks=$work/role-checks
mkdir -p "$checks"
ln -sfn "$nccl_dir/lib/libnccl.so.2" "$checks/libnccl.so"
{ gcc "$here/roles/cuda/files/cuda_device_query.c" -o "$checks/cuda_device_query" -I"$cuda_home/include" \
    -L"$cuda_home/lib64" -Wl,-rpath,"$cuda_home/lib64" -lcudart 2>&1 && "$checks/cuda_device_query" 2>&1
  echo "cuda_device_query rc $?"
  gcc "$here/roles/nccl/files/nccl_allreduce.c" -o "$checks/nccl_allreduce" -I"$nccl_dir/include" -L"$checks" \
    -Wl,-rpath,"$nccl_dir/lib" -I"$cuda_home/include" -I"$cuda_home/include/cccl" -L"$cuda_home/lib64" \
    -Wl,-rpath,"$cuda_home/lib64" -lnccl -lcudart 2>&1 && "$checks/nccl_allreduce" 2>&1
  echo "nccl_allreduce rc $?"
} > "$out/role-checks.txt" 2>&1
tee -a "$out/summary.txt" < "$out/role-checks.txt"

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
  site_failed=1
fi

site_failed=${site_failed:-0}
step "again: site.yml --tags nvidia_driver,horovod (must change nothing)"
again=not-run
if [ "$site_failed" = 1 ]; then
  echo "skipped: the first run failed" | tee -a "$out/summary.txt"
elif [ "$(left)" -lt 70 ]; then
  echo "skipped: $(left)s left of GPU_HOST_BUDGET, too little for the second run" | tee -a "$out/summary.txt"
else
  timeout --kill-after=10 "$(( $(left) - 10 ))" \
    "${playbook[@]}" -i "$work/hosts.yml" playbooks/site.yml --tags nvidia_driver,horovod > "$out/again.log" 2>&1
  rc=$?
  grep -A3 'PLAY RECAP' "$out/again.log" | tee -a "$out/summary.txt"
  if [ $rc -ne 0 ]; then again="failed (rc $rc)"
  elif grep -q "changed=0 " "$out/again.log"; then again=unchanged
  else again=changed; grep -B1 -A3 '^changed:' "$out/again.log" | head -40 >> "$out/summary.txt"
  fi
fi

step "benchmark results (results/)"
report=$(find "$work/results" -name report.md -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)
if [ -n "$report" ]; then
  mkdir -p "$out/results"
  cp -r "$(dirname "$report")"/. "$out/results/"
  echo "report: $report" | tee -a "$out/summary.txt"
else
  echo "no report under $work/results" | tee -a "$out/summary.txt"
fi

step "Horovod's build (horovodrun --check-build in the environment)"
"$env_path/bin/horovodrun" --check-build > "$out/check-build.txt" 2>&1
tee -a "$out/summary.txt" < "$out/check-build.txt"

# The role ran nccl-tests when the program was there; otherwise (a failed converge, a late build) run it here, so the
# bandwidth and NCCL's INFO log are kept all the same.
tests_rc=not-built
if [ -n "$nccl_tests_pid" ]; then wait "$nccl_tests_pid"; tests_rc=$?; fi
step "nccl-tests: build rc $tests_rc"
tail -3 "$out/nccl-tests-build.log" 2>/dev/null | tee -a "$out/summary.txt"
if [ ! -f "$out/results/raw/nccl-tests-all_reduce_perf.txt" ] && [ -x "$tests_dir/build/all_reduce_perf" ] \
   && [ "$(left)" -gt 30 ]; then
  echo "the benchmark did not run it: all_reduce_perf run here, as root" | tee -a "$out/summary.txt"
  NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$nccl_info/nccl.%h.%p.log" timeout 60 \
    "$tests_dir/build/all_reduce_perf" -b 8 -e 256M -f 2 -g "${ngpu:-1}" > "$out/nccl-tests-direct.txt" 2>&1
  tail -8 "$out/nccl-tests-direct.txt" | tee -a "$out/summary.txt"
fi
mkdir -p "$out/nccl-info"
cp "$nccl_info"/* "$out/nccl-info/" 2>/dev/null
echo "NCCL INFO logs: $(find "$out/nccl-info" -type f | wc -l)" | tee -a "$out/summary.txt"

# One line per claim; the exit status is 0 only when each passed.
step "verdict"
GPU_HOST_AGAIN="$again" GPU_HOST_NGPU="$ngpu" python3 - "$out" <<'PY' | tee -a "$out/summary.txt"
import json, os, re, sys
out = sys.argv[1]
def read(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return ""
try:
    doc = json.loads(read("results/result.json"))
except ValueError:
    doc = {}
s = doc.get("summary", {})
nodes = doc.get("nodes") or [{}]
report = read("results/report.md")
nccl_raw = read("results/raw/nccl-tests-all_reduce_perf.txt")
health = read("node_health.json")
claims = [
    ("training ran on the GPU (result.json device cuda)", s.get("device") == "cuda", s.get("device")),
    ("Horovod built with NCCL (horovodrun --check-build)",
     bool(re.search(r"\[X\] NCCL", read("check-build.txt"))), "see check-build.txt"),
    ("nccl-tests ran on the GPUs with its result check (the benchmark's run)",
     bool(doc.get("nccl_tests")) and "Out of bounds values : 0 OK" in nccl_raw,
     (doc.get("nccl_tests") or {}).get("avg_busbw_GBps")),
    ("the report has the overhead ratio", s.get("overhead_ratio") is not None and "overhead" in report,
     s.get("overhead_ratio")),
    ("the report has the GPU, driver, CUDA, NCCL and topology lines",
     bool(nodes[0].get("gpu_models")) and bool(nodes[0].get("topo")) and all(
         w in report for w in ("driver", "CUDA (driver)", "NCCL", "nvidia-smi topo -m")),
     "%s; topo %s" % (nodes[0].get("gpu_models"), "yes" if nodes[0].get("topo") else "no")),
    ("the second converge changed nothing", os.environ.get("GPU_HOST_AGAIN") == "unchanged",
     os.environ.get("GPU_HOST_AGAIN")),
    ("node_health ran", '"checks"' in health, "see node_health.json"),
    ("the cuda role's device query saw every GPU (devices=N)", bool(re.search(
        r"devices=%s$" % os.environ.get("GPU_HOST_NGPU", "?"), read("role-checks.txt"), re.M)), "role-checks.txt"),
    ("the nccl role's all-reduce ran over every GPU", bool(re.search(
        r"^allreduce ok devices=%s " % os.environ.get("GPU_HOST_NGPU", "?"), read("role-checks.txt"), re.M)),
     "role-checks.txt"),
    ("fabric_facts answered", '"fabric"' in read("fabric_facts.json"), "fabric_facts.json"),
    ("the first play's health gate judged the node", bool(re.search(
        r"TASK \[gpucluster\.horovod\.preflight : Judge the health of the GPU nodes[^\n]*\n[^\n]*\nok: ",
        read("site.log"))), "site.log"),
    ("the report has the Node health section (before and after the runs)",
     "## Node health" in report and bool((nodes[0].get("health") or {}).get("after")),
     (nodes[0].get("health") or {}).get("after")),
]
for text, ok, value in claims:
    print("%s  %s  (%s)" % ("PASS" if ok else "FAIL", text, value))
print("verdict: %s" % ("every claim holds" if all(c[1] for c in claims) else "NOT what it claims"))
sys.exit(0 if all(c[1] for c in claims) else 1)
PY
verdict=${PIPESTATUS[0]}
echo "time used: $(( ${GPU_HOST_BUDGET:-540} - $(left) ))s of ${GPU_HOST_BUDGET:-540}s" | tee -a "$out/summary.txt"
exit "$verdict"
