# shellcheck shell=bash
# The pieces the real-broker benchmarks share (tools/bench/one_partition.sh, tools/bench/bench.sh).
# Sourced, not run. Every wait here is bounded in time; everything listens on loopback only.
#
# The scripts set, before calling these:
#   bench_work      a private temporary directory (nginx's files, the broker's data, configs)
#   bench_courier   the courier binary
# and get from bench_setup_env:
#   bench_kafka_port (19492), bench_nginx_port (18480), bench_bootstrap, KAFKA_LOCAL_PORT/DATA.

bench_kafka_port=${BENCH_KAFKA_PORT:-19492}
bench_nginx_port=${BENCH_NGINX_PORT:-18480}
bench_secret=bench

bench_die() { echo "${bench_name:-bench}: $*" >&2; exit 1; }

bench_setup_env() {
  export KAFKA_LOCAL_PORT=$bench_kafka_port KAFKA_LOCAL_DATA=$bench_work/kafka
  bench_bootstrap=127.0.0.1:$bench_kafka_port
}

# bench_need TOOL...: each must be on PATH (scripts/install-deps.sh installs them).
bench_need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "${bench_name:-bench}: $tool is not installed (make deps)" >&2; exit 127; }
  done
  [[ -x $bench_courier ]] || { echo "${bench_name:-bench}: build courier first (make build; or set COURIER_BIN)" >&2; exit 2; }
}

# Stops what bench_* started (courier of the current run, nginx, the broker); for `trap ... EXIT`.
bench_cleanup() {
  [[ -n ${bench_courier_pid:-} ]] && kill "$bench_courier_pid" 2>/dev/null || true
  [[ -f $bench_work/nginx.pid ]] && kill "$(cat "$bench_work/nginx.pid")" 2>/dev/null || true
  tools/kafka-local/kafka-local stop >/dev/null 2>&1 || true
  rm -rf "$bench_work"
}

bench_port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# bench_nginx_start LATENCY_MS...: Debian's nginx, one worker, on 127.0.0.1:$bench_nginx_port.
# Each latency is a location /deliver/<ms>: 0 is `return 200`, the others answer 200 after the
# echo module's `echo_sleep`; /down answers 503 to everything (a partner that is down). Every
# request is one line "$msec $status" in $bench_access_log.
# BENCH_NGINX_FAIL_PERCENT (e.g. 5; unset: none of this) adds beside each /deliver/<ms> a
# /flaky/<ms> that answers 503 to that share of the requests and otherwise as /deliver/<ms>:
# split_clients on $request_id, so each request (a retry too) is drawn on its own.
bench_nginx_start() {
  local ms locations="" split=""
  [[ -z ${BENCH_NGINX_FAIL_PERCENT:-} ]] ||
    split="split_clients \"\${request_id}\" \$bench_flaky { ${BENCH_NGINX_FAIL_PERCENT}% 1; * \"\"; }"
  for ms in "$@"; do
    # BENCH_NGINX_OUTAGE_FILE: while that file exists, every location answers 503.
    local outage=""
    [[ -z ${BENCH_NGINX_OUTAGE_FILE:-} ]] || outage="if (-f $BENCH_NGINX_OUTAGE_FILE) { return 503; } "
    if ((ms == 0)); then
      locations+="    location = /deliver/0 { ${outage}return 200 \"ok\\n\"; }"$'\n'
      [[ -z $split ]] ||
        locations+="    location = /flaky/0 { ${outage}if (\$bench_flaky) { return 503; } return 200 \"ok\\n\"; }"$'\n'
    else
      locations+="    location = /deliver/$ms { ${outage}echo_read_request_body; echo_sleep $(awk "BEGIN { printf \"%.3f\", $ms / 1000 }"); echo ok; }"$'\n'
      [[ -z $split ]] ||
        locations+="    location = /flaky/$ms { ${outage}if (\$bench_flaky) { return 503; } echo_read_request_body; echo_sleep $(awk "BEGIN { printf \"%.3f\", $ms / 1000 }"); echo ok; }"$'\n'
    fi
  done
  locations+="    location = /down { return 503; }"$'\n'
  mkdir -p "$bench_work/nginx"
  bench_access_log=$bench_work/nginx/access.log
  cat >"$bench_work/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
