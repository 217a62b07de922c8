#!/usr/bin/env bash
# Micro's plain-text route against a raw SwiftNIO hello-world server, under wrk.
# Usage: bench/run.sh   (env: DURATION=10 seconds per run, WARMUP=3, ROUNDS=1, CONNECTIONS=64,
#                        SKIP_BUILD=1 to reuse the last release build, SERVER_LOOPS=1 event loops
#                        per server, empty for NIO's default)
# See bench/README.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
ROUNDS="${ROUNDS:-1}"
CONNECTIONS="${CONNECTIONS:-64}"
RAW_PORT="${RAW_PORT:-18080}"
MICRO_PORT="${MICRO_PORT:-18081}"

# Servers on core 0, wrk on core 1 (both on core 0 on a one-core machine).
SERVER_CPU=0
CLIENT_CPU=1
if [ "$(nproc)" -lt 2 ]; then
    echo "warning: one core only; server and wrk share it" >&2
    CLIENT_CPU=0
fi

# One event loop per server, for its one core (server_loops in bench/lib.sh).
source "$ROOT/bench/lib.sh"
server_loops 1
ensure_wrk

if [ "${SKIP_BUILD:-0}" = 1 ]; then
    echo "SKIP_BUILD=1: using the binaries built last time."
else
    echo "Building the bench package (release)..."
    swift build -c release --package-path "$ROOT/bench"
fi
BIN="$(swift build -c release --package-path "$ROOT/bench" --show-bin-path)"

OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-bench.XXXXXX")"
RAW_PID=""
MICRO_PID=""

