#!/bin/sh
# Prepares what test/gpu/run-gpu-suite.sh needs on a machine with a GPU but
# no packages and no network, carried there inside the repository tree:
#   _install/       the installed ompi-lite (contrib/build.sh), benchmarks in bin/
#   _carry/lib/     the shared libraries of UCX, PMIx, hwloc and libevent and
#                   their dependencies (everything the programs need except
#                   the C library), taken from the Debian packages with
#                   apt-get download + dpkg -x
#   _carry/lib/ucx/ UCX's transport modules (loaded with dlopen; UCX_MODULE_DIR)
#   _carry/tests/   the test/gpu programs (make gpu-test-programs)
# Lists what it took and the sizes; fails if the total reaches 60 MiB.
# NCCL's libnccl.so.2, which _install/bin/coll_perf_nccl needs, is not
# carried: it alone is over 200 MiB. The suite takes the GPU machine's own
# (run-gpu-suite.sh, find_nccl).
# Run from a fresh clone (it runs contrib/build.sh itself; root and the
# Debian mirrors are needed for apt-get download). See test/gpu/README.md.
set -eu
cd "$(dirname "$0")/.."
top=$PWD
carry=$top/_carry
limit_kib=$((60 * 1024))

# build.sh does only what is needed: _install is then current.
[ -n "${OMPI_LITE_PREFIX:-}" ] && [ "$OMPI_LITE_PREFIX" != "$top/_install" ] &&
    { echo "gpu-carry: the suite expects the install in _install (OMPI_LITE_PREFIX)" >&2; exit 1; }
sh contrib/build.sh >/dev/null
make -j2 gpu-test-programs >/dev/null

rm -rf "$carry"
mkdir -p "$carry/lib/ucx" "$carry/tests"
# Every program make gpu-test-programs built (test/gpu/gpu_NAME, no dot).
find test/gpu -maxdepth 1 -type f -name 'gpu_*' ! -name '*.*' -perm -u+x \
    -exec cp {} "$carry/tests/" \;

# The UCX transport modules worth having on one host (shared memory is in
# libuct itself; cma adds single-copy transfers). The InfiniBand ones
# would drag in rdma-core and are of no use on one host.
ucx_dir=$(dirname "$(ldconfig -p | awk '/libucp.so.0 / { print $NF; exit }')")/ucx
ucx_modules="$ucx_dir/libuct_cma.so.0"

# Libraries the programs load, by ldd, except the C library's own, which
# every system has (and which must match the system's dynamic linker).
needed() {
    for f in _install/bin/* _install/libexec/* _install/lib/libmpi_abi.so.1 "$carry"/tests/* \
        $ucx_modules; do
        # NCCL and what it loads (libstdc++) are the GPU machine's own; the
        # rest of coll_perf_nccl's libraries are coll_perf's.
        [ "$f" = _install/bin/coll_perf_nccl ] && continue
        [ -f "$f" ] && ldd "$f" 2>/dev/null
    done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u | grep -v "^$top/" |
        grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libresolv|libutil)\.so' || true
}

# The Debian package that installed a file (dpkg -S knows the path with or
# without the /usr prefix of merged /usr).
package_of() {
    p=$(dpkg -S "$1" 2>/dev/null | head -n 1 | cut -d: -f1)
    [ -n "$p" ] || p=$(dpkg -S "/usr$1" 2>/dev/null | head -n 1 | cut -d: -f1)
    echo "$p"
}

work=$(mktemp -d)
chmod 755 "$work" # apt-get download fetches as the _apt user
trap 'rm -rf "$work"' EXIT
libs=$(needed)
packages=$(for l in $libs $ucx_modules; do package_of "$(readlink -f "$l")"; done | sort -u)
# shellcheck disable=SC2086 # one package per word
echo "gpu-carry: packages:" $packages
# shellcheck disable=SC2086
if ! (cd "$work" && apt-get download $packages) >"$work/apt.log" 2>&1; then
    cat "$work/apt.log" >&2
    exit 1
fi
for deb in "$work"/*.deb; do
    dpkg -x "$deb" "$work/root"
done

# copy_from_packages FILE DIR: the file of the same name from the unpacked
# packages (its real file, under its soname).
copy_from_packages() {
    name=$(basename "$1")
    found=$(find "$work/root" -name "$name" | head -n 1)
    [ -n "$found" ] || { echo "gpu-carry: $name is in none of the packages" >&2; exit 1; }
    cp -L "$found" "$2/$name"
    echo "  $2/$name  ($(package_of "$(readlink -f "$1")"))" | sed "s|$top/||"
}

echo "gpu-carry: libraries:"
for l in $libs; do
    # one copy per name (libpmix.so.2 is found at two paths)
    [ -e "$carry/lib/$(basename "$l")" ] || copy_from_packages "$l" "$carry/lib"
done
for m in $ucx_modules; do
    copy_from_packages "$m" "$carry/lib/ucx"
done

# What else the copied libraries need that is not already there or libc.
missing=$(LD_LIBRARY_PATH=$carry/lib ldd "$carry"/lib/*.so* "$carry"/lib/ucx/*.so* 2>/dev/null |
    awk '/not found/ { print $1 }' | sort -u)
[ -z "$missing" ] || { echo "gpu-carry: still missing: $missing" >&2; exit 1; }

strip --strip-unneeded "$carry"/lib/*.so* "$carry"/lib/ucx/*.so* "$carry"/tests/* 2>/dev/null || true
install_kib=$(du -sk _install | cut -f1)
carry_kib=$(du -sk "$carry" | cut -f1)
total=$((install_kib + carry_kib))
echo "gpu-carry: sizes: _install $install_kib KiB, _carry $carry_kib KiB, total $total KiB (limit $limit_kib KiB)"
[ "$total" -lt "$limit_kib" ] || { echo "gpu-carry: too big to carry" >&2; exit 1; }
echo "gpu-carry: carry _install and _carry; on the GPU machine: sh test/gpu/run-gpu-suite.sh"
