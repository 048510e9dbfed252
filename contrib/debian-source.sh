# Sourced by the contrib scripts that test ompi-lite with other projects'
# code: fetch_debian_source PACKAGE DIR downloads PACKAGE's Debian source
# package into DIR with apt-get, adding a deb-src entry for Debian's archive
# where the machine has none (needs root). What the scripts use is the
# upstream tarball, PACKAGE_VERSION.orig.tar.*: its download is the success
# (a mirror may lack the Debian part).
fetch_debian_source() {
    mkdir -p "$2"
    (
        cd "$2"
        have_orig() { ls "$1"_*.orig.tar.* >/dev/null 2>&1; }
        apt-get source --download-only "$1" >/dev/null 2>&1 || true
        have_orig "$1" && exit 0
        if grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d; then
            echo "cannot download the source of $1" >&2
            exit 1
        fi
        cat >/etc/apt/sources.list.d/ompi-lite-debian-src.sources <<'SOURCES'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
        apt-get -o DPkg::Lock::Timeout=600 update -qq
        apt-get source --download-only "$1" >/dev/null 2>&1 || true
        have_orig "$1" || { echo "cannot download the source of $1" >&2; exit 1; }
    )
}