cleanup() {
    for pid in $RAW_PID $MICRO_PID; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in $RAW_PID $MICRO_PID; do
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT INT TERM

# Both servers run from the repository's root: Micro serves its public/ folder there, so each
# request also pays for the static-file look-up, as in a real app.
cd "$ROOT"
PORT="$RAW_PORT" taskset -c "$SERVER_CPU" "$BIN/RawNioServer" >"$OUT/raw.log" 2>&1 &
RAW_PID=$!
MICRO_SESSION_SECRET="$(random_secret)" MICRO_ENV=production PORT="$MICRO_PORT" taskset -c "$SERVER_CPU" "$BIN/MicroBench" >"$OUT/micro.log" 2>&1 &
MICRO_PID=$!
wait_ready "$RAW_PORT" "$RAW_PID"
wait_ready "$MICRO_PORT" "$MICRO_PID"

# Runs wrk against port $2 and path $4 (extra wrk arguments after), writing its output to
# $OUT/$1-round$3.txt.
load() {
    local name="$1" port="$2" round="$3" path="$4"
    shift 4
    taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" "$@" "http://127.0.0.1:$port$path" >/dev/null
    taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@" \
        "http://127.0.0.1:$port$path" >"$OUT/$name-round$round.txt"
    echo "  $name: $(awk '/^Requests\/sec:/ { print $2 " req/s" }' "$OUT/$name-round$round.txt")"
}

# Fields of one wrk output: req/s p50 p99 errors (socket errors + non-2xx/3xx).
parse() {
    awk '
        /^Requests\/sec:/ { rps = $2 }
        /^ +50%/ { p50 = $2 }
        /^ +99%/ { p99 = $2 }
        /Socket errors:/ { gsub(",", ""); errors += $4 + $6 + $8 + $10 }
        /Non-2xx or 3xx responses:/ { errors += $5 }
        END { printf "%s %s %s %d\n", rps, p50, p99, errors }
    ' "$1"
}

# The round with the most requests per second of a server: its file name.
best() {
    local name="$1" file best_file="" best_rps=0 rps
    for file in "$OUT/$name"-round*.txt; do
        rps="$(awk '/^Requests\/sec:/ { print $2 }' "$file")"
        if awk -v a="$rps" -v b="$best_rps" 'BEGIN { exit !(a > b) }'; then
            best_rps="$rps"
            best_file="$file"
        fi
    done
    echo "$best_file"
}

# A fresh session cookie for /page, from /login. Micro renews a session cookie more than 60 s
# old (its idle window's renewal) and wrk never sends the renewed one back, so each /page run
# takes its own: with an old one every request would re-encrypt the session and set a cookie,
# which a browser's requests do once a minute.
page_cookie() {
    local cookie
    curl -s -o /dev/null -D "$OUT/login-headers" "http://127.0.0.1:$MICRO_PORT/login"
    cookie="$(cookie_in "$OUT/login-headers")"
    [ -n "$cookie" ] || { echo "error: no session cookie from /login" >&2; exit 1; }
    printf '%s' "$cookie"
}
if [ $((WARMUP + DURATION)) -ge 55 ]; then
    echo "warning: WARMUP + DURATION >= 55 s: /page would renew its session cookie on every request" \
        "after the first minute; the figures would not be a browser's" >&2
fi

echo "Load: wrk -t1 -c$CONNECTIONS -d${DURATION}s --latency (after a ${WARMUP}s warm-up), $ROUNDS round(s):"
echo "GET /hello on both servers, and Micro's GET /page (Mustache page in a layout, session read from its cookie);"
echo "servers pinned to CPU $SERVER_CPU (event loops: ${SERVER_LOOPS:-as NIO chooses}), wrk to CPU $CLIENT_CPU; access logging off for both."
for round in $(seq 1 "$ROUNDS"); do
    echo "Round $round:"
    if [ $((round % 2)) -eq 1 ]; then
        load raw "$RAW_PORT" "$round" /hello
        load micro "$MICRO_PORT" "$round" /hello
        COOKIE="$(page_cookie)"
        load page "$MICRO_PORT" "$round" /page -H "Cookie: $COOKIE"
    else
        COOKIE="$(page_cookie)"
        load page "$MICRO_PORT" "$round" /page -H "Cookie: $COOKIE"
        load micro "$MICRO_PORT" "$round" /hello
        load raw "$RAW_PORT" "$round" /hello
    fi
done

# Peak resident memory over the whole run, from the kernel.
peak_rss() {
    awk '/^VmHWM:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$1/status"
}

read -r RAW_RPS RAW_P50 RAW_P99 RAW_ERR < <(parse "$(best raw)")
read -r MICRO_RPS MICRO_P50 MICRO_P99 MICRO_ERR < <(parse "$(best micro)")
read -r PAGE_RPS PAGE_P50 PAGE_P99 PAGE_ERR < <(parse "$(best page)")
RAW_RSS="$(peak_rss "$RAW_PID")"
MICRO_RSS="$(peak_rss "$MICRO_PID")"
RATIO="$(awk -v m="$MICRO_RPS" -v r="$RAW_RPS" 'BEGIN { printf "%.2f", (r > 0 ? m / r : 0) }')"
PAGE_COST="$(awk -v m="$MICRO_RPS" -v p="$PAGE_RPS" 'BEGIN { printf "%.2f", (p > 0 ? m / p : 0) }')"

echo
echo "| server | route | req/s | p50 | p99 | errors | peak RSS |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
echo "| RawNioServer | GET /hello | $RAW_RPS | $RAW_P50 | $RAW_P99 | $RAW_ERR | $RAW_RSS |"
echo "| Micro (MicroBench) | GET /hello | $MICRO_RPS | $MICRO_P50 | $MICRO_P99 | $MICRO_ERR | $MICRO_RSS |"
echo "| Micro (MicroBench) | GET /page | $PAGE_RPS | $PAGE_P50 | $PAGE_P99 | $PAGE_ERR | (same process) |"
echo
echo "Micro/RawNio req/s on /hello: ${RATIO}x (target >= 0.80x)"
echo "Cost of /page relative to /hello (req/s of /hello over /page): ${PAGE_COST}x (target <= 2x)"
echo "errors = socket errors + non-2xx/3xx responses; best of $ROUNDS round(s); wrk output in $OUT"
