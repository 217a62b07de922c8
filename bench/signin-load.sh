#!/usr/bin/env bash
# A plain page's latency while 8 clients (8 users) sign in continuously (bcrypt cost 12), against the
# same page's latency with no sign-ins, in one run of MicroBench.
# Usage: bench/signin-load.sh   (env: DURATION=10, SKIP_BUILD=1 to reuse the last build)
# See bench/README.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${DURATION:-10}"
PORT="${MICRO_PORT:-18082}"

source "$ROOT/bench/lib.sh"
source "$ROOT/bench/micro-bench.sh"
micro_bench_build "$ROOT"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-signin.XXXXXX")"

cd "$ROOT"
MICRO_SESSION_SECRET="$(random_secret)" MICRO_ENV=production PORT="$PORT" \
    "$MICRO_BENCH" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT INT TERM
wait_ready "$PORT" "$SERVER"

# For each of the 8 users, a session and its CSRF token, as the sign-in page gives them to a
# browser.
source "$ROOT/bench/signin-pairs.sh"
signin_pairs "http://127.0.0.1:$PORT" "$OUT"

plain() {
    wrk -t1 -c16 -d"${DURATION}s" --latency "http://127.0.0.1:$PORT/hello" >"$OUT/$1.txt"
}
p99() { awk '/^ +99%/ { print $2 }' "$OUT/$1.txt"; }
rps() { awk '/^Requests\/sec:/ { print $2 }' "$OUT/$1.txt"; }

wrk -t1 -c16 -d3s "http://127.0.0.1:$PORT/hello" >/dev/null
plain quiet
wrk -t1 -c8 -d"$((DURATION + 6))s" -s "$ROOT/bench/signin.lua" "http://127.0.0.1:$PORT/signin" >"$OUT/signins.txt" &
SIGNINS=$!
sleep 3
plain loaded
wait $SIGNINS

QUIET="$(to_ms "$(p99 quiet)")"
LOADED="$(to_ms "$(p99 loaded)")"
echo "| GET /hello (wrk -c16) | req/s | p99 |"
echo "| --- | ---: | ---: |"
echo "| no sign-ins | $(rps quiet) | $(p99 quiet) |"
echo "| 8 clients signing in (cost 12) | $(rps loaded) | $(p99 loaded) |"
echo
echo "Sign-ins answered: $(awk '/requests in/ { print $1 }' "$OUT/signins.txt") in $((DURATION + 6)) s ($(rps signins)/s); not 2xx/3xx: $(awk '/Non-2xx/ { print $5 }' "$OUT/signins.txt" | grep . || echo 0); wrk timeouts: $(awk '/Socket errors/ { gsub(",", ""); print $10 }' "$OUT/signins.txt" | grep . || echo 0)"
echo "$(grep '^Signed in:' "$OUT/signins.txt") (a 303 to / is a sign-in)"
echo "p99 with sign-ins / p99 without: $(awk -v a="$LOADED" -v b="$QUIET" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')x (target <= 2x)"
echo "wrk output in $OUT"
