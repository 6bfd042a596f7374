#!/usr/bin/env bash
# The real-broker benchmark (issue 10): courier against a receiver nobody here wrote, beside
# wrk's ceiling on that same receiver and, for the latency cases, the Little's-law bound.
#
#   tools/bench/bench.sh                                     (make bench)
#
# The matrix: {0 ms, 20 ms} receiver x {256, 1024} max_in_flight (http.max_connections the same)
# x {1, 8, 64} partitions. For every case and repeat, alternating (cases in order on odd repeats,
# reversed on even ones):
# - wrk: the same receiver, URL, POST body and headers as courier's (Content-Type, User-Agent,
#   X-Signature, Idempotency-Key), as many connections as courier's max_connections, for
#   BENCH_WRK_SECONDS; its requests/s is the ceiling of that run;
# - courier: `courier run` with a config written here (a fresh consumer group, everything but
#   brokers, topic, URL, max_in_flight and max_connections at courier's defaults) on a topic
#   preloaded with N records by kcat; the N-th delivery is the access log's N-th new line;
#   CPU (utime + stime, /proc/PID/stat) and VmHWM are read then, and courier gets SIGTERM.
# The rate is (N - 1) / (the N-th delivery's $msec - the first's), so the group join at
# start-up is not in it; "start->Nth" is the whole run from courier's exec. CPU per delivery
# is the whole process's CPU (start-up included) / N.
#
# The broker: tools/kafka-local on its own port (19492), fresh. The receiver: Debian's nginx,
# one worker, 127.0.0.1:18480, `return 200` (0 ms) or the echo module's `echo_sleep`.
#
# Environment (all optional):
#   BENCH_MATRIX      cases as LATENCY_MS:MAX_IN_FLIGHT:PARTITIONS, space-separated
#                     (default: the 12 cases above), e.g. "0:256:1 20:256:8"
#   BENCH_REPEATS     runs of each case (default 2)
#   BENCH_RECORDS     N for every case (default: 150000 at 0 ms; else 8 s at the Little bound,
#                     within 20000..300000)
#   BENCH_WRK_SECONDS wrk's duration per run (default 5)
#   BENCH_VALUE_BYTES the record value's size in bytes, also wrk's body (default 256)
#   BENCH_PRELOAD_BATCH  records per Kafka record batch when preloading (kcat's
#                     batch.num.messages, default 10000); 3 writes the small batches of a
#                     producer lingering 1 ms at 24,000/s over 8 partitions
#   BENCH_KAFKA_PROPERTIES  a JSON object of librdkafka properties for courier's kafka.properties
#                     (default {}), e.g. '{"queued.max.messages.kbytes": "65536"}'
#   BENCH_HTTP_IO_THREADS   courier's http_io_threads (default: courier's default)
#   BENCH_GATHER_ANSWERS    the route's http.gather_answers, e.g. 0 or 1ms (default: courier's)
#   BENCH_KEYS        K: the records keyed key-<i mod K> (default: no keys), for
#                     routes[].ordering "key" (BENCH_ROUTE_EXTRA='"ordering": "key"')
#   BENCH_ROUTE_EXTRA route keys added to courier's route as they are (a JSON fragment), e.g.
#                     '"rate_limit": {"requests_per_second": 1000000}': a feature's cost
#   BENCH_WRK_THREADS wrk's threads (default 1: nginx's one worker has the other core)
#   BENCH_RUN_TIMEOUT seconds one courier run may take before it counts as failed (default 120)
#   BENCH_THREADS     when set, each run also prints courier's CPU by thread name and its
#                     threads' context switches per delivery, start-up included (stderr)
#   BENCH_SCRAPE      when set, courier's admin listener is on (127.0.0.1:19464) and /metrics
#                     and /state are scraped every second during each run, as Prometheus and
#                     an operator would: the cost of observability shows in the figures
#   COURIER_BIN       courier (default build/release/app/courier)
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_name=bench
# shellcheck source=tools/bench/lib.sh
source tools/bench/lib.sh

