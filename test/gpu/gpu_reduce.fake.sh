#!/bin/sh
# gpu_reduce.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_reduce.sh
. "$(dirname "$0")/gpu_reduce.sh"
