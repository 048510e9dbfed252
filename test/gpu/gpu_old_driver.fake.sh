#!/bin/sh
# gpu_old_driver.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_old_driver.sh
. "$(dirname "$0")/gpu_old_driver.sh"
