#!/bin/sh
# gpu_host_only.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_host_only.sh
. "$(dirname "$0")/gpu_host_only.sh"
