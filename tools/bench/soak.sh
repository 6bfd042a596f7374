#!/usr/bin/env bash
# The soak (issue 52, "A soak, because it runs for months"): courier for an hour at half its
# capacity on the real broker (tools/kafka-local) against nginx, in a partner's weather, watching
# for what only shows over hours: memory, file descriptors or threads that grow, deliveries that
# fall behind, a record lost. Not part of `make test`.
#
#   tools/bench/soak.sh                        (make soak: the hour; about 1 h 05 min in all)
#   SOAK_DURATION=420 SOAK_OUTAGE_EVERY=120 SOAK_REBALANCE_EVERY=180 tools/bench/soak.sh
#                                              (every part in about 12 min: 3 outages, 2 rebalances)
#
# The stand: nginx (one worker) answers after SOAK_LATENCY_MS (20) ms of echo_sleep, and 503 to
# SOAK_FAIL_PERCENT (5) % of the requests, each drawn on its own (split_clients on $request_id:
# BENCH_NGINX_FAIL_PERCENT in tools/bench/lib.sh). Two courier instances, A and B, in one
# consumer group on an 8-partition topic, max_in_flight SOAK_MAX_IN_FLIGHT (32) each, so the
# capacity is max_in_flight over a record's time in flight (the receiver's 20 ms, the 503s'
# retries, the receipt's round trip to the broker: about half the bound 2 x 32 / 20 ms here), not
# whatever CPU the two shared cores leave. The route writes receipts (routes[].receipts_topic), so
# `courier audit` can prove the end.
#
# 1. Capacity: SOAK_CAPACITY_SECONDS (60) worth of records at that bound, produced unpaced while
#    both instances run; the capacity is their nginx 200s from the first to the last, as
#    tools/bench/paced.sh measures it. The soak's rate is half of it (SOAK_RATE instead skips
#    this step). That backlog drains before the soak starts.
# 2. The soak: SOAK_DURATION (3600) s of records at that rate, each produced when due (python
#    feeding kcat). Every SOAK_OUTAGE_EVERY (600) s nginx answers 503 to everything for
#    SOAK_OUTAGE_FOR (default min(60, SOAK_OUTAGE_EVERY / 6)) s: the partner is down. Every
#    SOAK_REBALANCE_EVERY (900) s B gets SIGTERM (a leave: its partitions move to A; SIGKILL after
#    30 s) and starts again (a join; ready within 60 s).
# 3. Every SOAK_SAMPLE_EVERY (10; 5 in a run under 30 minutes) s, per instance: VmRSS and
#    Threads (/proc/PID/status), open fds (/proc/PID/fd) and how many of them are connections to
#    nginx, courier's counters from /metrics (consumed, delivered, retried, dead-lettered, in
#    flight, its partitions' lag); and the accounting: records produced so far, nginx's 200s and
#    503s. One CSV row per instance and
#    sample: samples.csv; the outages and rebalances: events.csv.
# 4. The end: the producer stops; within SOAK_DRAIN_TIMEOUT (600: beyond the 5m retry tier) s
#    every record must be delivered or parked (`courier audit`: nothing pending, nothing waiting
#    in a tier or redriven), and `courier audit` must exit 0 (no record unaccounted) and count
#    every record produced.
# 5. The verdict (tools/bench/soak_fit.py): a least-squares slope of each of A's RSS, open fds
#    (but its connections to nginx, which the pool opens and closes with the load), threads, and
#    of the backlog (produced - nginx 200s), projected over the run (slope x SOAK_DURATION). It
#    fails when that rise is over the tolerance: RSS max(SOAK_RSS_TOLERANCE_PCT (10) % of its
#    median, SOAK_RSS_TOLERANCE_MIB (16) MiB), fds SOAK_FD_TOLERANCE (2), threads
#    SOAK_THREAD_TOLERANCE (2), the backlog SOAK_BACKLOG_TOLERANCE_S (10) s of the rate; or when
#    fewer than 6 samples are left to fit. It fails too when an instance ever holds more
#    connections to nginx than http.max_connections (a socket never closed would).
#    The fits use the steady samples: after the warm-up (SOAK_WARMUP: the first 1/6 of the run,
#    600 s of the hour; and at least through the first outage and its settle time, whose backlog
#    sets the allocator's plateau: RSS steps up once), not during an outage nor within
#    SOAK_SETTLE (default 2 x SOAK_OUTAGE_FOR + 20) s after one (its backlog drains at the spare
#    half of the capacity once the breaker's probe got through), not during a rebalance nor
#    within SOAK_REBALANCE_SETTLE (30) s after B is ready again. What leaks stays leaked, so it
#    shows in the steady samples after the disturbance that leaked it.
#    Which instance: A alone is judged. It is never restarted, so its samples are one process
#    lifetime, and it goes through every outage and, at each rebalance, loses and regains
#    partitions. B is restarted every SOAK_REBALANCE_EVERY s: its lifetimes are plotted and their
#    slopes printed, not judged (samples of two processes are never fitted together).
#
# Output in SOAK_OUT (default build/soak/): samples.csv, events.csv, soak.svg (the plot),
# audit.txt, verdict.txt, courier-A.log, courier-B.log. The verdict lines go to stdout too; exit
# 1 on failure. Courier runs from a copy of COURIER_BIN, so a rebuild meanwhile changes nothing.
#
# Environment: SOAK_DURATION (300..86400), SOAK_OUTAGE_EVERY (0: none, or 60..86400),
# SOAK_OUTAGE_FOR, SOAK_REBALANCE_EVERY (0: none, or 60..86400), SOAK_SAMPLE_EVERY (2..60),
# SOAK_RATE, SOAK_CAPACITY_SECONDS (10..600), SOAK_LATENCY_MS (0..1000), SOAK_FAIL_PERCENT
# (0..50), SOAK_MAX_IN_FLIGHT (1..4096), SOAK_WARMUP, SOAK_SETTLE, SOAK_REBALANCE_SETTLE,
# SOAK_DRAIN_TIMEOUT (30..7200), the tolerances above, SOAK_OUT, SOAK_KAFKA_PORT (19592) and
# SOAK_NGINX_PORT (18580) (not the benchmarks' ports, so a soak can run beside them),
# SOAK_ADMIN_PORT (19581: A's admin listener; B's is the next), COURIER_BIN. Everything listens
# on loopback; every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_name=soak
BENCH_KAFKA_PORT=${SOAK_KAFKA_PORT:-19592}
BENCH_NGINX_PORT=${SOAK_NGINX_PORT:-18580}
# shellcheck source=tools/bench/lib.sh
source tools/bench/lib.sh

