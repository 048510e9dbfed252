#!/bin/sh
# gpu_half.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_half.sh
. "$(dirname "$0")/gpu_half.sh"
