#!/bin/sh
# gpu_rma.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_rma.sh
. "$(dirname "$0")/gpu_rma.sh"