duration=${SOAK_DURATION:-3600}
outage_every=${SOAK_OUTAGE_EVERY:-600}
rebalance_every=${SOAK_REBALANCE_EVERY:-900}
sample_every=${SOAK_SAMPLE_EVERY:-$((duration >= 1800 ? 10 : 5))}
capacity_seconds=${SOAK_CAPACITY_SECONDS:-60}
latency_ms=${SOAK_LATENCY_MS:-20}
fail_percent=${SOAK_FAIL_PERCENT:-5}
in_flight=${SOAK_MAX_IN_FLIGHT:-32}
drain_timeout=${SOAK_DRAIN_TIMEOUT:-600}
admin_port=${SOAK_ADMIN_PORT:-19581}
out=${SOAK_OUT:-build/soak}
rate=${SOAK_RATE:-}
bench_is_uint "$duration" 300 86400 || bench_die "SOAK_DURATION: 300..86400, not '$duration'"
bench_is_uint "$outage_every" 0 86400 && ((outage_every == 0 || outage_every >= 60)) ||
  bench_die "SOAK_OUTAGE_EVERY: 0 or 60..86400, not '$outage_every'"
bench_is_uint "$rebalance_every" 0 86400 && ((rebalance_every == 0 || rebalance_every >= 60)) ||
  bench_die "SOAK_REBALANCE_EVERY: 0 or 60..86400, not '$rebalance_every'"
outage_for=${SOAK_OUTAGE_FOR:-$((outage_every / 6 < 60 ? outage_every / 6 : 60))}
bench_is_uint "$outage_for" 0 3600 && ((outage_every == 0 || outage_for < outage_every)) ||
  bench_die "SOAK_OUTAGE_FOR: 0..3600 and shorter than SOAK_OUTAGE_EVERY, not '$outage_for'"
