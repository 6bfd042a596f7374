#!/usr/bin/env bash
# An interop fixture: installs the pinned npm packages of <source folder> (its package.json and
# package-lock.json) with `npm ci` into <dest>, beside copies of the listed files, then checks
# that node loads them (<check>, a node expression). Fails loudly, never skips: without node and
# npm the independent verifier cannot run, and that is a broken test machine
# (scripts/install-deps.sh installs them). Re-runs npm ci only when the lock file changed.
# Usage: install_fixture.sh <name> <source folder> <dest> <check> [file...]
set -euo pipefail
usage="usage: install_fixture.sh <name> <source folder> <dest> <check> [file...]"
name=${1:?$usage}
src=${2:?$usage}
dest=${3:?$usage}
check=${4:?$usage}
shift 4
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "interop: FAIL: '$tool' is not installed; the $name interop tests need" \
      "node and npm (scripts/install-deps.sh installs them)" >&2
    exit 1
  fi
done
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
for f in "$@"; do
  cp "$src/$f" "$dest/"
done
cd "$dest"
if [[ -f node_modules/.courier-installed-lock ]] &&
  cmp -s package-lock.json node_modules/.courier-installed-lock; then
  echo "interop: $name already installed from this package-lock.json"
else
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.courier-installed-lock
fi
node -e "$check"
echo "interop: $name ready in $dest"
