#!/usr/bin/env bash
# Builds the chart checks' tools (ctest docker.helm_tools, the fixture of docker.helm_chart):
# helm and kube_schemas, at the versions tests/docker/kube_schemas/go.mod and go.sum pin, from
# the Go module proxy (modules cached in the Go module cache, builds in the Go build cache, both
# in the user's home, so a second run takes seconds).
# Usage: build_helm_tools.sh <go> <kube_schemas module dir> <out dir>
set -euo pipefail
go=${1:?usage: build_helm_tools.sh <go> <module dir> <out dir>}
module=${2:?usage: build_helm_tools.sh <go> <module dir> <out dir>}
out=${3:?usage: build_helm_tools.sh <go> <module dir> <out dir>}
export GOFLAGS="-mod=readonly -buildvcs=false" GOTOOLCHAIN=local CGO_ENABLED=0
mkdir -p "$out"
cd "$module"
"$go" build -trimpath -o "$out/kube_schemas" .
"$go" build -trimpath -o "$out/helm" helm.sh/helm/v4/cmd/helm
"$out/helm" version --short
echo "build_helm_tools: helm and kube_schemas in $out"
