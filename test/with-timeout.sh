#!/bin/sh
# Runs one test under a wall-clock limit so that no test can hang the suite.
# A test that runs out of time is killed (with its process group) and fails.
limit=${TEST_TIMEOUT:-120}
exec timeout --kill-after=5 "$limit" "$@"
