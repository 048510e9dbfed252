#!/bin/sh
# gpu_io.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_io.sh
. "$(dirname "$0")/gpu_io.sh"
