#!/bin/sh
# gpu_unusable_driver.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_unusable_driver.sh
. "$(dirname "$0")/gpu_unusable_driver.sh"
