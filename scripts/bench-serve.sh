#!/usr/bin/env bash
# Benchmarks `rff serve` on 127.0.0.1 with wrk (Debian package wrk), bounded in time (about 4 minutes):
#
#   scripts/bench-serve.sh [WORKDIR]        (kept when named; a directory made here is removed unless the run fails; RFF_SERVE_PORT, default 18181; SECONDS_PER_RUN, default 15;
#                                            OVERLOAD_SECONDS, default 60)
#
# 1. fits a regression model on synthetic data with d = 784 inputs and sr-butterfly features, D = 4096 points
#    (rounded up to whole SR rules: 6 × 785 = 4710 points, 9420 cos/sin features);
# 2. single-row requests: the saturation rate (closed loop, 8 connections), then p50/p99 latency with the
#    connections paced to half that rate (the share reached is printed), and next to it the same paced load of
#    requests that do no work (GET /v2/health/live): the latency the machine's network stack and scheduling add
#    to any request, which no server can go below;
# 3. overload: 256 connections paced to twice the saturation rate for OVERLOAD_SECONDS: counts 200, 503, any
#    other 5xx (there must be none) and requests without an answer (wrk's socket errors and timeouts), and the
#    server's resident memory before, every 5 s during (from 10 s in, once the 256 connections are open) and after;
# 4. batches of 1000 rows: rows/s over HTTP, next to rows/s of Model.PredictRows in-process on the same model
#    (go test -bench), alternated in ROUNDS (default 3) pairs of equal length so that both see the same load from
#    other programs; the resident memory after them and at its peak;
# 5. SIGTERM: the server drains and must exit 0.
# It ends with the targets met or missed: p99 ≤ 2 ms at half the saturation rate; batches over HTTP at ≥ 70% of the
# rows/s of PredictRows in-process; under overload no 5xx but 503, every request answered, and resident memory
# growing by less than 10% from 10 s into the overload to its end.
# wrk and the server share the machine's cores; the numbers are for both on one machine. PIN=1 (with at least two
# cores) runs the server on all cores but the first and wrk on the first (taskset), so that the load generator does
# not take the server's cores; the in-process reference of step 4 still uses every core, so PIN is for the
# latencies of steps 2 and 3, not for the batch ratio.
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "bench-serve.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
esac
if [ -n "${1:-}" ]; then
  WORK=$(realpath -m -- "$1") # kept: the user named it
else
  WORK=$(mktemp -d /tmp/rff-bench-serve.XXXXXX)
  made_work=1 # made here: removed at the end
fi
PID=""
on_exit() {
  local status=$?
  if [ -n "$PID" ]; then kill -TERM "$PID" 2> /dev/null || true; fi
  if [ -n "${made_work:-}" ]; then
    if [ "$status" = 0 ]; then rm -rf "$WORK"; else echo "bench-serve.sh: failed; its files (serve.log) are in $WORK" >&2; fi
  fi
}
trap on_exit EXIT
cd "$(dirname "$0")/.."
ROOT=$(pwd)
mkdir -p "$WORK/models"
PORT=${RFF_SERVE_PORT:-18181}
SECS=${SECONDS_PER_RUN:-15}
OVERLOAD=${OVERLOAD_SECONDS:-60}
PIN=${PIN:-0}
server_cpus="" wrk_cpus=""
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then
  server_cpus="taskset -c 1-$(($(nproc) - 1))" wrk_cpus="taskset -c 0"
fi
URL="http://127.0.0.1:$PORT"

if ! command -v wrk > /dev/null; then
  echo "wrk is missing: apt-get update && apt-get install -y wrk" >&2
  exit 1
fi

echo "== build" >&2
go build -o "$WORK/rff" ./cmd/rff
RFF="$WORK/rff"

echo "== data and model (d = 784, sr-butterfly, D = 4096)" >&2
if [ ! -f "$WORK/models/mnistlike.rff" ]; then
  awk -v n=2000 -v d=784 'BEGIN { srand(1)
    for (j = 1; j <= d; j++) printf "p%d,", j; print "y"
    for (i = 0; i < n; i++) { s = 0
      for (j = 1; j <= d; j++) { v = rand(); s += v * ((j % 7) - 3); printf "%.4f,", v }
      printf "%.6f\n", sin(s / 20) } }' > "$WORK/train.csv"
  "$RFF" fit --data "$WORK/train.csv" -D 4096 --rule sr-butterfly --lambda 1e-3 --solver cg --out "$WORK/models/mnistlike.rff" >&2
