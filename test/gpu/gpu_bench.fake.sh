#!/bin/sh
# gpu_bench.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_bench.sh
. "$(dirname "$0")/gpu_bench.sh"
