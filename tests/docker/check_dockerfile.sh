#!/usr/bin/env bash
# Checks docker/Dockerfile without a Docker engine:
#  1. the build stage runs scripts/install-deps.sh and repeats none of its packages;
#  2. the runtime stage installs exactly scripts/runtime-packages.txt (via xargs), nothing else;
#  3. every package in scripts/runtime-packages.txt exists in Debian (apt-cache show) and is
#     not a -dev package;
#  5. the build stage copies every folder the top-level CMakeLists.txt adds (add_subdirectory),
#     so a module added to the build is not missing from the image's build;
#  4. every shared library each given binary links (ldd) comes from a package of that list,
#     from a package apt pulls in with it (its Depends closure), or from the base image
#     (libc6, libstdc++6, libgcc-s1); libraries a binary names directly (DT_NEEDED) must come
#     from the list itself or the base.
# Usage: check_dockerfile.sh <repository root> <binary>...
set -uo pipefail

root=${1:?usage: check_dockerfile.sh <repository root> <binary>...}
shift
dockerfile="$root/docker/Dockerfile"
deps_script="$root/scripts/install-deps.sh"
runtime_list="$root/scripts/runtime-packages.txt"
base_packages=(libc6 libstdc++6 libgcc-s1)

failures=0
fail() { echo "check_dockerfile: FAIL: $*" >&2; failures=$((failures + 1)); }
die() { echo "check_dockerfile: FAIL: $*" >&2; exit 1; }

for f in "$dockerfile" "$deps_script" "$runtime_list"; do
  [[ -f $f ]] || die "$f does not exist"
done

