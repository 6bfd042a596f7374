#!/usr/bin/env bash
# No .cpp in the service's own layers (core, actors, admin, topology, app) over 600 lines: a
# longer file holds more than one thing. (Functions over 80 lines are clang-tidy's
# readability-function-size, set in those folders' .clang-tidy.)
set -euo pipefail
cd "$1"
limit=600
status=0
while IFS= read -r -d '' f; do
  lines=$(wc -l <"$f")
  if ((lines > limit)); then
    echo "check_sizes: $f has $lines lines (at most $limit)" >&2
    status=1
  fi
done < <(git ls-files -z -- 'core/*.cpp' 'actors/*.cpp' 'admin/*.cpp' 'topology/*.cpp' 'app/*.cpp')
if ((status == 0)); then
  echo "check_sizes: every .cpp of core, actors, admin, topology and app within $limit lines"
fi
exit "$status"
