#!/usr/bin/env bash
# The Go toolchain that builds the chart checks' tools (tests/docker: helm and kube_schemas, at
# the versions tests/docker/kube_schemas/go.mod pins). A go of at least the version below on
# PATH is used as it is; otherwise the toolchain is fetched once from the Go module proxy
# (golang.org/toolchain: the module the go command's own toolchain switch downloads; Debian
# bookworm's golang is too old for helm 4) into ~/.cache/courier/go, where CMake looks first.
# Idempotent. Run by install-deps.sh (the `all` set).
set -euo pipefail

want=1.26.8
dest=${COURIER_GO_DIR:-$HOME/.cache/courier/go}

version_ok() {  # version_ok GO: whether `GO` reports at least $want
  local have
  have=$("$1" env GOVERSION 2>/dev/null) || return 1
  have=${have#go}
  [[ $(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1) == "$want" ]]
}

if [[ -x $dest/bin/go ]] && version_ok "$dest/bin/go"; then
  echo "install-go: $("$dest/bin/go" env GOVERSION) in $dest"
  exit 0
fi
if command -v go >/dev/null 2>&1 && version_ok go; then
  echo "install-go: $(go env GOVERSION) on PATH ($(command -v go))"
  exit 0
fi

case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) echo "install-go: no Go toolchain for $(uname -m); install Go >= $want yourself" >&2; exit 1 ;;
esac
url="https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go$want.linux-$arch.zip"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "install-go: fetching go$want from the Go module proxy into $dest"
curl -fsSL --retry 3 --max-time 600 -o "$tmp/go.zip" "$url"
python3 -m zipfile -e "$tmp/go.zip" "$tmp/x"
# The module's zip holds golang.org/toolchain@<version>/ with the distribution inside.
src=$(find "$tmp/x/golang.org" -mindepth 1 -maxdepth 1 -type d -name "toolchain@*" | head -n1)
[[ -n $src && -x $src/bin/go || -f $src/bin/go ]] || { echo "install-go: no bin/go in $url" >&2; exit 1; }
chmod -R u+rwX,go+rX "$src"
chmod +x "$src"/bin/* "$src"/pkg/tool/*/*
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$src" "$dest"
version_ok "$dest/bin/go" || { echo "install-go: $dest/bin/go does not run" >&2; exit 1; }
echo "install-go: $("$dest/bin/go" env GOVERSION) in $dest"
