#!/usr/bin/env bash
# What several partners on one topic cost (docs/endpoints.md): one route fanning each record out
# to 3 endpoints, beside 3 one-endpoint routes on 3 topics delivering the same 3N requests, and
# the fan-out with a filter on every endpoint (a header condition; a JSON condition, which parses
# each body once), all on the real broker against Debian's nginx, with wrk's ceiling on the same
# nginx in the same run.
#
#   tools/bench/endpoints.sh [records] [latency_ms] [partitions]     (defaults: 20000, 0, 8)
#
# ENDPOINTS_CASES (default "one fanout filtered json down") runs only the cases it names: "fanout
# down" is the isolation figure beside its baseline.
#
# Each case: a fresh consumer group, N records preloaded per topic by kcat (256-byte JSON string
# values, no keys), max_in_flight 256 and http.max_connections 256 per route, everything else at
# courier's defaults. The rate is deliveries (requests nginx answered 200) per second from the
# first to the 3N-th in the access log, and over the middle 80% of them (from the 10%-th to the
# 90%-th: the steady rate, without the group join and a breaker's first trip, which take a
# large part of a run this short); CPU per delivery is courier's whole CPU / 3N. One line a
# case. The last case has endpoint b answering 503 to everything: a's and c's 2N deliveries.
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_name=endpoints
# shellcheck source=tools/bench/lib.sh
source tools/bench/lib.sh

records=${1:-20000}
latency_ms=${2:-0}
partitions=${3:-8}
bench_is_uint "$records" 100 1000000 || bench_die "records: 100..1000000, not '$records'"
bench_is_uint "$latency_ms" 0 1000 || bench_die "latency_ms: 0..1000, not '$latency_ms'"
bench_is_uint "$partitions" 1 64 || bench_die "partitions: 1..64, not '$partitions'"
bench_work=$(mktemp -d "${TMPDIR:-/tmp}/courier-bench-XXXXXX")
bench_courier=${COURIER_BIN:-build/release/app/courier}
bench_setup_env
trap bench_cleanup EXIT

bench_need nginx kcat wrk openssl
bench_nginx_start "$latency_ms"
bench_kafka_start
url=$(bench_url "$latency_ms")
value=$(bench_value 256)

# route NAME TOPIC EXTRA: one route's JSON, EXTRA its url or its endpoints.
route() {
  printf '{"name": "%s", "topic": "%s", "allow_private_targets": true, "max_in_flight": 256, "http": {"max_connections": 256}, %s}' "$1" "$2" "$3"
}
# endpoints FILTER_A FILTER_B FILTER_C: three endpoints at the same nginx location, each with
# its filter (an empty one: none).
endpoints() {
  local out="" name filter
  for name in a b c; do
    filter=$1
    shift
    out+="${out:+, }{\"name\": \"$name\", \"url\": \"$url\"${filter:+, \"filter\": $filter}}"
  done
  printf '"endpoints": [%s]' "$out"
}
# config FILE GROUP ROUTE...: courier's config with these routes.
config() {
  local file=$1 group=$2
  shift 2
  local routes
  routes=$(IFS=,; echo "$*")
  printf '{"kafka": {"brokers": "%s", "group_id": "%s"}, "admin": {"listen": "off"}, "routes": [%s]}\n' \
    "$bench_bootstrap" "$group" "$routes" >"$file"
}
# preload TOPIC: N records on a fresh topic of `partitions` partitions (with its tiers and DLQ).
preload() {
  config "$bench_work/preload.json" preload "$(route preload "$1" "\"url\": \"$url\"")"
  bench_preload "$bench_work/preload.json" "$partitions" "$records" "$value"
}

