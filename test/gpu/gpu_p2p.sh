#!/bin/sh
# gpu_p2p: every send mode x device/host direction x sizes 0 B to 64 MiB on
# 2 ranks; on 3 and 4 ranks (pairs at work at once, sharing the GPUs) up to
# 1 MiB + 3, or up to 64 MiB as well where GPU_TEST_FULL=1 (run-gpu-suite.sh:
# a CPU-only machine, with the fake driver, takes too long for the harness's
# timeout). Skipped (77) without a GPU.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

run_gpu 2
for np in 3 4; do
    if [ "${GPU_TEST_FULL:-0}" = 1 ]; then
        run_gpu "$np"
    else
        run_gpu "$np" 2M
    fi
done
