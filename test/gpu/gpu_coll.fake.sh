#!/bin/sh
# gpu_coll.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_coll.sh
. "$(dirname "$0")/gpu_coll.sh"
