#!/bin/sh
# gpu_io: MPI-IO from and into device buffers (see gpu_io.c): write_at,
# write_all through a subarray view, iwrite_at_all through a vector view,
# write_shared and the matching reads, contiguous and vector memory types,
# and reads cut short by the end of the file; every file compared byte for
# byte with a host writer's. On 1, 2 and 3 ranks; the files go to the
# scratch directory.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3; do
    mkdir "$work/io$np" || hard_error "cannot make $work/io$np"
    run_gpu "$np" "$work/io$np"
done
