#!/bin/sh
# gpu_part.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_part.sh
. "$(dirname "$0")/gpu_part.sh"
