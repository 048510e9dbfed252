#!/bin/sh
# gpu_pools.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_pools.sh
. "$(dirname "$0")/gpu_pools.sh"
