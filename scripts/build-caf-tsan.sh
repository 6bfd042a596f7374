#!/usr/bin/env bash
# Builds CAF 0.17.6 (libcaf_core only, the one CAF library courier links) with ThreadSanitizer
# and installs it into a prefix, for the Tsan build type (CMake preset `tsan`, `make tsan`).
#
# Why: Debian's libcaf_core is not instrumented. CAF's scheduler and mailboxes hand actors and
# messages between worker threads through atomics inside that library, which TSan cannot see,
# so every actor that runs on two worker threads in turn is reported as a data race. Suppressing
# those reports would switch TSan off for all actor code; a TSan-built CAF lets TSan see the
# hand-offs (docs/architecture.md, "ThreadSanitizer and prebuilt libraries").
#
# The source is Debian's: the upstream tarball and the Debian packaging of 0.17.6-2.1 (the
# version bookworm's libcaf-dev is built from), checked against the .dsc's Checksums-Sha256
# (the .dsc itself against the SHA-256 pinned below), with debian/patches applied in series
# order, so the library matches the distribution's. When the mirror does not have the packaging
# tarball (deb.debian.org answered 404 for it when this script was written), the one Debian
# change a core build can see is applied instead (see builtin_patches) and the stamp says so;
# CAF_TSAN_REQUIRE_DEBIAN_PATCHES=1 makes that case an error instead.
#
# Idempotent: does nothing when the prefix already holds this version built with these flags
# (the stamp file .courier-caf-tsan). A build takes several minutes on 2 cores.
#
# Usage: scripts/build-caf-tsan.sh [PREFIX]
#   PREFIX                 install prefix (default $CAF_TSAN_PREFIX, else build/caf-tsan/install
#                          in the checkout, the prefix the tsan preset's CAF_ROOT names)
#   CAF_TSAN_WORKDIR       downloads, sources and the CAF build tree (default PREFIX/../work)
#   CAF_TSAN_JOBS          parallel compile jobs (default 2)
#   DEBIAN_MIRROR          default http://deb.debian.org/debian
#   CXX                    the compiler (default c++, the project's: GCC 12 on bookworm)
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

caf_version=0.17.6
debian_version=0.17.6-2.1
dsc=actor-framework_${debian_version}.dsc
dsc_sha256=7ccc9d9c7585dde8695132dcb48ee4935aa9c56cab382ecb9b925fe9c2de1da8
orig=actor-framework_${caf_version}.orig.tar.gz
debian_tar=actor-framework_${debian_version}.debian.tar.xz

prefix=${1:-${CAF_TSAN_PREFIX:-$repo_root/build/caf-tsan/install}}
prefix=$(mkdir -p "$prefix" && cd "$prefix" && pwd)
workdir=${CAF_TSAN_WORKDIR:-$(dirname "$prefix")/work}
jobs=${CAF_TSAN_JOBS:-2}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
pool=$mirror/pool/main/a/actor-framework
cxx=${CXX:-c++}

# The same flags as courier's Tsan build type (cmake/CourierSanitizers.cmake), at -O1 -g.
# -std=c++14: Debian's packaging builds CAF 0.17.6 as C++14 (changelog 0.17.6-1).
cxx_flags="-std=c++14 -O1 -g -fno-omit-frame-pointer -fsanitize=thread"
stamp=$prefix/.courier-caf-tsan

log() { echo "build-caf-tsan: $*"; }
die() {
  echo "build-caf-tsan: $*" >&2
  exit 1
}

for tool in curl sha256sum tar xz patch cmake ninja readelf "$cxx"; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done

cxx_id=$("$cxx" --version | head -n 1)
case $cxx_id in
  *"g++"*" 12."* | *"c++"*" 12."*) ;;
  *) log "warning: $cxx is '$cxx_id', not GCC 12 as courier's build" ;;
esac

want="caf=$debian_version cxx=$cxx_id flags=$cxx_flags"
if [[ -f $stamp && -e $prefix/lib/libcaf_core.so.$caf_version ]] &&
  head -n 1 "$stamp" | grep -qxF "$want"; then
  log "CAF $debian_version (TSan) already installed in $prefix ($(sed -n 2p "$stamp"))"
  exit 0
fi

mkdir -p "$workdir/dl"
cd "$workdir/dl"

fetch() { # fetch <file>: downloads into the current directory, 1 if the mirror lacks it
  local code
  code=$(curl -sS -L --retry 3 -o "$1.part" -w '%{http_code}' "$pool/$1") || code=000
  if [[ $code != 200 ]]; then
    rm -f "$1.part"
    log "$pool/$1: HTTP $code"
    return 1
  fi
  mv "$1.part" "$1"
}

check_sha256() { # check_sha256 <file> <sha256>
  echo "$2  $1" | sha256sum --check --quiet - || die "$1: SHA-256 mismatch (expected $2)"
}

