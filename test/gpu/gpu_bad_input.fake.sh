#!/bin/sh
# gpu_bad_input.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_bad_input.sh
. "$(dirname "$0")/gpu_bad_input.sh"