fi
# request bodies: one row, and 1000 rows, of the training inputs
body() { # rows
  awk -F, -v n="$1" 'NR == 1 { next } NR > n + 1 { exit }
    { for (j = 1; j < NF; j++) { printf "%s%s", sep, $j; sep = "," } }
    END { }' "$WORK/train.csv" |
    awk -v n="$1" '{ printf "{\"inputs\":[{\"name\":\"input\",\"shape\":[%d,784],\"datatype\":\"FP64\",\"data\":[%s]}]}", n, $0 }'
}
body 1 > "$WORK/row1.json"
body 1000 > "$WORK/batch1000.json"

# the wrk script: POSTs BODY_FILE (GETs without it), paces each connection by DELAY_MS, counts status codes, prints one RESULT line
cat > "$WORK/infer.lua" <<'EOF'
if (os.getenv("BODY_FILE") or "") ~= "" then
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
  wrk.body = f:read("*a")
  f:close()
end
local delay_ms = tonumber(os.getenv("DELAY_MS") or "0")
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) ok = 0; s503 = 0; s5xx = 0; other = 0 end
function delay() return delay_ms end
function response(status, headers, body)
  if status == 200 then ok = ok + 1
  elseif status == 503 then s503 = s503 + 1
  elseif status >= 500 then s5xx = s5xx + 1
  else other = other + 1 end
end
function done(summary, latency, requests)
  local a, b, c, d = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    a = a + t:get("ok"); b = b + t:get("s503"); c = c + t:get("s5xx"); d = d + t:get("other")
  end
  local e = summary.errors
  io.write(string.format("RESULT rps=%.1f ok=%d s503=%d s5xx=%d other=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f sock_errors=%d\n",
    summary.requests / (summary.duration / 1e6), a, b, c, d, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.connect + e.read + e.write + e.timeout))
end
EOF
# wrk_run NAME BODY DELAY_MS THREADS CONNECTIONS SECONDS [PATH] → the RESULT fields as shell variables NAME_field
# and NAME_cpu_ms: the server's CPU time (user + system, all threads) per request answered 200. PATH defaults to the
# model's infer endpoint; BODY empty sends GETs.
wrk_run() {
  local name=$1 bodyf=$2 delay=$3 threads=$4 conns=$5 secs=$6 path=${7:-/v2/models/mnistlike/infer} line t0 t1
  t0=$(cpu_ticks "$PID")
  line=$(BODY_FILE="$bodyf" DELAY_MS="$delay" $wrk_cpus wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s -s "$WORK/infer.lua" "$URL$path" | grep '^RESULT')
  t1=$(cpu_ticks "$PID")
  echo "$name: $line" >&2
  for kv in ${line#RESULT }; do eval "${name}_${kv%%=*}=${kv#*=}"; done
  local okv="${name}_ok"
  eval "${name}_cpu_ms=$(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" -v n="${!okv}" 'BEGIN { printf "%.3f", (b - a) * 1000 / hz / (n > 0 ? n : 1) }')"
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
hwm_kib() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }

metric() { # BENCHMARK UNIT
  echo "$INPROC" | awk -v b="$1" -v u="$2" 'index($1, b) == 1 { for (i = 1; i < NF; i++) if ($(i+1) == u) print $i }'
}
echo "== in-process PredictRows (go test -bench)" >&2
(cd "$ROOT" && go test -c -o "$WORK/serve.test" ./serve/)
# bench REGEXP TIME: the test binary's benchmarks, in the package directory, on the model of the benchmark
bench() { (cd "$ROOT/serve" && RFF_SERVE_MODEL="$WORK/models/mnistlike.rff" "$WORK/serve.test" -test.run '^$' -test.bench "$1" -test.benchtime "$2"); }
INPROC=$(bench 'PredictRows|Handler' 3s | tee /dev/stderr)
inproc_rows=$(metric BenchmarkPredictRows/rows=1000- rows/s)
inproc_row1_us=$(echo "$INPROC" | awk '/BenchmarkPredictRows\/rows=1-/ { print $3 / 1000 }')
inproc_row1_cpu=$(metric BenchmarkPredictRows/rows=1- cpu-ms/krow)
inproc_cpu=$(metric BenchmarkPredictRows/rows=1000- cpu-ms/krow)
handler_rows=$(metric BenchmarkHandler/rows=1000- rows/s)
handler_cpu=$(metric BenchmarkHandler/rows=1000- cpu-ms/krow)

echo "== serve" >&2
$server_cpus "$RFF" serve --models "$WORK/models" --addr "127.0.0.1:$PORT" --log-level warn 2> "$WORK/serve.log" &
PID=$!
for _ in $(seq 100); do
  curl -sf "$URL/v2/health/ready" > /dev/null && break
  sleep 0.1