bench_is_uint "$sample_every" 2 60 || bench_die "SOAK_SAMPLE_EVERY: 2..60, not '$sample_every'"
bench_is_uint "$capacity_seconds" 10 600 || bench_die "SOAK_CAPACITY_SECONDS: 10..600, not '$capacity_seconds'"
bench_is_uint "$latency_ms" 0 1000 || bench_die "SOAK_LATENCY_MS: 0..1000, not '$latency_ms'"
bench_is_uint "$fail_percent" 0 50 || bench_die "SOAK_FAIL_PERCENT: 0..50, not '$fail_percent'"
bench_is_uint "$in_flight" 1 4096 || bench_die "SOAK_MAX_IN_FLIGHT: 1..4096, not '$in_flight'"
bench_is_uint "$drain_timeout" 30 7200 || bench_die "SOAK_DRAIN_TIMEOUT: 30..7200, not '$drain_timeout'"
bench_is_uint "$admin_port" 1024 65534 || bench_die "SOAK_ADMIN_PORT: 1024..65534, not '$admin_port'"
[[ -z $rate ]] || bench_is_uint "$rate" 1 200000 || bench_die "SOAK_RATE: 1..200000, not '$rate'"
warmup=${SOAK_WARMUP:-$((duration / 6 < 600 ? duration / 6 : 600))}
settle=${SOAK_SETTLE:-$((2 * outage_for + 20))}
rebalance_settle=${SOAK_REBALANCE_SETTLE:-30}
bench_is_uint "$warmup" 0 $((duration - 60)) || bench_die "SOAK_WARMUP: 0..SOAK_DURATION - 60, not '$warmup'"
bench_is_uint "$settle" 0 3600 || bench_die "SOAK_SETTLE: 0..3600, not '$settle'"
bench_is_uint "$rebalance_settle" 0 3600 || bench_die "SOAK_REBALANCE_SETTLE: 0..3600, not '$rebalance_settle'"
partitions=8
topic=soak.shipments.v1
receipts=soak.shipments.receipts

bench_work=$(mktemp -d "${TMPDIR:-/tmp}/courier-soak-XXXXXX")
bench_courier=${COURIER_BIN:-build/release/app/courier}
bench_setup_env
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/{samples.csv,events.csv,soak.svg,audit.txt,verdict.txt,courier-A.log,courier-B.log}
note() { echo "soak: $*" >&2; }

