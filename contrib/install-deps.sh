#!/bin/sh
# Installs, with apt-get, what ompi-lite needs to build and test, when it is
# missing. Idempotent; quiet when everything is there. Run as root (or with
# sudo available).
#   contrib/install-deps.sh          build and test dependencies
#   contrib/install-deps.sh --peers  also Open MPI and MPICH, for comparisons
set -eu

packages="build-essential autoconf automake libtool pkg-config python3 \
libucx-dev ucx-utils libpmix-dev libhwloc-dev libevent-dev \
procps iproute2 gfortran cmake"
if [ "${1:-}" = "--peers" ]; then
    packages="$packages openmpi-bin libopenmpi-dev mpich libmpich-dev gnuplot-nox hyperfine"
fi

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing$missing"
as_root=""
[ "$(id -u)" -ne 0 ] && as_root="sudo"
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (a test that installs its own package) may hold dpkg's lock.
lock_wait="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
$as_root apt-get $lock_wait update -qq
# shellcheck disable=SC2086
$as_root apt-get $lock_wait install -y -qq --no-install-recommends $missing >/dev/null
