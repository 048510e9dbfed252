#!/bin/sh
# gpu_reduce: every predefined op on every type, MINLOC/MAXLOC and user ops on device buffers; on 2, 3 and 4 ranks sharing the GPUs. Skipped (77) without a GPU.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4; do
    run_gpu "$np"
done
