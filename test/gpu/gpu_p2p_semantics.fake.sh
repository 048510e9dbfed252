#!/bin/sh
# gpu_p2p_semantics.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_p2p_semantics.sh
. "$(dirname "$0")/gpu_p2p_semantics.sh"
