#!/usr/bin/env bash
# The oauth2 interop tests' fixture: installs the pinned oauth2-mock-server and jose packages
# (package-lock.json) with `npm ci` into <dest>, beside a copy of stand.js. Fails loudly, never
# skips: without node and npm the authorization server cannot run, and that is a broken test machine
# (scripts/install-deps.sh installs them). Re-runs npm ci only when the lock file changed.
# Usage: install.sh <this folder> <dest>
set -euo pipefail
src=${1:?usage: install.sh <source folder> <dest folder>}
dest=${2:?usage: install.sh <source folder> <dest folder>}
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "interop: FAIL: '$tool' is not installed; the oauth2 interop tests need" \
      "node and npm (scripts/install-deps.sh installs them)" >&2
    exit 1
  fi
done
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$src/stand.js" "$dest/"
cd "$dest"
if [[ -f node_modules/.courier-installed-lock ]] &&
  cmp -s package-lock.json node_modules/.courier-installed-lock; then
  echo "interop: oauth2 fixture already installed from this package-lock.json"
else
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.courier-installed-lock
fi
node -e 'require("oauth2-mock-server"); require("jose");'
echo "interop: oauth2-mock-server $(node -p 'require("oauth2-mock-server/package.json").version')," \
  "jose $(node -p 'require("jose/package.json").version') ready in $dest"
