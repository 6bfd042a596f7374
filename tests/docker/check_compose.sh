#!/usr/bin/env bash
# Checks docker/docker-compose.yml without a Docker engine: the compose client parses,
# validates and interpolates it (`config -q`), and the stand has the services docs/operations.md
# and the Makefile name. Usage: check_compose.sh <repository root>
set -uo pipefail

root=${1:?usage: check_compose.sh <repository root>}
file="$root/docker/docker-compose.yml"
fail() { echo "check_compose: FAIL: $*" >&2; exit 1; }

[[ -f $file ]] || fail "$file does not exist"

if command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  fail "no compose client: install Debian's docker-compose package (it belongs in scripts/install-deps.sh)"
fi
echo "check_compose: using $("${compose[@]}" version 2>/dev/null | head -n1)"

# A clean environment, so a developer's HMAC_SECRET or COURIER_IMAGE cannot hide a missing default.
run_compose() {
  env -i PATH="$PATH" HOME="${HOME:-/tmp}" "${compose[@]}" -f "$file" "$@"
}

out=$(run_compose config -q 2>&1) || fail "'${compose[*]} -f $file config -q' rejected the file:
$out"
[[ -z $out ]] || fail "'${compose[*]} config -q' printed warnings (an unset variable without a default?):
$out"

services=$(run_compose config --services 2>&1) || fail "config --services failed: $services"
for s in kafka topics mock-webhook courier prometheus; do
  grep -qx "$s" <<<"$services" || fail "service '$s' is missing from $file (found: $(echo $services))"
done

config=$(run_compose config 2>&1) || fail "config failed: $config"
for want in "dockerfile: docker/Dockerfile" "KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false'" \
            "KAFKA_BROKERS: kafka:9092" "WEBHOOK_URL: http://mock-webhook:8090/deliver" \
            "HMAC_SECRET: change-me" "published: 9092" "published: 8090" \
            "/etc/prometheus/alerts.yml" "0.0.0.0:9464"; do
  grep -qF -- "$want" <<<"$config" || {
    # docker-compose 1.x prints ports as "- 9092:29092" and booleans as "'false'" or "\"false\"".
    case $want in
      "published: 9092") grep -qE -- "- (published: )?['\"]?9092" <<<"$config" && continue ;;
      "published: 8090") grep -qE -- "- (published: )?['\"]?8090" <<<"$config" && continue ;;
      KAFKA_AUTO_CREATE*) grep -qE -- "KAFKA_AUTO_CREATE_TOPICS_ENABLE: ['\"]false['\"]" <<<"$config" && continue ;;
    esac
    fail "the resolved compose configuration lacks '$want'"
  }
done
echo "check_compose: OK ($(echo $services))"
