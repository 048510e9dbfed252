#!/bin/sh
# gpu_allreduce_fallback.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_allreduce_fallback.sh
. "$(dirname "$0")/gpu_allreduce_fallback.sh"
