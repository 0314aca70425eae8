#!/usr/bin/env bash
# Rehearse tools/gpu-host-check.sh here, on a container that imitates a lent GPU server, before spending device time:
# Debian 12, root, torch 2.13.0+cu130 with its NVIDIA wheels (nvidia-nccl-cu13 among them) in /opt/torch/.venv, a
# CUDA 13.0 toolkit at /usr/local/cuda laid out from NVIDIA's compiler wheels, Open MPI, g++, cmake, make, no GPU, and
# then no network at all (only the loopback). The checkout is copied in as the device tool copies it (tracked and
# untracked-not-ignored files) with a bundle for the container's Python (3.11).
#
#   tools/gpu-host-rehearse.sh [OUTDIR]      default /tmp/gpu-host-rehearsal; the container is gpuhost-rehearsal
#
# Needs the torch CUDA 13.0 wheelhouse that molecule/horovod_gpu_build's prepare downloads into the machine cache
# ($GPUCLUSTER_TEST_CACHE/downloads/wheelhouse-torch-2.13.0-cu130-cp311) and the image gpucluster/debian:12 (make
# images). Without a GPU the GPU claims of the verdict fail, as they must; the flow (bundle, Ansible, converge, second
# run, report, nccl-tests build) is what is rehearsed. GPU_HOST_EXTRA_VARS shrinks the CPU benchmark.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/gpu-host-rehearsal}
cache=${GPUCLUSTER_TEST_CACHE:-$("$here/scripts/test-cache-dir.sh")}
wh=$cache/downloads/wheelhouse-torch-2.13.0-cu130-cp311
[ -d "$wh" ] || { echo "no $wh: run molecule/horovod_gpu_build once (its prepare downloads it)" >&2; exit 1; }
cd "$here"
[ -f .gpu-host-311/SHA256SUMS ] || tools/gpu-host-bundle.sh .gpu-host-311 3.11
docker rm -f gpuhost-rehearsal >/dev/null 2>&1 || true
docker run -d --name gpuhost-rehearsal --hostname gpuhost -v "$wh:/srv/wheelhouse:ro" gpucluster/debian:12 sleep infinity
docker exec gpuhost-rehearsal bash -ec '
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-venv python3-dev g++ cmake make \
  patch openmpi-bin libopenmpi-dev sudo procps
for w in nvidia_cuda_nvcc-13.0.88 nvidia_nvvm-13.0.88 nvidia_cuda_crt-13.0.88 nvidia_cuda_cccl-13.0.85 nvidia_cuda_runtime-13.0.96; do
  python3 -m zipfile -e /srv/wheelhouse/$w-*.whl /opt/cuda-13.0-wheels
done
top=/opt/cuda-13.0-wheels/nvidia/cu13
find "$top"/bin "$top"/nvvm/bin -maxdepth 1 -type f -exec chmod 0755 {} +
ln -sfn lib "$top"/lib64; ln -sfn libcudart.so.13 "$top"/lib/libcudart.so; ln -sfn "$top" /usr/local/cuda
python3 -m venv /opt/torch/.venv
PIP_DISABLE_PIP_VERSION_CHECK=1 /opt/torch/.venv/bin/pip install -q --no-cache-dir --no-index --find-links /srv/wheelhouse torch==2.13.0'
docker network disconnect bridge gpuhost-rehearsal
docker exec gpuhost-rehearsal mkdir -p /root/repo
(git ls-files -co --exclude-standard; find .gpu-host-311 -type f) | tar -cf - -T - | docker exec -i gpuhost-rehearsal tar -C /root/repo -xf -
rc=0
docker exec -e GPU_HOST_BUDGET="${GPU_HOST_BUDGET:-1800}" -e GPU_HOST_EXTRA_VARS="${GPU_HOST_EXTRA_VARS:-{\"horovod_benchmark_steps\": 3, \"horovod_benchmark_warmup_steps\": 1, \"horovod_benchmark_batch_size\": 4, \"horovod_benchmark_image_size\": 64, \"horovod_benchmark_sizes\": \"1M,4M\"}}" \
  gpuhost-rehearsal bash -c "cd /root/repo && tools/gpu-host-check.sh .gpu-host-311 /tmp/gh /opt/torch/.venv" || rc=$?
rm -rf "$out"; mkdir -p "$out"; docker cp gpuhost-rehearsal:/tmp/gh/. "$out/"
echo "gpu-host-rehearse: check rc $rc (the GPU claims fail without a GPU); its output in $out; docker rm -f gpuhost-rehearsal when done"