# run NAME CONFIG [ENDPOINTS_UP]: courier on CONFIG until nginx answered 2xx to N more requests
# for each endpoint that is up (default 3); prints the case's line.
run() {
  local name=$1 cfg=$2 n=$((${3:-3} * records)) base start cpu
  base=$(bench_log_lines "$bench_access_log" " 200$")
  start=$(date +%s.%N)
  bench_courier_start "$cfg" "$bench_work/courier-$name.log"
  if ! bench_wait_lines "$bench_access_log" $((base + n)) 300 " 200$"; then
    echo "$name: $(($(bench_log_lines "$bench_access_log") - base)) of $n delivered in 300 s" >&2
    tail -5 "$bench_work/courier-$name.log" >&2
    exit 1
  fi
  cpu=$(bench_cpu_seconds "$bench_courier_pid")
  kill "$bench_courier_pid"
  wait "$bench_courier_pid" 2>/dev/null || true
  bench_courier_pid=
  printf '%-34s %8d %14s %12s %16s %10s\n' "$name" "$n" "$(ok_rate "$base" "$n")" \
    "$(ok_rate $((base + n / 10)) $((n * 8 / 10)))" \
    "$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.1f", 1e6 * c / n }')" \
    "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')"
}

# ok_rate SKIP N: bench_rate over the 2xx lines only (a partner that is down answers 503s too).
ok_rate() {
  grep ' 200$' "$bench_access_log" >"$bench_work/ok.log" || true
  bench_rate "$bench_work/ok.log" "$1" "$2"
}

cases=" ${ENDPOINTS_CASES:-one fanout filtered json down} "
for c in $cases; do
  [[ " one fanout filtered json down " == *" $c "* ]] || bench_die "ENDPOINTS_CASES: unknown case '$c'"
done
wanted() { [[ $cases == *" $1 "* ]]; }
topics=()
wanted one && topics+=(bench.one.a bench.one.b bench.one.c)
for c in fanout filtered json down; do
  wanted "$c" && topics+=("bench.$c")
done
for t in "${topics[@]}"; do
  preload "$t"
done

cat >"$bench_work/wrk.lua" <<LUA
wrk.method = "POST"
wrk.body = [[$value]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Signature"] = "$(bench_signature "$value")"
wrk.headers["Idempotency-Key"] = "bench.fanout:3:18750"
LUA
wrk_rate=$(timeout 40 wrk -t1 -c256 -d5s --timeout 5s -s "$bench_work/wrk.lua" "$url" |
  awk '/^Requests\/sec:/ { print $2 }')

echo "endpoints: $records records a topic, $partitions partitions, ${latency_ms} ms receiver (nginx, one worker); wrk's ceiling (256 connections): ${wrk_rate:-?} req/s"
printf '%-34s %8s %14s %12s %16s %10s\n' case deliveries deliveries/s "middle 80%" "CPU us/delivery" "whole s"
if wanted one; then
  config "$bench_work/one.json" "one-$$" "$(route a bench.one.a "\"url\": \"$url\"")" \
    "$(route b bench.one.b "\"url\": \"$url\"")" "$(route c bench.one.c "\"url\": \"$url\"")"
  run "3 routes, 1 endpoint each" "$bench_work/one.json"
fi
if wanted fanout; then
  config "$bench_work/fanout.json" "fanout-$$" "$(route fanout bench.fanout "$(endpoints "" "" "")")"
  run "1 route, 3 endpoints, no filter" "$bench_work/fanout.json"
fi
if wanted filtered; then
  not_skip='{"not": {"header": "x-skip", "exists": true}}'
  config "$bench_work/filtered.json" "filtered-$$" \
    "$(route filtered bench.filtered "$(endpoints "$not_skip" "$not_skip" "$not_skip")")"
  run "1 route, 3 endpoints, header filter" "$bench_work/filtered.json"
fi
if wanted json; then
  is_json='{"json": "", "exists": true}'
  config "$bench_work/json.json" "json-$$" "$(route json bench.json "$(endpoints "$is_json" "$is_json" "$is_json")")"
  run "1 route, 3 endpoints, JSON filter" "$bench_work/json.json"
fi
# Isolation: endpoint b answers 503 to everything; a's and c's deliveries beside the fan-out
# without the outage (b's records wait in the retry tiers once its breaker is Open).
if wanted down; then
  down_url="http://127.0.0.1:$bench_nginx_port/down"
  config "$bench_work/down.json" "down-$$" "$(route down bench.down "\"endpoints\": [{\"name\": \"a\", \"url\": \"$url\"}, {\"name\": \"b\", \"url\": \"$down_url\"}, {\"name\": \"c\", \"url\": \"$url\"}]")"
  run "1 route, 3 endpoints, b down" "$bench_work/down.json" 2
fi
