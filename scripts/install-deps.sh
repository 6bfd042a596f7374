#!/usr/bin/env bash
# Installs courier's dependencies from Debian bookworm. Idempotent: packages already present are
# left alone. Two sets:
#   install-deps.sh build   what building and running the courier executable needs (make demo,
#                           docker/Dockerfile's build stage)
#   install-deps.sh [all]   that, plus what the tests, the static checks, the fuzzers and the
#                           benchmarks need (make build, make test, .ci/run)
# With --list after the set, prints its packages one a line and installs nothing.
set -euo pipefail

profile=${1:-all}
list_only=false
if [[ ${2:-} == --list ]]; then list_only=true; fi
case "$profile" in
  build | all) ;;
  *)
    echo "install-deps: unknown set '$profile'; expected build or all" >&2
    exit 2
    ;;
esac

# docker/Dockerfile's build stage runs `install-deps.sh build`; its runtime stage installs
# scripts/runtime-packages.txt (tests/docker checks both).
build_packages=(
  build-essential cmake ninja-build pkg-config
  libcaf-dev
  librdkafka-dev
  libboost-dev libboost-system-dev
  libssl-dev
  nlohmann-json3-dev
  libcli11-dev
  libspdlog-dev libfmt-dev
  # The courier executable's allocator (tcmalloc_minimal; CMakeLists.txt says why).
  libgoogle-perftools-dev
)

test_packages=(
  # The GoogleTest suites (tests/).
  googletest libgtest-dev libgmock-dev
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
  # tests/docker/check_k8s.sh parses the chart's rendered manifests with PyYAML (no kubectl);
  # scripts/install-go.sh fetches the Go toolchain with curl when none is new enough.
  python3-yaml
  curl
  # the compiler cache CMake uses when it is there (a clean clone's rebuild on the same machine)
  ccache
  # tools/bench/one_partition.sh: nginx with the echo module (echo_sleep) is the independent
  # receiver of the real-broker benchmark.
  nginx-light libnginx-mod-http-echo
  # promtool checks courier's /metrics exposition and the alert rules (tests/core/metrics).
  prometheus
  wrk  # tools/bench/bench.sh: the ceiling every real-broker figure is a ratio to
  # docs/runbook-dlq.md's commands (run by the runbook e2e test) and BENCH_SCRAPE.
  curl jq
  # tests/integration/status_page_test.cpp renders the admin status page (GET /) in a real
  # headless browser.
  chromium
)

packages=("${build_packages[@]}")
if [[ $profile == all ]]; then
  packages+=("${test_packages[@]}")
fi

if $list_only; then
  printf '%s\n' "${packages[@]}"
  if [[ $profile == all ]]; then printf '%s\n' nodejs npm; fi
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# tests/interop: the standardwebhooks npm package (test-only) verifies courier's signatures under
# node; its fixture runs `npm ci`. Checked by command, not by package: a node from elsewhere
# (NodeSource's nodejs bundles npm and conflicts with Debian's npm package) is left alone.
if [[ $profile == all ]] && { ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; }; then
  missing+=(nodejs npm)
fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages of the $profile set present"
else
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# tests/docker builds helm and the schema checker with Go (scripts/install-go.sh: a go on PATH
# if new enough, else the toolchain from the Go module proxy).
if [[ $profile == all ]]; then
  bash "$(dirname "$0")/install-go.sh"
fi
