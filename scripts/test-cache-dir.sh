#!/usr/bin/env bash
# Prints the machine-level test cache directory: GPUCLUSTER_TEST_CACHE when set, else
# /var/cache/gpucluster-horovod-test for root and $XDG_CACHE_HOME/gpucluster-horovod-test (~/.cache) for others.
# It lies outside the checkout, so clean clones on one machine share it: downloads (checked by checksum as
# before), apt archives and the builders' compile cache (ccache). `make clean-caches` empties it; a cold
# cache gives the same results, only slower (docs/testing.md, "Caches").
if [ -n "${GPUCLUSTER_TEST_CACHE:-}" ]; then
    echo "$GPUCLUSTER_TEST_CACHE"
elif [ "$(id -u)" = 0 ]; then
    echo /var/cache/gpucluster-horovod-test
else
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/gpucluster-horovod-test"
fi
