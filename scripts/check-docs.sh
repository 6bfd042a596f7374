#!/usr/bin/env bash
# Checks the shape of the documentation: README.md at most 250 lines and no line over 200
# characters, docs/performance.md at most 250 lines, every docs/*.md page linked from README.md,
# and every relative markdown link in README.md and docs/*.md pointing at a file that exists
# (and, for a link to a .md file with #anchor, at a heading that gives that GitHub anchor).
# Exits 1 naming each problem. Needs only bash, coreutils, grep and awk.
# Usage: scripts/check-docs.sh [repository root]   (default: the parent of this script's folder)
set -uo pipefail

root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
cd "$root" || { echo "check-docs: cannot enter $root" >&2; exit 1; }

problems=0
fail() {
  echo "check-docs: $*" >&2
  problems=$((problems + 1))
}

max_lines() {  # file limit
  local n
  n=$(wc -l <"$1")
  ((n <= $2)) || fail "$1 has $n lines (at most $2)"
}

[[ -f README.md ]] || { echo "check-docs: no README.md in $root" >&2; exit 1; }
max_lines README.md 250
[[ -f docs/performance.md ]] && max_lines docs/performance.md 250

while IFS= read -r line; do
  fail "$line"
done < <(awk 'length($0) > 200 { printf "README.md:%d is %d characters long (at most 200)\n", FNR, length($0) }' README.md)

# The relative links of a markdown file, one "target" a line, outside fenced code blocks and
# inline code spans: [text](target) and [text](target "title").
links_of() {
  awk '
    /^[ \t]*(```|~~~)/ { fence = !fence; next }
    fence { next }
    {
      line = $0
      gsub(/`[^`]*`/, "", line)
      while (match(line, /\]\([^) \t]+/)) {
        print substr(line, RSTART + 2, RLENGTH - 2)
        line = substr(line, RSTART + RLENGTH)
      }
    }' "$1"
}

# The GitHub anchors of a markdown file's headings: lowercase, punctuation other than '-' and
# '_' dropped, spaces to '-'; a repeated anchor gets -1, -2, ...
anchors_of() {
  awk '
    /^[ \t]*(```|~~~)/ { fence = !fence; next }
    fence { next }
    /^#+[ \t]/ {
      h = $0
      sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#*[ \t]*$/, "", h)
      h = tolower(h)
      gsub(/[^a-z0-9 _-]/, "", h)
      gsub(/ /, "-", h)
      if (h in seen) { seen[h]++; print h "-" seen[h] } else { seen[h] = 0; print h }
    }' "$1"
}

for page in docs/*.md; do
  [[ -e $page ]] || continue
  links_of README.md | grep -qxF -e "$page" -e "./$page" ||
    links_of README.md | grep -q -e "^$page#" -e "^\./$page#" ||
    fail "$page is not linked from README.md"
done

for file in README.md docs/*.md; do
  [[ -e $file ]] || continue
  dir=$(dirname "$file")
  while IFS= read -r target; do
    case $target in
      http://* | https://* | mailto:* | ftp://*) continue ;;
    esac
    path=${target%%#*}
    anchor=""
    [[ $target == *"#"* ]] && anchor=${target#*#}
    if [[ -z $path ]]; then
      resolved=$file
    else
      resolved="$dir/$path"
      if [[ ! -e $resolved ]]; then
        fail "$file links to $target: $resolved does not exist"
        continue
      fi
    fi
    if [[ -n $anchor && $resolved == *.md && -f $resolved ]]; then
      anchors_of "$resolved" | grep -qxF -- "$anchor" ||
        fail "$file links to $target: $resolved has no heading with the anchor #$anchor"
    fi
  done < <(links_of "$file")
done

if ((problems > 0)); then
  echo "check-docs: $problems problem(s)" >&2
  exit 1
fi
echo "check-docs: ok"
