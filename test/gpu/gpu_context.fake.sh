#!/bin/sh
# gpu_context.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_context.sh
. "$(dirname "$0")/gpu_context.sh"