worker_processes 1;
worker_rlimit_nofile 16384;
pid $bench_work/nginx.pid;
error_log $bench_work/nginx/error.log;
events { worker_connections 8192; }
http {
  log_format bench '\$msec \$status';
  access_log $bench_access_log bench;
  client_body_temp_path $bench_work/nginx;
  keepalive_requests 1000000;
  keepalive_timeout 75s;
  $split
  server {
    listen 127.0.0.1:$bench_nginx_port backlog=4096;
$locations  }
}
CONF
  nginx -c "$bench_work/nginx.conf" -p "$bench_work/nginx"
  local deadline=$((SECONDS + 10))
  until bench_port_open "$bench_nginx_port"; do
    ((SECONDS < deadline)) || bench_die "nginx did not listen on $bench_nginx_port in 10 s"
    sleep 0.1
  done
}

bench_url() { echo "http://127.0.0.1:$bench_nginx_port/deliver/$1"; }

bench_kafka_start() { tools/kafka-local/kafka-local start --fresh >/dev/null; }

# bench_value BYTES: the record value, a JSON string of BYTES x's (quotes not counted).
bench_value() { printf '"%s"' "$(head -c "$1" /dev/zero | tr '\0' 'x')"; }

# bench_signature BODY: the X-Signature courier sends for BODY (HMAC-SHA256, hex).
bench_signature() { printf '%s' "$1" | openssl dgst -sha256 -hmac "$bench_secret" -r | cut -d' ' -f1; }

# bench_write_config FILE GROUP TOPIC URL MAX_IN_FLIGHT MAX_CONNECTIONS [ADMIN_LISTEN]: courier's
# config, everything else at courier's defaults (the admin listener off unless ADMIN_LISTEN;
# BENCH_KAFKA_PROPERTIES, a JSON object, becomes kafka.properties: an A/B of a librdkafka setting;
# BENCH_HTTP_IO_THREADS, when set, becomes http_io_threads; BENCH_GATHER_ANSWERS, when set, the
# route's http.gather_answers, e.g. 0 or 1ms; BENCH_ROUTE_EXTRA, when set, route keys added as
# they are, e.g. '"rate_limit": {"requests_per_second": 1000000}, "retry_budget": {}': the cost
# of a feature beside it off).
bench_write_config() {
  local io_threads="" gather="" extra=""
  [[ -z ${BENCH_ROUTE_EXTRA:-} ]] || extra="$BENCH_ROUTE_EXTRA,"
  [[ -z ${BENCH_HTTP_IO_THREADS:-} ]] || io_threads="\"http_io_threads\": $BENCH_HTTP_IO_THREADS,"
  [[ -z ${BENCH_GATHER_ANSWERS:-} ]] || gather=", \"gather_answers\": \"$BENCH_GATHER_ANSWERS\""
  cat >"$1" <<CONF
{"kafka": {"brokers": "$bench_bootstrap", "group_id": "$2", "properties": ${BENCH_KAFKA_PROPERTIES:-{\}}},
 $io_threads
 "admin": {"listen": "${7:-off}"},
 "routes": [{"name": "shipments", "topic": "$3", "url": "$4",
             "allow_private_targets": true, $extra
             "max_in_flight": $5, "http": {"max_connections": $6$gather}}]}
CONF
}

# bench_preload CONFIG PARTITIONS RECORDS VALUE: creates CONFIG's topic with PARTITIONS partitions
# (courier topics ensure, with its retry and DLQ topics) and produces RECORDS copies of VALUE
# with kcat, without keys (so spread over the partitions by librdkafka's partitioner) or, with
# BENCH_KEYS=K, keyed "key-<i mod K>" (each key's records in one partition, in order: what
# routes[].ordering "key" orders), in record batches of up to BENCH_PRELOAD_BATCH (10000)
# records.
bench_preload() {
  local topic
  topic=$(sed -n 's/.*"topic": "\([^"]*\)".*/\1/p' "$1")
  HMAC_SECRET=$bench_secret "$bench_courier" topics ensure --config "$1" --partitions "$2" >/dev/null
  if [[ -n ${BENCH_KEYS:-} ]]; then
    seq 1 "$3" | awk -v keys="$BENCH_KEYS" -v value="$4" '{ printf "key-%d\t%s\n", $1 % keys, value }' |
      timeout 300 kcat -P -K $'\t' -b "$bench_bootstrap" -t "$topic" -X linger.ms=20 \
        -X batch.num.messages="${BENCH_PRELOAD_BATCH:-10000}"
  else
    seq 1 "$3" | sed "s/.*/$4/" |
      timeout 300 kcat -P -b "$bench_bootstrap" -t "$topic" -X linger.ms=20 \
        -X batch.num.messages="${BENCH_PRELOAD_BATCH:-10000}"
  fi
}

# bench_is_uint VALUE MIN MAX: VALUE is a whole number from MIN to MAX.
bench_is_uint() { [[ $1 =~ ^[0-9]+$ ]] && (($1 >= $2 && $1 <= $3)); }