# The expected SHA-256 of a file, from the .dsc's Checksums-Sha256 section.
dsc_sha256_of() {
  awk -v f="$1" '/^Checksums-Sha256:/ { s = 1; next } /^[^ ]/ { s = 0 } s && $3 == f { print $1 }' "$dsc"
}

[[ -f $dsc ]] || fetch "$dsc" || die "cannot download $dsc"
check_sha256 "$dsc" "$dsc_sha256"
orig_sha256=$(dsc_sha256_of "$orig")
debian_sha256=$(dsc_sha256_of "$debian_tar")
[[ -n $orig_sha256 && -n $debian_sha256 ]] || die "$dsc: no Checksums-Sha256 for $orig / $debian_tar"

[[ -f $orig ]] || fetch "$orig" || die "cannot download $orig"
check_sha256 "$orig" "$orig_sha256"

have_debian=no
if [[ -f $debian_tar ]] || fetch "$debian_tar"; then
  check_sha256 "$debian_tar" "$debian_sha256"
  have_debian=yes
elif [[ ${CAF_TSAN_REQUIRE_DEBIAN_PATCHES:-0} == 1 ]]; then
  die "$debian_tar is not on $mirror (CAF_TSAN_REQUIRE_DEBIAN_PATCHES=1)"
else
  log "warning: $debian_tar is not on $mirror; applying the built-in equivalent of its patches"
fi

src=$workdir/src/actor-framework-$caf_version
rm -rf "$workdir/src" "$workdir/build"
mkdir -p "$workdir/src"
tar -xzf "$orig" -C "$workdir/src"
[[ -f $src/libcaf_core/caf/config.hpp ]] || die "$orig did not unpack into $src"

# Debian's debian/patches in series order (quilt's default -p1, or the -pN a series line names).
apply_debian_patches() {
  tar -xJf "$workdir/dl/$debian_tar" -C "$src"
  local series=$src/debian/patches/series line name level
  if [[ ! -f $series ]]; then
    log "the packaging has no debian/patches/series"
    return
  fi
  while IFS= read -r line || [[ -n $line ]]; do
    line=${line%%#*}
    read -r name level _ <<<"$line" || true
    [[ -n ${name:-} ]] || continue
    log "patch $name"
    patch -d "$src" --batch --forward -s "${level:--p1}" <"$src/debian/patches/$name" ||
      die "debian/patches/$name does not apply"
  done <"$series"
}

# Without the packaging tarball: the difference between the upstream headers and bookworm's
# libcaf-dev headers is one line (0.17.6-2.1, "Enable building with recent gcc", #983959), in
# libcaf_io, which this build does not install. The C++14 of the 0.17.6-1 CMakeLists patch is
# in cxx_flags. The 0.17.6-1 patch from upstream PR #1135 cannot be reconstructed here.
builtin_patches() {
  local f=$src/libcaf_io/caf/io/network/receive_buffer.hpp
  grep -q '^#include <limits>' "$f" || sed -i 's|^#include <cstring>$|#include <cstring>\n#include <limits>|' "$f"
  grep -q '^#include <limits>' "$f" || die "built-in patch: no '#include <cstring>' in $f"
}

if [[ $have_debian == yes ]]; then
  apply_debian_patches
  patches="debian/patches of $debian_version"
else
  builtin_patches
  patches="built-in (the mirror had no $debian_tar)"
fi

log "configuring CAF $caf_version ($cxx, $cxx_flags)"
cmake -S "$src" -B "$workdir/build" -G Ninja \
  -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_CXX_FLAGS="$cxx_flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_INSTALL_LIBDIR=lib \
  -DCAF_NO_IO=ON -DCAF_NO_OPENSSL=ON -DCAF_NO_OPENCL=ON -DCAF_NO_PYTHON=ON \
  -DCAF_NO_TOOLS=ON -DCAF_NO_EXAMPLES=ON -DCAF_NO_UNIT_TESTS=ON >"$workdir/configure.log" ||
  {
    cat "$workdir/configure.log" >&2
    die "configure failed"
  }

log "building libcaf_core with -j$jobs (log: $workdir/build.log)"
start=$(date +%s)
nice -n 10 cmake --build "$workdir/build" -j "$jobs" >"$workdir/build.log" 2>&1 || {
  tail -n 40 "$workdir/build.log" >&2
  die "build failed"
}
elapsed=$(($(date +%s) - start))

rm -rf "$prefix/include/caf" "$prefix/lib"/libcaf_*
cmake --install "$workdir/build" >"$workdir/install.log"
[[ -e $prefix/lib/libcaf_core.so.$caf_version ]] || die "no libcaf_core.so.$caf_version in $prefix/lib"
readelf -d "$prefix/lib/libcaf_core.so.$caf_version" | grep -q 'NEEDED.*libtsan' ||
  die "$prefix/lib/libcaf_core.so.$caf_version is not linked with libtsan"

printf '%s\n%s\n' "$want" "patches: $patches; built in ${elapsed}s with -j$jobs" >"$stamp"
log "installed CAF $debian_version (TSan) into $prefix in ${elapsed}s ($patches)"