done
curl -sf "$URL/v2/health/ready" > /dev/null

wrk_run warm "$WORK/row1.json" 0 1 4 3
wrk_run sat "$WORK/row1.json" 0 1 8 "$SECS"
# half the saturation rate: 16 connections, each waiting DELAY after an answer, long next to the time a request
# takes, so that the rate offered is close to half the saturation rate however loaded the machine is
half_delay=$(awk -v r="$sat_rps" 'BEGIN { printf "%d", 16 * 1000 / (r / 2) }')
# the server's own latency histogram (rff_serve_request_duration_seconds, from the request read to the response
# written) around the half-rate run: the share of requests it handled within 1 ms and 2.5 ms, next to wrk's view
# (which adds the network stack and the scheduling of both programs)
hist() { curl -s "$URL/metrics" | awk -v le="$1" 'index($0, "rff_serve_request_duration_seconds_bucket{") == 1 && index($0, "route=\"infer\"") && index($0, "le=\"" le "\"") { print $2 }'; }
h1a=$(hist 0.001) h25a=$(hist 0.0025) hall_a=$(hist +Inf)
wrk_run half "$WORK/row1.json" "$half_delay" 1 16 "$SECS"
h1b=$(hist 0.001) h25b=$(hist 0.0025) hall_b=$(hist +Inf)
server_1ms=$(awk -v a="$h1a" -v b="$h1b" -v n0="$hall_a" -v n1="$hall_b" 'BEGIN { printf "%.2f", 100 * (b - a) / (n1 - n0) }')
server_25ms=$(awk -v a="$h25a" -v b="$h25b" -v n0="$hall_a" -v n1="$hall_b" 'BEGIN { printf "%.2f", 100 * (b - a) / (n1 - n0) }')
half_pct=$(awk -v a="$half_rps" -v s="$sat_rps" 'BEGIN { printf "%.0f", 100 * a / s }')
# the floor: the same paced connections sending requests that do no work
wrk_run floor "" "$half_delay" 1 16 "$SECS" /v2/health/live

rss0=$(rss_kib $PID)
over_delay=$(awk -v r="$sat_rps" 'BEGIN { printf "%d", 256 * 1000 / (2 * r) }')
# resident memory every 5 s during the overload
( for _ in $(seq 1 $((OVERLOAD / 5))); do sleep 5; echo "$(rss_kib $PID)"; done ) > "$WORK/rss-over.txt" &
SAMPLER=$!
wrk_run over "$WORK/row1.json" "$over_delay" 2 256 "$OVERLOAD"
wait $SAMPLER || true
sleep 1
rss1=$(rss_kib $PID)
rss_10s=$(sed -n 2p "$WORK/rss-over.txt")
rss_max=$(sort -n "$WORK/rss-over.txt" | tail -1)
rss_samples=$(tr '\n' ' ' < "$WORK/rss-over.txt")
rejected=$(curl -s "$URL/metrics" | awk '/^rff_serve_rejected_total/ { print $2 }')

# batches: ROUNDS × (HTTP for SECS/ROUNDS seconds, then PredictRows in-process for as long), the server idle
# during the in-process runs; the ratio is of the mean rows/s of each
ROUNDS=${ROUNDS:-3}
round_secs=$(( SECS / ROUNDS > 5 ? SECS / ROUNDS : 5 ))
http_sum=0 inproc_sum=0 batch_rounds=""
for r in $(seq "$ROUNDS"); do
  wrk_run "batch$r" "$WORK/batch1000.json" 0 1 2 "$round_secs"
  h=$(eval "echo \$batch${r}_rps")
  i=$(bench 'PredictRows/rows=1000$' "${round_secs}s" | awk '{ for (k = 1; k < NF; k++) if ($(k+1) == "rows/s") print $k }')
  echo "round $r: HTTP $(awk -v h="$h" 'BEGIN { printf "%.0f", h * 1000 }') rows/s, in-process $i rows/s" >&2
  batch_rounds="$batch_rounds $(awk -v h="$h" -v i="$i" 'BEGIN { printf "%.0f/%.0f", h * 1000, i }')"
  http_sum=$(awk -v a="$http_sum" -v h="$h" 'BEGIN { print a + h * 1000 }')
  inproc_sum=$(awk -v a="$inproc_sum" -v i="$i" 'BEGIN { print a + i }')
