#!/usr/bin/env bash
# Installs courier's build and test dependencies from Debian bookworm. Idempotent:
# packages already present are left alone. Used by the Makefile (so the README's commands and
# .ci/run) and docker/Dockerfile.
set -euo pipefail

# docker/Dockerfile's build stage runs this script; its runtime stage installs
# scripts/runtime-packages.txt (tests/docker checks both).
packages=(
  build-essential cmake ninja-build pkg-config
  libcaf-dev
  librdkafka-dev
  libboost-dev libboost-system-dev
  libssl-dev
  nlohmann-json3-dev
  googletest libgtest-dev libgmock-dev
  libcli11-dev
  libspdlog-dev libfmt-dev
  # The courier executable's allocator (tcmalloc_minimal; CMakeLists.txt says why).
  libgoogle-perftools-dev
  # Tests and tools/kafka-local: kcat reads the DLQ as an operator would; Java 17 runs the real
  # Kafka broker and Maven resolves it from Maven Central into ~/.cache/courier.
  kcat
  openjdk-17-jre-headless maven
  # make lint (scripts/lint.sh): clang-format in check mode and clang-tidy, version 14.
  clang-format clang-tidy
  # make fuzz-smoke (scripts/fuzz.sh): the libFuzzer targets, built with clang 14.
  clang-14 libfuzzer-14-dev libclang-rt-14-dev
  # tests/docker validates docker/docker-compose.yml with `docker-compose config`.
  docker-compose
  # tests/docker/check_k8s.sh parses docker/k8s/ with PyYAML (no kubectl).
  python3-yaml
  # tools/bench/one_partition.sh: nginx with the echo module (echo_sleep) is the independent
  # receiver of the real-broker benchmark.
  nginx-light libnginx-mod-http-echo
  # promtool checks courier's /metrics exposition and the alert rules (tests/core/metrics).
  prometheus
  wrk  # tools/bench/bench.sh: the ceiling every real-broker figure is a ratio to
  # docs/runbook-dlq.md's commands (run by the runbook e2e test) and BENCH_SCRAPE.
  curl jq
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# tests/interop: the standardwebhooks npm package (test-only) verifies courier's signatures under
# node; its fixture runs `npm ci`. Checked by command, not by package: a node from elsewhere
# (NodeSource's nodejs bundles npm and conflicts with Debian's npm package) is left alone.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
