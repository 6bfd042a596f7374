#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang 14, -fsanitize=fuzzer,address[,undefined]) in
# build/fuzz, only those, and runs each for a bounded time: response_parser (the webhook answer
# parser) and retry_headers (the retry/DLQ header codec). Needs clang-14, libfuzzer-14-dev and
# libclang-rt-14-dev (scripts/install-deps.sh installs them). New inputs go to
# build/fuzz/corpus-work/<target>; the checked-in seeds in tests/fuzz/corpus/<target> are read
# only. A crash, leak, timeout or out-of-memory leaves its input as build/fuzz/<target>-crash-*
# (-oom-, -timeout-, -leak-) and makes the script exit non-zero, after every target ran.
#   scripts/fuzz.sh                        60 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh
#   FUZZ_TARGETS=retry_headers scripts/fuzz.sh
# `make fuzz-smoke` (CI) runs it with FUZZ_SECONDS=45.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build/fuzz}
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
CXX=${FUZZ_CXX:-clang++-14}
read -r -a targets <<<"${FUZZ_TARGETS:-response_parser retry_headers}"

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
  -DCOURIER_FUZZ=ON >/dev/null
cmake --build "$BUILD_DIR" -j2 --target "${targets[@]/%/_fuzz}"

source_dir=$PWD
cd "$BUILD_DIR"
failed=()
for t in "${targets[@]}"; do
  mkdir -p "corpus-work/$t"
  echo "fuzz.sh: $t for ${SECONDS_TO_RUN} s"
  if ! "./tests/fuzz/${t}_fuzz" -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=256 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$PWD/$t-" \
    "corpus-work/$t" "$source_dir/tests/fuzz/corpus/$t"; then
    failed+=("$t")
  fi
done
if ((${#failed[@]} > 0)); then
  echo "fuzz.sh: ${failed[*]} failed; the inputs are in $PWD:" >&2
  ls "$PWD" | grep -E -- '-(crash|leak|timeout|oom|slow-unit)-' >&2 || true
  exit 1
fi
