#!/bin/sh
# gpu_pvars.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_pvars.sh
. "$(dirname "$0")/gpu_pvars.sh"
