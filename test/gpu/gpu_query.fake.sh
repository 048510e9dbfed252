#!/bin/sh
# gpu_query.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_query.sh
. "$(dirname "$0")/gpu_query.sh"
