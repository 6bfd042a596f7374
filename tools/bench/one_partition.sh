#!/usr/bin/env bash
# One partition, a receiver nobody here wrote, a real broker, courier's default settings:
# deliveries per second against the Little's-law bound max_in_flight / latency.
#
#   tools/bench/one_partition.sh [records] [latency_ms]      (defaults: 50000, 20)
#
# - the broker: tools/kafka-local on a private port (19492) and data dir, fresh;
# - the receiver: Debian's nginx, one worker, on 127.0.0.1:18480, answering 200 after
#   `echo_sleep` (libnginx-mod-http-echo); deliveries are counted in its access log;
# - the records: 256-byte values preloaded with kcat into a 1-partition topic;
# - courier: `courier run` with topology/courier.json's settings (max_in_flight 256), only the
#   brokers, topic names and URL changed; a fresh consumer group.
# The rate runs from the first to the N-th 200 in the access log (nginx's $msec), so the
# group join at start-up is not in it; the whole run is printed too. Prints one line.
# A quick check; the matrix with the wrk ceiling and repeats is tools/bench/bench.sh (make bench).
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_name=one_partition
# shellcheck source=tools/bench/lib.sh
source tools/bench/lib.sh

records=${1:-50000}
latency_ms=${2:-20}
bench_work=$(mktemp -d "${TMPDIR:-/tmp}/courier-bench-XXXXXX")
bench_courier=${COURIER_BIN:-build/release/app/courier}
bench_setup_env
trap bench_cleanup EXIT

bench_need nginx kcat
bench_nginx_start "$latency_ms"
bench_kafka_start

bench_write_config "$bench_work/courier.json" "bench-$$" bench.shipments.v1 "$(bench_url "$latency_ms")" 256 256
bench_preload "$bench_work/courier.json" 1 "$records" "$(bench_value 256)"

start=$(date +%s.%N)
bench_courier_start "$bench_work/courier.json" "$bench_work/courier.log"
bench_wait_lines "$bench_access_log" "$records" 300 ||
  { echo "one_partition: not all delivered in 300 s" >&2; tail "$bench_work/courier.log" >&2; exit 1; }
end=$(date +%s.%N)
awk -v n="$records" -v s="$start" -v e="$end" -v l="$latency_ms" -v load="$(bench_loadavg)" '
  $2 == 200 { if (first == "") first = $1; last = $1 }
  END {
    rate = (n - 1) / (last - first); bound = l > 0 ? 256 / (l / 1000) : 0;
    printf "one partition, %d records, %d ms receiver (nginx), max_in_flight 256: %.0f deliveries/s", n, l, rate;
    if (bound > 0) printf " = %.0f%% of the bound %.0f/s", 100 * rate / bound, bound;
    printf " (first to last delivery %.2f s; whole run with start-up and group join %.1f s; load %s)\n",
           last - first, e - s, load }' "$bench_access_log"