# --- the Dockerfile as logical instructions: continuations joined, comments dropped ----------
instructions=$(awk '
  /^[[:space:]]*#/ { next }
  { line = $0
    if (sub(/\\[[:space:]]*$/, "", line)) { acc = acc line " "; next }
    acc = acc line
    if (acc ~ /[^[:space:]]/) print acc
    acc = "" }
  END { if (acc ~ /[^[:space:]]/) print acc }' "$dockerfile")

# Stage index per instruction; the build stage is "AS build", the runtime stage the last one.
stages=$(grep -ciE '^[[:space:]]*FROM[[:space:]]' <<<"$instructions")
((stages >= 2)) || fail "docker/Dockerfile has $stages FROM line(s); it must be multi-stage (build + runtime)"
stage_text() {  # stage_text <n>: the instructions of the n-th stage (1-based)
  awk -v want="$1" 'toupper($1) == "FROM" { n++ } n == want' <<<"$instructions"
}
build_stage_no=$(grep -iE '^[[:space:]]*FROM[[:space:]]' <<<"$instructions" |
  grep -niE '[[:space:]]AS[[:space:]]+build[[:space:]]*$' | head -n1 | cut -d: -f1)
[[ -n $build_stage_no ]] || die "docker/Dockerfile has no stage named 'build' (FROM ... AS build)"
build_stage=$(stage_text "$build_stage_no")
runtime_stage=$(stage_text "$stages")

for s in "$build_stage" "$runtime_stage"; do
  head -n1 <<<"$s" | grep -qiE '^FROM[[:space:]]+debian:bookworm-slim([[:space:]]|$)' ||
    fail "stage '$(head -n1 <<<"$s")' is not FROM debian:bookworm-slim"
done

# 5. every folder of the build is copied into the build stage.
while read -r dir; do
  [[ $dir == tests ]] && continue  # COURIER_BUILD_TESTS=OFF in the image
  grep -iE '^[[:space:]]*COPY[[:space:]]' <<<"$build_stage" |
    grep -qE "[[:space:]]($dir|${dir%%/*})/?[[:space:]]" ||
    fail "the build stage does not COPY $dir/, which CMakeLists.txt adds with add_subdirectory"
done < <(sed -nE 's/^[[:space:]]*add_subdirectory\(([^ )]+)\).*/\1/p' "$root/CMakeLists.txt")

# 1. the build stage runs the dependency script, and the list lives only there.
grep -iE '^[[:space:]]*RUN[[:space:]]' <<<"$build_stage" | grep -qE '(^|[[:space:]/])scripts/install-deps\.sh' ||
  fail "the build stage has no RUN of scripts/install-deps.sh (the single source of the build packages)"
grep -iE '^[[:space:]]*COPY[[:space:]]' <<<"$build_stage" | grep -qE 'scripts/install-deps\.sh|[[:space:]]\.[[:space:]]+\.?' ||
  fail "the build stage does not COPY scripts/install-deps.sh into the image"
grep -iE '^[[:space:]]*RUN[[:space:]]' <<<"$build_stage" | grep -qE 'cmake --preset release .*-DCOURIER_BUILD_TESTS=OFF' ||
  fail "the build stage does not configure with 'cmake --preset release -DCOURIER_BUILD_TESTS=OFF'"
grep -iE '^[[:space:]]*RUN[[:space:]]' <<<"$build_stage" | grep -qE 'cmake --build --preset release --target courier mock_webhook' ||
  fail "the build stage does not build 'cmake --build --preset release --target courier mock_webhook'"
deps_packages=$(sed -n '/^build_packages=(/,/^)/p' "$deps_script" | sed -e '1d;$d' -e 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d')
[[ -n $deps_packages ]] || die "could not read the build_packages=( ... ) list of scripts/install-deps.sh"
# The build stage installs through the script only: no apt-get install of its own.
build_installs=$(grep -E 'apt(-get)?[[:space:]]+(-[^[:space:]]+[[:space:]]+)*install' <<<"$build_stage")
[[ -z $build_installs ]] ||
  fail "the build stage runs its own apt-get install; scripts/install-deps.sh must stay the only build package list: $build_installs"
# And no apt-get install anywhere names a package of the script's list.
while read -r p; do
  if grep -E 'apt(-get)?[[:space:]]+(-[^[:space:]]+[[:space:]]+)*install' <<<"$instructions" |
     grep -qE "(^|[[:space:]])$(sed 's/[.+]/\\&/g' <<<"$p")([[:space:]]|$)"; then
    fail "docker/Dockerfile installs '$p' itself; scripts/install-deps.sh must stay the only place of the build packages"
  fi
done <<<"$deps_packages"

# 2. the runtime stage installs exactly scripts/runtime-packages.txt.
installs=$(grep -E 'apt-get[[:space:]]+(-[^[:space:]]+[[:space:]]+)*install' <<<"$runtime_stage")
count=$(grep -c . <<<"$installs")
[[ $count -eq 1 ]] || fail "the runtime stage must have exactly one 'apt-get install' (found $count)"
grep -qE 'scripts/runtime-packages\.txt' <<<"$(grep -iE '^[[:space:]]*COPY[[:space:]]' <<<"$runtime_stage")" ||
  fail "the runtime stage does not COPY scripts/runtime-packages.txt"
grep -qE "runtime-packages\.txt.*\|[[:space:]]*xargs[[:space:]]+(-[^[:space:]]+[[:space:]]+)*apt-get[[:space:]]+install" <<<"$installs" ||
  fail "the runtime stage's apt-get install is not fed by 'runtime-packages.txt | xargs apt-get install': $installs"
# Nothing but options after 'apt-get install' (no package named inline).
extra=$(sed -E 's/.*xargs[[:space:]]+(-[^[:space:]]+[[:space:]]+)*apt-get[[:space:]]+install//; s/&&.*//; s/;.*//' <<<"$installs" |
  tr -s ' \t' '\n' | grep -vE '^(-.*)?$' || true)
[[ -z $extra ]] || fail "the runtime stage installs packages outside scripts/runtime-packages.txt: $(echo $extra)"
grep -qE '\-\-no-install-recommends' <<<"$installs" || fail "the runtime apt-get install lacks --no-install-recommends"
for bin in courier mock_webhook; do
  grep -iE '^[[:space:]]*COPY[[:space:]]+--from=build[[:space:]]' <<<"$runtime_stage" | grep -qE "/$bin[[:space:]]" ||
    fail "the runtime stage does not COPY --from=build the '$bin' binary"
done
grep -iE '^[[:space:]]*COPY[[:space:]]' <<<"$runtime_stage" | grep -qE 'topology/courier\.json[[:space:]]+/etc/courier/courier\.json' ||
  fail "the runtime stage does not COPY topology/courier.json to /etc/courier/courier.json"
user=$(grep -iE '^[[:space:]]*USER[[:space:]]' <<<"$runtime_stage" | tail -n1 | awk '{print $2}')
[[ -n $user && $user != root && $user != 0 && $user != 0:* ]] || fail "the runtime stage does not end as a non-root USER (got '${user:-none}')"
grep -qE '^[[:space:]]*ENTRYPOINT[[:space:]]+\[[[:space:]]*"courier"[[:space:]]*\]' <<<"$runtime_stage" ||
  fail "the runtime stage's ENTRYPOINT is not [\"courier\"]"

# 3. the runtime list: real Debian runtime packages.
mapfile -t runtime < <(sed -e 's/#.*//' "$runtime_list" | tr -s ' \t' '\n' | sed '/^$/d')
((${#runtime[@]} > 0)) || die "scripts/runtime-packages.txt lists no package"
dups=$(printf '%s\n' "${runtime[@]}" | sort | uniq -d)
[[ -z $dups ]] || fail "scripts/runtime-packages.txt lists these twice: $(echo $dups)"
for p in "${runtime[@]}"; do
  [[ $p != *-dev ]] || fail "scripts/runtime-packages.txt lists '$p', a -dev package; the runtime image needs the library package"
  apt-cache show --no-all-versions "$p" >/dev/null 2>&1 ||
    fail "scripts/runtime-packages.txt lists '$p', which is no Debian package here (apt-cache show $p fails)"
done

# 4. the binaries' shared libraries.
(($# > 0)) || die "no binary given to check the runtime libraries of"
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
            --no-replaces --no-enhances "${runtime[@]}" 2>/dev/null |
          grep -vE '^[[:space:]]' | sed 's/:.*//' | sort -u)
in_list() { local x=$1; shift; local y; for y in "$@"; do [[ $x == "$y" ]] && return 0; done; return 1; }
owner_of() {  # the Debian package that owns a library path, trying the usrmerge aliases
  local path=$1 real cand out
  real=$(readlink -f "$path")
  for cand in "$path" "$real" "/usr${path}" "/usr${real}" "${path#/usr}" "${real#/usr}"; do
    [[ $cand == /* ]] || continue
    out=$(dpkg -S "$cand" 2>/dev/null | head -n1) && [[ -n $out ]] && { sed 's/:.*//; s/,.*//' <<<"$out"; return 0; }
  done
  return 1
}
for bin in "$@"; do
  [[ -x $bin ]] || { fail "$bin is not built (build it first: cmake --build <dir> --target $(basename "$bin"))"; continue; }
  ldd_out=$(ldd "$bin" 2>&1) || { fail "ldd $bin failed: $ldd_out"; continue; }
  missing=$(grep 'not found' <<<"$ldd_out")
  [[ -z $missing ]] || fail "$bin has unresolved libraries: $missing"
  needed=$(readelf -d "$bin" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  while read -r name path; do
    [[ -n $path ]] || continue
    pkg=$(owner_of "$path") || { fail "$(basename "$bin"): $name ($path) belongs to no Debian package (dpkg -S)"; continue; }
    pkg=${pkg%%:*}
    if in_list "$pkg" "${runtime[@]}" "${base_packages[@]}"; then
      echo "check_dockerfile: $(basename "$bin"): $name <- $pkg"
    elif grep -qxF "$name" <<<"$needed"; then
      fail "$(basename "$bin") links $name directly, from package '$pkg', which is not in scripts/runtime-packages.txt"
    elif grep -qxF "$pkg" <<<"$closure"; then
      echo "check_dockerfile: $(basename "$bin"): $name <- $pkg (pulled in by the list's dependencies)"
    else
      fail "$(basename "$bin") needs $name from package '$pkg', which neither scripts/runtime-packages.txt nor its dependencies install"
    fi
  done < <(sed -nE 's/^[[:space:]]*([^[:space:]]+)[[:space:]]+=>[[:space:]]+(\/[^[:space:]]+).*/\1 \2/p; s/^[[:space:]]*(\/[^[:space:]]+)[[:space:]]+\(.*/\1 \1/p' <<<"$ldd_out")
done

if ((failures > 0)); then
  echo "check_dockerfile: $failures problem(s) found" >&2
  exit 1
fi
echo "check_dockerfile: OK (runtime packages: ${runtime[*]})"
