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
# This is a quick check for issue 9; the full benchmark (wrk ceiling, repeats) is issue 10.
set -euo pipefail
cd "$(dirname "$0")/../.."

records=${1:-50000}
latency_ms=${2:-20}
port=19492
nginx_port=18480
work=$(mktemp -d "${TMPDIR:-/tmp}/courier-bench-XXXXXX")
courier_bin=${COURIER_BIN:-build/release/topology/courier}
export KAFKA_LOCAL_PORT=$port KAFKA_LOCAL_DATA=$work/kafka

cleanup() {
  [[ -n ${courier_pid:-} ]] && kill "$courier_pid" 2>/dev/null || true
  [[ -f $work/nginx.pid ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  tools/kafka-local/kafka-local stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

for tool in nginx kcat; do
  command -v "$tool" >/dev/null || { echo "one_partition: $tool is not installed (make deps)" >&2; exit 127; }
done
[[ -x $courier_bin ]] || { echo "one_partition: build courier first (make build)" >&2; exit 2; }

mkdir -p "$work/nginx"
cat >"$work/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
  log_format bench '\$msec \$status';
  access_log $work/nginx/access.log bench;
  client_body_temp_path $work/nginx;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$nginx_port;
    location /deliver {
      echo_read_request_body;
      echo_sleep $(awk "BEGIN { printf \"%.3f\", $latency_ms / 1000 }");
      echo ok;
    }
  }
}
CONF
nginx -c "$work/nginx.conf" -p "$work/nginx"

tools/kafka-local/kafka-local start --fresh >/dev/null
bootstrap=127.0.0.1:$port
topic=bench.shipments.v1
value=$(head -c 256 /dev/zero | tr '\0' 'x')
cat >"$work/courier.json" <<CONF
{"kafka": {"brokers": "$bootstrap", "group_id": "bench-$$"},
 "routes": [{"name": "shipments", "topic": "$topic", "url": "http://127.0.0.1:$nginx_port/deliver"}]}
CONF
HMAC_SECRET=bench "$courier_bin" topics ensure --config "$work/courier.json" --partitions 1 >/dev/null
seq 1 "$records" | sed "s/.*/\"$value\"/" | kcat -P -b "$bootstrap" -t "$topic" -X linger.ms=20

start=$(date +%s.%N)
HMAC_SECRET=bench "$courier_bin" run --config "$work/courier.json" --log-level warn \
  2>"$work/courier.log" &
courier_pid=$!
deadline=$((SECONDS + 300))
while (( $(grep -c ' 200$' "$work/nginx/access.log" 2>/dev/null || true) < records )); do
  (( SECONDS < deadline )) || { echo "one_partition: not all delivered in 300 s" >&2; tail "$work/courier.log" >&2; exit 1; }
  sleep 0.05
done
end=$(date +%s.%N)
awk -v n="$records" -v s="$start" -v e="$end" -v l="$latency_ms" '
  $2 == 200 { if (first == "") first = $1; last = $1 }
  END {
    rate = (n - 1) / (last - first); bound = 256 / (l / 1000);
    printf "one partition, %d records, %d ms receiver (nginx echo_sleep), max_in_flight 256: %.0f deliveries/s = %.0f%% of the bound %.0f/s (first to last delivery %.2f s; whole run with start-up and group join %.1f s)\n",
           n, l, rate, 100 * rate / bound, bound, last - first, e - s }' "$work/nginx/access.log"
