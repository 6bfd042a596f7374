#!/usr/bin/env bash
# Builds the libFuzzer target of the webhook answer parser (tests/fuzz, clang, ASan) in
# build/fuzz and runs it for a bounded time (needs clang-14, libfuzzer-14-dev, libclang-rt-14-dev). New inputs go to build/fuzz/corpus-work; the
# checked-in seeds in tests/fuzz/corpus/response_parser are read only. A crash leaves its input
# as build/fuzz/crash-* and exits non-zero.
#   scripts/fuzz.sh            60 s
#   FUZZ_SECONDS=600 scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build/fuzz}
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
CXX=${FUZZ_CXX:-clang++-14}

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
  -DCOURIER_FUZZ=ON >/dev/null
cmake --build "$BUILD_DIR" -j2 --target response_parser_fuzz
mkdir -p "$BUILD_DIR/corpus-work"
cd "$BUILD_DIR"
./tests/fuzz/response_parser_fuzz -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=256 -timeout=10 \
  corpus-work ../../tests/fuzz/corpus/response_parser