# Whatever runs in the background: the producer, the outage and rebalance loops, the instances.
# B's current process and its lifetime (1, then one more at each restart) are one line "PID LIFE"
# in b.proc, replaced whole, so a sample never pairs a process with another's lifetime.
producer_pid="" kcat_pid="" outage_pid="" rebalance_pid="" a_pid=""
b_pid() { cut -d' ' -f1 "$bench_work/b.proc" 2>/dev/null || true; }
b_life() { cut -d' ' -f2 "$bench_work/b.proc" 2>/dev/null || true; }
b_set() { echo "$1 $2" >"$bench_work/b.proc.tmp" && mv "$bench_work/b.proc.tmp" "$bench_work/b.proc"; }
soak_cleanup() {
  local pid
  for pid in $outage_pid $rebalance_pid $producer_pid $kcat_pid; do kill "$pid" 2>/dev/null || true; done
  for pid in $a_pid $(b_pid); do kill "$pid" 2>/dev/null || true; done
  cp "$bench_work/courier-A.log" "$bench_work/courier-B.log" "$out/" 2>/dev/null || true
  bench_cleanup
}
trap soak_cleanup EXIT
bench_need nginx kcat python3 curl
# A copy: the build tree may be rebuilt during the hour, and B is started again from it.
cp "$bench_courier" "$bench_work/courier"
bench_courier=$bench_work/courier
ulimit -n 16384 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# soak_alive PID: the process runs (a zombie, which kill -0 still finds, does not).
soak_alive() { [[ -r /proc/$1/status ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
# soak_stop PID SECONDS: SIGTERM, a bounded wait, then SIGKILL (bench_stop, by /proc: the
# restarted B is not a child of the shell that stops it next).
soak_stop() {
  local deadline=$((SECONDS + $2))
  kill -TERM "$1" 2>/dev/null || return 0
  while soak_alive "$1"; do
    if ((SECONDS >= deadline)); then
      note "pid $1 still runs $2 s after SIGTERM; SIGKILL"
      kill -KILL "$1" 2>/dev/null || true
      sleep 1
      break
    fi
    sleep 0.2
  done
}
# soak_start NAME: `courier run` in the background with NAME's admin listener (A: admin_port,
# B: the next), its stderr appended to courier-NAME.log; sets soak_pid.
soak_port() { [[ $1 == A ]] && echo "$admin_port" || echo $((admin_port + 1)); }
soak_start() {
  HMAC_SECRET=$bench_secret "$bench_courier" run --config "$bench_work/courier.json" \
    --admin-listen "127.0.0.1:$(soak_port "$1")" --log-level warn >/dev/null 2>>"$bench_work/courier-$1.log" &
  soak_pid=$!
}
# soak_wait_ready NAME PID SECONDS: until NAME's /readyz answers 200; 1 after SECONDS or when it died.
soak_wait_ready() {
  local deadline=$((SECONDS + $3))
  until [[ $(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$(soak_port "$1")/readyz") == 200 ]]; do
    ((SECONDS < deadline)) && soak_alive "$2" || return 1
    sleep 0.2
  done
}
now() { echo "${EPOCHREALTIME/,/.}"; }
# The soak's clock: seconds since its start (t0), one decimal.
rel() { awk -v n="$(now)" -v t0="$t0" 'BEGIN { printf "%.1f", n - t0 }'; }
# sleep_until EPOCH: a bounded sleep (at most an hour) until that moment.
sleep_until() {
  local s
  s=$(awk -v t="$1" -v n="$(now)" 'BEGIN { d = t - n; if (d < 0) d = 0; if (d > 3600) d = 3600; printf "%.2f", d }')
  sleep "$s"
}
event() { echo "$(rel),$1" >>"$out/events.csv"; note "t=$(rel) s: $1"; }

# The stand.
chmod 755 "$bench_work"  # nginx's worker (www-data) must see the outage flag
outage_flag=$bench_work/outage
BENCH_NGINX_FAIL_PERCENT=$fail_percent BENCH_NGINX_OUTAGE_FILE=$outage_flag bench_nginx_start "$latency_ms"
url=http://127.0.0.1:$bench_nginx_port/flaky/$latency_ms
((fail_percent > 0)) || url=$(bench_url "$latency_ms")
bench_kafka_start
BENCH_ROUTE_EXTRA="\"receipts_topic\": \"$receipts\"" \
  bench_write_config "$bench_work/courier.json" "soak-$$" "$topic" "$url" "$in_flight" "$in_flight"
HMAC_SECRET=$bench_secret "$bench_courier" topics ensure --config "$bench_work/courier.json" --partitions "$partitions" >/dev/null
delivered() { bench_log_lines "$bench_access_log" ' 200$'; }

soak_start A
a_pid=$soak_pid
soak_wait_ready A "$a_pid" 60 || { tail -n 5 "$bench_work/courier-A.log" >&2; bench_die "courier A not ready within 60 s"; }
soak_start B
b_set "$soak_pid" 1
soak_wait_ready B "$soak_pid" 60 || { tail -n 5 "$bench_work/courier-B.log" >&2; bench_die "courier B not ready within 60 s"; }
# The group's second join: let it settle before the capacity is measured.
sleep 5

value=$(bench_value 256)
produced_before=0
bound=$(awk -v f="$in_flight" -v l="$latency_ms" 'BEGIN { printf "%d", 2 * f / ((l > 0 ? l : 1) / 1000) }')
if [[ -z $rate ]]; then
  n=$((bound * capacity_seconds))
  ((n <= 2000000)) || n=2000000
  note "capacity: $n records unpaced ($capacity_seconds s at the Little bound $bound/s: 2 instances x $in_flight in flight / $latency_ms ms), $fail_percent% 503s"
  seq 1 "$n" | sed "s/.*/$value/" |
    timeout 300 kcat -P -b "$bench_bootstrap" -t "$topic" -X linger.ms=20 -X batch.num.messages=10000
  limit=$((capacity_seconds * 10 + 60))
  bench_wait_lines "$bench_access_log" "$n" "$limit" ' 200$' ||
    bench_die "capacity: $(delivered) of the $n records delivered within $limit s"
  capacity=$(grep ' 200$' "$bench_access_log" | head -n "$n" |
    awk -v n="$n" 'NR == 1 { first = $1 } { last = $1 } END { printf "%.0f", (n - 1) / (last - first) }')
  rate=$((capacity / 2))
  bench_is_uint "$rate" 1 200000 || bench_die "half the capacity is $rate/s, outside 1..200000"
  produced_before=$n
  # The 200s counted duplicates too: the backlog is gone once they stop coming (at most 60 s).
  last=-1
  for ((i = 0; i < 30; i++)); do
    now_200=$(delivered)
    ((now_200 != last)) || break
    last=$now_200
    sleep 2
  done
  note "capacity: $capacity deliveries/s (nginx 200s, first to last); the soak runs at $rate records/s"
else
  capacity=""
  note "SOAK_RATE: $rate records/s (capacity not measured)"
fi

# The producer: RATE records a second for DURATION seconds, each written to kcat when due; the
# count so far in produced.txt (rewritten every 0.1 s), so a sample reads it.
mkfifo "$bench_work/produce.fifo"
timeout $((duration + 120)) kcat -P -b "$bench_bootstrap" -t "$topic" -X linger.ms=5 \
  -X enable.idempotence=true -X acks=all <"$bench_work/produce.fifo" &
kcat_pid=$!
echo 0 >"$bench_work/produced.txt"
base_200=$(delivered)
base_503=$(bench_log_lines "$bench_access_log" ' 503$')
t0=$(now)
python3 - "$rate" "$duration" "$value" "$bench_work/produced.txt" >"$bench_work/produce.fifo" <<'PY' &
import os, sys, time
rate, secs, line, count_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] + "\n", sys.argv[4]
start, sent, out, next_note = time.monotonic(), 0, sys.stdout, 0.1
def note_count():
    with open(count_file + ".tmp", "w") as f:
        f.write("%d\n" % sent)
    os.replace(count_file + ".tmp", count_file)
while True:
    elapsed = time.monotonic() - start
    if elapsed >= secs:
        break
    due = int(elapsed * rate)
    if due > sent:
        out.write(line * (due - sent))
        out.flush()
        sent = due
    if elapsed >= next_note:  # every 0.1 s on a fixed grid, so a sample reads it 0-0.1 s old
        note_count()
        next_note += 0.1
    time.sleep(0.002)
out.write(line * (rate * secs - sent))
out.flush()
sent = rate * secs
note_count()
PY
producer_pid=$!
echo "t,kind" >"$out/events.csv"
note "the soak: $duration s at $rate records/s; outage every ${outage_every} s for ${outage_for} s; rebalance every ${rebalance_every} s; a sample every $sample_every s"

# The partner's outages: nginx answers 503 while the flag exists.
if ((outage_every > 0 && outage_for > 0)); then
  (
    for ((at = outage_every; at < duration; at += outage_every)); do
      sleep_until "$(awk -v t="$t0" -v a="$at" 'BEGIN { printf "%.3f", t + a }')"
      touch "$outage_flag"
      event outage_start
      sleep_until "$(awk -v t="$t0" -v a=$((at + outage_for)) 'BEGIN { printf "%.3f", t + a }')"
      rm -f "$outage_flag"
      event outage_end
    done
  ) &
  outage_pid=$!
fi
# The rebalances: B leaves (SIGTERM) and joins again.
if ((rebalance_every > 0)); then
  (
    for ((at = rebalance_every; at < duration; at += rebalance_every)); do
      sleep_until "$(awk -v t="$t0" -v a="$at" 'BEGIN { printf "%.3f", t + a }')"
      event rebalance_stop
      life=$(b_life)
      soak_stop "$(b_pid)" 30
      soak_start B
      b_set "$soak_pid" $((life + 1))
      event rebalance_start
      if soak_wait_ready B "$soak_pid" 60; then event rebalance_ready; else event rebalance_not_ready; fi
    done
  ) &
  rebalance_pid=$!
fi

# The samples. The accounting columns are the stand's (the same on both rows of a sample); the
# others are the instance's. Empty when the instance was not there to sample.
# soak_receiver_conns PID: PID's TCP sockets to the receiver (nginx's port), in any state.
soak_receiver_conns() {
  local port_hex
  printf -v port_hex '%04X' "$bench_nginx_port"
  { find "/proc/$1/fd" -lname 'socket:*' -printf '%l\n' 2>/dev/null | sed 's/^socket:\[\(.*\)\]$/\1/'
    echo --
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; } |
    awk -v p=":$port_hex" '$0 == "--" { table = 1; next } !table { mine[$1] = 1; next }
      substr($3, length($3) - 4) == p && ($10 in mine) { n++ } END { print n + 0 }'
}
sample_instance() {  # NAME PID LIFE T ACCOUNTING
  local rss="" fds="" conns="" threads="" m=""
  if soak_alive "$2"; then
    rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$2/status" 2>/dev/null || true)
    threads=$(awk '$1 == "Threads:" { print $2 }' "/proc/$2/status" 2>/dev/null || true)
    fds=$(ls "/proc/$2/fd" 2>/dev/null | wc -l || true)
    conns=$(soak_receiver_conns "$2" || true)
    m=$(curl -s -m 2 "http://127.0.0.1:$(soak_port "$1")/metrics" 2>/dev/null |
      awk -v topic="$topic" '
        /^courier_records_consumed_total\{/ { c += $NF }
        /^courier_deliveries_total\{.*outcome="delivered"/ { d += $NF }
        /^courier_deliveries_total\{.*outcome="retried"/ { r += $NF }
        /^courier_deliveries_total\{.*outcome="dead_lettered"/ { x += $NF }
        /^courier_in_flight\{/ { f += $NF }
        /^courier_breaker_state\{/ { b = $NF }
        /^courier_consumer_lag\{/ && index($0, "topic=\"" topic "\"") { lag += $NF }
        END { if (NR > 0) printf "%d,%d,%d,%d,%d,%d,%s", c, d, r, x, f, lag, b; else printf ",,,,,," }' || true)
  fi
  [[ -n $m ]] || m=",,,,,,"
  echo "$4,$1,$2,$3,$5,$rss,$fds,$conns,$threads,$m" >>"$out/samples.csv"
}
echo "t,instance,pid,life,outage,produced,nginx_200,nginx_503,backlog,rss_kib,fds,receiver_conns,threads,consumed,delivered,retried,dead_lettered,in_flight,lag,breaker" >"$out/samples.csv"
samples=$((duration / sample_every))
for ((k = 1; k <= samples; k++)); do
  sleep_until "$(awk -v t="$t0" -v a=$((k * sample_every)) 'BEGIN { printf "%.3f", t + a }')"
  t=$(rel)
  produced=$(cat "$bench_work/produced.txt")
  ok=$(($(delivered) - base_200))
  failed=$(($(bench_log_lines "$bench_access_log" ' 503$') - base_503))
  acct="$([[ -e $outage_flag ]] && echo 1 || echo 0),$produced,$ok,$failed,$((produced - ok))"
  soak_alive "$a_pid" || { tail -n 5 "$bench_work/courier-A.log" >&2; bench_die "courier A exited at t=$t s"; }
  sample_instance A "$a_pid" 1 "$t" "$acct"
  read -r bp bl <"$bench_work/b.proc"
  sample_instance B "$bp" "$bl" "$t" "$acct"
  if ((k % 30 == 0)); then
    note "t=$t s: produced $produced, delivered (nginx 200) $ok, 503s $failed; A RSS $(awk '$1 == "VmRSS:" { printf "%.1f MiB", $2 / 1024 }' "/proc/$a_pid/status")"
  fi
done

# The end: the loops are done by now (their last event is before the end); wait for them, bounded.
for pid in $outage_pid $rebalance_pid $producer_pid; do
  deadline=$((SECONDS + 120))
  while soak_alive "$pid" && ((SECONDS < deadline)); do sleep 0.5; done
  kill "$pid" 2>/dev/null || true
done
outage_pid="" rebalance_pid="" producer_pid=""
rm -f "$outage_flag"
produced=$(($(cat "$bench_work/produced.txt") + produced_before))
deadline=$((SECONDS + 120))
while soak_alive "$kcat_pid" && ((SECONDS < deadline)); do sleep 0.5; done
kcat_pid=""

# The drain: every record delivered or parked, by `courier audit` (nothing pending, nothing
# waiting in a tier, nothing redriven on its way back), within SOAK_DRAIN_TIMEOUT.
note "drain: $produced records produced; waiting up to $drain_timeout s for the backlog"
drain_start=$SECONDS
drained=0
audit() {
  local rc=0
  timeout 600 "$bench_courier" audit --config "$bench_work/courier.json" --route shipments >"$bench_work/audit.txt" 2>&1 || rc=$?
  echo "$rc"
}
# First nginx's 200s (cheap), at most 120 s; then the audit every 10 s (it reads every topic).
bench_wait_lines "$bench_access_log" $((base_200 + produced - produced_before)) 120 ' 200$' || true
while :; do
  audit_rc=$(audit)
  total=$(grep -m1 '^  total: ' "$bench_work/audit.txt" || true)
  # "total: N records: D delivered, W waiting in a tier, ..., R redriven, P pending, U unaccounted"
  if [[ -n $total ]] && awk '{ for (i = 2; i <= NF; i++) {
        if ($i == "waiting") w = $(i - 1); if ($i == "redriven,") r = $(i - 1); if ($i == "pending,") p = $(i - 1) } }
      END { exit !(w == 0 && p == 0 && r == 0) }' <<<"$total"; then
    drained=1
    break
  fi
  ((SECONDS - drain_start < drain_timeout)) || break
  sleep 10
done
drain_seconds=$((SECONDS - drain_start))
cp "$bench_work/audit.txt" "$out/audit.txt"
note "audit: $(sed -n 's/^  total: //p' "$out/audit.txt")"

{
  printf 'soak: %s, checkout %s, %s cores; ' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    "$(git rev-parse --short HEAD 2>/dev/null || echo '?')" "$(nproc)"
  printf '%s s at %s records/s%s, %s ms receiver, %s%% 503s, 2 instances x %s in flight, ' \
    "$duration" "$rate" "${capacity:+ (half the measured capacity $capacity/s)}" "$latency_ms" "$fail_percent" "$in_flight"
  printf '%s partitions; outage every %s s for %s s, rebalance every %s s\n' \
    "$partitions" "$outage_every" "$outage_for" "$rebalance_every"
} >"$out/verdict.txt"
fit_rc=0
python3 tools/bench/soak_fit.py --samples "$out/samples.csv" --events "$out/events.csv" --svg "$out/soak.svg" \
  --duration "$duration" --warmup "$warmup" --settle "$settle" --rebalance-settle "$rebalance_settle" --rate "$rate" \
  --rss-pct "${SOAK_RSS_TOLERANCE_PCT:-10}" --rss-mib "${SOAK_RSS_TOLERANCE_MIB:-16}" \
  --fds "${SOAK_FD_TOLERANCE:-2}" --max-connections "$in_flight" --threads "${SOAK_THREAD_TOLERANCE:-2}" \
  --backlog-seconds "${SOAK_BACKLOG_TOLERANCE_S:-10}" >>"$out/verdict.txt" || fit_rc=$?
failed=$((fit_rc != 0))
total=$(sed -n 's/^  total: //p' "$out/audit.txt")
if ((drained)); then
  echo "soak: drain: the backlog drained ${drain_seconds} s after the producer stopped ($produced records produced): ok" >>"$out/verdict.txt"
else
  echo "soak: drain: NOT drained within $drain_timeout s after the producer stopped ($produced produced): FAIL" >>"$out/verdict.txt"
  failed=1
fi
audit_records=$(awk '{ print $1 }' <<<"$total")
if [[ $audit_rc == 0 && $audit_records == "$produced" ]]; then
  echo "soak: audit: $total: ok" >>"$out/verdict.txt"
else
  echo "soak: audit: exit $audit_rc, ${total:-no total line} ($produced produced): FAIL" >>"$out/verdict.txt"
  failed=1
fi
if ((failed)); then echo "soak: FAIL" >>"$out/verdict.txt"; else echo "soak: PASS" >>"$out/verdict.txt"; fi
cat "$out/verdict.txt"
note "samples, events, plot, audit and logs in $out"
soak_stop "$a_pid" 30
soak_stop "$(b_pid)" 30
a_pid=""
((failed == 0))
