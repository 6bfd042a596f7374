#!/usr/bin/env bash
# The interop tests' fixture: installs the pinned standardwebhooks package (package-lock.json)
# with `npm ci` into <dest>, beside a copy of receiver.js. Fails loudly, never skips: without
# node and npm the independent verifier cannot run, and that is a broken test machine
# (scripts/install-deps.sh installs them). Re-runs npm ci only when the lock file changed.
# Usage: install.sh <this folder> <dest>
set -euo pipefail
src=${1:?usage: install.sh <source folder> <dest folder>}
dest=${2:?usage: install.sh <source folder> <dest folder>}
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "interop: FAIL: '$tool' is not installed; the standardwebhooks interop tests need" \
      "node and npm (scripts/install-deps.sh installs them)" >&2
    exit 1
  fi
done
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$src/receiver.js" "$dest/"
cd "$dest"
if [[ -f node_modules/.courier-installed-lock ]] &&
  cmp -s package-lock.json node_modules/.courier-installed-lock; then
  echo "interop: standardwebhooks already installed from this package-lock.json"
else
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.courier-installed-lock
fi
node -e 'const { Webhook } = require("standardwebhooks"); new Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");'
echo "interop: standardwebhooks $(node -p 'require("standardwebhooks/package.json").version') ready in $dest"
