#!/bin/sh
# gpu_part: partitioned communication on device buffers (see gpu_part.c)
# on 2 and 3 ranks.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_gpu "$np"
done
