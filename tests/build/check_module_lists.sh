#!/usr/bin/env bash
# The module lists are enforced, not advisory (issue 8): in a copy of the tree, configuring
# must fail loudly
#   1. when a module's CMakeLists.txt no longer lists one of its sources, naming the file;
#   2. when a module includes a header of a module it does not declare in USES, naming both
#      (core/flow including actors/; topology including demo/);
# and must succeed on the unchanged copy. Usage: check_module_lists.sh <repository root>
set -uo pipefail
root=${1:?usage: check_module_lists.sh <repository root>}
work=$(mktemp -d "${TMPDIR:-/tmp}/courier-module-lists-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "check_module_lists: FAIL: $*" >&2; failures=$((failures + 1)); }

copy_tree() {  # copy_tree <dest>: the working tree's files that git tracks or would track
  mkdir -p "$1"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
     xargs -0 cp --parents -t "$1" 2>/dev/null)
}

configure() {  # configure <tree> <log>: 0 when CMake configures it
  cmake -S "$1" -B "$1/build-check" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$2" 2>&1
}

copy_tree "$work/clean"
configure "$work/clean" "$work/clean.log" || fail "the unchanged tree does not configure: $(tail -5 "$work/clean.log")"

# 1. core/model stops listing record.cpp.
copy_tree "$work/unlisted"
sed -i 's/ record\.cpp//' "$work/unlisted/core/model/CMakeLists.txt"
grep -q 'courier_module(model' "$work/unlisted/core/model/CMakeLists.txt" &&
  ! grep -q 'record\.cpp' "$work/unlisted/core/model/CMakeLists.txt" || fail "could not edit core/model's list"
if configure "$work/unlisted" "$work/unlisted.log"; then
  fail "a source left out of core/model's list configured silently"
elif ! grep -q 'core/model/record.cpp' "$work/unlisted.log"; then
  fail "the error does not name core/model/record.cpp: $(tail -5 "$work/unlisted.log")"
fi

# 2. core/flow includes an actor header without declaring the dependency.
copy_tree "$work/upward"
sed -i 's|#include "core/flow/due_gate.hpp"|#include "core/flow/due_gate.hpp"\n#include "actors/messages.hpp"|' "$work/upward/core/flow/due_gate.cpp"
if configure "$work/upward" "$work/upward.log"; then
  fail "core/flow including actors/ configured silently"
elif ! grep -q "module 'actors'" "$work/upward.log"; then
  fail "the error does not name the undeclared module: $(tail -5 "$work/upward.log")"
fi

# 3. the wiring includes the demo (an arrow up the house: topology sits below demo and app).
copy_tree "$work/wiring"
sed -i 's|#include "topology/pipeline.hpp"|#include "topology/pipeline.hpp"\n#include "demo/demo.hpp"|' "$work/wiring/topology/pipeline.cpp"
grep -q '#include "demo/demo.hpp"' "$work/wiring/topology/pipeline.cpp" || fail "could not edit topology/pipeline.cpp"
if configure "$work/wiring" "$work/wiring.log"; then
  fail "topology including demo/ configured silently"
elif ! grep -q "module 'demo'" "$work/wiring.log"; then
  fail "the error does not name the demo module: $(tail -5 "$work/wiring.log")"
fi

((failures == 0)) && echo "check_module_lists: OK"
exit $((failures > 0))
