#!/bin/sh
# gpu_memtype: memory-type answers stay right when an address changes kind
# (host memory unmapped and reused for device memory, alone and by 4
# threads; pool memory trimmed and reused for host memory), and host
# buffers outside the heap do not cost a driver query each (see
# gpu_memtype.c for the cases).
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_gpu "$np"
done