default_matrix="0:256:1 0:256:8 0:256:64 0:1024:1 0:1024:8 0:1024:64 20:256:1 20:256:8 20:256:64 20:1024:1 20:1024:8 20:1024:64"
read -r -a cases <<<"${BENCH_MATRIX:-$default_matrix}"
repeats=${BENCH_REPEATS:-2}
wrk_seconds=${BENCH_WRK_SECONDS:-5}
wrk_threads=${BENCH_WRK_THREADS:-1}
run_timeout=${BENCH_RUN_TIMEOUT:-120}
value_bytes=${BENCH_VALUE_BYTES:-256}

bench_is_uint "$repeats" 1 20 || bench_die "BENCH_REPEATS: 1..20, not '$repeats'"
bench_is_uint "$wrk_seconds" 1 60 || bench_die "BENCH_WRK_SECONDS: 1..60, not '$wrk_seconds'"
bench_is_uint "$wrk_threads" 1 8 || bench_die "BENCH_WRK_THREADS: 1..8, not '$wrk_threads'"
bench_is_uint "$run_timeout" 10 1800 || bench_die "BENCH_RUN_TIMEOUT: 10..1800, not '$run_timeout'"
bench_is_uint "$value_bytes" 1 65536 || bench_die "BENCH_VALUE_BYTES: 1..65536, not '$value_bytes'"
bench_is_uint "${BENCH_PRELOAD_BATCH:-10000}" 1 1000000 ||
  bench_die "BENCH_PRELOAD_BATCH: 1..1000000, not '${BENCH_PRELOAD_BATCH:-}'"