done
batch_rows=$(awk -v a="$http_sum" -v n="$ROUNDS" 'BEGIN { printf "%.0f", a / n }')
inproc_alt=$(awk -v a="$inproc_sum" -v n="$ROUNDS" 'BEGIN { printf "%.0f", a / n }')
batch_p50_ms=$batch1_p50_ms batch_cpu_ms=$batch1_cpu_ms
rss2=$(rss_kib $PID)
hwm=$(hwm_kib $PID)

kill -TERM $PID
set +e
wait $PID
exit_code=$?
set -e
PID=""

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
cpu="$cpu, family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
load=$(cut -d' ' -f1-3 /proc/loadavg)
growth=$(awk -v a="${rss_10s:-$rss0}" -v b="$rss1" 'BEGIN { printf "%.1f", 100 * (b - a) / a }')
batch_pct=$(awk -v h="$batch_rows" -v i="$inproc_alt" 'BEGIN { printf "%.0f", 100 * h / i }')
verdict() { if [ "$1" = 1 ]; then echo met; else echo MISSED; fi; }
t_p99=$(verdict "$(awk -v p="$half_p99_ms" 'BEGIN { print (p <= 2) }')")
t_batch=$(verdict "$(awk -v p="$batch_pct" 'BEGIN { print (p >= 70) }')")
t_5xx=$(verdict "$(awk -v a="$over_s5xx" 'BEGIN { print (a == 0) }')")
t_ans=$(verdict "$(awk -v a="$over_sock_errors" 'BEGIN { print (a == 0) }')")
t_rss=$(verdict "$(awk -v g="$growth" 'BEGIN { print (g < 10) }')")
cat <<EOF
rff serve benchmark ($(date -u +%Y-%m-%d), $cpu, $(nproc) cores, $(go version | cut -d' ' -f3); wrk on the same machine${server_cpus:+ (server: $server_cpus, wrk: $wrk_cpus)}; load average at the end $load)
model: regression, d = 784, sr-butterfly D = 4096 (4710 points, 9420 features)
single row, saturation (8 connections, closed loop): ${sat_rps} req/s, p50 ${sat_p50_ms} ms, p99 ${sat_p99_ms} ms; server CPU ${sat_cpu_ms} ms per request
single row at about half of it (16 paced connections): ${half_rps} req/s (${half_pct}% of saturation), p50 ${half_p50_ms} ms, p99 ${half_p99_ms} ms; server CPU ${half_cpu_ms} ms per request
  the server's own histogram at half rate: ${server_1ms}% of the requests handled within 1 ms, ${server_25ms}% within 2.5 ms
  the floor, requests that do no work (GET /v2/health/live) paced the same: ${floor_rps} req/s, p50 ${floor_p50_ms} ms, p99 ${floor_p99_ms} ms
  in-process PredictRows, one row: ${inproc_row1_us} µs, CPU ${inproc_row1_cpu} µs
overload, 256 connections paced to 2 × saturation for ${OVERLOAD} s: ${over_ok} × 200, ${over_s503} × 503 (rejected_total ${rejected}), ${over_s5xx} other 5xx, ${over_other} other, ${over_sock_errors} socket errors; p50 ${over_p50_ms} ms, p99 ${over_p99_ms} ms
  resident memory: ${rss0} KiB before the overload; every 5 s during it: ${rss_samples}KiB; ${rss1} KiB after it
batches of 1000 rows over HTTP (2 connections): ${batch_rows} rows/s against ${inproc_alt} rows/s for PredictRows in-process, alternated in ${ROUNDS} rounds of ${round_secs} s (HTTP/in-process per round:${batch_rounds}); first round: p50 ${batch_p50_ms} ms per batch, server CPU ${batch_cpu_ms} ms per batch
  before the server started: in-process PredictRows, 1000 rows: ${inproc_rows} rows/s, CPU ${inproc_cpu} ms per batch; whole handler without the network: ${handler_rows} rows/s, CPU ${handler_cpu} ms per batch
  resident memory after the batches: ${rss2} KiB, peak ${hwm} KiB
SIGTERM: exit code ${exit_code}
targets: p99 ≤ 2 ms at half saturation: ${t_p99} (${half_p99_ms} ms at ${half_pct}%; requests that do no work: ${floor_p99_ms} ms); batches ≥ 70% of in-process: ${t_batch} (${batch_pct}%);
  overload: no 5xx but 503: ${t_5xx}; every request answered: ${t_ans} (${over_sock_errors} socket errors or timeouts);
  resident memory growth < 10% from 10 s into the overload to its end: ${t_rss} (${growth}%; ${rss0} KiB before it, peak ${rss_max} KiB during it)
EOF
[ "$over_s5xx" -eq 0 ] && [ "$exit_code" -eq 0 ]
