#!/bin/sh
# gpu_memtype.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_memtype.sh
. "$(dirname "$0")/gpu_memtype.sh"
