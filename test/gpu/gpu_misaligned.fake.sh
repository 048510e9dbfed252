#!/bin/sh
# gpu_misaligned.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_misaligned.sh
. "$(dirname "$0")/gpu_misaligned.sh"
