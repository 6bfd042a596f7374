#!/usr/bin/env bash
# The one place that knows which files are linted. Used by the Makefile:
#   scripts/lint.sh format-check   clang-format --dry-run --Werror over every tracked .cpp/.hpp
#   scripts/lint.sh format         clang-format -i over the same files (rewrites them)
#   scripts/lint.sh tidy           clang-tidy (.clang-tidy) over the sources' .cpp files, 2 jobs,
#                                  with build/release/compile_commands.json (make build first)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build/release}
JOBS=${LINT_JOBS:-2}
# tests/ is not tidied: see the reason in .clang-tidy.
TIDY_DIRS=(core actors admin topology app demo mock_webhook tools)

# Tracked C++ files that exist in the working tree (a file deleted but not yet committed is skipped).
format_files() {
  git ls-files -z -- '*.cpp' '*.hpp' | while IFS= read -r -d '' f; do
    [[ -f $f ]] && printf '%s\0' "$f"
  done
}

tidy_files() {
  local pathspecs=()
  for d in "${TIDY_DIRS[@]}"; do pathspecs+=("$d/*.cpp"); done
  git ls-files -z -- "${pathspecs[@]}" | while IFS= read -r -d '' f; do
    [[ -f $f ]] && printf '%s\0' "$f"
  done
}

case "${1:-}" in
  format-check)
    format_files | xargs -0 -r -P "$JOBS" -n 16 clang-format --style=file --dry-run --Werror
    echo "lint: clang-format: every file is formatted"
    ;;
  format)
    format_files | xargs -0 -r -P "$JOBS" -n 16 clang-format --style=file -i
    echo "lint: clang-format applied"
    ;;
  tidy)
    if [[ ! -f $BUILD_DIR/compile_commands.json ]]; then
      echo "lint: $BUILD_DIR/compile_commands.json is missing (make build)" >&2
      exit 2
    fi
    # clang-tidy 14 does not know some of the GCC warning flags in the compile commands.
    # Headers are checked too: clang-tidy matches the filter against absolute paths, so it is
    # anchored at this checkout here rather than in .clang-tidy (a relative '^core/' matched
    # nothing, and an unanchored '/core/' would match Boost's beast/core/).
    tidy_files | xargs -0 -r -P "$JOBS" -n 1 clang-tidy -p "$BUILD_DIR" --quiet \
      --header-filter="^$PWD/(core|actors|admin|topology|app|demo|mock_webhook|tools)/" \
      -extra-arg=-Wno-unknown-warning-option
    echo "lint: clang-tidy: no findings"
    ;;
  *)
    echo "usage: $0 format-check|format|tidy" >&2
    exit 2
    ;;
esac