# bench_log_lines FILE [PATTERN]: FILE's lines (0 while it does not exist), or only those
# matching the extended regular expression PATTERN.
bench_log_lines() {
  if [[ ! -f $1 ]]; then
    echo 0
  elif [[ -n ${2:-} ]]; then
    grep -cE -- "$2" "$1" || true
  else
    wc -l <"$1"
  fi
}

# bench_rate LOG SKIP N: deliveries per second of the N access-log lines after the first SKIP,
# (N - 1) / (the N-th one's $msec - the first one's), so what came before the first delivery
# (start-up, the group join) is not in it.
bench_rate() {
  tail -n +$(($2 + 1)) "$1" | head -n "$3" |
    awk -v n="$3" 'NR == 1 { first = $1 } { last = $1 } END { printf "%.0f", (n - 1) / (last - first) }'
}

# bench_courier_start CONFIG LOG: `courier run` in the background; sets bench_courier_pid.
bench_courier_start() {
  HMAC_SECRET=$bench_secret "$bench_courier" run --config "$1" --log-level warn 2>"$2" &
  bench_courier_pid=$!
}

# bench_wait_lines FILE TARGET SECONDS [PATTERN]: until FILE has TARGET lines (matching
# PATTERN, if given); 1 after SECONDS, or when courier (bench_courier_pid) has died.
bench_wait_lines() {
  local deadline=$((SECONDS + $3))
  while (($(bench_log_lines "$1" "${4:-}") < $2)); do
    ((SECONDS < deadline)) || return 1
    [[ -z ${bench_courier_pid:-} ]] || kill -0 "$bench_courier_pid" 2>/dev/null || return 1
    sleep 0.1
  done
}

# bench_cpu_seconds PID: user + system CPU of PID so far (/proc/PID/stat fields 14 and 15).
bench_cpu_seconds() {
  local tck
  tck=$(getconf CLK_TCK)
  # The command name (field 2) may hold spaces: read after its closing parenthesis.
  sed 's/^.*) //' "/proc/$1/stat" | awk -v t="$tck" '{ printf "%.3f", ($12 + $13) / t }'
}

# bench_thread_cpu PID: CPU seconds of PID's threads so far, summed by thread name, one
# "name count seconds" a line, the busiest first.
bench_thread_cpu() {
  local tck task
  tck=$(getconf CLK_TCK)
  for task in /proc/"$1"/task/*; do
    [[ -r $task/stat ]] || continue
    printf '%s ' "$(tr ' ' '_' <"$task/comm")"
    sed 's/^.*) //' "$task/stat" | awk '{ print $12 + $13 }'
  done 2>/dev/null | awk -v t="$tck" '{ n[$1]++; c[$1] += $2 }
    END { for (k in n) printf "%s %d %.2f\n", k, n[k], c[k] / t }' | sort -k3,3nr
}

# bench_ctx_switches PID: context switches of PID's threads so far, voluntary (a thread went to
# sleep) plus involuntary (it was preempted), from /proc/PID/task/*/status.
bench_ctx_switches() {
  cat /proc/"$1"/task/*/status 2>/dev/null |
    awk '$1 == "voluntary_ctxt_switches:" || $1 == "nonvoluntary_ctxt_switches:" { n += $2 } END { print n + 0 }'
}

# bench_hwm_kib PID: peak resident set (VmHWM) of PID in KiB.
bench_hwm_kib() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }

# bench_stop PID SECONDS: SIGTERM, a bounded wait, then SIGKILL.
bench_stop() {
  local deadline=$((SECONDS + $2))
  kill -TERM "$1" 2>/dev/null || return 0
  while kill -0 "$1" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      echo "${bench_name:-bench}: pid $1 still runs $2 s after SIGTERM; SIGKILL" >&2
      kill -KILL "$1" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
  wait "$1" 2>/dev/null || true
}

bench_loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_cpu_ticks: the machine's CPU ticks so far from /proc/stat, "total idle steal" (idle with
# iowait); bench_cpu_share BEFORE: the idle and steal shares since BEFORE (a bench_cpu_ticks),
# so a run on a machine that was busy elsewhere, or whose hypervisor took its cores, shows it.
bench_cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6, $9 }' /proc/stat; }
bench_cpu_share() {
  bench_cpu_ticks | awk -v before="$1" '{
    split(before, b, " "); t = $1 - b[1]
    if (t <= 0) t = 1
    printf "idle %.0f%%, steal %.0f%%", 100 * ($2 - b[2]) / t, 100 * ($3 - b[3]) / t }'
}
