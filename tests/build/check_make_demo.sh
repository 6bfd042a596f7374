#!/usr/bin/env bash
# `make demo` on a fresh machine installs only what building and running courier needs and
# builds only the courier executable (issue 30: at most 4 minutes on a fresh 2-core machine).
# Reads the Makefile's plan (`make -n demo`) and the build set of scripts/install-deps.sh.
# Usage: check_make_demo.sh <repository root>
set -uo pipefail
root=${1:?usage: check_make_demo.sh <repository root>}
cd "$root" || exit 1
fail() { echo "check_make_demo: FAIL: $*" >&2; exit 1; }

plan=$(make -n demo 2>&1) || fail "make -n demo failed: $plan"
grep -qE '^bash scripts/install-deps\.sh build$' <<<"$plan" ||
  fail "make demo does not install the build set (scripts/install-deps.sh build): $plan"
if grep -E 'install-deps\.sh' <<<"$plan" | grep -vqE 'install-deps\.sh build$'; then
  fail "make demo installs more than the build set: $(grep -E 'install-deps' <<<"$plan")"
fi
builds=$(grep -E 'cmake --build' <<<"$plan")
[[ $(grep -c . <<<"$builds") -eq 1 ]] || fail "make demo runs $(grep -c . <<<"$builds") cmake builds: $builds"
grep -qE -- '--target courier$' <<<"$builds" || fail "make demo builds more than the courier target: $builds"
grep -qE -- '-DCOURIER_BUILD_TESTS=OFF' <<<"$plan" || fail "make demo configures the test suites: $plan"

build_set=$(bash scripts/install-deps.sh build --list) || fail "install-deps.sh build --list failed"
all_set=$(bash scripts/install-deps.sh all --list) || fail "install-deps.sh all --list failed"
# The test, lint, fuzz and bench tools: in the full set, never in the build set.
for tool in googletest kcat openjdk-17-jre-headless maven clang-format clang-tidy clang-14 \
            libfuzzer-14-dev docker-compose python3-yaml nginx-light prometheus wrk nodejs npm; do
  grep -qxF "$tool" <<<"$all_set" || fail "$tool is not in the full set of install-deps.sh"
  if grep -qxF "$tool" <<<"$build_set"; then
    fail "$tool (a test, lint, fuzz or bench tool) is in the build set make demo installs"
  fi
done
# And every package the build set has, the full one has too.
while read -r p; do
  grep -qxF "$p" <<<"$all_set" || fail "$p is in the build set but not in the full one"
done <<<"$build_set"
echo "check_make_demo: make demo installs $(grep -c . <<<"$build_set") packages and builds the courier target only"