[[ -z ${BENCH_RECORDS:-} ]] || bench_is_uint "$BENCH_RECORDS" 100 5000000 || bench_die "BENCH_RECORDS: 100..5000000"
((${#cases[@]} >= 1 && ${#cases[@]} <= 48)) || bench_die "BENCH_MATRIX: 1..48 cases"
latencies=()
for c in "${cases[@]}"; do
  IFS=: read -r l f p <<<"$c"
  [[ $c =~ ^[0-9]+:[0-9]+:[0-9]+$ ]] && bench_is_uint "$l" 0 1000 && bench_is_uint "$f" 1 4096 && bench_is_uint "$p" 1 256 ||
    bench_die "BENCH_MATRIX: '$c' is not LATENCY_MS(0..1000):MAX_IN_FLIGHT(1..4096):PARTITIONS(1..256)"
  [[ " ${latencies[*]} " == *" $l "* ]] || latencies+=("$l")
done

records_for() {  # records_for LATENCY_MS MAX_IN_FLIGHT
  if [[ -n ${BENCH_RECORDS:-} ]]; then echo "$BENCH_RECORDS"
  elif (($1 == 0)); then echo 150000
  else awk -v l="$1" -v f="$2" 'BEGIN { n = 8 * f / (l / 1000); n = n < 20000 ? 20000 : n > 300000 ? 300000 : n; printf "%d", n }'
  fi
}

bench_work=$(mktemp -d "${TMPDIR:-/tmp}/courier-bench-XXXXXX")
bench_courier=${COURIER_BIN:-build/release/app/courier}
bench_setup_env
trap bench_cleanup EXIT
bench_need nginx kcat wrk openssl
ulimit -n 16384 2>/dev/null || ulimit -n "$(ulimit -Hn)"
note() { echo "bench: $*" >&2; }

load_start=$(bench_loadavg)
note "matrix: ${cases[*]}; $repeats repeats; load $load_start"
bench_nginx_start "${latencies[@]}"
bench_kafka_start

# One topic per (partitions, N), preloaded once before any run; every run reads it all with a
# fresh group.
value=$(bench_value "$value_bytes")
topic_for() { echo "bench.p$1.n$2${BENCH_KEYS:+.k$BENCH_KEYS}"; }
declare -A preloaded=()
for c in "${cases[@]}"; do
  IFS=: read -r l f p <<<"$c"
  n=$(records_for "$l" "$f")
  t=$(topic_for "$p" "$n")
  [[ -z ${preloaded[$t]:-} ]] || continue
  note "preloading $t ($n records of $value_bytes bytes, $p partitions)"
  bench_write_config "$bench_work/preload.json" preload "$t" "$(bench_url "$l")" "$f" "$f"
  bench_preload "$bench_work/preload.json" "$p" "$n" "$value"
  preloaded[$t]=1
done

# wrk's request: courier's body and headers (the signature is the real HMAC of the body; the
# Idempotency-Key is fixed, of the length courier's topic:partition:offset keys have).
version=$("$bench_courier" version 2>/dev/null | awk '{ print $NF; exit }')
cat >"$bench_work/wrk.lua" <<LUA
wrk.method = "POST"
wrk.body = [[$value]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "courier/${version:-0}"
wrk.headers["X-Signature"] = "$(bench_signature "$value")"
wrk.headers["Idempotency-Key"] = "bench.p8.n150000:3:18750"
LUA

results=$bench_work/results.txt
: >"$results"

# run_wrk LATENCY_MS CONNECTIONS: prints "requests/s mean_latency_ms cpu_us_per_request" (wrk's
# mean latency of a request at that many connections: what the receiver really takes per round
# trip under that load, which the Little bound's nominal latency leaves out; wrk's own CPU,
# user + system from `times`, over its requests: what a bare HTTP client pays per request to
# this receiver on this machine, beside courier's CPU per delivery), or "0 0 0" when wrk failed.
run_wrk() {
  local out
  out=$(timeout $((wrk_seconds + 30)) wrk -t"$wrk_threads" -c"$2" -d"${wrk_seconds}s" --timeout 5s \
          -s "$bench_work/wrk.lua" "$(bench_url "$1")" 2>&1 && times) || { echo "$out" >&2; echo "0 0 0"; return; }
  grep -q 'Non-2xx\|Socket errors' <<<"$out" && note "wrk: $(grep 'Non-2xx\|Socket errors' <<<"$out" | tr -s ' ')"
  # `times` prints the shell's and then its children's user and system time, as 0m1.234s.
  awk 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v + 0 }
       function secs(v,   m) { m = v; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", v); sub(/s$/, "", v); return 60 * m + v }
       /^ +Latency / { lat = ms($2) } /^Requests\/sec:/ { rps = $2 } / requests in / { reqs = $1 }
       /^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$/ { cpu = secs($1) + secs($2) }
       END { printf "%s %.3f %.2f\n", (rps == "" ? 0 : rps), lat, (reqs > 0 ? 1e6 * cpu / reqs : 0) }' <<<"$out"
}

# run_courier LATENCY_MS MAX_IN_FLIGHT PARTITIONS N GROUP: prints
# "rate whole_s cpu_us_per_delivery hwm_mib non200", or "fail" when N did not arrive in time.
run_courier() {
  local l=$1 f=$2 p=$3 n=$4 cfg=$bench_work/run.json log=$bench_work/courier-$5.log
  local base start end cpu hwm
  local admin=off scraper=
  [[ -z ${BENCH_SCRAPE:-} ]] || admin=127.0.0.1:19464
  bench_write_config "$cfg" "$5" "$(topic_for "$p" "$n")" "$(bench_url "$l")" "$f" "$f" "$admin"
  base=$(bench_log_lines "$bench_access_log")
  start=$(date +%s.%N)
  bench_courier_start "$cfg" "$log"
  if [[ $admin != off ]]; then
    (while kill -0 "$bench_courier_pid" 2>/dev/null; do
       curl -fsS -m 2 "http://$admin/metrics" >/dev/null 2>&1 || true
       curl -fsS -m 2 "http://$admin/state" >/dev/null 2>&1 || true
       sleep 1
     done) &
    scraper=$!
  fi
  if ! bench_wait_lines "$bench_access_log" $((base + n)) "$run_timeout"; then
    note "run $5: $(($(bench_log_lines "$bench_access_log") - base)) of $n delivered in $run_timeout s; courier's log:"
    tail -n 5 "$log" >&2 || true
    bench_stop "$bench_courier_pid" 30
    bench_courier_pid=
    echo fail
    return
  fi
  end=$(date +%s.%N)
  cpu=$(bench_cpu_seconds "$bench_courier_pid")
  hwm=$(bench_hwm_kib "$bench_courier_pid")
  [[ -z ${BENCH_THREADS:-} ]] ||
    note "run $5: courier's CPU seconds by thread (name count seconds): $(bench_thread_cpu "$bench_courier_pid" | paste -sd ';'); context switches per delivery $(awk -v s="$(bench_ctx_switches "$bench_courier_pid")" -v n="$n" 'BEGIN { printf "%.2f", s / n }')"
  bench_stop "$bench_courier_pid" 30
  bench_courier_pid=
  [[ -z $scraper ]] || wait "$scraper" 2>/dev/null || true
  tail -n +$((base + 1)) "$bench_access_log" | head -n "$n" |
    awk -v rate="$(bench_rate "$bench_access_log" "$base" "$n")" -v n="$n" -v s="$start" -v e="$end" -v cpu="$cpu" -v hwm="$hwm" '
      $2 != 200 { bad++ }
      END { printf "%s %.2f %.2f %.1f %d\n", rate, e - s, 1e6 * cpu / n, hwm / 1024, bad }'
}

for ((rep = 1; rep <= repeats; rep++)); do
  order=("${cases[@]}")
  if ((rep % 2 == 0)); then
    order=()
    for ((i = ${#cases[@]} - 1; i >= 0; i--)); do order+=("${cases[i]}"); done
  fi
  for c in "${order[@]}"; do
    IFS=: read -r l f p <<<"$c"
    n=$(records_for "$l" "$f")
    w=$(run_wrk "$l" "$f")
    ticks=$(bench_cpu_ticks)
    r=$(run_courier "$l" "$f" "$p" "$n" "bench-$$-${l}-${f}-${p}-r$rep")
    # The share of the machine a hypervisor took during courier's run: a run with much of it
    # measured the neighbours as much as courier.
    steal=$(bench_cpu_share "$ticks" | sed -E 's/.*steal ([0-9]+)%.*/\1/')
    load=$(bench_loadavg)
    echo "$c $rep $n ${w:-0 0 0} $steal $r ${load%% *}" >>"$results"
    note "repeat $rep, ${l} ms / $f in flight / $p partitions, N $n: wrk ${w:-0 0 0} (req/s mean_latency_ms cpu_us/request), courier $r (rate/s start->Nth_s cpu_us/delivery rss_MiB non200); steal $steal%; load $load"
  done
done
load_end=$(bench_loadavg)

# The table: per case the median of the repeats with [min-max]. Ratios are per run (courier's
# rate over the wrk figure of the same run, or over the Little bound), then their median.
echo "courier bench (real broker: tools/kafka-local; receiver: nginx, 1 worker; wrk -t$wrk_threads, ${wrk_seconds} s; $value_bytes-byte values; $repeats repeats, alternating)"
echo "$(nproc) cores; checkout $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $bench_courier; load average (1, 5, 15 min) at start $load_start, at end $load_end"
awk -v cases="${cases[*]}" '
  function sortn(a, k,   i, j, t) { for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
  function med(a, k) { sortn(a, k); return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
  function stat(s, fmt,   a, k, m) { k = split(s, a, " "); if (k == 0) return "-"; m = sprintf(fmt, med(a, k)); return m " [" sprintf(fmt, a[1]) "-" sprintf(fmt, a[k]) "]" }
  function stat1(s, fmt,   a, k) { k = split(s, a, " "); if (k == 0) return "-"; return sprintf(fmt, med(a, k)) }
  # A line: case repeat N wrk_rps wrk_latency_ms wrk_cpu_us steal_% (rate whole cpu rss non200 | fail) load.
  { c = $1; runs[c]++; N[c] = $3; wrk[c] = wrk[c] " " $4; steal[c] = steal[c] " " $7; load[c] = load[c] " " $NF
    if ($6 > 0) wcpu[c] = wcpu[c] " " $6
    split(c, q, ":"); if (q[1] > 0 && $5 > 0) rx[c] = rx[c] " " $5
    if ($8 == "fail") { fails[c]++; next }
    rate[c] = rate[c] " " $8; whole[c] = whole[c] " " $9; cpu[c] = cpu[c] " " $10; rss[c] = rss[c] " " $11
    bad[c] += $12; if ($4 > 0) xw[c] = xw[c] " " $8 / $4
    if (q[1] > 0) xl[c] = xl[c] " " $8 / (q[2] / (q[1] / 1000))
    if (q[1] > 0 && $5 > 0) xr[c] = xr[c] " " $8 / (q[2] / ($5 / 1000)) }
  END {
    printf "%-16s %7s %-24s %-24s %7s %-16s %-16s %-18s %-17s %-13s %-16s %-10s %s\n", "case", "N", "deliveries/s", "wrk req/s (ceiling)", "Little", "x wrk", "x Little", "CPU us/delivery", "peak RSS MiB", "start->Nth s", "load 1 min", "steal %", "targets"
    k = split(cases, list, " ")
    for (i = 1; i <= k; i++) {
      c = list[i]; if (c in seen) continue; seen[c] = 1; split(c, q, ":")
      label = sprintf("%d ms %d f %d p", q[1], q[2], q[3])
      little = q[1] > 0 ? sprintf("%d", q[2] / (q[1] / 1000)) : "-"
      t = ""
      if (fails[c] > 0) t = fails[c] "/" runs[c] " runs FAILED; "
      if (bad[c] > 0) t = t bad[c] " non-200; "
      if (rate[c] != "") {
        if (q[1] == 0) {
          mx = stat1(xw[c], "%.3f") + 0; mc = stat1(cpu[c], "%.3f") + 0
          t = t "rate " (mx >= 0.5 ? "met" : "MISSED") " (>= 0.5 x wrk), cpu " (mc <= 15 ? "met" : "MISSED") " (<= 15 us)"
        } else {
          ml = stat1(xl[c], "%.3f") + 0
          t = t "rate " (ml >= 0.9 ? "met" : "MISSED") " (>= 0.9 x Little)"
          # The bound at the latency the receiver really had under wrk at these connections.
          if (rx[c] != "") t = t "; receiver " stat(rx[c], "%.1f") " ms under wrk, x Little at that " stat(xr[c], "%.2f")
        }
        # What a bare HTTP client (wrk) paid per request to the same receiver in the same runs.
        if (wcpu[c] != "") t = t "; wrk CPU " stat(wcpu[c], "%.1f") " us/request"
      }
      printf "%-16s %7d %-24s %-24s %7s %-16s %-16s %-18s %-17s %-13s %-16s %-10s %s\n", label, N[c],
             stat(rate[c], "%.0f"), stat(wrk[c], "%.0f"), little, stat(xw[c], "%.2f"),
             (q[1] > 0 ? stat(xl[c], "%.2f") : "-"), stat(cpu[c], "%.1f"), stat(rss[c], "%.0f"),
             stat(whole[c], "%.1f"), stat(load[c], "%.2f"), stat(steal[c], "%d"), t
    }
  }' "$results"
